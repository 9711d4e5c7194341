/* main.c - retsnoop-report: reads a recording made by retsnoop-record and
 * renders every session in upstream retsnoop's trace, LBR and stack views, then the
 * recording's drop statistics. Exit status: 0 ok, 2 usage error or a
 * damaged recording (everything before the damage is still rendered). */
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "format/rsfile.h"
#include "report/addr2line_cmd.h"
#include "report/diff_cmd.h"
#include "report/info_cmd.h"
#include "report/multi_cmd.h"
#include "report/pipeline.h"
#include "report/report_args.h"
#include "report/report_config.h"

#define PROG "retsnoop-report"
#include "report/report_version.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [OPTIONS] FILE...\n"
		"       " PROG " diff [--format text|json] OLD NEW\n"
		"Render the sessions of retsnoop-record recordings as call stacks (several\n"
		"recordings: merged in time order, each session labelled with its recording).\n\n"
		"  -s                       symbolize with source lines (needs DWARF)\n"
		"  -ss                      source lines and inlined functions (needs DWARF)\n"
		"  -sn                      kallsyms names only (no DWARF)\n"
		"  -k, --kernel PATH        vmlinux image with DWARF (for -s/-ss; default: the\n"
		"                           recorded release's in the standard places, or debuginfod)\n"
		"      --allow-build-id-mismatch  use a vmlinux whose build-id differs (warns)\n"
		"  -C stacks.emit-addrs=BOOL    print raw addresses too\n"
		"  -C stacks.dec-offs=BOOL      function offsets in decimal\n"
		"  -C stacks.unfiltered=BOOL    keep BPF trampoline/program frames\n"
		"  -C stacks.symb-mode=MODE     none, linenum or inlines (like -sn/-s/-ss)\n"
		"  -C fmt.lbr-max-count=N       at most N LBR entries per sample\n"
		"      --config-help        list every -C setting with its default\n"
		"Views (default: every view the recording has, in the order trace, LBR, stack):\n"
		"  -T, --trace              function call trace view (only it, unless -E too)\n"
		"  -E, --call-stack         call stack view\n"
		"  -B, --lbr                LBR view\n"
		"      --lbr-max-count N    same as -C fmt.lbr-max-count=N\n"
		"  -v                       verbose: recording details and totals on stderr\n"
		"  -h, --help               this help\n"
		"      --version            print the version\n");
	report_args_usage(f);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, PROG ": ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
	va_end(ap);
	return 2;
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

/* the report of one recording; RA (owned by the caller) collects the
 * outputs and filters */
static int run_report(struct report_args *ra, int argc, char **argv)
{
	struct report_opts opts = {
		.symb = SYMB_DEFAULT,
		.show_stack = true,
	};
	const char *path = NULL;
	const char *paths[64];   /* several recordings: one merged report */
	size_t npaths = 0;
	char err[512];
	struct rsf_reader *rd;
	bool want_trace = false, want_stack = false, want_lbr = false;
	uint32_t mode;
	int ret, n;

	/* one thread writes stdout: no per-call stream locking (it was a tenth
	 * of the JSON output's time) */
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--config-help")) {
			report_config_help(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf(PROG " %s (recording format %d)\n", REPORT_VERSION, RSF_FORMAT_VERSION);
			return 0;
		} else if (!strcmp(a, "-T") || !strcmp(a, "--trace")) {
			want_trace = true;
		} else if (!strcmp(a, "-E") || !strcmp(a, "--call-stack")) {
			want_stack = true;
		} else if (!strcmp(a, "-B") || !strcmp(a, "--lbr")) {
			want_lbr = true;
		} else if (!strcmp(a, "--lbr-max-count") || !strncmp(a, "--lbr-max-count=", 16)) {
			const char *v = a[15] ? a + 16 : (i + 1 < argc ? argv[++i] : NULL);
			char kv[64];
			const char *msg;

			if (!v)
				return usage_error("option '%s' needs a number", a);
			snprintf(kv, sizeof(kv), "fmt.lbr-max-count=%.40s", v);
			msg = report_config_apply(kv, &opts);
			if (msg)
				return usage_error("%s", msg);
		} else if (!strcmp(a, "-s")) {
			opts.symb = SYMB_LINES;
		} else if (!strcmp(a, "-ss")) {
			opts.symb = SYMB_INLINES;
		} else if (!strcmp(a, "-sn")) {
			opts.symb = SYMB_NONE;
		} else if (!strcmp(a, "--allow-build-id-mismatch")) {
			opts.allow_build_id_mismatch = true;
		} else if (!strcmp(a, "--kernel") || !strncmp(a, "--kernel=", 9)) {
			const char *v = a[8] ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);

			if (!v)
				return usage_error("option '%s' needs a path", a);
			opts.vmlinux = v;
		} else if (!strcmp(a, "-k") || !strncmp(a, "-k", 2)) {
			const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);

			if (!v)
				return usage_error("option '%s' needs a path", a);
			opts.vmlinux = v;
		} else if (!strcmp(a, "-C") || !strncmp(a, "-C", 2)) {
			const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
			const char *msg;

			if (!v)
				return usage_error("option '%s' needs group.key=value", a);
			msg = report_config_apply(v, &opts);
			if (msg)
				return usage_error("%s", msg);
		} else if (a[0] == '-' && a[1] == 'v' && strspn(a + 1, "v") == strlen(a + 1)) {
			opts.verbose += (int)strlen(a + 1);
		} else if (!strcmp(a, "--")) {
			while (i + 1 < argc && npaths < 64)
				paths[npaths++] = argv[++i];
			if (i + 1 < argc)
				return usage_error("too many recordings (at most 64)");
		} else if ((n = report_args_parse(ra, argc, argv, i, 1, err, sizeof(err))) != 0) {
			if (n < 0)
				return usage_error("%s", err);
			i += n - 1;
		} else if (a[0] == '-' && a[1]) {
			return usage_error("unknown option '%s'", a);
		} else if (npaths == 64) {
			return usage_error("too many recordings (at most 64)");
		} else {
			paths[npaths++] = a;
		}
	}
	if (!npaths)
		return usage_error("%s", "no recording file given");
	for (size_t k = 0; k < npaths; k++)   /* the output guard: nothing read may be overwritten */
		if (rp_sel_check_vs(&ra->sel, paths[k], "the recording being read", err, sizeof(err)))
			return usage_error("%s", err);
	if (npaths > 1 && opts.vmlinux)
		return usage_error("-k names one vmlinux: with several recordings, each one's is "
				   "found by its build-id");
	if (npaths > 1)
		return multi_report(PROG, paths, npaths, &opts, ra,
				    (struct view_ask){ want_trace, want_stack, want_lbr });
	path = paths[0];

	/* the output guard: nothing read may be overwritten */
	if (rp_sel_check_vs(&ra->sel, path, "the recording being read", err, sizeof(err)) ||
	    rp_sel_check_vs(&ra->sel, opts.vmlinux, "the vmlinux given with -k", err, sizeof(err)))
		return usage_error("%s", err);
	rd = rsf_reader_open(path, err, sizeof(err));
	if (!rd) {   /* not a usage error: no --help hint */
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	/* views: what was recorded, or what was asked for (upstream: -T
	 * alone drops the stack view, -B alone keeps it) */
	mode = rsf_reader_meta(rd)->mode;
	{
		const char *missing = NULL;

		if (want_trace && !(mode & RSF_MODE_TRACE))
			missing = "function call trace (-T)";
		else if (want_lbr && !(mode & RSF_MODE_LBR))
			missing = "LBR (-B)";
		else if (want_stack && !(mode & RSF_MODE_STACKS))
			missing = "call stack (-E)";
		if (missing) {
			fprintf(stderr, PROG ": %s: the %s view was not recorded in this file\n",
				path, missing);
			rsf_reader_close(rd);
			return 2;
		}
	}
	if (want_trace || want_stack || want_lbr) {
		opts.show_trace = want_trace;
		opts.show_lbr = want_lbr;
		opts.show_stack = want_stack || (!want_trace && (mode & RSF_MODE_STACKS));
	} else {
		opts.show_trace = mode & RSF_MODE_TRACE;
		opts.show_lbr = mode & RSF_MODE_LBR;
		/* a recording naming no view still has stacks in its END records */
		opts.show_stack = (mode & RSF_MODE_STACKS) ||
				  !(mode & (RSF_MODE_TRACE | RSF_MODE_LBR));
	}
	if (opts.show_lbr && rsf_reader_meta(rd)->lbr_status[0])
		fprintf(stderr, PROG ": %s: no LBR view: LBR was not captured (%.*s)\n", path,
			(int)sizeof(rsf_reader_meta(rd)->lbr_status), rsf_reader_meta(rd)->lbr_status);
	if (opts.verbose) {
		size_t nksyms, nmods, nfuncs;

		rsf_reader_ksyms(rd, &nksyms);
		rsf_reader_modules(rd, &nmods);
		rsf_reader_funcs(rd, &nfuncs);
		print_meta(rsf_reader_meta(rd), nksyms, nmods, nfuncs);
	}
	ret = render(rd, path, &opts, ra);
	fflush(stdout);
	rsf_reader_close(rd);
	return ret;
}

int main(int argc, char **argv)
{
	struct report_args ra;
	int ret;

	if (argc > 1 && !strcmp(argv[1], "addr2line"))
		return addr2line_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "info"))
		return info_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return diff_main(argc - 1, argv + 1);
	report_args_init(&ra);
	ret = run_report(&ra, argc, argv);
	report_args_free(&ra);
	return ret;
}
