/* options.c - the recorder's option table and its parsers (options.h),
 * with upstream retsnoop's flag names; every bad value is a one-line
 * message handed back to the command. */
#include "record/options.h"
#include "common/same_file.h"
#include "record/presets.h"
#include "record/probe_spec.h"
#include "common/array_grow.h"
#include "bpf/retsnoop_abi.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
	RO_ENTRY, RO_ALLOW, RO_DENY, RO_CASE, RO_MULTI, RO_KPROBES, RO_FENTRIES, RO_STACKS,
	RO_TRACE, RO_INTERIM, RO_LBR, RO_OUTPUT, RO_DRY_RUN, RO_MAX_SIZE, RO_DURATION,
	RO_STOP_AFTER, RO_PROBE, RO_USTACKS, RO_ARGS,
};

void record_help_head(FILE *f, const char *prog, bool live)
{
	if (live)
		fprintf(f,
"Usage: %s [OPTIONS] -e GLOB [-a GLOB]... [-o FILE] [-- CMD ARGS...]\n"
"Trace kernel function calls and print every session that ends in an error\n"
"as soon as it ends (Ctrl-C to stop).\n\n", prog);
	else
		fprintf(f,
"Usage: %s [OPTIONS] -e GLOB [-a GLOB]... -o FILE [-- CMD ARGS...]\n"
"Record kernel function call sessions that end in an error, for retsnoop-report.\n\n", prog);
}

void record_help_tail(FILE *f)
{
	fprintf(f,
"  -- CMD ARGS...            run CMD, trace only it and its children, stop\n"
"                            when it exits\n"
"Presets for -c: %s.\n", preset_names());
}

static int add_glob(struct glob_set *set, const char *text, const char *what, struct opt_error *e)
{
	char err[256];

	if (glob_set_add(set, text, err, sizeof(err)))
		return opt_fail(e, OPT_EUSAGE, "bad %s glob '%s': %s", what, text, err);
	return OPT_OK;
}

static int add_preset(struct record_opts *o, const char *name, struct opt_error *e)
{
	const struct preset *p = preset_find(name);
	int r = OPT_OK;

	if (!p)
		return opt_fail(e, OPT_EUSAGE, "unknown preset '%s' for -c (known: %s)", name,
				preset_names());
	for (int i = 0; !r && p->entry[i]; i++)
		r = add_glob(&o->entry, p->entry[i], "entry", e);
	for (int i = 0; !r && p->allow[i]; i++)
		r = add_glob(&o->allow, p->allow[i], "allow", e);
	for (int i = 0; !r && p->deny[i]; i++)
		r = add_glob(&o->deny, p->deny[i], "deny", e);
	return r;
}

static const struct { const char *name; uint64_t flag; } lbr_names[] = {
	/* perf_event.h PERF_SAMPLE_BRANCH_* bits */
	{ "any", 1ULL << 3 }, { "any_call", 1ULL << 4 }, { "any_return", 1ULL << 5 },
	{ "ind_call", 1ULL << 6 }, { "abort_tx", 1ULL << 7 }, { "in_tx", 1ULL << 8 },
	{ "no_tx", 1ULL << 9 }, { "cond", 1ULL << 10 }, { "call_stack", 1ULL << 11 },
	{ "ind_jump", 1ULL << 12 }, { "call", 1ULL << 13 },
};

static int parse_lbr(struct record_opts *o, const char *s, struct opt_error *e)
{
	uint64_t v;
	char *end;

	o->lbr = true;
	if (!s)
		return OPT_OK;
	for (size_t i = 0; i < sizeof(lbr_names) / sizeof(lbr_names[0]); i++) {
		if (strcasecmp(s, lbr_names[i].name) == 0) {
			o->lbr_flags |= lbr_names[i].flag;
			return OPT_OK;
		}
	}
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || !v)
		return opt_fail(e, OPT_EUSAGE, "bad LBR flags '%s' (any, any_call, any_return, cond, "
				"call, ind_call, ind_jump, call_stack, abort_tx, in_tx, no_tx, or a "
				"number)", s);
	o->lbr_flags |= v;
	return OPT_OK;
}

static int set_mode(struct record_opts *o, enum attach_mode m, struct opt_error *e)
{
	if (o->mode && o->mode != m)
		return opt_fail(e, OPT_EUSAGE, "-M, -K and -F are mutually exclusive: pick one");
	o->mode = m;
	return OPT_OK;
}

/* --max-size SIZE: bytes, or K, M, G (powers of 1024) */
static int parse_size(const char *s, uint64_t *out, struct opt_error *e)
{
	static const char suffixes[] = "KMG";
	uint64_t v, mult = 1;
	char *end;

	errno = 0;
	v = s[0] >= '0' && s[0] <= '9' ? strtoull(s, &end, 10) : 0;
	if (v && !errno && *end) {
		const char *p = strchr(suffixes, end[0] & ~0x20);

		if (p && end[0] && !end[1])
			mult = 1ULL << (10 * (p - suffixes + 1));
		else
			v = 0;
	}
	if (!v || errno || v > UINT64_MAX / mult)
		return opt_fail(e, OPT_EUSAGE, "bad --max-size '%s': expected a size > 0 in bytes, or "
				"with a K, M or G suffix (e.g. 64M)", s);
	*out = v * mult;
	return OPT_OK;
}

/* --duration TIME: seconds, or with ms, s, m, h (fractions allowed) */
static int parse_duration(const char *s, uint64_t *ms, struct opt_error *e)
{
	static const struct { const char *sfx; double ms; } units[] = {
		{ "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	};
	char *end;
	double v;

	errno = 0;
	v = s[0] >= '0' && s[0] <= '9' ? strtod(s, &end) : -1;
	for (size_t i = 0; v > 0 && !errno && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].sfx) && v * units[i].ms >= 1 && v * units[i].ms < 1e15) {
			*ms = (uint64_t)(v * units[i].ms + 0.5);
			return OPT_OK;
		}
	return opt_fail(e, OPT_EUSAGE, "bad --duration '%s': expected a time > 0 in seconds, or "
			"with an ms, s, m or h suffix (e.g. 90s, 1.5h), at least 1 ms", s);
}

static int parse_count(const char *s, uint64_t *out, struct opt_error *e)
{
	if (opt_u64(s, out) || !*out)
		return opt_fail(e, OPT_EUSAGE, "bad --stop-after '%s': expected a number of sessions "
				"> 0", s);
	return OPT_OK;
}

/* -J SPEC: checked now, resolved against the kernel when recording */
static int add_probe(struct record_opts *o, const char *text, struct opt_error *e)
{
	struct probe_spec s;
	char err[OPT_ERRLEN - 16], *copy;

	if (probe_spec_parse(text, &s, err, sizeof(err)))
		return opt_fail(e, OPT_EUSAGE, "%s", err);
	probe_spec_free(&s);
	if (array_grow((void **)&o->probes, o->nprobes, &o->probes_cap, sizeof(*o->probes), 4) ||
	    !(copy = strdup(text)))
		return opt_fail(e, OPT_EINPUT, "out of memory");
	o->probes[o->nprobes++] = copy;
	return OPT_OK;
}

static int record_parse(void *ctx, int id, const char *v, struct opt_error *e)
{
	struct record_opts *o = ctx;

	switch (id) {
	case RO_ENTRY: return add_glob(&o->entry, v, "entry", e);
	case RO_ALLOW: return add_glob(&o->allow, v, "allow", e);
	case RO_DENY: return add_glob(&o->deny, v, "deny", e);
	case RO_CASE: return add_preset(o, v, e);
	case RO_MULTI: return set_mode(o, ATTACH_KPROBE_MULTI, e);
	case RO_KPROBES: return set_mode(o, ATTACH_KPROBE, e);
	case RO_FENTRIES: return set_mode(o, ATTACH_FENTRY, e);
	case RO_STACKS: o->stacks = o->stacks_set = true; return OPT_OK;
	case RO_TRACE: o->trace = true; return OPT_OK;
	case RO_INTERIM: o->interim = true; return OPT_OK;
	case RO_LBR: return parse_lbr(o, v, e);
	case RO_OUTPUT: o->output = v; return OPT_OK;
	case RO_DRY_RUN: o->dry_run = true; return OPT_OK;
	case RO_MAX_SIZE: return parse_size(v, &o->max_size, e);
	case RO_DURATION: return parse_duration(v, &o->duration_ms, e);
	case RO_STOP_AFTER: return parse_count(v, &o->stop_after, e);
	case RO_PROBE: return add_probe(o, v, e);
	case RO_USTACKS: o->user_stacks = true; return OPT_OK;
	case RO_ARGS: o->capture_args = o->probe_ctx = true; return OPT_OK;
	}
	return opt_fail(e, OPT_EUSAGE, "internal error: option id %d", id);
}

#define REC (OPT_RECORD | OPT_LIVE)

const struct opt_spec record_opt_table[] = {
	{ "Selection (GLOB: NAME, 'NAME [MODULE]' or ':SRC_PATH'; * and ? wildcards)",
	  "entry", 'e', OPT_REQUIRED, "GLOB", RO_ENTRY, record_parse, REC, OPT_AT_FILE,
	  "functions that start a session (repeatable)" },
	{ NULL, "allow", 'a', OPT_REQUIRED, "GLOB", RO_ALLOW, record_parse, REC, OPT_AT_FILE,
	  "functions traced inside a session (repeatable)" },
	{ NULL, "deny", 'd', OPT_REQUIRED, "GLOB", RO_DENY, record_parse, REC, OPT_AT_FILE,
	  "functions never traced (wins over -e/-a)" },
	{ NULL, "case", 'c', OPT_REQUIRED, "NAME", RO_CASE, record_parse, REC, 0,
	  "add the globs of a preset (listed below)" },
	{ "Attach mode (default: kprobe.multi if supported, else kprobes, else fentry)",
	  "kprobes-multi", 'M', OPT_NOARG, NULL, RO_MULTI, record_parse, REC, 0,
	  "kprobe.session (Linux 6.10+), else kprobe.multi / kretprobe.multi" },
	{ NULL, "kprobes", 'K', OPT_NOARG, NULL, RO_KPROBES, record_parse, REC, 0,
	  "one kprobe/kretprobe per function" },
	{ NULL, "fentries", 'F', OPT_NOARG, NULL, RO_FENTRIES, record_parse, REC, 0,
	  "fentry/fexit (needs BTF)" },
	{ "Capture", "call-stack", 'E', OPT_NOARG, NULL, RO_STACKS, record_parse, REC, 0,
	  "error stacks (default unless -T)" },
	{ NULL, "trace", 'T', OPT_NOARG, NULL, RO_TRACE, record_parse, REC, 0,
	  "every entry/exit inside sessions" },
	{ NULL, "interim-stacks", 'I', OPT_NOARG, NULL, RO_INTERIM, record_parse, REC, 0,
	  "interim snapshots" },
	{ NULL, "inject-probe", 'J', OPT_REQUIRED, "SPEC", RO_PROBE, record_parse, REC, OPT_AT_FILE,
	  "injected probe, a row of the -T trace (and an\n"
	  "interim snapshot with -I): kprobe:NAME[+OFF],\n"
	  "kretprobe:NAME, rawtp:NAME, tp:CATEGORY:NAME\n"
	  "(* and ? globs in tracepoints; repeatable)" },
	{ NULL, "capture-args", 'A', OPT_NOARG, NULL, RO_ARGS, record_parse, REC, 0,
	  "each traced call's arguments, by BTF type\n(-C args.*)" },
	{ NULL, "lbr", 'B', OPT_OPTIONAL, "FLAGS", RO_LBR, record_parse, REC, 0,
	  "Last Branch Records (FLAGS: any_return by default)" },
	{ NULL, "user-stacks", 'U', OPT_NOARG, NULL, RO_USTACKS, record_parse, REC, 0,
	  "user registers and stack of each session, for\nuser frames in the report" },
	{ NULL, NULL, 'R', OPT_OPTIONAL, "FLAGS", RO_LBR, record_parse, REC, 0,
	  "same as -B (retsnoop v0.9 name)" },
	{ "Recording", "output", 'o', OPT_REQUIRED, "FILE", RO_OUTPUT, record_parse, REC, 0,
	  "the recording, for retsnoop-report (mode 0600;\noptional live)" },
	{ NULL, "max-size", 0, OPT_REQUIRED, "SIZE", RO_MAX_SIZE, record_parse, REC, 0,
	  "flight recorder: -o FILE never exceeds SIZE\n"
	  "(K, M, G suffixes); when full, the oldest\n"
	  "sessions are overwritten" },
	{ NULL, "duration", 0, OPT_REQUIRED, "TIME", RO_DURATION, record_parse, REC, 0,
	  "stop after TIME (seconds, or with ms, s, m, h:\n"
	  "90s, 1.5h)" },
	{ NULL, "stop-after", 0, OPT_REQUIRED, "N", RO_STOP_AFTER, record_parse, REC, 0,
	  "stop after N sessions were recorded (after -x/-X)" },
	{ NULL, "dry-run", 0, OPT_NOARG, NULL, RO_DRY_RUN, record_parse, REC, 0,
	  "select functions and stop (-v: list them, the\nattach plan)" },
};

const size_t record_opt_count = sizeof(record_opt_table) / sizeof(record_opt_table[0]);

int record_config_apply(void *ctx, const struct cfg_key *k, uint64_t v, struct opt_error *e)
{
	struct record_opts *o = ctx;

	switch (k->id) {
	case CFG_BPF_RINGBUF_SIZE: o->ringbuf_size = v; return OPT_OK;
	case CFG_BPF_SESSIONS_SIZE: o->sessions_size = (uint32_t)v; return OPT_OK;
	case CFG_BPF_MAX_DEPTH: o->max_depth = (uint32_t)v; return OPT_OK;
	case CFG_BPF_DEFER_STACKS: o->defer_stacks = v; return OPT_OK;
	case CFG_BPF_KPROBE_SESSION: o->kprobe_session = v; return OPT_OK;
	case CFG_BPF_RDONLY_CAST: o->rdonly_cast = v; return OPT_OK;
	case CFG_BPF_LEAN: o->lean = v; return OPT_OK;
	case CFG_USER_STACK_SIZE: o->ustack_size = (uint32_t)v; return OPT_OK;
	case CFG_ARGS_MAX_TOTAL: o->args_max_total = (uint32_t)v; return OPT_OK;
	case CFG_ARGS_MAX_SIZED: o->args_max_sized = (uint32_t)v; return OPT_OK;
	case CFG_ARGS_MAX_STR: o->args_max_str = (uint32_t)v; return OPT_OK;
	case CFG_ARGS_RAW_PTRS: o->args_raw_ptrs = v; return OPT_OK;
	default:
		return opt_fail(e, OPT_EUSAGE, "config key '%s' is not a recording setting", k->key);
	}
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

void record_opts_init(struct record_opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	o->success = -1;
	o->ringbuf_size = 8 << 20;
	o->sessions_size = 4096;
	o->max_depth = RS_MAX_FSTACK_DEPTH;
	o->kprobe_session = true;
	o->rdonly_cast = true;
	o->lean = true;
	o->defer_stacks = true;
	o->ustack_size = 16384;
	o->args_max_total = 3072;
	o->args_max_sized = 256;
	o->args_max_str = 256;
	build_cmdline(o, argc, argv);
}

int record_opts_finish(struct record_opts *o, const struct shared_opts *s, char **command,
		       bool live, struct opt_error *e)
{
	int r = filter_opts_check(&s->f, e);

	if (r)
		return r;
	o->f = s->f;
	o->kernel = s->kernel;
	o->verbose = s->verbose;
	o->show_version = s->version;
	o->cmd = command;
	if (o->lbr && !o->lbr_flags)
		o->lbr_flags = 1ULL << 5; /* any_return */
	if (!o->trace)
		o->stacks = true;
	/* upstream defaults: -T alone includes successful sessions */
	if (o->f.success_yes)
		o->success = 1;
	else if (o->f.success_no || o->f.errs.has_allow)
		o->success = 0;
	else
		o->success = (o->trace && !o->stacks_set) ? 1 : 0;
	if (o->show_version)
		return OPT_OK;
	if (!o->entry.n)
		return opt_fail(e, OPT_EUSAGE, "no entry function: give at least one -e GLOB (or -c "
				"PRESET)");
	if (!o->output && !o->dry_run && !live)
		return opt_fail(e, OPT_EUSAGE, "no output file: give -o FILE");
	if (o->max_size && !o->output)
		return opt_fail(e, OPT_EUSAGE, "--max-size limits the recording: give -o FILE too");
	if (same_file(o->output, o->kernel))
		return opt_fail(e, OPT_EUSAGE, "-o '%s' is the vmlinux given with -k: refusing to "
				"overwrite it", o->output);
	return OPT_OK;
}

void record_opts_free(struct record_opts *o)
{
	glob_set_free(&o->entry);
	glob_set_free(&o->allow);
	glob_set_free(&o->deny);
	for (size_t i = 0; i < o->nprobes; i++)
		free(o->probes[i]);
	free(o->probes);
	o->probes = NULL;
	o->nprobes = o->probes_cap = 0;
}
