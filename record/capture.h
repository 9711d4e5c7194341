/* capture.h - the ring-buffer loop: hands every BPF record to a sink
 * (the file writer, and in the live tool also the renderer) until
 * SIGINT/SIGTERM or the spawned command exits; periodic tick for flushes
 * and status lines. */
#ifndef RS_CAPTURE_H
#define RS_CAPTURE_H

#include <stdbool.h>
#include "bpf/retsnoop_abi.h"
#include "record/attach.h"
#include "record/spawn.h"

struct capture_sink {
	/* returns 0, or <0 to stop capturing (e.g. a write error; the sink
	 * reports it: capture_run then leaves its err message empty) */
	int (*on_record)(void *ctx, const struct rs_rec_hdr *rec, size_t size);
	/* about once a second */
	void (*on_tick)(void *ctx);
	/* about four times a second (status line); may be NULL */
	void (*on_status)(void *ctx);
	void *ctx;
};

/* installs the SIGINT/SIGTERM handlers that request a clean stop; called
 * before attaching so that a signal during a long attach is not lost (an
 * ignored SIGINT, as in a shell's background job, is overridden too) */
void capture_catch_signals(void);
/* asks capture_run to stop as a signal would (e.g. the sink's file cannot
 * be written any more) */
void capture_request_stop(void);
/* a stop was requested: attach loops give up early, capture ends */
bool capture_stopping(void);
/* runs until a stop is requested (handlers from capture_catch_signals) or
 * the spawned child exits; child may be NULL */
int capture_run(struct tracer *t, struct spawned *child, const struct capture_sink *sink,
		char *err, size_t errlen);
/* records the ring buffer consumer saw with an impossible size */
unsigned long capture_bad_records(void);

#endif
