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

#define PROG "retsnoop"

struct live {
	struct record_opts *o;
	struct report_args ra;
	struct rp *rp;
	struct report_opts ropts;
	bool failed;              /* an output could not be written */
};

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

/* the report outputs and filters the recorder's parser collected, parsed
 * by the report's own parser; 0 or 2 after a one-line error */
static int parse_report_args(struct live *l)
{
	struct record_opts *o = l->o;
	char **args = (char **)o->report_args;
	char err[512];

	for (int i = 0; i < o->nreport_args;) {
		int n = report_args_parse(&l->ra, o->nreport_args, args, i, -1, err, sizeof(err));

		if (n < 0) {   /* worded like the recorder's option errors */
			fprintf(stderr, "%s: %s (see --help)\n", PROG, err);
			return 2;
		}
		if (n == 0) {   /* the recorder's parser only collects the report's flags */
			fprintf(stderr, "%s: internal error: '%s' is not a report option\n", PROG,
				args[i]);
			return 2;
		}
		i += n;
	}
	if (rp_sel_check(&l->ra.sel, err, sizeof(err)) ||
	    rp_sel_check_vs(&l->ra.sel, o->output, "the recording written with -o", err, sizeof(err)) ||
	    rp_sel_check_vs(&l->ra.sel, o->kernel, "the vmlinux given with -k", err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return 2;
	}
	return 0;
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
		.on_start = live_start, .on_ready = live_ready,
		.on_record = live_record, .on_end = live_end, .ctx = &l,
	};
	int r;

	/* line-buffered for | tee and | grep; a 64 KiB buffer so that one
	 * NDJSON line (a session with its kernel stack and trace) usually goes
	 * out in one write, not interleaved with a traced command's output */
	static char outbuf[1 << 16];

	setvbuf(stdout, outbuf, _IOLBF, sizeof(outbuf));
	switch (record_opts_parse_live(&o, argc, argv, PROG)) {
	case RECORD_PARSE_RUN:
		break;
	case RECORD_PARSE_FEATURES:
		features_report(stdout);
		return 0;
	case RECORD_PARSE_HELP:
		record_usage(stdout, PROG, true);
		return 0;
	case RECORD_PARSE_CONFIG_HELP:
		record_config_help(stdout);
		report_config_help(stdout);
		return 0;
	case RECORD_PARSE_VERSION:
		return 0;
	default:
		return 2;
	}
	memset(&l.ropts, 0, sizeof(l.ropts));
	l.ropts.symb = o.symb < 0 ? SYMB_DEFAULT : (enum symb_mode)o.symb;
	l.ropts.vmlinux = o.kernel;
	l.ropts.allow_build_id_mismatch = o.allow_build_id_mismatch;
	l.ropts.show_stack = o.stacks;
	l.ropts.show_trace = o.trace;
	l.ropts.show_lbr = o.lbr;
	l.ropts.verbose = o.verbose;
	for (int i = 0; i < o.nreport_cfg; i++) {
		const char *msg = report_config_apply(o.report_cfg[i], &l.ropts);

		if (msg) {
			fprintf(stderr, "%s: %s\n", PROG, msg);
			record_opts_free(&o);
			return 2;
		}
	}
	report_args_init(&l.ra);
	r = parse_report_args(&l);
	if (!r)
		r = record_live(&o, &hooks);
	if (!r && l.failed)
		r = 1;
	rp_free(l.rp);
	report_args_free(&l.ra);
	record_opts_free(&o);
	return r;
}
