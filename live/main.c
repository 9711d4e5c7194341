/* main.c - retsnoop, the live tool: records with the recorder's session
 * (record/recorder.h) and hands every record to the same analysis and
 * report engine retsnoop-report uses (report/analysis.h, report/report.h):
 * text views or NDJSON per session as it ends, --stack-has filtering,
 * --perfetto / --folded / --summary completed at exit. So live output and a
 * later `retsnoop-report FILE` of the same run with the same flags are
 * identical. With -o it also writes the recording (every session, before
 * the report-time filters). */
#include "record/features.h"
#include "record/options.h"
#include "record/recorder.h"
#include "report/analysis.h"
#include "report/report.h"
#include "report/report_config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "retsnoop"

struct live {
	struct record_opts *o;
	struct anl *anl;
	struct report *rep;
	struct report_opts ropts;
	bool failed;              /* an output could not be written */
};

static int live_start(void *ctx, const struct rsf_meta *meta,
		      const struct rsf_ksym *ksyms, size_t nksyms,
		      const struct rsf_module *mods, size_t nmods,
		      const struct rsf_func *funcs, size_t nfuncs)
{
	struct live *l = ctx;
	char err[512];

	/* the order of retsnoop-report: the outputs decide about the text
	 * views before the report is made */
	if (anl_start_tables(l->anl, meta, ksyms, nksyms, mods, nmods, funcs, nfuncs, &l->ropts,
			     err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return -1;
	}
	l->rep = report_new(meta, ksyms, nksyms, mods, nmods, funcs, nfuncs, &l->ropts, stdout,
			    err, sizeof(err));
	if (!l->rep) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return -1;
	}
	anl_set_symbolizer(l->anl, report_symbolizer(l->rep));
	return 0;
}

static void live_ready(void *ctx)
{
	struct live *l = ctx;

	/* stdout holds exactly what retsnoop-report prints when it is JSON,
	 * folded stacks or the summary */
	fprintf(anl_text(l->anl) ? stdout : stderr, "Receiving data...\n");
}

static int live_record(void *ctx, const struct rs_rec_hdr *rec, size_t size)
{
	struct live *l = ctx;

	(void)size;
	anl_feed(l->anl, l->rep, rec);
	return 0;
}

static void live_end(void *ctx, const struct rsf_stats *stats)
{
	struct live *l = ctx;

	if (!l->rep)
		return;
	if (anl_finish(l->anl, l->rep, stats))
		l->failed = true;
	report_free(l->rep);
	l->rep = NULL;
}

/* the report outputs and filters the recorder's parser collected, parsed
 * by the report's own parser; 0 or 2 after a one-line error */
static int parse_report_args(struct live *l)
{
	struct record_opts *o = l->o;
	char **args = (char **)o->report_args;
	char err[512];

	for (int i = 0; i < o->nreport_args;) {
		int n = anl_parse_arg(l->anl, o->nreport_args, args, i, err, sizeof(err));

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
	if (anl_check_args(l->anl, err, sizeof(err)) ||
	    anl_check_output_vs(l->anl, o->output, "the recording written with -o", err, sizeof(err)) ||
	    anl_check_output_vs(l->anl, o->kernel, "the vmlinux given with -k", err, sizeof(err))) {
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
	l.anl = anl_new(PROG);
	if (!l.anl) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		record_opts_free(&o);
		return 1;
	}
	r = parse_report_args(&l);
	if (!r)
		r = record_live(&o, &hooks);
	if (!r && l.failed)
		r = 1;
	if (l.rep)
		report_free(l.rep);
	anl_free(l.anl);
	record_opts_free(&o);
	return r;
}
