/* stop_signal.h - the one "stop requested" flag of a recording: set by
 * SIGINT/SIGTERM, read by the attach loops (give up early) and the capture
 * loop (finish). Its own file so that attach and capture both read it
 * without depending on each other. */
#ifndef RS_STOP_SIGNAL_H
#define RS_STOP_SIGNAL_H

#include <stdbool.h>

/* installs the SIGINT/SIGTERM handlers that request a clean stop; called
 * before attaching so that a signal during a long attach is not lost (an
 * ignored SIGINT, as in a shell's background job, is overridden too) */
void stop_catch_signals(void);
/* requests a stop as a signal would (e.g. the file cannot be written any
 * more) */
void stop_request(void);
/* a stop was requested */
bool stop_requested(void);

#endif
