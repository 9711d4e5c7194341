/* report_args.c - the report-time flags shared by retsnoop-report and the
 * live retsnoop (report_args.h): outputs (--format, --perfetto, --folded,
 * --folded-weight, summary) here, filters through filters_parse_arg. */
#include <string.h>
#include "report_args.h"

void report_args_init(struct report_args *a)
{
	memset(a, 0, sizeof(*a));
	filters_init(&a->filt);
}

void report_args_free(struct report_args *a)
{
	filters_free(&a->filt);
}

/* --NAME=V or --NAME V where V is W1 or W2: sets *second to V == W2 and
 * returns the arguments used; 0 when argv[i] is not --NAME; -1 with a
 * message in err */
static int two_way(const char *name, const char *w1, const char *w2, int argc, char **argv,
		   int i, bool *second, char *err, size_t errlen)
{
	size_t n = strlen(name);
	const char *s = argv[i], *v;

	if (strncmp(s, name, n) || (s[n] && s[n] != '='))
		return 0;
	v = s[n] ? s + n + 1 : (i + 1 < argc ? argv[i + 1] : "");
	if (strcmp(v, w1) && strcmp(v, w2)) {
		snprintf(err, errlen, "%s: expected '%s' or '%s', got '%s'", name, w1, w2, v);
		return -1;
	}
	*second = !strcmp(v, w2);
	return s[n] ? 1 : 2;
}

int report_args_parse(struct report_args *a, int argc, char **argv, int i, int argv_base,
		      char *err, size_t errlen)
{
	struct rp_outsel *o = &a->sel;
	const char *s = argv[i];
	int n;

	if ((i == argv_base && !strcmp(s, "summary")) || !strcmp(s, "--summary")) {
		o->summary = true;
		return 1;
	}
	if (!strcmp(s, "--folded")) {
		o->folded = true;
		return 1;
	}
	if ((n = two_way("--folded-weight", "count", "latency", argc, argv, i, &o->folded_lat,
			 err, errlen)) != 0) {
		o->folded |= n > 0;
		return n;
	}
	if ((n = two_way("--format", "text", "json", argc, argv, i, &o->json, err, errlen)) != 0)
		return n;
	if (!strncmp(s, "--perfetto", 10) && (s[10] == '=' || !s[10])) {
		const char *v = s[10] ? s + 11 : (i + 1 < argc ? argv[i + 1] : NULL);

		if (!v || !*v) {
			snprintf(err, errlen, "--perfetto needs an output file");
			return -1;
		}
		o->perfetto_path = v;
		return s[10] ? 1 : 2;
	}
	return filters_parse_arg(&a->filt, argc, argv, i, err, errlen);
}

void report_args_usage(FILE *f)
{
	fprintf(f,
		"\nReport-time filters (combine with AND):\n"
		"  -p PID / -P PID          only / not this process (repeatable)\n"
		"  -n COMM / -N COMM        only / not this thread name (glob, repeatable)\n"
		"  -x ERR / -X ERR          only sessions with / without this error (ENOMEM, 12, NULL)\n"
		"  -L MS                    only sessions whose entry function took >= MS ms\n"
		"  -S, -Sy / -Sn            successful sessions too (as without -S) / failing\n"
		"                           sessions only: what they mean to the recorder\n"
		"  --success-only           successful sessions only\n"
		"  --stack-has GLOB         stack (logical, kernel, inlined with DWARF) has a matching\n"
		"                           function (all must match)\n"
		"  --entry GLOB             entry function matches (any of them)\n"
		"  --since T / --until T    session start within [T1, T2]: HH:MM:SS[.frac],\n"
		"                           'YYYY-MM-DD HH:MM:SS' (local time) or +N[ns|us|ms|s|m|h]\n"
		"Outputs:\n"
		"  --format text|json       text views (default) or NDJSON, one session per line\n"
		"  --perfetto FILE          Chrome trace-event JSON for ui.perfetto.dev\n"
		"  --folded                 folded stacks for flamegraph.pl / inferno\n"
		"  --folded-weight=count|latency   weight by sessions or by self latency (us)\n"
		"  summary FILE, --summary  failing functions, error codes, latency percentiles\n"
		"  info FILE                what the recording holds\n");
}
