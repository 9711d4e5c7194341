/* trace_view.c - builds and prints the function-call trace view (see
 * trace_view.h): 4-space indentation per depth (capped), `→`/`←`/`↔`
 * glyphs, results via result_fmt, `%.3fus` durations and gap rows for
 * lost records, in upstream retsnoop's column layout. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "../common/array_grow.h"
#include "args_render.h"
#include "result_fmt.h"
#include "trace_view.h"
#include "../format/probe_table.h"

#define GLYPH_ENTRY "\u2192"
#define GLYPH_EXIT  "\u2190"
#define GLYPH_LEAF  "\u2194"
#define GLYPH_GAP   "\u203c"
#define GLYPH_PROBE "\u25ce"

static struct tv_row *add_row(struct tv_table *t, enum tv_row_kind kind, uint32_t seq_id)
{
	struct tv_row *r;

	if (array_grow((void **)&t->rows, t->n, &t->cap, sizeof(*t->rows), 64))
		return NULL;
	r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->seq_id = seq_id;
	return r;
}

static int indent_of(unsigned depth)
{
	int lvl = depth ? (int)depth - 1 : 0;

	if (lvl > TV_MAX_INDENT_LEVELS)
		lvl = TV_MAX_INDENT_LEVELS;
	return lvl * 4;
}

static void func_desc(const struct rsf_func *funcs, size_t nfuncs, uint32_t id,
		      const char **name, uint32_t *flags, char *unk, size_t unklen)
{
	if (id < nfuncs && funcs[id].name) {
		*name = funcs[id].name;
		*flags = funcs[id].flags;
	} else {
		snprintf(unk, unklen, "<func#%u>", id);
		*name = unk;
		*flags = 0;
	}
}

static int add_gap(struct tv_table *t, uint32_t first, uint32_t missing, unsigned depth)
{
	struct tv_row *r = add_row(t, TV_ROW_GAP, first);

	if (!r)
		return -1;
	r->missing = missing;
	snprintf(r->sym, sizeof(r->sym), "%*s" GLYPH_GAP " ... missing %u record%s ...",
		 indent_of(depth), "", missing, missing == 1 ? "" : "s");
	snprintf(r->res, sizeof(r->res), "...");
	snprintf(r->dur, sizeof(r->dur), "...");
	return 0;
}

static void fill_exit(struct tv_row *r, const struct rs_rec_trace *x, uint32_t flags)
{
	result_fmt(r->res, sizeof(r->res), x->res, flags);
	snprintf(r->dur, sizeof(r->dur), "%.3fus", (double)x->lat_ns / 1000.0);
}

/* the -J hits (t->probes from *pi on) with sequence ids below LIMIT and
 * up to LAST_SEQ_ID, each a row one level inside the running call */
static int add_probes(struct tv_table *t, size_t *pi, uint64_t limit, uint32_t last_seq_id,
		      uint64_t *expected, unsigned *last_depth)
{
	for (; *pi < t->nprobes && t->probes[*pi]->seq_id < limit; (*pi)++) {
		const struct rs_rec_probe *p = t->probes[*pi];
		unsigned depth = p->depth + 1u;
		struct tv_row *r;
		char unk[32];

		if (p->seq_id > last_seq_id)
			continue;
		if (p->seq_id > *expected &&
		    add_gap(t, (uint32_t)*expected, p->seq_id - (uint32_t)*expected, depth))
			return -1;
		r = add_row(t, TV_ROW_PROBE, p->seq_id);
		if (!r)
			return -1;
		snprintf(r->sym, sizeof(r->sym), "%*s" GLYPH_PROBE " %s", indent_of(depth), "",
			 rsf_probe_name(t->probes_blob, t->probes_size, p->probe_id, unk, sizeof(unk)));
		*last_depth = depth;
		if ((uint64_t)p->seq_id + 1 > *expected)
			*expected = (uint64_t)p->seq_id + 1;
	}
	return 0;
}

int trace_view_build(struct tv_table *t, const struct rs_rec_trace *recs, size_t n,
		     const struct rsf_func *funcs, size_t nfuncs, uint32_t last_seq_id)
{
	uint64_t expected = 0;     /* next seq id we should see */
	unsigned last_depth = 1;
	size_t pi = 0;             /* next -J hit */

	for (size_t i = 0; i < n; i++) {
		const struct rs_rec_trace *e = &recs[i];
		const struct rs_rec_trace *x = i + 1 < n ? &recs[i + 1] : NULL;
		bool is_entry = e->hdr.type == RS_REC_TRACE_ENTRY;
		const char *name;
		uint32_t flags;
		char unk[32];
		struct tv_row *r;

		if (e->seq_id > last_seq_id)
			continue;
		if (add_probes(t, &pi, e->seq_id, last_seq_id, &expected, &last_depth))
			return -1;
		if (e->seq_id > expected &&
		    add_gap(t, (uint32_t)expected, e->seq_id - (uint32_t)expected, e->depth))
			return -1;
		func_desc(funcs, nfuncs, e->func_id, &name, &flags, unk, sizeof(unk));
		if (is_entry && x && x->hdr.type == RS_REC_TRACE_EXIT && x->func_id == e->func_id &&
		    x->depth == e->depth && x->seq_id == e->seq_id + 1 && x->seq_id <= last_seq_id) {
			r = add_row(t, TV_ROW_LEAF, e->seq_id);
			if (!r)
				return -1;
			r->func_id = e->func_id;
			snprintf(r->sym, sizeof(r->sym), "%*s" GLYPH_LEAF " %s", indent_of(e->depth), "", name);
			fill_exit(r, x, flags);
			i++;
			e = x;
		} else {
			r = add_row(t, is_entry ? TV_ROW_ENTRY : TV_ROW_EXIT, e->seq_id);
			if (!r)
				return -1;
			r->func_id = e->func_id;
			snprintf(r->sym, sizeof(r->sym), "%*s%s %s", indent_of(e->depth), "",
				 is_entry ? GLYPH_ENTRY : GLYPH_EXIT, name);
			if (!is_entry)
				fill_exit(r, e, flags);
		}
		last_depth = e->depth;
		if ((uint64_t)e->seq_id + 1 > expected)
			expected = (uint64_t)e->seq_id + 1;
	}
	if (add_probes(t, &pi, UINT64_MAX, last_seq_id, &expected, &last_depth))
		return -1;
	if ((uint64_t)last_seq_id + 1 > expected &&
	    add_gap(t, (uint32_t)expected, (uint32_t)((uint64_t)last_seq_id + 1 - expected), last_depth))
		return -1;
	return 0;
}

static void dashes(FILE *out, int n)
{
	for (int i = 0; i < n; i++)
		fputc('-', out);
}

/* an entry or leaf row's arguments into L (false: none) */
static bool row_args(const struct tv_row *r, const struct tv_args *a, struct args_list *l)
{
	if (a && a->probe_fn && r->kind == TV_ROW_PROBE) {
		if (a->probe_fn(a->ctx, r->seq_id, l) && l->n)
			return true;
		args_list_free(l);
		return false;
	}
	if (!a || !a->fn || (r->kind != TV_ROW_ENTRY && r->kind != TV_ROW_LEAF))
		return false;
	if (a->fn(a->ctx, r->seq_id, r->func_id, l) && l->n)
		return true;
	args_list_free(l);
	return false;
}

/* does any row show arguments in a CONTEXT column (compact mode)? */
static bool has_context(const struct tv_table *t, const struct tv_args *a)
{
	if (!a || (!a->fn && !a->probe_fn) || a->mode != ARGS_FMT_COMPACT)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		const struct tv_row *r = &t->rows[i];

		if (r->kind == TV_ROW_PROBE && a->probe_fn && a->probe_fn(a->ctx, r->seq_id, NULL))
			return true;
		if (!a->fn)
			continue;

		if ((r->kind == TV_ROW_ENTRY || r->kind == TV_ROW_LEAF) &&
		    a->fn(a->ctx, r->seq_id, r->func_id, NULL))
			return true;
	}
	return false;
}

static void print_row(FILE *out, const struct tv_row *r, int wsym, int wres, int wdur,
		      const struct tv_args *a)
{
	char line[sizeof(r->sym) + sizeof(r->res) + sizeof(r->dur) + 8];
	int n = snprintf(line, sizeof(line), "%-*s   %-*s  %*s", wsym, r->sym, wres, r->res,
			 wdur, r->dur);
	struct args_list l = {0};
	bool args = row_args(r, a, &l), compact = args && a->mode == ARGS_FMT_COMPACT;

	if (n >= (int)sizeof(line))
		n = (int)sizeof(line) - 1;
	while (!compact && n > 0 && line[n - 1] == ' ')   /* no trailing blanks (entry rows) */
		n--;
	fprintf(out, "%.*s%s", n, line, compact ? "  " : "");
	if (compact)
		args_print_compact(out, &l);
	fputc('\n', out);
	if (args && !compact)
		args_print_rows(out, &l, wsym + 1);
	args_list_free(&l);
}

void trace_view_print_args(FILE *out, const struct tv_table *t, const struct tv_args *a)
{
	int wsym = 16, wres = 6, wdur = 8;
	bool ctx = has_context(t, a);

	for (size_t i = 0; i < t->n; i++) {
		const struct tv_row *r = &t->rows[i];
		int l;

		if ((l = (int)strlen(r->sym)) > wsym)
			wsym = l;
		if ((l = (int)strlen(r->res)) > wres)
			wres = l;
		if ((l = (int)strlen(r->dur)) > wdur)
			wdur = l;
	}
	/* every row's symbol column holds one 3-byte, 1-column glyph */
	fprintf(out, "%-*s   %-*s  %*s%s\n", wsym - 2, "FUNCTION CALLS", wres, "RESULT", wdur,
		"DURATION", ctx ? "  CONTEXT" : "");
	dashes(out, wsym - 2);
	fputs("   ", out);
	dashes(out, wres);
	fputs("  ", out);
	dashes(out, wdur);
	if (ctx) {
		fputs("  ", out);
		dashes(out, 7);
	}
	fputc('\n', out);
	for (size_t i = 0; i < t->n; i++)
		print_row(out, &t->rows[i], wsym, wres, wdur, a);
}

void trace_view_print(FILE *out, const struct tv_table *t)
{
	trace_view_print_args(out, t, NULL);
}

void tv_table_free(struct tv_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = t->cap = 0;
}
