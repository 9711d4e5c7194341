/* main.c - retsnoop-report: reads a recording made by retsnoop-record and
 * renders every session in upstream retsnoop's trace, LBR and stack views, then the
 * recording's drop statistics; the subcommands info, summary and
 * addr2line. Options: the report's table (report_args.c) and the shared
 * one (common/shared_opts.c). Exit status: 0 ok, 2 usage error or a
 * damaged recording (everything before the damage is still rendered). */
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include "format/rsfile.h"
#include "report/addr2line_cmd.h"
#include "report/diff_cmd.h"
#include "report/info_cmd.h"
#include "report/multi_cmd.h"
#include "report/pipeline.h"
#include "report/report_args.h"
#include "report/report_config.h"
#include "report/report_version.h"

#define PROG "retsnoop-report"

/* one command line of the report */
struct report_cli {
	struct report_args ra;
	struct shared_opts s;
	struct report_opts opts;
	const char *paths[64];   /* several recordings: one merged report */
	size_t npaths;
	struct opt_group groups[2];
	struct opt_cmdline c;
};

static int run_summary(int argc, char **argv);

/* the subcommands; global options may come before or after them */
static const struct subcmd {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *column, *help;
} subcmds[] = {
	{ "info", info_main, "info FILE", "what the recording holds (see info --help)" },
	{ "summary", run_summary, "summary FILE", "the same as --summary" },
	{ "addr2line", addr2line_main, "addr2line", "hex addresses on stdin to FUNCTION PATH:LINE\n"
	  "(see addr2line --help)" },
	{ "diff", diff_main, "diff OLD NEW", "failing call paths new, gone or changed in count\n"
	  "(see diff --help)" },
};

static void help(FILE *f, const struct opt_cmdline *c)
{
	fprintf(f, "Usage: " PROG " [OPTIONS] FILE...\n"
		   "       " PROG " info|summary|addr2line|diff [OPTIONS] ...\n"
		   "Render the sessions of retsnoop-record recordings as call stacks (several\n"
		   "recordings: one report, sessions merged in time order).\n\n");
	opt_help(f, c);
	fprintf(f, "Subcommands (the global options may come before or after them):\n");
	for (size_t i = 0; i < sizeof(subcmds) / sizeof(subcmds[0]); i++) {
		const char *h = subcmds[i].help, *nl = strchr(h, '\n');

		fprintf(f, "  %-26s%.*s\n", subcmds[i].column, nl ? (int)(nl - h) : (int)strlen(h), h);
		if (nl)
			fprintf(f, "%28s%s\n", "", nl + 1);
	}
}

static int word(void *ctx, const char *w, struct opt_error *e)
{
	struct report_cli *r = ctx;

	if (r->npaths == sizeof(r->paths) / sizeof(r->paths[0]))
		return opt_fail(e, OPT_EUSAGE, "too many recordings (at most 64)");
	r->paths[r->npaths++] = w;
	return OPT_OK;
}

static void cli_init(struct report_cli *r)
{
	memset(r, 0, sizeof(*r));
	report_args_init(&r->ra);
	r->opts.symb = SYMB_DEFAULT;
	r->opts.args.max_width = ARGS_FMT_DEFAULT_WIDTH;
	r->opts.show_stack = true;
	shared_opts_init(&r->s, OPT_REPORT, report_config_set, &r->opts);
	r->groups[0] = (struct opt_group){ report_opt_table, report_opt_count, &r->ra };
	r->groups[1] = (struct opt_group){ shared_opt_table, shared_opt_count, &r->s };
	r->c = (struct opt_cmdline){
		.prog = PROG, .cmd = OPT_REPORT, .groups = r->groups, .ngroups = 2,
		.dashdash = OPT_DD_WORDS, .word = word, .word_ctx = r,
	};
}

/* the output guard (nothing read may be overwritten), one -k for one
 * recording; OPT_OK or OPT_EUSAGE */
static int check_inputs(struct report_cli *r, struct opt_error *e)
{
	for (size_t k = 0; k < r->npaths; k++)
		if (rp_sel_check_vs(&r->ra.sel, r->paths[k], "the recording being read", e->msg,
				    sizeof(e->msg)))
			return OPT_EUSAGE;
	if (rp_sel_check_vs(&r->ra.sel, r->s.kernel, "the vmlinux given with -k", e->msg,
			    sizeof(e->msg)))
		return OPT_EUSAGE;
	if (r->npaths > 1 && r->s.kernel)
		return opt_fail(e, OPT_EUSAGE, "-k names one vmlinux: with several recordings, each "
				"one's is found by its build-id");
	return OPT_OK;
}

/* 0 to render R->paths, else the exit status (help, version, usage error) */
static int parse_args(struct report_cli *r, int argc, char **argv, int *status)
{
	struct opt_error e;
	int k = opt_parse(&r->c, argc, argv, &e);

	if (k == OPT_OK)
		k = report_args_finish(&r->ra, &r->s, true, &e);
	if (k == OPT_OK && !r->s.help && !r->s.usage && !r->s.config_help && !r->s.version &&
	    !r->npaths)
		k = opt_fail(&e, OPT_EUSAGE, "no recording file given");
	if (k == OPT_OK && r->npaths)
		k = check_inputs(r, &e);
	*status = 0;
	if (k < 0) {
		opt_error_print(stderr, PROG, k, &e);
		*status = 2;
	} else if (r->s.list) {
		opt_list(stdout, &r->c);
	} else if (r->s.help) {
		help(stdout, &r->c);
	} else if (r->s.usage) {
		opt_usage(stdout, &r->c, "FILE...");
	} else if (r->s.config_help) {
		cfg_help(stdout, OPT_REPORT);
	} else if (r->s.version) {
		printf(PROG " %s (recording format %d)\n", REPORT_VERSION, RSF_FORMAT_VERSION);
	} else {
		if (r->s.symb >= 0)
			r->opts.symb = (enum symb_mode)r->s.symb;
		r->opts.vmlinux = r->s.kernel;
		r->opts.symfs = r->ra.symfs;
		r->opts.allow_build_id_mismatch = r->s.allow_build_id_mismatch;
		r->opts.verbose = r->s.verbose;
		return 0;
	}
	return -1;
}

/* views: what was recorded, or what was asked for (upstream: -T alone
 * drops the stack view, -B alone keeps it). -1 after a message when one
 * asked for was not recorded. */
static int pick_views(struct report_opts *opts, const struct report_args *ra,
		      const struct rsf_meta *m, const char *path)
{
	uint32_t mode = m->mode;
	const char *missing = NULL;

	if (ra->want_trace && !(mode & RSF_MODE_TRACE))
		missing = "function call trace (-T)";
	else if (ra->want_lbr && !(mode & RSF_MODE_LBR))
		missing = "LBR (-B)";
	else if (ra->want_stack && !(mode & RSF_MODE_STACKS))
		missing = "call stack (-E)";
	if (missing) {
		fprintf(stderr, PROG ": %s: the %s view was not recorded in this file\n", path, missing);
		return -1;
	}
	if (ra->want_trace || ra->want_stack || ra->want_lbr) {
		opts->show_trace = ra->want_trace;
		opts->show_lbr = ra->want_lbr;
		opts->show_stack = ra->want_stack || (!ra->want_trace && (mode & RSF_MODE_STACKS));
	} else {
		opts->show_trace = mode & RSF_MODE_TRACE;
		opts->show_lbr = mode & RSF_MODE_LBR;
		/* a recording naming no view still has stacks in its END records */
		opts->show_stack = (mode & RSF_MODE_STACKS) || !(mode & (RSF_MODE_TRACE | RSF_MODE_LBR));
	}
	if (opts->show_lbr && m->lbr_status[0])
		fprintf(stderr, PROG ": %s: no LBR view: LBR was not captured (%.*s)\n", path,
			(int)sizeof(m->lbr_status), m->lbr_status);
	return 0;
}

static void print_meta(const struct rsf_meta *m, size_t nksyms, size_t nmods, size_t nfuncs)
{
	fprintf(stderr, "Recording by retsnoop-record %s: %s\n", m->recorder_version, m->cmdline);
	fprintf(stderr, "Kernel %s %s (%s) on host %s, attach mode %s.\n", m->uts_release,
		m->uts_version, m->uts_machine, m->hostname, m->attach_mode);
	fprintf(stderr, "Snapshot: %zu kallsyms function(s), %zu module(s), %zu traced function(s).\n",
		nksyms, nmods, nfuncs);
}

/* the recording at PATH through the report pipeline; the exit status */
static int render(struct rsf_reader *rd, const char *path, const struct report_opts *opts,
		  struct report_args *ra)
{
	struct rp_config cfg = {
		.prog = PROG, .out = stdout, .msgs = stderr, .opts = *opts, .sel = ra->sel,
		.filt = &ra->filt, .drop_table = true,
	};
	struct rp_env t = { .meta = rsf_reader_meta(rd) };
	enum rsf_status st;
	struct rp *p;
	char err[512];
	int ret = 0;

	t.ksyms = rsf_reader_ksyms(rd, &t.nksyms);
	t.mods = rsf_reader_modules(rd, &t.nmods);
	t.funcs = rsf_reader_funcs(rd, &t.nfuncs);
	rp_env_read_blobs(&t, rd);
	p = rp_new(&cfg, &t, err, sizeof(err));
	if (!p) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	if (rp_attach_symbols(p, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s: %s\n", path, err);
		rp_free(p);
		return 2;   /* the vmlinux given or found does not fit the recording */
	}
	while (1) {
		const struct rs_rec_hdr *rec;

		st = rsf_reader_next(rd, &rec);
		if (st != RSF_OK)
			break;
		rp_feed(p, rec);
	}
	if (rp_finish(p, st == RSF_END ? rsf_reader_stats(rd) : NULL, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		ret = 1;
	}
	rp_free(p);
	if (st == RSF_DAMAGED) {
		fprintf(stderr, PROG ": %s: %s\n", path, rsf_reader_error(rd));
		ret = 2;
	} else if (!rsf_reader_stats(rd)) {
		fprintf(stderr, PROG ": %s: the recording is incomplete (no trailer: the recorder "
			"was killed?); statistics are unavailable\n", path);
	}
	return ret;
}

/* the report of one recording (SUMMARY: the summary subcommand) */
static int run_report(int argc, char **argv, bool summary)
{
	struct report_cli *r = malloc(sizeof(*r));
	struct rsf_reader *rd;
	char err[512];
	int ret;

	if (!r) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	cli_init(r);
	r->ra.sel.summary = summary;
	/* one thread writes stdout: no per-call stream locking (it was a tenth
	 * of the JSON output's time) */
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
	if (parse_args(r, argc, argv, &ret))
		goto out;
	if (r->npaths > 1) {
		ret = multi_report(PROG, r->paths, r->npaths, &r->opts, &r->ra,
				   (struct view_ask){ r->ra.want_trace, r->ra.want_stack,
						      r->ra.want_lbr });
		goto out;
	}
	ret = 2;
	rd = rsf_reader_open(r->paths[0], err, sizeof(err));
	if (!rd) {   /* not a usage error: no --help hint */
		fprintf(stderr, PROG ": %s\n", err);
		goto out;
	}
	if (!pick_views(&r->opts, &r->ra, rsf_reader_meta(rd), r->paths[0])) {
		if (r->opts.verbose) {
			size_t nksyms, nmods, nfuncs;

			rsf_reader_ksyms(rd, &nksyms);
			rsf_reader_modules(rd, &nmods);
			rsf_reader_funcs(rd, &nfuncs);
			print_meta(rsf_reader_meta(rd), nksyms, nmods, nfuncs);
		}
		ret = render(rd, r->paths[0], &r->opts, &r->ra);
		fflush(stdout);
	}
	rsf_reader_close(rd);
out:
	report_args_free(&r->ra);
	free(r);
	return ret;
}

static int run_summary(int argc, char **argv)
{
	return run_report(argc, argv, true);
}

int main(int argc, char **argv)
{
	struct report_cli *r = malloc(sizeof(*r));
	char **sub_argv;
	int k, ret;

	if (!r) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	cli_init(r);
	k = opt_first_word(&r->c, argc, argv);
	report_args_free(&r->ra);
	free(r);
	for (size_t i = 0; k > 0 && i < sizeof(subcmds) / sizeof(subcmds[0]); i++) {
		if (strcmp(argv[k], subcmds[i].name))
			continue;
		/* the subcommand parses every other word, before or after it */
		sub_argv = malloc(sizeof(*sub_argv) * (size_t)argc);
		if (!sub_argv) {
			fprintf(stderr, PROG ": out of memory\n");
			return 1;
		}
		memcpy(sub_argv, argv, sizeof(*argv) * (size_t)k);
		memcpy(sub_argv + k, argv + k + 1, sizeof(*argv) * (size_t)(argc - k));
		ret = subcmds[i].main(argc - 1, sub_argv);
		free(sub_argv);
		return ret;
	}
	return run_report(argc, argv, false);
}
