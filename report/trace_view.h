/* trace_view.h - upstream retsnoop's function-call trace view (-T): one
 * row per entry (`→`) / exit (`←`) record of a session, entry+exit pairs
 * with consecutive sequence ids collapsed into one `↔` row, a visible
 * `‼ ... missing N records ...` row for every gap in sequence ids, and
 * per-table column widths. Building is separate from printing so tests
 * can check rows and layout independently. */
#ifndef RS_TRACE_VIEW_H
#define RS_TRACE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "../format/rsfile.h"

#define TV_MAX_INDENT_LEVELS 20   /* deeper calls are drawn at this indentation */

enum tv_row_kind {
	TV_ROW_ENTRY,      /* → name */
	TV_ROW_EXIT,       /* ← name  [res]  dur */
	TV_ROW_LEAF,       /* ↔ name  [res]  dur */
	TV_ROW_GAP,        /* ‼ ... missing N records ... */
	TV_ROW_PROBE,      /* ◎ kprobe:NAME+0xOFF (a -J hit), one level inside
			    * the innermost running call */
};

struct tv_row {
	enum tv_row_kind kind;
	uint32_t seq_id;     /* first seq id of the row (gap: first missing one) */
	uint32_t missing;    /* gap rows: how many records */
	uint32_t func_id;    /* entry / exit / leaf rows */
	char sym[384];       /* indentation, glyph, name (bytes, UTF-8) */
	char res[40];
	char dur[32];
};

struct tv_table {
	struct tv_row *rows;
	size_t n, cap;
	/* -J hits merged in by sequence id (set before trace_view_build):
	 * the session's probe records and the recording's "probes" blob */
	const struct rs_rec_probe *const *probes;
	size_t nprobes;
	const void *probes_blob;
	size_t probes_size;
};

/* recs: the session's trace records (RS_REC_TRACE_ENTRY/EXIT) in arrival
 * order; only records with seq_id <= last_seq_id are shown (interim
 * snapshots), and a trailing gap up to last_seq_id is shown too.
 * funcs: the recording's traced-function table (names, result flags).
 * Returns 0, or -1 when out of memory. */
int trace_view_build(struct tv_table *t, const struct rs_rec_trace *recs, size_t n,
		     const struct rsf_func *funcs, size_t nfuncs, uint32_t last_seq_id);
/* header, dashes line and rows */
void trace_view_print(FILE *out, const struct tv_table *t);

/* -A: the captured arguments of the call entered at SEQ_ID (function
 * FUNC_ID) rendered into L (L NULL: only whether it has any); false when
 * the call has none */
struct args_list;
typedef bool (*tv_args_fn)(void *ctx, uint32_t seq_id, uint32_t func_id, struct args_list *l);
/* -J: the context of the probe hit with SEQ_ID (same contract as tv_args_fn) */
typedef bool (*tv_probe_ctx_fn)(void *ctx, uint32_t seq_id, struct args_list *l);
struct tv_args {
	tv_args_fn fn;
	tv_probe_ctx_fn probe_fn;   /* context of probe rows, or NULL */
	void *ctx;
	int mode;            /* enum args_fmt_mode */
};
/* trace_view_print with the arguments of entry and leaf rows: in compact
 * mode a CONTEXT column after DURATION, else rows under the call's row */
void trace_view_print_args(FILE *out, const struct tv_table *t, const struct tv_args *a);
void tv_table_free(struct tv_table *t);

#endif
