/* pipeline.c - the report engine (pipeline.h): the table of outputs,
 * records through the session assembler, each snapshot through the
 * filters to every output, and the end of input (drop table, totals,
 * outputs finished, write errors collected into one message). */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/* every output, in the order they are fed and finished */
static const struct rp_output *const outputs[] = {
	&rp_out_text, &rp_out_json, &rp_out_folded, &rp_out_summary, &rp_out_perfetto,
};
#define NOUT (sizeof(outputs) / sizeof(outputs[0]))

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
		p->state[i] = outputs[i]->begin(&p->su, err, errlen);
		if (!p->state[i])
			return -1;
		needs |= outputs[i]->needs(&p->su);
	}
	p->as = rp_asm_new(needs & RP_NEED_TRACE, needs & RP_NEED_LBR, on_session, p);
	if (!p->as) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

struct rp *rp_new(const struct rp_config *cfg, const struct rp_env *t, char *err, size_t errlen)
{
	struct rp *p;

	if (rp_sel_check(&cfg->sel, err, errlen))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->cfg = *cfg;
	p->env = *t;
	p->env.sym = NULL;
	if (filters_prepare(cfg->filt, &p->env, err, errlen)) {
		rp_free(p);
		return NULL;
	}
	if (cfg->filt->note[0])
		fprintf(cfg->msgs, "%s: note: %s\n", cfg->prog, cfg->filt->note);
	p->filtering = filters_active(cfg->filt);
	if (!rp_sel_text(&cfg->sel))
		p->cfg.opts.show_stack = false;
	/* only the text stack and LBR views print source lines */
	p->cfg.opts.no_src_output = !rp_sel_text(&cfg->sel) ||
				    !(p->cfg.opts.show_stack || p->cfg.opts.show_lbr);
	p->su = (struct rp_setup){ .env = &p->env, .opts = &p->cfg.opts, .sel = &p->cfg.sel,
				   .out = cfg->out };
	if (begin_outputs(p, err, errlen)) {
		rp_free(p);
		return NULL;
	}
	return p;
}

int rp_attach_symbols(struct rp *p, char *err, size_t errlen)
{
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
static void print_drops(struct rp *p, const struct rsf_stats *stats)
{
	uint64_t with_drops = rp_asm_stats(p->as)->sessions_with_drops;
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
	const struct rp_asm_stats *a = rp_asm_stats(p->as);
	FILE *m = p->cfg.msgs;

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
		if (p->state[i] && outputs[i]->finish(p->state[i], msg, sizeof(msg))) {
			add_err(err, errlen, msg);
			ret = -1;
		}
	}
	if (p->filtering && p->cfg.opts.verbose)
		fprintf(p->cfg.msgs, "Filters kept %" PRIu64 " of %" PRIu64 " session snapshot(s).\n",
			p->cfg.filt->kept, p->cfg.filt->kept + p->cfg.filt->removed);
	else if (p->filtering && p->filtered_finals && p->filtered_finals == rp_asm_stats(p->as)->finals)
		fprintf(p->cfg.msgs, "%s: the filters kept none of the %" PRIu64 " session(s)\n",
			p->cfg.prog, p->filtered_finals);
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
	symbolizer_free(p->env.sym);
	free(p);
}
