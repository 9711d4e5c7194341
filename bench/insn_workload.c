/* insn_workload.c - the workload of bench/insn_profile.sh, built static at a
 * fixed address (the driver links its text at 0x10000000):
 *
 *   insn_workload fail|ok N KSYMS_OUT
 *
 * copies /proc/kallsyms to KSYMS_OUT (while the tracer is attached, so that
 * its BPF programs and trampolines are named there), then runs the marker
 * rs_insn_mark(), N openat() calls as bench/bench_tool.c's loop does them
 * (failing: a missing directory, ENOENT; succeeding: a tmpfs file, closed
 * again), and the marker again. bench/qemu_insn_plugin.c writes the
 * instruction counts at each marker, so the second window holds the loop
 * alone. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the marker: its own page, so that its address is the start of a block */
__attribute__((noinline, aligned(4096))) void rs_insn_mark(void)
{
	__asm__ volatile("" ::: "memory");
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	ssize_t k = 0;

	if (in < 0 || out < 0) {
		fprintf(stderr, "insn_workload: %s: %s\n", in < 0 ? from : to, strerror(errno));
		return -1;
	}
	while ((k = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)k) != k) {
			k = -1;
			break;
		}
	close(in);
	if (close(out) < 0 || k < 0) {
		fprintf(stderr, "insn_workload: copying %s to %s failed\n", from, to);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *ok_path = "/tmp/bench_tool.file";
	const char *bad_path = "/bench-tool-no-such-dir/file";
	long n;
	int ok;

	if (argc != 4 || (strcmp(argv[1], "ok") && strcmp(argv[1], "fail"))) {
		fprintf(stderr, "usage: insn_workload fail|ok N KSYMS_OUT\n");
		return 2;
	}
	ok = !strcmp(argv[1], "ok");
	n = atol(argv[2]);
	if (ok) {
		int fd = open(ok_path, O_CREAT | O_WRONLY, 0600);

		if (fd < 0 || close(fd) < 0) {
			fprintf(stderr, "insn_workload: creating %s: %s\n", ok_path, strerror(errno));
			return 1;
		}
	}
	if (copy_file("/proc/kallsyms", argv[3]))
		return 1;
	rs_insn_mark();
	for (long i = 0; i < n; i++) {
		int fd = openat(AT_FDCWD, ok ? ok_path : bad_path, O_RDONLY);

		if (ok) {
			if (fd < 0) {
				fprintf(stderr, "insn_workload: openat %s: %s\n", ok_path, strerror(errno));
				return 1;
			}
			close(fd);
		} else if (fd >= 0 || errno != ENOENT) {
			fprintf(stderr, "insn_workload: openat %s did not fail with ENOENT\n", bad_path);
			return 1;
		}
	}
	rs_insn_mark();
	return 0;
}
