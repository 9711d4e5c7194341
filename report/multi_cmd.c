/* multi_cmd.c - the report of several recordings (multi_cmd.h): every
 * recording opened and checked first, the views chosen from what any of
 * them recorded, one pipeline with one source per recording (each with its
 * own tables and its vmlinux found by its build-id), records merged by
 * session end time (merge_feed.c), the trailers' statistics summed for the
 * drop table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../format/rsfile.h"
#include "merge_feed.h"
#include "multi_cmd.h"
#include "pipeline.h"

static void add_stats(struct rsf_stats *sum, const struct rsf_stats *s)
{
	const uint64_t *a = (const uint64_t *)&s->bpf;
	uint64_t *b = (uint64_t *)&sum->bpf;

	for (size_t i = 0; i < sizeof(s->bpf) / sizeof(uint64_t); i++)
		b[i] += a[i];
	sum->records_written += s->records_written;
	sum->chunks_written += s->chunks_written;
	sum->ringbuf_lost += s->ringbuf_lost;
	sum->funcs_attached += s->funcs_attached;
	sum->funcs_failed += s->funcs_failed;
	sum->attach_ns += s->attach_ns;
	sum->detach_ns += s->detach_ns;
	sum->prog_misses += s->prog_misses;
	sum->prog_misses_entry += s->prog_misses_entry;
	sum->prog_misses_exit += s->prog_misses_exit;
	sum->prog_misses_probes += s->prog_misses_probes;
	sum->umaps_gone += s->umaps_gone;
	if (s->link_misses_known) {   /* the sums; the per-function lists stay per file */
		sum->link_misses_known = 1;
		sum->link_misses_entry += s->link_misses_entry;
		sum->link_misses_exit += s->link_misses_exit;
		sum->link_misses_nfuncs += s->link_misses_nfuncs;   /* non-zero: kprobe mode */
	}
}

/* the views: what was asked for, else what any recording holds */
static int pick_views(const char *prog, struct report_opts *o, uint32_t mode, struct view_ask ask)
{
	const char *missing = NULL;

	if (ask.trace && !(mode & RSF_MODE_TRACE))
		missing = "function call trace (-T)";
	else if (ask.lbr && !(mode & RSF_MODE_LBR))
		missing = "LBR (-B)";
	else if (ask.stack && !(mode & RSF_MODE_STACKS))
		missing = "call stack (-E)";
	if (missing) {
		fprintf(stderr, "%s: the %s view was recorded in none of the recordings\n", prog,
			missing);
		return -1;
	}
	if (ask.trace || ask.stack || ask.lbr) {
		o->show_trace = ask.trace;
		o->show_lbr = ask.lbr;
		o->show_stack = ask.stack || (!ask.trace && (mode & RSF_MODE_STACKS));
	} else {
		o->show_trace = mode & RSF_MODE_TRACE;
		o->show_lbr = mode & RSF_MODE_LBR;
		o->show_stack = (mode & RSF_MODE_STACKS) || !(mode & (RSF_MODE_TRACE | RSF_MODE_LBR));
	}
	return 0;
}

static int open_all(const char *prog, const char *const *paths, size_t n,
		    struct rsf_reader **rd, struct rp_env *env)
{
	char err[512];

	for (size_t k = 0; k < n; k++) {
		rd[k] = rsf_reader_open(paths[k], err, sizeof(err));
		if (!rd[k]) {
			fprintf(stderr, "%s: %s\n", prog, err);
			return -1;
		}
		env[k] = (struct rp_env){ .meta = rsf_reader_meta(rd[k]), .rec_file = paths[k],
					  .rec_host = rsf_reader_meta(rd[k])->hostname };
		env[k].ksyms = rsf_reader_ksyms(rd[k], &env[k].nksyms);
		env[k].mods = rsf_reader_modules(rd[k], &env[k].nmods);
		env[k].funcs = rsf_reader_funcs(rd[k], &env[k].nfuncs);
		rp_env_read_blobs(&env[k], rd[k]);
	}
	return 0;
}

/* what each reader's end means: damage is the exit status 2 */
static int say_ends(const char *prog, const char *const *paths, size_t n,
		    struct rsf_reader **rd, const enum rsf_status *st, struct rsf_stats *sum,
		    bool *any)
{
	int ret = 0;

	for (size_t k = 0; k < n; k++) {
		if (st[k] == RSF_DAMAGED) {
			fprintf(stderr, "%s: %s: %s\n", prog, paths[k], rsf_reader_error(rd[k]));
			ret = 2;
		} else if (!rsf_reader_stats(rd[k])) {
			fprintf(stderr, "%s: %s: the recording is incomplete (no trailer: the recorder "
				"was killed?); statistics are unavailable\n", prog, paths[k]);
		} else {
			add_stats(sum, rsf_reader_stats(rd[k]));
			*any = true;
		}
	}
	return ret;
}

int multi_report(const char *prog, const char *const *paths, size_t n, struct report_opts *opts,
		 struct report_args *ra, struct view_ask ask)
{
	struct rsf_reader **rd = calloc(n, sizeof(*rd));
	struct rp_env *env = calloc(n, sizeof(*env));
	enum rsf_status *st = calloc(n, sizeof(*st));
	struct rsf_stats sum = {};
	struct rp *p = NULL;
	uint32_t mode = 0;
	bool any = false;
	char err[512];
	int ret = 2;

	if (!rd || !env || !st) {
		fprintf(stderr, "%s: out of memory\n", prog);
		goto out;
	}
	if (open_all(prog, paths, n, rd, env))
		goto out;
	for (size_t k = 0; k < n; k++)
		mode |= env[k].meta->mode;
	if (pick_views(prog, opts, mode, ask))
		goto out;
	struct rp_config cfg = { .prog = prog, .out = stdout, .msgs = stderr, .opts = *opts,
				 .sel = ra->sel, .filt = &ra->filt, .drop_table = true };
	p = rp_new_multi(&cfg, env, n, err, sizeof(err));
	if (!p || rp_attach_symbols(p, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		goto out;
	}
	ret = merge_feed(p, rd, n, st) ? 1 : 0;
	int ends = say_ends(prog, paths, n, rd, st, &sum, &any);
	if (rp_finish(p, any ? &sum : NULL, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		ret = 1;
	}
	if (ends)
		ret = ends;
out:
	rp_free(p);
	for (size_t k = 0; rd && k < n; k++)
		if (rd[k])
			rsf_reader_close(rd[k]);
	free(rd);
	free(env);
	free(st);
	return ret;
}
