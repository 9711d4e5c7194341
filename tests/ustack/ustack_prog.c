/* ustack_prog.c - test program for -U (tests/vm/ustack.sh): failing
 * syscalls made from known functions two and three calls deep, built
 * without frame pointers (-O2 -g -fomit-frame-pointer), statically
 * (build/ustack_prog_static: glibc's code is in the binary) and
 * dynamically (build/ustack_prog_dyn). Every function is noinline and
 * uses its callee's result, so no call is a tail call. Installed nowhere.
 *
 *   ustack_prog open    main -> load_config -> open_config_file -> openat (ENOENT)
 *   ustack_prog write   main -> send_packet -> write_frame -> write (EBADF)
 *   ustack_prog all     both
 * An optional second argument: milliseconds to stay alive afterwards;
 * then "exec PROG ARGS..." replaces the process with PROG (same pid, new
 * mappings). Prints one line per call with its result; exits 0. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

/* keeps the compiler from folding or moving calls: results go here */
volatile int sink;

NOINLINE int open_config_file(const char *path)
{
	int fd = openat(AT_FDCWD, path, O_RDONLY);

	sink = fd;
	return fd < 0 ? -errno : fd;
}

NOINLINE int load_config(const char *dir)
{
	char path[256];
	int r;

	snprintf(path, sizeof(path), "%s/ustack-missing.conf", dir);
	r = open_config_file(path);
	sink = r;
	return r + 0 * sink;
}

NOINLINE long write_frame(int fd, const char *buf, size_t len)
{
	long n = write(fd, buf, len);

	sink = (int)n;
	return n < 0 ? -errno : n;
}

NOINLINE long send_packet(int fd, const char *msg)
{
	long r = write_frame(fd, msg, strlen(msg));

	sink = (int)r;
	return r + 0 * sink;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	long r;

	if (!strcmp(what, "open") || !strcmp(what, "all")) {
		r = load_config("/nonexistent-ustack-dir");
		printf("load_config: %ld\n", r);
	}
	if (!strcmp(what, "write") || !strcmp(what, "all")) {
		r = send_packet(-1, "ping");
		printf("send_packet: %ld\n", r);
	}
	fflush(stdout);
	if (argc > 2)
		usleep((useconds_t)atoi(argv[2]) * 1000);
	if (argc > 4 && !strcmp(argv[3], "exec")) {
		execv(argv[4], argv + 4);
		perror("execv");
		return 1;
	}
	return sink == 12345;
}
