/* pipeline.c - the report engine (pipeline.h): the table of outputs,
 * records through the session assembler, each snapshot through the
 * filters to every output, and the end of input (drop table, totals,
 * outputs finished, write errors collected into one message). Several
 * recordings (rp_new_multi) each have their own tables, symbolizer and
 * assembler; the shared outputs see the current recording's tables. */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "args_render.h"
#include "../common/same_file.h"
#include "dwarf_backend.h"
#include "folded_out.h"
#include "json_out.h"
#include "output.h"
#include "perfetto_out.h"
#include "pipeline.h"
#include "session_asm.h"
#include "summary_view.h"
#include "text_out.h"
#include "ustack_res.h"

/* every output, in the order they are fed and finished */
static const struct rp_output *const outputs[] = {
	&rp_out_text, &rp_out_json, &rp_out_folded, &rp_out_summary, &rp_out_perfetto,
};
#define NOUT (sizeof(outputs) / sizeof(outputs[0]))
/* with several recordings, these outputs are made once per recording */
static bool per_recording(const struct rp_output *o)
{
	return o == &rp_out_summary;
}

struct rp;
static struct rp *rp_init(struct rp *p, const struct rp_env *t, char *err, size_t errlen);

/* one recording of a merged report */
struct rp_src {
	struct rp *p;
	struct rp_env env;                 /* its tables and symbolizer */
	struct rp_asm *as;
	struct rp_setup su;
	void *state[NOUT];                 /* the per-recording outputs */
	uint64_t finals, failed;           /* final sessions kept by the filters */
};

struct rp {
	struct rp_config cfg;
	struct rp_env env;
	struct rp_outsel sel;
	struct rp_setup su;
	void *state[NOUT];                 /* NULL: output not wanted */
	struct rp_asm *as;
	bool filtering;
	bool failed;                       /* a feed failed */
	uint64_t filtered_finals;          /* final sessions the filters removed */
	struct rp_src *src;                /* several recordings: NULL with one */
	size_t nsrc;
	struct ustack_res *ures;           /* -U user stacks, shared by all recordings */
};

bool rp_sel_text(const struct rp_outsel *sel)
{
	return !sel->json && !sel->folded && !sel->summary;
}

int rp_sel_check(const struct rp_outsel *sel, char *err, size_t errlen)
{
	char *copy;
	int r;

	if (sel->json + sel->folded + sel->summary > 1) {
		snprintf(err, errlen, "--format json, --folded and summary all write to stdout: "
			 "choose one");
		return -1;
	}
	if (!sel->perfetto_path)
		return 0;
	copy = strdup(sel->perfetto_path);   /* the file is written last: check now */
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r = access(dirname(copy), W_OK);
	free(copy);
	if (r) {
		snprintf(err, errlen, "--perfetto: cannot create '%s': %s", sel->perfetto_path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int rp_sel_check_vs(const struct rp_outsel *sel, const char *input, const char *what,
		    char *err, size_t errlen)
{
	if (!same_file(sel->perfetto_path, input))
		return 0;
	snprintf(err, errlen, "--perfetto '%s' is %s: refusing to overwrite it",
		 sel->perfetto_path, what);
	return -1;
}

/* ------------------------------------------------------------- feeding */
static int on_session(void *ctx, const struct rp_session *s)
{
	struct rp *p = ctx;
	int ret = 0;

	if (p->filtering && !filters_keep(p->cfg.filt, s, &p->env)) {
		if (!(s->e->flags & RS_SESS_INTERIM))
			p->filtered_finals++;
		return 0;
	}
	for (size_t i = 0; i < NOUT; i++)
		if (p->state[i] && outputs[i]->session(p->state[i], s))
			ret = -1;
	return ret;
}

/* a session of one of several recordings: the shared outputs see its tables */
static int on_src_session(void *ctx, const struct rp_session *s)
{
	struct rp_src *src = ctx;
	struct rp *p = src->p;
	int ret = 0;

	p->env = src->env;
	if (p->filtering && !filters_keep(p->cfg.filt, s, &p->env)) {
		if (!(s->e->flags & RS_SESS_INTERIM))
			p->filtered_finals++;
		return 0;
	}
	if (!(s->e->flags & RS_SESS_INTERIM)) {
		src->finals++;
		src->failed += !!(s->e->flags & RS_SESS_IS_ERR);
	}
	for (size_t i = 0; i < NOUT; i++) {
		void *st = per_recording(outputs[i]) ? src->state[i] : p->state[i];

		if (st && outputs[i]->session(st, s))
			ret = -1;
	}
	return ret;
}

int rp_feed_from(struct rp *p, size_t k, const struct rs_rec_hdr *rec)
{
	if (k < p->nsrc && rp_asm_feed(p->src[k].as, rec) == 0)
		return 0;
	p->failed = true;
	return -1;
}

int rp_feed(struct rp *p, const struct rs_rec_hdr *rec)
{
	if (rp_asm_feed(p->as, rec) == 0)
		return 0;
	p->failed = true;
	return -1;
}

/* ------------------------------------------------------------ creation */
static int begin_outputs(struct rp *p, char *err, size_t errlen)
{
	unsigned needs = 0;

	for (size_t i = 0; i < NOUT; i++) {
		if (!outputs[i]->wanted(&p->su))
			continue;
		needs |= outputs[i]->needs(&p->su);
		if (p->nsrc && per_recording(outputs[i])) {
			for (size_t k = 0; k < p->nsrc; k++)
				if (!(p->src[k].state[i] = outputs[i]->begin(&p->src[k].su, err, errlen)))
					return -1;
			continue;
		}
		p->state[i] = outputs[i]->begin(&p->su, err, errlen);
		if (!p->state[i])
			return -1;
	}
	for (size_t k = 0; k < p->nsrc; k++)
		if (!(p->src[k].as = rp_asm_new(needs & RP_NEED_TRACE, needs & RP_NEED_LBR,
						on_src_session, &p->src[k]))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	p->as = rp_asm_new(needs & RP_NEED_TRACE, needs & RP_NEED_LBR, on_session, p);
	if (!p->as) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* -A: a recording's BTF blobs loaded once (none: NULL, arguments raw; a
 * blob libbpf refuses: noted, arguments raw) */
static struct args_btf *load_args_btf(const struct rp_config *cfg, const struct rp_env *e)
{
	struct args_btf *ab;

	if (!e->btf_blob && !e->func_btf_blob)
		return NULL;
	ab = args_btf_new(e->btf_blob, e->btf_size, e->func_btf_blob, e->func_btf_size);
	if (ab && args_btf_error(ab))
		fprintf(cfg->msgs, "%s: note: %s: arguments are shown raw\n", cfg->prog,
			args_btf_error(ab));
	return ab;
}

static struct rp *rp_create(const struct rp_config *cfg, const struct rp_env *t, size_t n,
			    char *err, size_t errlen)
{
	struct rp *p;

	if (rp_sel_check(&cfg->sel, err, errlen))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p || (n && !(p->src = calloc(n, sizeof(*p->src))))) {
		free(p);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->nsrc = n;
	p->cfg = *cfg;
	if (!rp_sel_text(&cfg->sel))
		p->cfg.opts.show_stack = false;
	/* only the text stack and LBR views print source lines */
	p->cfg.opts.no_src_output = !rp_sel_text(&cfg->sel) ||
				    !(p->cfg.opts.show_stack || p->cfg.opts.show_lbr);
	for (size_t k = 0; k < n; k++) {
		struct rp_src *src = &p->src[k];

		src->p = p;
		src->env = t[k];
		src->env.sym = NULL;
		src->env.rec_index = (int)k;
		src->env.args_btf = load_args_btf(cfg, &t[k]);
		src->su = (struct rp_setup){ .env = &src->env, .opts = &p->cfg.opts,
					     .sel = &p->cfg.sel, .out = cfg->out };
	}
	return rp_init(p, t, err, errlen);
}

struct rp *rp_new(const struct rp_config *cfg, const struct rp_env *t, char *err, size_t errlen)
{
	return rp_create(cfg, t, 0, err, errlen);
}

struct rp *rp_new_multi(const struct rp_config *cfg, const struct rp_env *t, size_t n,
			char *err, size_t errlen)
{
	if (!n) {
		snprintf(err, errlen, "no recording");
		return NULL;
	}
	return rp_create(cfg, t, n, err, errlen);
}

/* filters against the first recording, then the outputs */
static struct rp *rp_init(struct rp *p, const struct rp_env *t, char *err, size_t errlen)
{
	const struct rp_config *cfg = &p->cfg;

	p->env = *t;
	p->env.sym = NULL;
	p->ures = ustack_res_new(cfg->opts.symfs, cfg->opts.symb, cfg->msgs, cfg->prog,
				 cfg->opts.verbose);
	p->env.ures = p->ures;
	for (size_t k = 0; k < p->nsrc; k++)
		p->src[k].env.ures = p->ures;
	p->env.args_btf = p->nsrc ? p->src[0].env.args_btf : load_args_btf(cfg, t);
	if (filters_prepare(cfg->filt, &p->env, err, errlen)) {
		rp_free(p);
		return NULL;
	}
	if (cfg->filt->note[0])
		fprintf(cfg->msgs, "%s: note: %s\n", cfg->prog, cfg->filt->note);
	p->filtering = filters_active(cfg->filt);
	p->su = (struct rp_setup){ .env = &p->env, .opts = &p->cfg.opts, .sel = &p->cfg.sel,
				   .out = cfg->out };
	if (begin_outputs(p, err, errlen)) {
		rp_free(p);
		return NULL;
	}
	return p;
}

/* each recording's own symbolizer: DWARF found by its build-id */
static int attach_each(struct rp *p, char *err, size_t errlen)
{
	for (size_t k = 0; k < p->nsrc; k++) {
		struct rp_env *e = &p->src[k].env;

		e->sym = symbolizer_new(e->ksyms, e->nksyms, e->mods, e->nmods);
		if (!e->sym) {
			snprintf(err, errlen, "out of memory loading %zu kallsyms entries", e->nksyms);
			return -1;
		}
		if (dwarf_backend_attach(e->sym, e->meta, e->mods, e->nmods, &p->cfg.opts,
					 p->cfg.msgs, err, errlen))
			return -1;
	}
	p->env = p->src[0].env;
	return 0;
}

int rp_attach_symbols(struct rp *p, char *err, size_t errlen)
{
	if (p->nsrc)
		return attach_each(p, err, errlen);
	symbolizer_free(p->env.sym);
	p->env.sym = symbolizer_new(p->env.ksyms, p->env.nksyms, p->env.mods, p->env.nmods);
	if (!p->env.sym) {
		snprintf(err, errlen, "out of memory loading %zu kallsyms entries", p->env.nksyms);
		return -1;
	}
	return dwarf_backend_attach(p->env.sym, p->env.meta, p->env.mods, p->env.nmods,
				    &p->cfg.opts, p->cfg.msgs, err, errlen);
}

/* -------------------------------------------------------------- the end */
/* the recorder's drop table; sessions that lost records count as
 * incomplete even when the trailer (or no trailer) does not say so */
static void asm_totals(const struct rp *p, struct rp_asm_stats *t)
{
	*t = *rp_asm_stats(p->as);
	for (size_t k = 0; k < p->nsrc; k++) {
		const struct rp_asm_stats *a = rp_asm_stats(p->src[k].as);

		t->finals += a->finals;
		t->interims += a->interims;
		t->ignored += a->ignored;
		t->bad_records += a->bad_records;
		t->orphan_records += a->orphan_records;
		t->records_over_limit += a->records_over_limit;
		t->sessions_evicted += a->sessions_evicted;
		t->sessions_with_drops += a->sessions_with_drops;
	}
}

static void print_drops(struct rp *p, const struct rsf_stats *stats)
{
	struct rp_asm_stats tot;
	uint64_t with_drops;

	asm_totals(p, &tot);
	with_drops = tot.sessions_with_drops;
	struct rsf_stats seen;

	if (stats)
		seen = *stats;
	else
		memset(&seen, 0, sizeof(seen));
	if (seen.bpf.sessions_incomplete < with_drops)
		seen.bpf.sessions_incomplete = with_drops;
	rsf_print_drops(p->cfg.msgs, &seen);
}

/* -v totals and what the assembler had to skip */
static void print_totals(struct rp *p, const struct rsf_stats *stats)
{
	struct rp_asm_stats tot;
	const struct rp_asm_stats *a = &tot;
	FILE *m = p->cfg.msgs;

	asm_totals(p, &tot);

	if (p->cfg.opts.verbose) {
		fprintf(m, "Rendered %" PRIu64 " session(s), %" PRIu64 " interim snapshot(s); "
			"%" PRIu64 " ignored.\n", a->finals - p->filtered_finals, a->interims,
			a->ignored + p->filtered_finals);
		if (stats)
			fprintf(m, "Recorder: %" PRIu64 " record(s) in %" PRIu64 " chunk(s), "
				"%" PRIu64 " function(s) attached in %" PRIu64 " ms, detached in %" PRIu64 " ms.\n",
				stats->records_written, stats->chunks_written, stats->funcs_attached,
				stats->attach_ns / 1000000, stats->detach_ns / 1000000);
	}
	if (a->orphan_records)
		fprintf(m, "%s: skipped %" PRIu64 " trace record(s) of sessions whose start was not "
			"recorded\n", p->cfg.prog, a->orphan_records);
	if (a->bad_records)
		fprintf(m, "%s: skipped %" PRIu64 " malformed record(s)\n", p->cfg.prog, a->bad_records);
	if (a->records_over_limit)
		fprintf(m, "%s: dropped %" PRIu64 " trace/LBR record(s) over the report's bounds "
			"(%u sessions open, %u trace and %u LBR records each, %llu MiB in all)%s\n",
			p->cfg.prog, a->records_over_limit, RP_ASM_MAX_OPEN, RP_ASM_MAX_TRACE,
			RP_ASM_MAX_LBRS, RP_ASM_MAX_BYTES >> 20,
			a->sessions_evicted ? "; the oldest open sessions were evicted" : "");
}

/* appends MSG to err ("; " between messages) */
static void add_err(char *err, size_t errlen, const char *msg)
{
	size_t n = strlen(err);

	if (n + 2 < errlen)
		snprintf(err + n, errlen - n, "%s%s", n ? "; " : "", msg);
}

/* several recordings: each one's per-recording outputs under a heading,
 * then the session counts per recording and in total */
static int finish_sources(struct rp *p, size_t i, char *err, size_t errlen)
{
	FILE *out = p->cfg.out;
	uint64_t finals = 0, failed = 0;
	char msg[300];
	int ret = 0;

	for (size_t k = 0; k < p->nsrc; k++) {
		const struct rp_env *e = &p->src[k].env;

		fprintf(out, "%s=== RECORDING %zu: %s (host %s, kernel %s) ===\n", k ? "\n" : "", k + 1,
			e->rec_file, e->rec_host, e->meta->uts_release);
		msg[0] = '\0';
		if (outputs[i]->finish(p->src[k].state[i], msg, sizeof(msg))) {
			add_err(err, errlen, msg);
			ret = -1;
		}
	}
	fprintf(out, "\n=== ALL %zu RECORDINGS ===\n  %3s  %-20s %-32s %10s %10s\n", p->nsrc, "#",
		"HOST", "RECORDING", "SESSIONS", "FAILED");
	for (size_t k = 0; k < p->nsrc; k++) {
		const struct rp_src *src = &p->src[k];

		fprintf(out, "  %3zu  %-20s %-32s %10" PRIu64 " %10" PRIu64 "\n", k + 1,
			src->env.rec_host, src->env.rec_file, src->finals, src->failed);
		finals += src->finals;
		failed += src->failed;
	}
	fprintf(out, "  %3s  %-20s %-32s %10" PRIu64 " %10" PRIu64 "\n", "", "TOTAL", "", finals,
		failed);
	return ret;
}

int rp_finish(struct rp *p, const struct rsf_stats *stats, char *err, size_t errlen)
{
	char msg[300];
	int ret = 0;

	err[0] = '\0';
	if (p->cfg.drop_table)
		print_drops(p, stats);
	print_totals(p, stats);
	for (size_t i = 0; i < NOUT; i++) {
		msg[0] = '\0';
		if (p->nsrc && per_recording(outputs[i]) && p->src[0].state[i]) {
			if (finish_sources(p, i, err, errlen))
				ret = -1;
		} else if (p->state[i] && outputs[i]->finish(p->state[i], msg, sizeof(msg))) {
			add_err(err, errlen, msg);
			ret = -1;
		}
	}
	if (p->filtering && p->cfg.opts.verbose)
		fprintf(p->cfg.msgs, "Filters kept %" PRIu64 " of %" PRIu64 " session snapshot(s).\n",
			p->cfg.filt->kept, p->cfg.filt->kept + p->cfg.filt->removed);
	else if (p->filtering && p->filtered_finals) {
		struct rp_asm_stats tot;

		asm_totals(p, &tot);
		if (p->filtered_finals == tot.finals)
			fprintf(p->cfg.msgs, "%s: the filters kept none of the %" PRIu64 " session(s)\n",
				p->cfg.prog, p->filtered_finals);
	}
	if (fflush(p->cfg.out) || ferror(p->cfg.out)) {
		add_err(err, errlen, "error writing the output");
		ret = -1;
	}
	if (p->failed && !ret) {
		add_err(err, errlen, "out of memory assembling sessions");
		ret = -1;
	}
	return ret;
}

void rp_free(struct rp *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < NOUT; i++)
		if (p->state[i])
			outputs[i]->free(p->state[i]);
	rp_asm_free(p->as);
	for (size_t k = 0; k < p->nsrc; k++) {
		for (size_t i = 0; i < NOUT; i++)
			if (p->src[k].state[i])
				outputs[i]->free(p->src[k].state[i]);
		rp_asm_free(p->src[k].as);
		symbolizer_free(p->src[k].env.sym);
		args_btf_free(p->src[k].env.args_btf);
	}
	if (!p->nsrc) {   /* else a copy of a recording's */
		symbolizer_free(p->env.sym);
		args_btf_free(p->env.args_btf);
	}
	free(p->src);
	ustack_res_free(p->ures);
	free(p);
}
