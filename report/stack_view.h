/* stack_view.h - upstream retsnoop's call-stack view: the logical (traced)
 * stack merged with the captured kernel stack, BPF trampoline/program
 * frames filtered, rendered with per-table column widths. The build step
 * is separate from printing so tests can check the merge itself. */
#ifndef RS_STACK_VIEW_H
#define RS_STACK_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "symbolize.h"

struct args_list;

struct sv_opts {
	int args_mode;     /* -A: enum args_fmt_mode of the frames' arguments */
	bool emit_addrs;   /* stacks.emit-addrs */
	bool dec_offs;     /* stacks.dec-offs */
	bool unfiltered;   /* stacks.unfiltered */
};

/* one logical frame, outermost first */
struct sv_frame {
	const char *name;
	uint32_t flags;      /* enum rs_func_flags */
	int64_t res;         /* raw return register */
	uint64_t lat_ns;
	bool unfinished;     /* still running (interim snapshot) */
	bool stitched;       /* from a saved deeper error chain */
	const struct args_list *args;   /* -A: its captured arguments, or NULL */
};

enum sv_row_kind {
	SV_ROW_KERNEL,       /* kernel stack frame with no traced function */
	SV_ROW_COMBINED,     /* traced function found in the kernel stack */
	SV_ROW_MISSING,      /* traced function absent from the kernel stack: `!` */
	SV_ROW_INLINE,       /* inlined frame of the row above */
	SV_ROW_SEP,          /* separator line (sym holds its label): user frames follow */
	SV_ROW_USER,         /* user-space frame (ustack_view.c) */
};

struct sv_row {
	enum sv_row_kind kind;
	bool stitched;
	bool filtered;       /* BPF frame kept because of stacks.unfiltered */
	bool has_addr;
	uint64_t addr;
	char dur[24];
	char res[40];
	char sym[200];
	char src[400];
	const struct args_list *args;   /* -A: compact after the row, else rows below */
};

struct sv_table {
	struct sv_row *rows;
	size_t n, cap;
	int args_mode;       /* enum args_fmt_mode */
};

/* one recorded kernel stack entry as the stack view sees it */
struct sv_kframe {
	uint64_t addr;
	int kidx;            /* its index in the recorded kstack (0 = innermost) */
	bool resolved;       /* si is valid */
	bool bpf;            /* BPF trampoline / program / stack helper */
	bool filtered;       /* hidden unless stacks.unfiltered */
	struct symb_info si;
};

/* The merge behind the view, for other outputs too: symbolizes
 * kstack[0..nk) (innermost first, zero entries skipped) into kf[],
 * outermost first, marks the BPF frames filtered, and sets match[j] to
 * the index in kf[] of the kernel frame logical frame j is shown on, or -1
 * when that traced function is not on the kernel stack (a `!` row).
 * kf needs room for nk entries; returns how many it filled. */
int stack_view_merge(struct symbolizer *sym, const struct sv_frame *lf, int nl,
		     const uint64_t *kstack, int nk, struct sv_kframe *kf, int *match);

/* kstack: kernel stack, innermost first, runtime addresses */
int stack_view_build(struct sv_table *t, struct symbolizer *sym,
		     const struct sv_frame *lf, int nl,
		     const uint64_t *kstack, int nk, const struct sv_opts *o);
void stack_view_print(FILE *out, const struct sv_table *t);
/* one more (cleared) row of the given kind, or NULL when out of memory */
struct sv_row *sv_add_row(struct sv_table *t, enum sv_row_kind kind);
void sv_table_free(struct sv_table *t);

/* name checks used by the filter (exposed for tests) */
bool sv_is_bpf_prog(const char *name);
bool sv_is_stack_helper(const char *name);

#endif
