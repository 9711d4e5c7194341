/* report_args.c - the report's option table and parsers (report_args.h):
 * views, outputs and the filters only the report has (--success-only,
 * --errors-only, --stack-has, --entry, --since, --until); the filters the
 * recorder has too come from the shared table. */
#include <string.h>
#include <sys/stat.h>
#include "report_args.h"

enum {
	RA_TRACE, RA_STACK, RA_LBR, RA_SUCCESS_ONLY, RA_ERRORS_ONLY, RA_STACK_HAS, RA_ENTRY,
	RA_SINCE, RA_UNTIL, RA_FORMAT, RA_PERFETTO, RA_FOLDED, RA_FOLDED_WEIGHT, RA_SUMMARY,
	RA_SYMFS,
};

void report_args_init(struct report_args *a)
{
	memset(a, 0, sizeof(*a));
	filters_init(&a->filt);
}

void report_args_free(struct report_args *a)
{
	filters_free(&a->filt);
}

/* V is W1 or W2: *second = (V == W2) */
static int two_way(const char *flag, const char *w1, const char *w2, const char *v, bool *second,
		   struct opt_error *e)
{
	if (strcmp(v, w1) && strcmp(v, w2))
		return opt_fail(e, OPT_EUSAGE, "%s: expected '%s' or '%s', got '%s'", flag, w1, w2, v);
	*second = !strcmp(v, w2);
	return OPT_OK;
}

static int add_func_glob(struct filters *f, bool entry, const char *v, struct opt_error *e)
{
	const char *flag = entry ? "--entry" : "--stack-has";
	char err[200];

	if (v[0] == ':')
		return opt_fail(e, OPT_EUSAGE, "%s: source-path globs are not supported here ('%s')",
				flag, v);
	if (glob_set_add(entry ? &f->entries : &f->stack_has, v, err, sizeof(err)))
		return opt_fail(e, OPT_EUSAGE, "%s: %s", flag, err);
	return OPT_OK;
}

static int set_time(struct filters *f, bool until, const char *v, struct opt_error *e)
{
	int64_t dummy;

	if (filters_parse_time(v, 1000000000000000000ULL, &dummy))
		return opt_fail(e, OPT_EUSAGE, "%s: bad time '%s' (HH:MM:SS[.frac], 'YYYY-MM-DD "
				"HH:MM:SS[.frac]' or +N[ns|us|ms|s|m|h])", until ? "--until" : "--since", v);
	if (until) {
		f->until_txt = v;
		f->has_until = true;
	} else {
		f->since_txt = v;
		f->has_since = true;
	}
	return OPT_OK;
}

static int report_parse(void *ctx, int id, const char *v, struct opt_error *e)
{
	struct report_args *a = ctx;
	struct stat st;

	switch (id) {
	case RA_TRACE: a->want_trace = true; return OPT_OK;
	case RA_STACK: a->want_stack = true; return OPT_OK;
	case RA_LBR: a->want_lbr = true; return OPT_OK;
	case RA_SUCCESS_ONLY: a->filt.success_only = true; return OPT_OK;
	case RA_ERRORS_ONLY: a->filt.errors_only = true; return OPT_OK;
	case RA_STACK_HAS: case RA_ENTRY: return add_func_glob(&a->filt, id == RA_ENTRY, v, e);
	case RA_SINCE: case RA_UNTIL: return set_time(&a->filt, id == RA_UNTIL, v, e);
	case RA_FORMAT: return two_way("--format", "text", "json", v, &a->sel.json, e);
	case RA_PERFETTO:
		if (!*v)
			return opt_fail(e, OPT_EUSAGE, "--perfetto needs an output file");
		a->sel.perfetto_path = v;
		return OPT_OK;
	case RA_FOLDED: a->sel.folded = true; return OPT_OK;
	case RA_FOLDED_WEIGHT:
		a->sel.folded = true;
		return two_way("--folded-weight", "count", "latency", v, &a->sel.folded_lat, e);
	case RA_SUMMARY: a->sel.summary = true; return OPT_OK;
	case RA_SYMFS:
		if (!*v)
			return opt_fail(e, OPT_EUSAGE, "--symfs needs a directory");
		if (stat(v, &st) || !S_ISDIR(st.st_mode))
			return opt_fail(e, OPT_EUSAGE, "--symfs: '%s' is not a directory", v);
		a->symfs = v;
		return OPT_OK;
	}
	return opt_fail(e, OPT_EUSAGE, "internal error: option id %d", id);
}

#define REP OPT_REPORT
#define OUT (OPT_REPORT | OPT_LIVE)

const struct opt_spec report_opt_table[] = {
	{ "Views (default: every view the recording has, in the order trace, LBR, stack)",
	  "trace", 'T', OPT_NOARG, NULL, RA_TRACE, report_parse, REP, 0,
	  "function call trace view (only it, unless -E too)" },
	{ NULL, "call-stack", 'E', OPT_NOARG, NULL, RA_STACK, report_parse, REP, 0,
	  "call stack view" },
	{ NULL, "lbr", 'B', OPT_NOARG, NULL, RA_LBR, report_parse, REP, 0, "LBR view" },
	{ "Report-time filters (with the shared ones below; all combine with AND)",
	  "success-only", 0, OPT_NOARG, NULL, RA_SUCCESS_ONLY, report_parse, REP, 0,
	  "successful sessions only" },
	{ NULL, "errors-only", 0, OPT_NOARG, NULL, RA_ERRORS_ONLY, report_parse, REP, 0,
	  "failing sessions only (as -Sn)" },
	{ NULL, "stack-has", 0, OPT_REQUIRED, "GLOB", RA_STACK_HAS, report_parse, OUT, 0,
	  "only sessions whose stack (logical, kernel,\ninlined with DWARF) has a matching function\n"
	  "(repeatable, all must match; live: the -o\nrecording keeps every session)" },
	{ NULL, "entry", 0, OPT_REQUIRED, "GLOB", RA_ENTRY, report_parse, REP, 0,
	  "entry function matches (repeatable, any of them)" },
	{ NULL, "since", 0, OPT_REQUIRED, "T", RA_SINCE, report_parse, REP, 0,
	  "sessions that started at or after T:\nHH:MM:SS[.frac], 'YYYY-MM-DD HH:MM:SS' (local\n"
	  "time) or +N[ns|us|ms|s|m|h]" },
	{ NULL, "until", 0, OPT_REQUIRED, "T", RA_UNTIL, report_parse, REP, 0,
	  "sessions that started at or before T" },
	{ "Outputs (the live retsnoop prints the same as retsnoop-report of its recording)",
	  "format", 0, OPT_REQUIRED, "text|json", RA_FORMAT, report_parse, OUT, 0,
	  "text views (default) or NDJSON, one session per line" },
	{ NULL, "perfetto", 0, OPT_REQUIRED, "FILE", RA_PERFETTO, report_parse, OUT, 0,
	  "also write Chrome trace-event JSON\n(ui.perfetto.dev)" },
	{ NULL, "folded", 0, OPT_NOARG, NULL, RA_FOLDED, report_parse, OUT, 0,
	  "folded stacks for flamegraph.pl / inferno" },
	{ NULL, "folded-weight", 0, OPT_REQUIRED, "count|latency", RA_FOLDED_WEIGHT, report_parse,
	  OUT, 0, "by sessions or self latency (us)" },
	{ NULL, "summary", 0, OPT_NOARG, NULL, RA_SUMMARY, report_parse, OUT, 0,
	  "failing functions, error codes, latency percentiles" },
	{ NULL, "symfs", 0, OPT_REQUIRED, "DIR", RA_SYMFS, report_parse, OUT, 0,
	  "user stacks (-U): look for each binary at\nDIR/<recorded path> first (build-id checked)" },
};

const size_t report_opt_count = sizeof(report_opt_table) / sizeof(report_opt_table[0]);

int report_args_finish(struct report_args *a, const struct shared_opts *s, bool filters,
		       struct opt_error *e)
{
	struct filters *f = &a->filt;
	const struct filter_opts *o = &s->f;
	int r = filter_opts_check(o, e);

	if (r || !filters)
		return r;
	memcpy(f->pids, o->pids, sizeof(f->pids));
	f->npids = o->npids;
	memcpy(f->nopids, o->nopids, sizeof(f->nopids));
	f->nnopids = o->nnopids;
	memcpy(f->comms, o->comms, sizeof(f->comms));
	f->ncomms = o->ncomms;
	memcpy(f->nocomms, o->nocomms, sizeof(f->nocomms));
	f->nnocomms = o->nnocomms;
	f->errs = o->errs;
	f->has_x = o->has_x;
	f->has_X = o->has_X;
	f->min_lat_ns = o->min_lat_ns;
	f->success_too = o->success_yes;
	f->errors_only |= o->success_no;
	f->outcome = f->success_only ? FILT_SUCCESS_ONLY : f->errors_only ? FILT_ERROR_ONLY : FILT_ANY;
	return OPT_OK;
}
