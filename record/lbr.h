/* lbr.h - Last Branch Record capture (-B): one perf event per CPU with
 * branch sampling keeps the LBR running so the BPF exit handler can take a
 * bpf_get_branch_snapshot(); says why when the machine has no LBR. */
#ifndef RS_LBR_H
#define RS_LBR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lbr_events {
	int *fds;
	int n;
};

/* Returns 0 when LBR is running; otherwise -1 with why (one line) and
 * nothing left open. has_snapshot: bpf_get_branch_snapshot() exists. */
int lbr_open(struct lbr_events *l, uint64_t branch_flags, bool has_snapshot,
	     char *why, size_t whylen);
void lbr_close(struct lbr_events *l);

#endif
