/* bench_tool.c - the guest side of bench/record_overhead.sh and
 * bench/insn_profile.sh, built static:
 *
 *   bench_tool loop fail|ok N [KSYMS_OUT [CMD]]
 *                               N openat() calls that fail (ENOENT, a missing
 *                               directory) or succeed (a tmpfs file, closed
 *                               again); prints "ns_per_syscall X" (wall
 *                               time) and "cpu_ns_per_syscall Y" (the
 *                               thread's own CPU time). The loop runs
 *                               between two calls of the marker
 *                               rs_insn_mark(), at which
 *                               bench/qemu_insn_plugin.c writes its counts;
 *                               KSYMS_OUT: /proc/kallsyms copied there
 *                               first (with the tracer attached: its
 *                               programs are named there), then CMD run
 *                               through sh -c (insn_profile.sh's JIT=1:
 *                               bench/jit_images.c)
 *   bench_tool run CMD ARGS...  runs CMD and prints "wall_ms X maxrss_kb Y
 *                               bpf_map_kb Z cpu_ms C rc R": wall time, the
 *                               child's peak RSS and CPU time, user and
 *                               system (wait4: its own and its waited-for
 *                               children's), and the largest sum of its BPF
 *                               maps' memlock seen while it ran (fdinfo,
 *                               sampled every 10 ms)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* the calling thread's own CPU time: its user and kernel time, the
 * probes it runs included, not that of other tasks sharing its CPU (a
 * tracer's reader) */
static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* the marker: its own page, so that its address starts a block; a no-op */
__attribute__((noinline, aligned(4096))) void rs_insn_mark(void)
{
	__asm__ volatile("" ::: "memory");
}

/* not inlined, its buffer not on the stack: the loop's stack (what -U
 * copies above the stack pointer) stays as it was without the copy */
static __attribute__((noinline)) int copy_file(const char *from, const char *to)
{
	static char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	ssize_t k = 0;

	if (in < 0 || out < 0) {
		fprintf(stderr, "bench_tool: %s: %s\n", in < 0 ? from : to, strerror(errno));
		return -1;
	}
	while ((k = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)k) != k) {
			k = -1;
			break;
		}
	close(in);
	if (close(out) < 0 || k < 0) {
		fprintf(stderr, "bench_tool: copying %s to %s failed\n", from, to);
		return -1;
	}
	return 0;
}

static int do_loop(const char *kind, long n, const char *ksyms_out, const char *cmd)
{
	const char *ok_path = "/tmp/bench_tool.file";
	const char *bad_path = "/bench-tool-no-such-dir/file";
	int ok = strcmp(kind, "ok") == 0;
	long long t0, c0;

	if (!ok && strcmp(kind, "fail") != 0) {
		fprintf(stderr, "bench_tool: loop wants 'fail' or 'ok', not '%s'\n", kind);
		return 2;
	}
	if (ok) {
		int fd = open(ok_path, O_CREAT | O_WRONLY, 0600);

		if (fd < 0 || close(fd) < 0) {
			fprintf(stderr, "bench_tool: creating %s: %s\n", ok_path, strerror(errno));
			return 1;
		}
	}
	if (ksyms_out && copy_file("/proc/kallsyms", ksyms_out))
		return 1;
	if (cmd && system(cmd) != 0) {
		fprintf(stderr, "bench_tool: '%s' failed\n", cmd);
		return 1;
	}
	rs_insn_mark();
	t0 = now_ns();
	c0 = thread_cpu_ns();
	for (long i = 0; i < n; i++) {
		int fd = openat(AT_FDCWD, ok ? ok_path : bad_path, O_RDONLY);

		if (ok) {
			if (fd < 0) {
				fprintf(stderr, "bench_tool: openat %s: %s\n", ok_path, strerror(errno));
				return 1;
			}
			close(fd);
		} else if (fd >= 0 || errno != ENOENT) {
			fprintf(stderr, "bench_tool: openat %s did not fail with ENOENT\n", bad_path);
			return 1;
		}
	}
	c0 = thread_cpu_ns() - c0;
	t0 = now_ns() - t0;
	rs_insn_mark();
	printf("ns_per_syscall %.1f\n", (double)t0 / (double)n);
	printf("cpu_ns_per_syscall %.1f\n", (double)c0 / (double)n);
	return 0;
}

/* sum of the memlock of PID's BPF map fds, in KiB */
static long long map_kb(pid_t pid)
{
	char path[64], line[256];
	long long sum = 0;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		long long memlock = 0;
		int is_map = 0, fd;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY);
		if (fd < 0)
			continue;
		f = fdopen(fd, "r");
		if (!f) {
			close(fd);
			continue;
		}
		while (fgets(line, sizeof(line), f)) {
			if (strncmp(line, "map_type:", 9) == 0)
				is_map = 1;
			else if (strncmp(line, "memlock:", 8) == 0)
				memlock = atoll(line + 8);
		}
		fclose(f);
		if (is_map)
			sum += memlock;
	}
	closedir(d);
	return sum / 1024;
}

static int do_run(char **argv)
{
	long long t0 = now_ns(), maps = 0;
	struct rusage ru;
	int status = 0;
	pid_t pid, w;

	pid = fork();
	if (pid < 0) {
		perror("bench_tool: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "bench_tool: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	for (;;) {
		long long kb = map_kb(pid);

		if (kb > maps)
			maps = kb;
		w = wait4(pid, &status, WNOHANG, &ru);
		if (w == pid)
			break;
		if (w < 0) {
			perror("bench_tool: wait4");
			return 1;
		}
		usleep(10000);
	}
	printf("wall_ms %.1f maxrss_kb %ld bpf_map_kb %lld cpu_ms %.1f rc %d\n",
	       (double)(now_ns() - t0) / 1e6, ru.ru_maxrss, maps,
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && argc <= 6 && strcmp(argv[1], "loop") == 0)
		return do_loop(argv[2], atol(argv[3]), argc >= 5 ? argv[4] : NULL,
			       argc == 6 ? argv[5] : NULL);
	if (argc >= 3 && strcmp(argv[1], "run") == 0)
		return do_run(argv + 2);
	fprintf(stderr, "usage: bench_tool loop fail|ok N [KSYMS_OUT [CMD]] | bench_tool run CMD [ARGS...]\n");
	return 2;
}
