/* spawn.h - `-- CMD ARGS...`: start the command stopped at a gate so the
 * probes are attached before it runs, then release it and reap it. */
#ifndef RS_SPAWN_H
#define RS_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct spawned {
	pid_t pid;
	int gate_fd;        /* write end: one byte releases the child */
	bool exited;
	int status;         /* exit code, or 128+signal */
};

int spawn_gated(struct spawned *s, char **argv, char *err, size_t errlen);
/* where execvp would find NAME along PATH (a colon-separated list; NULL:
 * execvp's default), malloc'ed; NULL when NAME has a '/' or is not found
 * (execvp then runs or fails as it would) */
char *spawn_path_lookup(const char *name, const char *path);
/* lets the child exec; -1 with the reason in err when it could not be
 * released or its exec failed (the child then exits 127) */
int spawn_release(struct spawned *s, char *err, size_t errlen);
/* non-blocking; true once the child has exited (status filled) */
bool spawn_poll(struct spawned *s);
void spawn_kill(struct spawned *s);

#endif
