/* main.c - retsnoop, the live tool: records with the recorder's session
 * (record/session.h) and renders every session as it ends with the same
 * report engine retsnoop-report uses, so live output and a later
 * `retsnoop-report FILE` of the same run are identical. With -o it also
 * writes the recording. */
#include "record/features.h"
#include "record/options.h"
#include "record/session.h"
#include "report/report.h"
#include "report/report_config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "retsnoop"

struct live {
	struct record_opts *o;
	struct report *rep;
	struct report_opts ropts;
};

static int live_start(void *ctx, const struct rsf_meta *meta,
		      const struct rsf_ksym *ksyms, size_t nksyms,
		      const struct rsf_module *mods, size_t nmods,
		      const struct rsf_func *funcs, size_t nfuncs)
{
	struct live *l = ctx;
	char err[512];

	l->rep = report_new(meta, ksyms, nksyms, mods, nmods, funcs, nfuncs, &l->ropts, stdout,
			    err, sizeof(err));
	if (!l->rep) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return -1;
	}
	return 0;
}

static void live_ready(void *ctx)
{
	(void)ctx;
	printf("Receiving data...\n");
}

static int live_record(void *ctx, const struct rs_rec_hdr *rec, size_t size)
{
	struct live *l = ctx;

	(void)size;
	report_feed(l->rep, rec);
	return 0;
}

static void live_end(void *ctx, const struct rsf_stats *stats)
{
	struct live *l = ctx;

	if (!l->rep)
		return;
	report_finish(l->rep, stats);
	report_free(l->rep);
	l->rep = NULL;
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

	setvbuf(stdout, NULL, _IOLBF, 0);
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
	r = record_run(&o, PROG, &hooks);
	if (l.rep)
		report_free(l.rep);
	record_opts_free(&o);
	return r;
}
