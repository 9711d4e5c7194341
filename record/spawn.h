/* spawn.h - `-- CMD ARGS...`: start the command stopped at a gate so the
 * probes are attached before it runs, then release it and reap it. */
#ifndef RS_SPAWN_H
#define RS_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

struct spawned {
	pid_t pid;
	int gate_fd;        /* write end: one byte releases the child */
	bool exited;
	int status;         /* exit code, or 128+signal */
};

int spawn_gated(struct spawned *s, char **argv, char *err, size_t errlen);
void spawn_release(struct spawned *s);
/* non-blocking; true once the child has exited (status filled) */
bool spawn_poll(struct spawned *s);
void spawn_kill(struct spawned *s);

#endif
