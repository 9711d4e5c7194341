/* spawn.c - gated child process for `-- CMD` (spawn.h). */
#include "record/spawn.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char *spawn_path_lookup(const char *name, const char *path)
{
	size_t nlen = strlen(name);

	if (!nlen || strchr(name, '/'))
		return NULL;
	if (!path)
		path = "/bin:/usr/bin";   /* execvp's default */
	for (;;) {
		const char *end = strchrnul(path, ':');
		size_t dlen = (size_t)(end - path);
		char *full = malloc(dlen + nlen + 3);
		struct stat st;

		if (!full)
			return NULL;
		/* an empty entry is the current directory, as for execvp */
		snprintf(full, dlen + nlen + 3, "%.*s/%s", dlen ? (int)dlen : 1, dlen ? path : ".",
			 name);
		if (!stat(full, &st) && S_ISREG(st.st_mode) && !access(full, X_OK))
			return full;
		free(full);
		if (!*end)
			return NULL;
		path = end + 1;
	}
}

int spawn_gated(struct spawned *s, char **argv, char *err, size_t errlen)
{
	int gate[2], report[2];
	/* found along PATH now: the child's one execve is the command's own
	 * (each PATH entry execvp tried would be a failing execve of the
	 * traced process, a session for -e '*sys_execve') */
	char *path = spawn_path_lookup(argv[0], getenv("PATH"));
	char c;
	ssize_t n;

	memset(s, 0, sizeof(*s));
	if (pipe2(gate, O_CLOEXEC) || pipe2(report, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		free(path);
		return -1;
	}
	s->pid = fork();
	if (s->pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		free(path);
		return -1;
	}
	if (s->pid == 0) {
		int e;

		close(gate[1]);
		close(report[0]);
		/* wait for the tracer; EOF (tracer died) means do not run */
		if (read(gate[0], &c, 1) != 1)
			_exit(126);
		execvp(path ? path : argv[0], argv);   /* execvp: a script without #! runs in sh */
		e = errno;
		if (write(report[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	free(path);
	close(gate[0]);
	close(report[1]);
	s->gate_fd = gate[1];
	/* keep the exec-report pipe: checked after release */
	s->status = report[0];
	(void)n;
	return 0;
}

int spawn_release(struct spawned *s, char *err, size_t errlen)
{
	char c = 'g';
	int e = 0, rfd = s->status, ret = 0;

	if (write(s->gate_fd, &c, 1) != 1) {
		snprintf(err, errlen, "releasing the command: %s", strerror(errno));
		ret = -1;
	}
	close(s->gate_fd);
	s->gate_fd = -1;
	if (read(rfd, &e, sizeof(e)) == (ssize_t)sizeof(e)) {
		snprintf(err, errlen, "cannot run the command: %s", strerror(e));
		ret = -1;
	}
	close(rfd);
	s->status = 0;
	return ret;
}

bool spawn_poll(struct spawned *s)
{
	int st;
	pid_t r;

	if (s->exited || s->pid <= 0)
		return s->exited;
	r = waitpid(s->pid, &st, WNOHANG);
	if (r == s->pid) {
		s->exited = true;
		s->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	return s->exited;
}

void spawn_kill(struct spawned *s)
{
	if (s->pid > 0 && !s->exited) {
		if (s->gate_fd >= 0)
			close(s->gate_fd);  /* gate EOF: the child exits without running */
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		s->exited = true;
	}
}
