/* main.c - retsnoop, the live tool: records with the recorder object
 * (record/recorder.h) and hands every record, through the recorder's
 * hooks, to the report pipeline retsnoop-report uses (report/pipeline.h):
 * text views or NDJSON per session as it ends, --stack-has filtering,
 * --perfetto / --folded / --summary completed at exit. So live output and a
 * later `retsnoop-report FILE` of the same run with the same flags are
 * identical. With -o it also writes the recording (every session, before
 * the report-time filters). */
#include "record/features.h"
#include "record/options.h"
#include "record/recorder.h"
#include "report/pipeline.h"
#include "report/report_args.h"
#include "report/report_config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIVE_RINGBUF_SIZE (512u << 10)   /* default -C bpf.ringbuf-size of the live tool */

#define PROG "retsnoop"

struct live {
	struct record_opts *o;
	struct report_args ra;
	struct rp *rp;
	struct report_opts ropts;
	bool failed;              /* an output could not be written */
	struct rp_env blobs;      /* -A: the recording's "btf"/"func_btf" (on_blobs) */
};

/* the header blobs, kept by the recorder until it is freed */
static int live_blobs(void *ctx, const struct rsf_blob *blobs, size_t nblobs)
{
	rp_env_set_blobs(&((struct live *)ctx)->blobs, blobs, nblobs);
	return 0;
}

static int live_start(void *ctx, const struct rsf_meta *meta,
		      const struct rsf_ksym *ksyms, size_t nksyms,
		      const struct rsf_module *mods, size_t nmods,
		      const struct rsf_func *funcs, size_t nfuncs)
{
	struct live *l = ctx;
	struct rp_config cfg = {
		.prog = PROG, .out = stdout, .msgs = stderr, .opts = l->ropts, .sel = l->ra.sel,
		.filt = &l->ra.filt,
		.drop_table = false,   /* the recorder prints the drop table */
	};
	struct rp_env t = {
		.meta = meta, .ksyms = ksyms, .nksyms = nksyms, .mods = mods, .nmods = nmods,
		.funcs = funcs, .nfuncs = nfuncs,
		.btf_blob = l->blobs.btf_blob, .btf_size = l->blobs.btf_size,
		.func_btf_blob = l->blobs.func_btf_blob, .func_btf_size = l->blobs.func_btf_size,
		.probes_blob = l->blobs.probes_blob, .probes_size = l->blobs.probes_size,
	};
	char err[512];

	l->rp = rp_new(&cfg, &t, err, sizeof(err));
	if (!l->rp || rp_attach_symbols(l->rp, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return -1;
	}
	return 0;
}

static void live_ready(void *ctx)
{
	struct live *l = ctx;

	/* stdout holds exactly what retsnoop-report prints when it is JSON,
	 * folded stacks or the summary */
	fprintf(rp_sel_text(&l->ra.sel) ? stdout : stderr, "Receiving data...\n");
}

static int live_record(void *ctx, const struct rs_rec_hdr *rec, size_t size)
{
	struct live *l = ctx;

	(void)size;
	rp_feed(l->rp, rec);
	return 0;
}

static void live_end(void *ctx, const struct rsf_stats *stats)
{
	struct live *l = ctx;
	char err[512];

	if (!l->rp)
		return;
	if (rp_finish(l->rp, stats, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		l->failed = true;
	}
	rp_free(l->rp);
	l->rp = NULL;
}

/* -C: bpf.* for the recorder, stacks.* and fmt.* for the report */
static int live_config(void *ctx, const struct cfg_key *k, uint64_t v, struct opt_error *e)
{
	struct live *l = ctx;

	if (k->cmds & OPT_RECORD)
		return record_config_apply(l->o, k, v, e);
	return report_config_set(&l->ropts, k, v, e);
}

/* the report's outputs, checked before anything is traced: combinations
 * that cannot work (an input error: no hint), outputs onto inputs (the
 * output guard) */
static int check_outputs(struct live *l, struct opt_error *e)
{
	struct record_opts *o = l->o;

	if (rp_sel_check(&l->ra.sel, e->msg, sizeof(e->msg)))
		return OPT_EINPUT;
	if (rp_sel_check_vs(&l->ra.sel, o->output, "the recording written with -o", e->msg,
			    sizeof(e->msg)) ||
	    rp_sel_check_vs(&l->ra.sel, o->kernel, "the vmlinux given with -k", e->msg,
			    sizeof(e->msg)))
		return OPT_EUSAGE;
	return OPT_OK;
}

/* the command line: 0 to run, else the exit status (help, version, a
 * usage error) */
static int parse_args(struct live *l, int argc, char **argv, int *status)
{
	struct record_opts *o = l->o;
	struct shared_opts s;
	struct opt_group groups[3] = {
		{ record_opt_table, record_opt_count, o },
		{ report_opt_table, report_opt_count, &l->ra },
		{ shared_opt_table, shared_opt_count, &s },
	};
	struct opt_cmdline c = {
		.prog = PROG, .cmd = OPT_LIVE, .groups = groups, .ngroups = 3,
		.dashdash = OPT_DD_COMMAND,
	};
	struct opt_error e;
	int r;

	record_opts_init(o, argc, argv);
	/* this consumer renders every session, slower than a flood of failing
	 * calls now produces them: a larger buffer only holds more sessions not
	 * shown yet (later output, more lost on a kill: tests/vm/durability.sh
	 * wants at most 1.5 s); 512 KiB holds ~900 compact sessions */
	o->ringbuf_size = LIVE_RINGBUF_SIZE;
	l->ropts.symb = SYMB_DEFAULT;
	l->ropts.args.max_width = ARGS_FMT_DEFAULT_WIDTH;
	shared_opts_init(&s, OPT_LIVE, live_config, l);
	r = opt_parse(&c, argc, argv, &e);
	if (r == OPT_OK)
		r = record_opts_finish(o, &s, c.command, true, &e);
	/* the filters are the recorder's: the report gets --stack-has only */
	if (r == OPT_OK)
		r = report_args_finish(&l->ra, &s, false, &e);
	if (r == OPT_OK && !s.help && !s.usage && !s.config_help && !s.version)
		r = check_outputs(l, &e);
	*status = 0;
	if (r < 0) {
		opt_error_print(stderr, PROG, r, &e);
		*status = 2;
	} else if (s.list) {
		opt_list(stdout, &c);
	} else if (s.help) {
		record_help_head(stdout, PROG, true);
		opt_help(stdout, &c);
		record_help_tail(stdout);
	} else if (s.usage) {
		opt_usage(stdout, &c, "[-- CMD ARGS...]");
	} else if (s.config_help) {
		cfg_help(stdout, OPT_LIVE);
	} else if (s.version) {
		printf("%s %s\n", PROG, RECORD_VERSION);
		if (s.verbose)
			features_report(stdout);
	} else {
		if (s.symb >= 0)
			l->ropts.symb = (enum symb_mode)s.symb;
		l->ropts.allow_build_id_mismatch = s.allow_build_id_mismatch;
		return 0;
	}
	return -1;
}

/* the recording, its records handed to the hooks; the exit status */
static int record_live(const struct record_opts *o, const struct record_hooks *hooks)
{
	struct recorder *rec = recorder_new(o, PROG, hooks, stderr);
	int r;

	if (!rec) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		return 1;
	}
	r = recorder_execute(rec);
	if (*recorder_error(rec))
		fprintf(stderr, "%s: %s\n", PROG, recorder_error(rec));
	recorder_free(rec);
	return r;
}

int main(int argc, char **argv)
{
	struct record_opts o;
	struct live l = { .o = &o };
	struct record_hooks hooks = {
		.on_start = live_start, .on_blobs = live_blobs, .on_ready = live_ready,
		.on_record = live_record, .on_end = live_end, .ctx = &l,
	};
	int r;

	/* line-buffered for | tee and | grep; a 64 KiB buffer so that one
	 * NDJSON line (a session with its kernel stack and trace) usually goes
	 * out in one write, not interleaved with a traced command's output */
	static char outbuf[1 << 16];

	setvbuf(stdout, outbuf, _IOLBF, sizeof(outbuf));
	report_args_init(&l.ra);
	if (parse_args(&l, argc, argv, &r)) {
		report_args_free(&l.ra);
		record_opts_free(&o);
		return r;
	}
	l.ropts.vmlinux = o.kernel;
	l.ropts.symfs = l.ra.symfs;
	l.ropts.show_stack = o.stacks;
	l.ropts.show_trace = o.trace;
	l.ropts.show_lbr = o.lbr;
	l.ropts.verbose = o.verbose;
	r = record_live(&o, &hooks);
	if (!r && l.failed)
		r = 1;
	rp_free(l.rp);
	report_args_free(&l.ra);
	record_opts_free(&o);
	return r;
}
