/* stack_view.c - merges the logical stack with the kernel stack (BPF
 * trampoline/program frames filtered, fexit `f+0x5, trampoline, f+X`
 * (or `f+0x5, f+X` from deferred fentry stacks)
 * collapsed, `!` for traced frames missing from the kernel stack) and
 * prints it in upstream retsnoop's column layout (see stack_view.h). */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "../common/array_grow.h"
#include "../symbols/ksyms.h"
#include "args_render.h"
#include "result_fmt.h"
#include "stack_view.h"

/* the fentry call at a function's start: 5 bytes, 9 with an endbr64 */
#define FENTRY_RET_OFF_MAX 0x10

bool sv_is_bpf_prog(const char *name)
{
	int i;

	if (!name || strncmp(name, "bpf_prog_", 9) != 0)
		return false;
	for (i = 0; i < 16; i++)
		if (!isxdigit((unsigned char)name[9 + i]))
			return false;
	return name[9 + 16] == '_' || name[9 + 16] == '\0';
}

/* the stack-capture helpers a BPF-captured stack may start in
 * (bpf_get_stack, bpf_get_stack_raw_tp, __bpf_get_stack, ...): the
 * recorder never traces them (enforced deny list), so a frame of theirs
 * is the capture itself */
bool sv_is_stack_helper(const char *name)
{
	return name && (strncmp(name, "bpf_get_stack", 13) == 0 ||
			strncmp(name, "__bpf_get_stack", 15) == 0);
}

static bool is_bpf_frame(const char *name)
{
	return ksym_is_bpf_tramp(name) || sv_is_bpf_prog(name) || sv_is_stack_helper(name);
}

static bool same_sym(const struct sv_kframe *a, const struct sv_kframe *b)
{
	if (!a->resolved || !b->resolved || strcmp(a->si.name, b->si.name))
		return false;
	if (!a->si.module || !b->si.module)
		return a->si.module == b->si.module;
	return strcmp(a->si.module, b->si.module) == 0;
}

struct sv_row *sv_add_row(struct sv_table *t, enum sv_row_kind kind)
{
	struct sv_row *r;

	if (array_grow((void **)&t->rows, t->n, &t->cap, sizeof(*t->rows), 32))
		return NULL;
	r = &t->rows[t->n++];
	/* field by field: clearing the 700-byte row showed in profiles */
	r->kind = kind;
	r->stitched = r->filtered = r->has_addr = false;
	r->addr = 0;
	r->args = NULL;
	r->dur[0] = r->res[0] = r->sym[0] = r->src[0] = '\0';
	return r;
}

static void fill_src(char *buf, size_t len, const struct symb_src *src, const char *ksym_name)
{
	if (src->func[0] && ksym_name && strcmp(src->func, ksym_name))
		snprintf(buf, len, "(%s @ %s:%d)", src->func, src->file, src->line);
	else
		snprintf(buf, len, "(%s:%d)", src->file, src->line);
}

static void fill_kernel_sym(struct sv_row *r, const struct sv_kframe *k, const struct sv_opts *o)
{
	char prefix[20] = "";

	r->has_addr = true;
	r->addr = k->addr;
	r->filtered = k->filtered;
	if (o->emit_addrs)
		snprintf(prefix, sizeof(prefix), "%c%016" PRIx64 " ", k->filtered ? '~' : ' ', k->addr);
	if (!k->resolved)
		snprintf(r->sym, sizeof(r->sym), "%s0x%" PRIx64, prefix, k->addr);
	else if (o->dec_offs)
		snprintf(r->sym, sizeof(r->sym), "%s%s+%" PRIu64, prefix, k->si.name, k->si.offset);
	else
		snprintf(r->sym, sizeof(r->sym), "%s%s+0x%" PRIx64, prefix, k->si.name, k->si.offset);
	if (k->resolved && k->si.has_src)
		fill_src(r->src, sizeof(r->src), &k->si.src, k->si.name);
}

/* duration and result columns of a traced call's row */
static void fill_call(struct sv_row *r, const struct sv_frame *lf)
{
	r->stitched = lf->stitched;
	r->args = lf->args;
	if (lf->unfinished) {
		snprintf(r->dur, sizeof(r->dur), "...");
		snprintf(r->res, sizeof(r->res), "[...]");
	} else {
		snprintf(r->dur, sizeof(r->dur), "%" PRIu64 "us", lf->lat_ns / 1000);
		result_fmt(r->res, sizeof(r->res), lf->res, lf->flags);
	}
}

/* the row itself, then its inlined frames */
static int emit_kernel(struct sv_table *t, const struct sv_kframe *k, const struct sv_frame *lf,
		       const struct sv_opts *o)
{
	struct sv_row *r = sv_add_row(t, lf ? SV_ROW_COMBINED : SV_ROW_KERNEL);

	if (!r)
		return -1;
	fill_kernel_sym(r, k, o);
	if (lf)
		fill_call(r, lf);
	if (!k->resolved)
		return 0;
	for (int i = 0; i < k->si.ninlines && i < SYMB_MAX_INLINES; i++) {
		r = sv_add_row(t, SV_ROW_INLINE);
		if (!r)
			return -1;
		snprintf(r->sym, sizeof(r->sym), "%s. %s", o->emit_addrs ? "                  " : "",
			 k->si.inlines[i].func);
		snprintf(r->src, sizeof(r->src), "(%s:%d)", k->si.inlines[i].file, k->si.inlines[i].line);
	}
	return 0;
}

static int emit_missing(struct sv_table *t, const struct sv_frame *lf, const struct sv_opts *o)
{
	struct sv_row *r = sv_add_row(t, SV_ROW_MISSING);

	if (!r)
		return -1;
	fill_call(r, lf);
	snprintf(r->sym, sizeof(r->sym), "%s%s", o->emit_addrs ? "                  " : "",
		 lf->name ? lf->name : "?");
	return 0;
}

/* marks BPF frames (and the fexit pattern's redundant pair) as filtered */
static void filter_kframes(struct sv_kframe *kf, int m)
{
	int i;

	for (i = 0; i < m; i++)
		kf[i].bpf = kf[i].resolved && is_bpf_frame(kf[i].si.name);
	/* fexit: f+0x5 (return into f's fentry call), trampoline, f+X */
	for (i = 0; i + 2 < m; i++) {
		if (same_sym(&kf[i], &kf[i + 2]) && kf[i].si.offset <= FENTRY_RET_OFF_MAX &&
		    (kf[i + 1].bpf || !kf[i + 1].resolved)) {
			kf[i].filtered = true;
			kf[i + 1].filtered = true;
		}
	}
	/* the same with the trampoline left out: f+0x5 right above f+X, as
	 * fentry's deferred stacks keep them (bpf/stack_defer.bpf.h); nothing
	 * else puts a function's entry site right above its own body */
	for (i = 0; i + 1 < m; i++)
		if (same_sym(&kf[i], &kf[i + 1]) && kf[i].si.offset <= FENTRY_RET_OFF_MAX &&
		    kf[i].si.offset > 0 && kf[i + 1].si.offset > FENTRY_RET_OFF_MAX)
			kf[i].filtered = true;
	/* a tail-calling traced f (fentry): f+0x5, its trampoline, then the
	 * callee; a trampoline missing from the snapshot (recordings made
	 * before the [bpf] symbols were taken) is still one */
	for (i = 0; i + 1 < m; i++)
		if (kf[i].resolved && kf[i].si.offset <= FENTRY_RET_OFF_MAX && kf[i].si.offset > 0 &&
		    !kf[i + 1].resolved)
			kf[i + 1].filtered = true;
	for (i = 0; i < m; i++)
		if (kf[i].bpf)
			kf[i].filtered = true;
	/* the innermost frames of a BPF-captured stack are the program and
	 * its trampoline; unsymbolized ones (JIT code missing from the
	 * snapshot) are dropped too when a symbolized frame precedes them */
	for (i = m - 1; i > 0 && (!kf[i].resolved || kf[i].bpf); i--)
		;
	if (i >= 0 && kf[i].resolved)
		for (int j = i + 1; j < m; j++)
			kf[j].filtered = true;
}

int stack_view_merge(struct symbolizer *sym, const struct sv_frame *lf, int nl,
		     const uint64_t *kstack, int nk, struct sv_kframe *kf, int *match)
{
	int m = 0, i = 0;

	for (int k = nk - 1; k >= 0; k--) {       /* outermost first */
		struct sv_kframe *f = &kf[m];

		if (!kstack[k])
			continue;
		f->addr = kstack[k];
		f->kidx = k;
		f->bpf = f->filtered = false;
		f->resolved = sym && symbolize(sym, kstack[k], true, &f->si) == 0;
		m++;
	}
	filter_kframes(kf, m);
	/* each traced function is looked for further down (inwards) than the
	 * previous one's row: the kernel stack is one chain of calls */
	for (int j = 0; j < nl; j++) {
		int k;

		for (k = i; k < m; k++)
			if (!kf[k].filtered && kf[k].resolved && lf[j].name &&
			    strcmp(kf[k].si.name, lf[j].name) == 0)
				break;
		match[j] = k < m ? k : -1;
		if (k < m)
			i = k + 1;
	}
	return m;
}

/* the `!` rows of logical frames [from, to): traced functions absent
 * from the kernel stack */
static int emit_pending(struct sv_table *t, const struct sv_frame *lf, int from, int to,
			const struct sv_opts *o)
{
	for (int j = from; j < to; j++)
		if (emit_missing(t, &lf[j], o))
			return -1;
	return 0;
}

/* kernel-only rows kf[from, to), hiding the filtered ones */
static int emit_kernel_range(struct sv_table *t, const struct sv_kframe *kf, int from, int to,
			     const struct sv_opts *o)
{
	for (int i = from; i < to; i++)
		if ((!kf[i].filtered || o->unfiltered) && emit_kernel(t, &kf[i], NULL, o))
			return -1;
	return 0;
}

/* Call order: a traced function absent from the kernel stack (a tail
 * call, or one that had returned when the stack was taken) goes right
 * before the next traced function found on it, after the kernel-only
 * frames above that one (its caller is among them or is the traced frame
 * before); when no traced function below it is on the stack, after the
 * remaining kernel frames. So every attach mode lists shared frames in the
 * same order, whichever of them the kernel stack happens to hold. */
int stack_view_build(struct sv_table *t, struct symbolizer *sym,
		     const struct sv_frame *lf, int nl,
		     const uint64_t *kstack, int nk, const struct sv_opts *o)
{
	/* sized by the real depth: a session's worth, never a fixed 127 */
	struct sv_kframe *kf = malloc((nk > 0 ? (size_t)nk : 1) * sizeof(*kf));
	int *match = malloc((nl > 0 ? (size_t)nl : 1) * sizeof(*match));
	int m, i = 0, pend = 0, ret = -1;

	if (!kf || !match)
		goto out;
	t->args_mode = o->args_mode;
	m = stack_view_merge(sym, lf, nl, kstack, nk, kf, match);
	for (int j = 0; j < nl; j++) {
		int k = match[j];

		if (k < 0)
			continue;       /* pending until the next matched frame */
		if (emit_kernel_range(t, kf, i, k, o) || emit_pending(t, lf, pend, j, o) ||
		    emit_kernel(t, &kf[k], &lf[j], o))
			goto out;
		i = k + 1;
		pend = j + 1;
	}
	if (emit_kernel_range(t, kf, i, m, o) || emit_pending(t, lf, pend, nl, o))
		goto out;
	ret = 0;
out:
	free(match);
	free(kf);
	return ret;
}

/* S padded with spaces to W bytes, on the left when RIGHT */
static char *put_col(char *p, const char *s, size_t w, bool right)
{
	size_t n = strlen(s), pad = w > n ? w - n : 0;

	if (right) {
		memset(p, ' ', pad);
		p += pad;
	}
	memcpy(p, s, n);
	p += n;
	if (!right) {
		memset(p, ' ', pad);
		p += pad;
	}
	return p;
}

/* the row's end: -A arguments in compact mode after the source column,
 * else the row without trailing blanks and the arguments' rows under it,
 * indented past the duration column */
static void print_row_end(FILE *out, char *line, char *p, const struct args_list *args,
			  int mode, size_t wdur)
{
	bool compact = args && args->n && mode == ARGS_FMT_COMPACT;

	if (compact) {
		*p++ = ' ';
		*p++ = ' ';
	} else {
		while (p > line && p[-1] == ' ')   /* no trailing blanks */
			p--;
	}
	fwrite(line, 1, (size_t)(p - line), out);
	if (compact)
		args_print_compact(out, args);
	fputc('\n', out);
	if (!compact && args && args->n)
		args_print_rows(out, args, (int)wdur + 4);
}

void stack_view_print(FILE *out, const struct sv_table *t)
{
	size_t wdur = 5, wres = 0, wsym = 0, wsrc = 0, l;
	/* one row: marks (1 + 3 bytes) and the four columns, each at most
	 * its field's size, with their separators */
	char line[8 + sizeof(t->rows->dur) + sizeof(t->rows->res) + sizeof(t->rows->sym) +
		  sizeof(t->rows->src) + 8];

	for (size_t i = 0; i < t->n; i++) {
		const struct sv_row *r = &t->rows[i];

		if (r->kind == SV_ROW_SEP)
			continue;
		if ((l = strlen(r->dur)) > wdur)
			wdur = l;
		if ((l = strlen(r->res)) > wres)
			wres = l;
		if ((l = strlen(r->sym)) > wsym)
			wsym = l;
		if ((l = strlen(r->src)) > wsrc)
			wsrc = l;
	}
	/* "%c%s %*s %-*s  %-*s  %-*s\n", built by hand: printf's padding was
	 * the report's hottest path */
	for (size_t i = 0; i < t->n; i++) {
		const struct sv_row *r = &t->rows[i];
		char *p = line;

		if (r->kind == SV_ROW_SEP) {   /* label, dashes to the table's width */
			size_t w = 8 + wdur + wres + wsym + wsrc, n = strlen(r->sym);

			fprintf(out, "%s %.*s\n", r->sym, (int)(w > n + 1 ? w - n - 1 : 3),
				"----------------------------------------------------------------"
				"----------------------------------------------------------------"
				"----------------------------------------------------------------");
			continue;
		}

		/* `!` traced but not on the kernel stack; `~` a BPF frame
		 * shown only because of stacks.unfiltered (before its address
		 * instead with stacks.emit-addrs) */
		*p++ = r->kind == SV_ROW_MISSING ? '!' : r->filtered && r->sym[0] != '~' ? '~' : ' ';
		p = put_col(p, r->stitched && r->kind != SV_ROW_INLINE ? "\u2307" : " ", 0, false);
		*p++ = ' ';
		p = put_col(p, r->dur, wdur, true);
		*p++ = ' ';
		p = put_col(p, r->res, wres, false);
		*p++ = ' ';
		*p++ = ' ';
		p = put_col(p, r->sym, wsym, false);
		*p++ = ' ';
		*p++ = ' ';
		p = put_col(p, r->src, wsrc, false);
		print_row_end(out, line, p, r->args, t->args_mode, wdur);
	}
}

void sv_table_free(struct sv_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = t->cap = 0;
}
