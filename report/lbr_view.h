/* lbr_view.h - upstream retsnoop's LBR view (-B): the session's branch
 * records (index 0 = most recent) filtered to those at or before the
 * first one touching the deepest traced function, printed oldest first as
 * `[#NN] from -> to` with symbols, source lines and inlined-frame
 * continuation rows (when the symbolizer has a DWARF backend). */
#ifndef RS_LBR_VIEW_H
#define RS_LBR_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "symbolize.h"

struct lv_opts {
	bool emit_addrs;   /* stacks.emit-addrs: 16-hex address before each symbol */
	bool dec_offs;     /* stacks.dec-offs */
	bool unfiltered;   /* stacks.unfiltered: no relevance filtering */
	int max_count;     /* fmt.lbr-max-count: 0 = all */
};

struct lv_side {
	char sym[200];
	char src[400];
	int ninl;
	char inl_sym[SYMB_MAX_INLINES][160];
	char inl_src[SYMB_MAX_INLINES][400];
};

struct lv_row {
	int idx;             /* index in the captured stack (0 = most recent) */
	struct lv_side from, to;
};

struct lv_table {
	struct lv_row *rows;   /* oldest first */
	int n;
	bool relevant;         /* a branch of the deepest function was found */
	int boundary;          /* index of that branch (0 when not found) */
};

/* e/n: captured entries; func_addr: runtime address of the deepest traced
 * function of the stack (0: unknown, nothing is relevant). Returns 0 or -1
 * (out of memory). */
int lbr_view_build(struct lv_table *t, struct symbolizer *s, const struct rs_lbr_entry *e, int n,
		   uint64_t func_addr, const struct lv_opts *o);
/* rows, then the unfiltered-fallback notice when nothing was relevant */
void lbr_view_print(FILE *out, const struct lv_table *t);
void lv_table_free(struct lv_table *t);

/* the whole view for one session: rec NULL = the LBR record was dropped;
 * negative lbrs_sz = capture error */
void lbr_view_render(FILE *out, struct symbolizer *s, const struct rs_rec_lbr *rec,
		     uint64_t func_addr, const struct lv_opts *o);

#endif
