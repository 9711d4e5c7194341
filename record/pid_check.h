/* pid_check.h - what a -p process id names when the recording starts: a
 * process that does not exist, or a thread that is not its process's
 * leader (the filter compares process ids), is said before recording
 * instead of leaving the user waiting for sessions that cannot come. */
#ifndef RS_PID_CHECK_H
#define RS_PID_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* 1 and why into msg when -p pid matches no process now, else 0 (it names
 * a process, or procfs could not tell); procfs: where proc is mounted */
int pid_check(const char *procfs, uint32_t pid, char *msg, size_t len);

#endif
