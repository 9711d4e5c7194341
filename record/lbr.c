/* lbr.c - per-CPU perf events that keep LBR recording for -B (lbr.h). */
#include "record/lbr.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int lbr_open(struct lbr_events *l, uint64_t branch_flags, bool has_snapshot,
	     char *why, size_t whylen)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	memset(l, 0, sizeof(*l));
	if (!has_snapshot) {
		snprintf(why, whylen, "the kernel lacks bpf_get_branch_snapshot() (needs Linux 5.16+)");
		return -1;
	}
	if (ncpu <= 0)
		ncpu = 1;
	l->fds = calloc((size_t)ncpu, sizeof(int));
	if (!l->fds) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for (long cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_attr attr;
		int fd;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_CPU_CYCLES;
		attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
		attr.branch_sample_type = PERF_SAMPLE_BRANCH_KERNEL | branch_flags;
		fd = (int)syscall(__NR_perf_event_open, &attr, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			int e = errno;

			if (e == ENODEV && cpu > 0)   /* offline CPU */
				continue;
			snprintf(why, whylen, "opening a branch-sampling perf event on CPU %ld failed: %s (%s)%s",
				 cpu, strerrorname_np(e) ? strerrorname_np(e) : "?", strerror(e),
				 e == ENOENT || e == EOPNOTSUPP ?
				 ": no hardware PMU with LBR here (a VM without LBR virtualization, or a non-Intel CPU)" : "");
			lbr_close(l);
			return -1;
		}
		l->fds[l->n++] = fd;
	}
	return 0;
}

void lbr_close(struct lbr_events *l)
{
	for (int i = 0; i < l->n; i++)
		close(l->fds[i]);
	free(l->fds);
	memset(l, 0, sizeof(*l));
}
