/* cpu_hop.c - VM test workload (tests/vm/scenarios.sh): one thread whose
 * traced syscalls meet the recorder's per-CPU session cache from CPU after
 * CPU. Each round makes two failing openat() calls on one CPU (the second
 * session of a thread on the CPU of its first), then a sched_setaffinity()
 * to the next CPU, which moves the thread inside that syscall: its session
 * starts on one CPU and ends on another.
 *
 *   cpu_hop N     N rounds (1..10000)
 *
 * Prints "cpu_hop: R rounds, O failed opens, M moves on C CPUs" and exits 0
 * when every openat failed with ENOENT and every move landed on its CPU;
 * 1 otherwise, 2 on usage errors. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int cpus[CPU_SETSIZE], ncpu = 0, rounds, opens = 0, moves = 0;
	cpu_set_t allowed, one;
	char *end;

	if (argc != 2 || (rounds = (int)strtol(argv[1], &end, 10), *end) || rounds < 1 || rounds > 10000) {
		fprintf(stderr, "usage: cpu_hop ROUNDS (1..10000)\n");
		return 2;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		fprintf(stderr, "cpu_hop: sched_getaffinity: %s\n", strerror(errno));
		return 1;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[ncpu++] = c;
	if (ncpu < 2) {
		fprintf(stderr, "cpu_hop: needs two CPUs, has %d\n", ncpu);
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		int to = cpus[(r + 1) % ncpu];

		for (int k = 0; k < 2; k++) {
			long rc = syscall(__NR_openat, AT_FDCWD, "/nonexistent/cpu_hop", O_RDONLY);

			if (rc >= 0 || errno != ENOENT) {
				fprintf(stderr, "cpu_hop: openat did not fail with ENOENT\n");
				return 1;
			}
			opens++;
		}
		CPU_ZERO(&one);
		CPU_SET(to, &one);
		if (sched_setaffinity(0, sizeof(one), &one) || sched_getcpu() != to) {
			fprintf(stderr, "cpu_hop: could not move to CPU %d\n", to);
			return 1;
		}
		moves++;
	}
	printf("cpu_hop: %d rounds, %d failed opens, %d moves on %d CPUs\n", rounds, opens, moves, ncpu);
	return 0;
}
