/* options.c - parses retsnoop-record's command line (options.h) with
 * upstream retsnoop's flag names; every bad value is a one-line error. */
#include "record/options.h"
#include "common/same_file.h"
#include "record/presets.h"
#include "bpf/retsnoop_abi.h"
#include "common/config_help.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


enum {
	OPT_DRY_RUN = 0x100,
	OPT_CONFIG_HELP,
	OPT_OUTPUT,
	OPT_LBR_MAX_COUNT,
	OPT_ALLOW_BUILD_ID_MISMATCH,
	/* the live tool's report outputs and filters, handed to the report */
	OPT_FORMAT,
	OPT_FOLDED,
	OPT_FOLDED_WEIGHT,
	OPT_PERFETTO,
	OPT_SUMMARY,
	OPT_STACK_HAS,
};

static const struct option long_opts[] = {
	{ "entry", required_argument, NULL, 'e' },
	{ "allow", required_argument, NULL, 'a' },
	{ "deny", required_argument, NULL, 'd' },
	{ "case", required_argument, NULL, 'c' },
	{ "kprobes-multi", no_argument, NULL, 'M' },
	{ "kprobes", no_argument, NULL, 'K' },
	{ "fentries", no_argument, NULL, 'F' },
	{ "pid", required_argument, NULL, 'p' },
	{ "no-pid", required_argument, NULL, 'P' },
	{ "comm", required_argument, NULL, 'n' },
	{ "no-comm", required_argument, NULL, 'N' },
	{ "success-stacks", optional_argument, NULL, 'S' },
	{ "allow-errors", required_argument, NULL, 'x' },
	{ "deny-errors", required_argument, NULL, 'X' },
	{ "longer", required_argument, NULL, 'L' },
	{ "trace", no_argument, NULL, 'T' },
	{ "call-stack", no_argument, NULL, 'E' },
	{ "interim-stacks", no_argument, NULL, 'I' },
	{ "lbr", optional_argument, NULL, 'B' },
	{ "kernel", required_argument, NULL, 'k' },
	{ "output", required_argument, NULL, 'o' },
	{ "config", required_argument, NULL, 'C' },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "config-help", no_argument, NULL, OPT_CONFIG_HELP },
	{ "symbolize", optional_argument, NULL, 's' },
	{ "lbr-max-count", required_argument, NULL, OPT_LBR_MAX_COUNT },
	{ "allow-build-id-mismatch", no_argument, NULL, OPT_ALLOW_BUILD_ID_MISMATCH },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "folded-weight", required_argument, NULL, OPT_FOLDED_WEIGHT },
	{ "perfetto", required_argument, NULL, OPT_PERFETTO },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "stack-has", required_argument, NULL, OPT_STACK_HAS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void record_usage(FILE *f, const char *prog, bool live)
{
	if (live)
		fprintf(f,
"Usage: %s [OPTIONS] -e GLOB [-a GLOB]... [-o FILE] [-- CMD ARGS...]\n"
"Trace kernel function calls and print every session that ends in an error\n"
"as soon as it ends (Ctrl-C to stop).\n", prog);
	else
		fprintf(f,
"Usage: %s [OPTIONS] -e GLOB [-a GLOB]... -o FILE [-- CMD ARGS...]\n"
"Record kernel function call sessions that end in an error, for retsnoop-report.\n", prog);
	fprintf(f,
"\n"
"Selection (GLOB: NAME, 'NAME [MODULE]' or ':SRC_PATH'; * and ? wildcards):\n"
"  -e, --entry GLOB          functions that start a session (repeatable)\n"
"  -a, --allow GLOB          functions traced inside a session (repeatable)\n"
"  -d, --deny GLOB           functions never traced (wins over -e/-a)\n"
"  -c, --case NAME           add a preset of globs (%s)\n"
"  -k, --kernel VMLINUX      vmlinux with DWARF, for :path globs%s\n"
"Attach mode (default: kprobe.multi if supported, else kprobes, else fentry):\n"
"  -M, --kprobes-multi       kprobe.multi / kretprobe.multi\n"
"  -K, --kprobes             one kprobe/kretprobe per function\n"
"  -F, --fentries            fentry/fexit (needs BTF)\n"
"Capture:\n"
"  -E, --call-stack          error stacks (default unless -T)\n"
"  -T, --trace               every entry/exit inside sessions\n"
"  -S, --success-stacks[=y|n]  also sessions that did not fail (-Sn: failing only)\n"
"  -I, --interim-stacks      interim snapshots\n"
"  -B, --lbr[=FLAGS]         Last Branch Records (FLAGS: any_return by default)\n"
"  -R                        same as -B (retsnoop v0.9 name)\n"
"Filters:\n"
"  -p, --pid PID             only this process (repeatable)\n"
"  -P, --no-pid PID          not this process (repeatable)\n"
"  -n, --comm NAME           only threads named NAME (repeatable)\n"
"  -N, --no-comm NAME        not threads named NAME (repeatable)\n"
"  -x, --allow-errors ERR    only sessions with this error (EINVAL, -ENOMEM, NULL, any)\n"
"  -X, --deny-errors ERR     not sessions with this error\n"
"  -L, --longer MS           only sessions lasting at least MS milliseconds\n",
		preset_names(), live ? " and -s/-ss" : "");
	if (live)
		fprintf(f,
"Rendering:\n"
"  -s, --symbolize[=LEVEL]   -s source lines, -ss and inlines, -sn names only\n"
"                            (default: -ss when a vmlinux with DWARF is found)\n"
"      --lbr-max-count N     same as -C fmt.lbr-max-count=N (v0.9 name)\n"
"      --allow-build-id-mismatch  use a -k vmlinux whose build-id differs (warns)\n"
"      --stack-has GLOB      show only sessions whose stack (logical, kernel, inlined\n"
"                            with DWARF) has a matching function (repeatable, all\n"
"                            must match); the -o recording keeps every session\n"
"Output (the same as retsnoop-report prints for the -o recording, same flags):\n"
"  -o, --output FILE         also write the recording, for retsnoop-report\n"
"      --format text|json    text views (default) or NDJSON, a line per session as\n"
"                            it ends\n"
"      --perfetto FILE       also write Chrome trace-event JSON (ui.perfetto.dev),\n"
"                            completed at exit\n"
"      --folded              folded stacks for flamegraph.pl, printed at exit\n"
"      --folded-weight=count|latency  weigh them by sessions or self latency (us)\n"
"      --summary             failing functions, errors and latency percentiles,\n"
"                            printed at exit\n");
	else
		fprintf(f,
"Output:\n"
"  -o, --output FILE         recording file (created with mode 0600)\n");
	fprintf(f,
"  -C, --config KEY=VALUE    advanced setting (repeatable; see --config-help)\n"
"      --config-help         list every -C setting with its default\n"
"      --dry-run             select functions and stop (-v: list them, attach plan)\n"
"  -v, --verbose             more detail (-vv, -vvv: libbpf logs too)\n"
"  -V, --version             print the version (-Vv: feature detection too)\n"
"  -h, --help                this help\n"
"  -- CMD ARGS...            run CMD, trace only it and its children, stop when it exits\n");
}

static const struct config_key record_keys[] = {
	{ "bpf.ringbuf-size", "BYTES", "8388608",
	  "ring buffer size, a power of two >= 4096 (raise on drops)" },
	{ "bpf.sessions-size", "N", "4096",
	  "sessions in flight at once, 1..1000000 (raise on TABLE FULL)" },
	{ "bpf.max-depth", "N", "64", "nested calls tracked per session, 1..64" },
};

void record_config_help(FILE *f)
{
	config_help_print(f, "Recording settings (-C KEY=VALUE)", record_keys,
			  sizeof(record_keys) / sizeof(record_keys[0]));
}

static int fail(const char *prog, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see --help)\n");
	return -1;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int add_glob(struct glob_set *set, const char *text, const char *prog, const char *what)
{
	char err[256];

	if (glob_set_add(set, text, err, sizeof(err))) {
		fprintf(stderr, "%s: bad %s glob '%s': %s\n", prog, what, text, err);
		return -1;
	}
	return 0;
}

static const struct { const char *name; uint64_t flag; } lbr_names[] = {
	/* perf_event.h PERF_SAMPLE_BRANCH_* bits */
	{ "any", 1ULL << 3 }, { "any_call", 1ULL << 4 }, { "any_return", 1ULL << 5 },
	{ "ind_call", 1ULL << 6 }, { "abort_tx", 1ULL << 7 }, { "in_tx", 1ULL << 8 },
	{ "no_tx", 1ULL << 9 }, { "cond", 1ULL << 10 }, { "call_stack", 1ULL << 11 },
	{ "ind_jump", 1ULL << 12 }, { "call", 1ULL << 13 },
};

static int parse_lbr(const char *s, uint64_t *flags)
{
	uint64_t v;
	char *end;

	for (size_t i = 0; i < sizeof(lbr_names) / sizeof(lbr_names[0]); i++) {
		if (strcasecmp(s, lbr_names[i].name) == 0) {
			*flags |= lbr_names[i].flag;
			return 0;
		}
	}
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || !v)
		return -1;
	*flags |= v;
	return 0;
}

/* the -C bpf.max-depth error message names the limit literally */
_Static_assert(RS_MAX_FSTACK_DEPTH == 64, "update the bpf.max-depth message");

static int parse_config(struct record_opts *o, const char *kv, const char *prog)
{
	const char *eq = strchr(kv, '=');
	uint64_t v;

	if (!eq || !strchr(kv, '.') || strchr(kv, '.') > eq)
		return fail(prog, "malformed -C '%s': expected group.key=value", kv);
	if (o->live && (!strncmp(kv, "stacks.", 7) || !strncmp(kv, "fmt.", 4))) {
		if (o->nreport_cfg >= 32)
			return fail(prog, "too many -C values at '%s'", kv);
		o->report_cfg[o->nreport_cfg++] = kv;
		return 0;
	}
	if (strncmp(kv, "bpf.ringbuf-size=", 17) == 0) {
		if (parse_u64(eq + 1, &v) || v < 4096 || (v & (v - 1)))
			return fail(prog, "bad bpf.ringbuf-size '%s': must be a power of two >= 4096", eq + 1);
		o->ringbuf_size = v;
	} else if (strncmp(kv, "bpf.sessions-size=", 18) == 0) {
		if (parse_u64(eq + 1, &v) || v < 1 || v > 1000000)
			return fail(prog, "bad bpf.sessions-size '%s': must be 1..1000000", eq + 1);
		o->sessions_size = (uint32_t)v;
	} else if (strncmp(kv, "bpf.max-depth=", 14) == 0) {
		if (parse_u64(eq + 1, &v) || v < 1 || v > RS_MAX_FSTACK_DEPTH)
			return fail(prog, "bad bpf.max-depth '%s': must be 1..64 (the recorder's frame limit)", eq + 1);
		o->max_depth = (uint32_t)v;
	} else {
		bool rendering = !strncmp(kv, "stacks.", 7) || !strncmp(kv, "fmt.", 4);

		fprintf(stderr, "%s: unknown config key in '%s' (%ssee --config-help)\n", prog, kv,
			rendering ? "a rendering setting: give it to retsnoop-report; " : "");
		return -1;
	}
	return 0;
}

static void build_cmdline(struct record_opts *o, int argc, char **argv)
{
	size_t len = 0;

	o->cmdline[0] = '\0';
	for (int i = 0; i < argc && len < sizeof(o->cmdline) - 1; i++) {
		bool quote = strpbrk(argv[i], " \t*?[]'\"$") != NULL || !argv[i][0];
		int n = snprintf(o->cmdline + len, sizeof(o->cmdline) - len, "%s%s%s%s",
				 i ? " " : "", quote ? "'" : "", argv[i], quote ? "'" : "");
		if (n < 0)
			break;
		len += (size_t)n;
		if (len >= sizeof(o->cmdline))
			len = sizeof(o->cmdline) - 1;
	}
}

static enum record_parse parse(struct record_opts *o, int argc, char **argv, const char *prog,
				bool live)
{
	int c, success_yes = 0, success_no = 0;
	uint64_t v;

	memset(o, 0, sizeof(*o));
	o->live = live;
	o->symb = -1;
	o->success = -1;
	o->ringbuf_size = 8 << 20;
	o->sessions_size = 4096;
	o->max_depth = RS_MAX_FSTACK_DEPTH;
	build_cmdline(o, argc, argv);
	optind = 1;
	opterr = 0;
	/* '+': stop at the first non-option, so that a stray word before "--"
	 * is reported instead of being permuted into the command to run */
	while ((c = getopt_long(argc, argv, live ? "+:e:a:d:c:MKFp:P:n:N:S::x:X:L:TEIB::R::k:o:C:s::vVh" : "+:e:a:d:c:MKFp:P:n:N:S::x:X:L:TEIB::R::k:o:C:vVh",
				long_opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (add_glob(&o->entry, optarg, prog, "entry"))
				return -1;
			break;
		case 'a':
			if (add_glob(&o->allow, optarg, prog, "allow"))
				return -1;
			break;
		case 'd':
			if (add_glob(&o->deny, optarg, prog, "deny"))
				return -1;
			break;
		case 'c': {
			const struct preset *p = preset_find(optarg);

			if (!p) {
				fprintf(stderr, "%s: unknown preset '%s' for -c (known: %s)\n",
					prog, optarg, preset_names());
				return -1;
			}
			for (int i = 0; p->entry[i]; i++)
				if (add_glob(&o->entry, p->entry[i], prog, "entry"))
					return -1;
			for (int i = 0; p->allow[i]; i++)
				if (add_glob(&o->allow, p->allow[i], prog, "allow"))
					return -1;
			for (int i = 0; p->deny[i]; i++)
				if (add_glob(&o->deny, p->deny[i], prog, "deny"))
					return -1;
			break;
		}
		case 'M': case 'K': case 'F': {
			enum attach_mode m = c == 'M' ? ATTACH_KPROBE_MULTI :
					     c == 'K' ? ATTACH_KPROBE : ATTACH_FENTRY;
			if (o->mode && o->mode != m) {
				fprintf(stderr, "%s: -M, -K and -F are mutually exclusive: pick one\n", prog);
				return -1;
			}
			o->mode = m;
			break;
		}
		case 'p': case 'P':
			if (parse_u64(optarg, &v) || v == 0 || v > 0x7fffffff)
				return fail(prog, "bad PID '%s': expected a process id (a positive integer)", optarg);
			if (c == 'p') {
				if (o->npids >= 256)
					return fail(prog, "too many -p values (max 256) at '%s'", optarg);
				o->pids[o->npids++] = (int)v;
			} else {
				if (o->nnopids >= 256)
					return fail(prog, "too many -P values (max 256) at '%s'", optarg);
				o->nopids[o->nnopids++] = (int)v;
			}
			break;
		case 'n': case 'N':
			if (!optarg[0] || strlen(optarg) > 15)
				return fail(prog, "bad comm '%s': must be 1..15 characters", optarg);
			if (c == 'n') {
				if (o->ncomms >= 64)
					return fail(prog, "too many -n values (max 64) at '%s'", optarg);
				snprintf(o->comms[o->ncomms++], 16, "%s", optarg);
			} else {
				if (o->nnocomms >= 64)
					return fail(prog, "too many -N values (max 64) at '%s'", optarg);
				snprintf(o->nocomms[o->nnocomms++], 16, "%s", optarg);
			}
			break;
		case 'S':
			if (!optarg || !strcasecmp(optarg, "y") || !strcasecmp(optarg, "yes"))
				success_yes = 1;
			else if (!strcasecmp(optarg, "n") || !strcasecmp(optarg, "no"))
				success_no = 1;
			else
				return fail(prog, "bad -S value '%s': expected y or n (attached: -Sy, -Sn)", optarg);
			break;
		case 'x': case 'X':
			if (err_filter_add(&o->errs, optarg, c == 'X'))
				return fail(prog, "unknown error '%s' for -x/-X (use e.g. EINVAL, -ENOMEM, NULL, any)", optarg);
			break;
		case 'L':
			if (parse_u64(optarg, &v) || v == 0 || v > 1000000000ULL)
				return fail(prog, "bad -L duration '%s': expected a positive number of milliseconds", optarg);
			o->longer_ms = v;
			break;
		case 'T': o->trace = true; break;
		case 'E': o->stacks = true; o->stacks_set = true; break;
		case 'I': o->interim = true; break;
		case 'B': case 'R':   /* -R: the v0.9 name of -B */
			o->lbr = true;
			if (optarg && parse_lbr(optarg, &o->lbr_flags))
				return fail(prog, "bad LBR flags '%s' (any, any_call, any_return, cond, call, ind_call, ind_jump, call_stack, abort_tx, in_tx, no_tx, or a number)", optarg);
			break;
		case 'k': o->kernel = optarg; break;
		case 'o': o->output = optarg; break;
		case 'C':
			if (parse_config(o, optarg, prog))
				return -1;
			break;
		case OPT_DRY_RUN: o->dry_run = true; break;
		case 's':
			if (!live)
				return fail(prog, "unknown option '%s'", argv[optind - 1]);
			if (!optarg || !strcmp(optarg, "l") || !strcmp(optarg, "linenum"))
				o->symb = 1;
			else if (!strcmp(optarg, "s") || !strcmp(optarg, "i") || !strcmp(optarg, "inlines"))
				o->symb = 2;
			else if (!strcmp(optarg, "n") || !strcmp(optarg, "none"))
				o->symb = 0;
			else
				return fail(prog, "bad -s value '%s': use -s, -ss or -sn", optarg);
			break;
		case OPT_LBR_MAX_COUNT: {
			static char buf[64];

			if (!live)
				return fail(prog, "unknown option '%s'", argv[optind - 1]);
			if (parse_u64(optarg, &v) || !v || v > 1000000)
				return fail(prog, "bad --lbr-max-count '%s': expected a positive number", optarg);
			snprintf(buf, sizeof(buf), "fmt.lbr-max-count=%llu", (unsigned long long)v);
			if (o->nreport_cfg < 32)
				o->report_cfg[o->nreport_cfg++] = buf;
			break;
		}
		case OPT_FORMAT: case OPT_FOLDED: case OPT_FOLDED_WEIGHT:
		case OPT_PERFETTO: case OPT_SUMMARY: case OPT_STACK_HAS: {
			const char *flag = c == OPT_FORMAT ? "--format" : c == OPT_FOLDED ? "--folded" :
					   c == OPT_FOLDED_WEIGHT ? "--folded-weight" :
					   c == OPT_PERFETTO ? "--perfetto" :
					   c == OPT_SUMMARY ? "--summary" : "--stack-has";

			if (!live)
				return fail(prog, "unknown option '%s' (an output or filter of "
					    "retsnoop-report and the live retsnoop)", flag);
			if (o->nreport_args + 2 > (int)(sizeof(o->report_args) / sizeof(o->report_args[0])))
				return fail(prog, "too many report options at '%s'", flag);
			o->report_args[o->nreport_args++] = flag;
			if (optarg)
				o->report_args[o->nreport_args++] = optarg;
			break;
		}
		case OPT_ALLOW_BUILD_ID_MISMATCH:
			if (!live)
				return fail(prog, "unknown option '%s'", argv[optind - 1]);
			o->allow_build_id_mismatch = true;
			break;
		case 'v': o->verbose++; break;
		case 'V': o->show_version = true; break;
		case 'h': return RECORD_PARSE_HELP;
		case OPT_CONFIG_HELP: return RECORD_PARSE_CONFIG_HELP;
		case ':':
			return fail(prog, "option '%s' needs a value", argv[optind - 1]);
		default:
			return fail(prog, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->show_version) {
		printf("%s %s\n", prog, RECORD_VERSION);
		return o->verbose ? RECORD_PARSE_FEATURES : RECORD_PARSE_VERSION;
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0)
			return fail(prog, "unexpected argument '%s' (a command goes after --)", argv[optind]);
		o->cmd = &argv[optind];
	}
	if (success_yes && success_no)
		return fail(prog, "%s", "-Sy and -Sn contradict each other");
	if (success_yes && err_filter_active(&o->errs) && o->errs.has_allow)
		return fail(prog, "%s", "-S (success stacks) cannot be combined with -x (errors only)");
	if (o->lbr && !o->lbr_flags)
		o->lbr_flags = 1ULL << 5; /* any_return */
	if (!o->trace)
		o->stacks = true;
	/* upstream defaults: -T alone includes successful sessions */
	if (success_yes)
		o->success = 1;
	else if (success_no || o->errs.has_allow)
		o->success = 0;
	else
		o->success = (o->trace && !o->stacks_set) ? 1 : 0;
	if (!o->entry.n)
		return fail(prog, "%s", "no entry function: give at least one -e GLOB (or -c PRESET)");
	if (!o->output && !o->dry_run && !live)
		return fail(prog, "%s", "no output file: give -o FILE");
	if (same_file(o->output, o->kernel))
		return fail(prog, "-o '%s' is the vmlinux given with -k: refusing to overwrite it",
			    o->output);
	return RECORD_PARSE_RUN;
}

enum record_parse record_opts_parse(struct record_opts *o, int argc, char **argv, const char *prog)
{
	return parse(o, argc, argv, prog, false);
}

enum record_parse record_opts_parse_live(struct record_opts *o, int argc, char **argv,
					  const char *prog)
{
	return parse(o, argc, argv, prog, true);
}

void record_opts_free(struct record_opts *o)
{
	glob_set_free(&o->entry);
	glob_set_free(&o->allow);
	glob_set_free(&o->deny);
}
