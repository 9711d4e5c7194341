/* config_keys.c - the -C key table, its validation and the --config-help
 * printer (config_keys.h). */
#include "common/config_keys.h"
#include "bpf/retsnoop_abi.h"
#include <ctype.h>
#include <inttypes.h>
#include <string.h>
#include <strings.h>

static const char *const symb_modes[] = { "none", "linenum", "inlines", NULL };
static const char *const args_fmt_modes[] = { "compact", "multiline", "verbose", NULL };

#define REC (OPT_RECORD | OPT_LIVE)
#define REP (OPT_REPORT | OPT_LIVE)

static const struct cfg_key keys[] = {
	{ "bpf.ringbuf-size", CFG_BPF_RINGBUF_SIZE, CFG_POW2, "BYTES", 4096, 1ULL << 31, NULL,
	  "8388608", REC, "ring buffer size, a power of two >= 4096 (raise on drops; live retsnoop: 524288)" },
	{ "bpf.sessions-size", CFG_BPF_SESSIONS_SIZE, CFG_UINT, "N", 1, 65536, NULL,
	  "4096", REC, "sessions open at once, at least (one slot each, about 5.4 KiB; SESSIONS TABLE FULL counts the rest)" },
	{ "bpf.defer-stacks", CFG_BPF_DEFER_STACKS, CFG_BOOL, "BOOL", 0, 1, NULL,
	  "true", REC, "an error's kernel stack captured once it goes on (none for swallowed errors; same stack; -F: x86-64)" },
	{ "bpf.kprobe-session", CFG_BPF_KPROBE_SESSION, CFG_BOOL, "BOOL", 0, 1, NULL,
	  "true", REC, "-M on Linux 6.10+: one kprobe.session link for entry and exit (false: two kprobe.multi links)" },
	{ "bpf.rdonly-cast", CFG_BPF_RDONLY_CAST, CFG_BOOL, "BOOL", 0, 1, NULL,
	  "true", REC, "-F on Linux 6.2+: deferred stacks read stack words as plain loads (false: bpf_probe_read_kernel)" },
	{ "bpf.lean", CFG_BPF_LEAN, CFG_BOOL, "BOOL", 0, 1, NULL,
	  "true", REC, "the BPF build with the common recording's settings compiled in, where they fit (false: always the general one)" },
	{ "bpf.max-depth", CFG_BPF_MAX_DEPTH, CFG_UINT, "N", 1, RS_MAX_FSTACK_DEPTH, NULL,
	  "64", REC, "nested calls tracked per session, 1..64" },
	{ "args.max-total-args-size", CFG_ARGS_MAX_TOTAL, CFG_UINT, "BYTES", 1, 65536, NULL,
	  "3072", REC, "-A: captured argument bytes per call, 1..65536" },
	{ "args.max-sized-arg-size", CFG_ARGS_MAX_SIZED, CFG_UINT, "BYTES", 1, 16384, NULL,
	  "256", REC, "-A: bytes of one value or pointee, 1..16384" },
	{ "args.max-str-arg-size", CFG_ARGS_MAX_STR, CFG_UINT, "BYTES", 1, 16384, NULL,
	  "256", REC, "-A: bytes of one string, 1..16384" },
	{ "args.capture-raw-ptrs", CFG_ARGS_RAW_PTRS, CFG_BOOL, "BOOL", 0, 1, NULL,
	  "false", REC, "-A: pointers as their values, not what they point to" },
	{ "stacks.symb-mode", CFG_STACKS_SYMB_MODE, CFG_ENUM, "MODE", 0, 2, symb_modes,
	  "inlines if a vmlinux is found", REP, "none, linenum or inlines (like -sn, -s, -ss)" },
	{ "stacks.unfiltered", CFG_STACKS_UNFILTERED, CFG_BOOL, "BOOL", 0, 1, NULL,
	  "false", REP, "keep BPF trampoline/program frames" },
	{ "stacks.emit-addrs", CFG_STACKS_EMIT_ADDRS, CFG_BOOL, "BOOL", 0, 1, NULL,
	  "false", REP, "print raw addresses next to symbols" },
	{ "stacks.dec-offs", CFG_STACKS_DEC_OFFS, CFG_BOOL, "BOOL", 0, 1, NULL,
	  "false", REP, "function offsets in decimal" },
	{ "user.stack-size", CFG_USER_STACK_SIZE, CFG_UINT, "BYTES", 64, 65536, NULL,
	  "16384", REC, "user stack bytes copied per session with -U, 64..65536" },
	{ "fmt.lbr-max-count", CFG_FMT_LBR_MAX_COUNT, CFG_UINT, "N", 0, 1000000, NULL,
	  "0 = all", REP, "at most N LBR entries per session" },
	{ "args.fmt-mode", CFG_ARGS_FMT_MODE, CFG_ENUM, "MODE", 0, 2, args_fmt_modes,
	  "compact", REP, "captured arguments: compact, multiline or verbose" },
	{ "args.fmt-max-arg-width", CFG_ARGS_FMT_MAX_ARG_WIDTH, CFG_UINT, "N", 0, 250, NULL,
	  "120", REP, "columns per argument value, 0..250 (0 = no limit; not in verbose)" },
};

/* the -C bpf.max-depth range names the recorder's frame limit */
_Static_assert(RS_MAX_FSTACK_DEPTH == 64, "update the bpf.max-depth help");

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static const char *cmd_names(unsigned cmds)
{
	switch (cmds & OPT_ALL) {
	case OPT_RECORD | OPT_LIVE: return "retsnoop-record and retsnoop";
	case OPT_REPORT | OPT_LIVE: return "retsnoop-report and retsnoop";
	default: return "another command";
	}
}

static int parse_value(const struct cfg_key *k, const char *v, uint64_t *out)
{
	if (k->type == CFG_BOOL) {
		if (!strcasecmp(v, "true") || !strcasecmp(v, "y") || !strcmp(v, "1"))
			*out = 1;
		else if (!strcasecmp(v, "false") || !strcasecmp(v, "n") || !strcmp(v, "0"))
			*out = 0;
		else
			return -1;
		return 0;
	}
	if (k->type == CFG_ENUM) {
		for (uint64_t i = 0; k->names[i]; i++)
			if (!strcasecmp(v, k->names[i]) ||
			    (strlen(v) == 1 && tolower((unsigned char)*v) == k->names[i][0])) {
				*out = i;
				return 0;
			}
		return -1;
	}
	if (opt_u64(v, out) || *out < k->min || *out > k->max)
		return -1;
	if (k->type == CFG_POW2 && (*out & (*out - 1)))
		return -1;
	return 0;
}

static int bad_value(const struct cfg_key *k, const char *v, struct opt_error *e)
{
	switch (k->type) {
	case CFG_BOOL:
		return opt_fail(e, OPT_EUSAGE, "bad %s '%s': must be true/y/1 or false/n/0", k->key, v);
	case CFG_ENUM:
		return opt_fail(e, OPT_EUSAGE, "bad %s '%s': must be %s, %s or %s", k->key, v,
				k->names[0], k->names[1], k->names[2]);
	case CFG_POW2:
		return opt_fail(e, OPT_EUSAGE, "bad %s '%s': must be a power of two >= %" PRIu64,
				k->key, v, k->min);
	default:
		return opt_fail(e, OPT_EUSAGE, "bad %s '%s': must be %" PRIu64 "..%" PRIu64, k->key, v,
				k->min, k->max);
	}
}

int cfg_parse(unsigned cmd, const char *kv, const struct cfg_key **key, uint64_t *val,
	      struct opt_error *e)
{
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : 0;

	if (!eq || !memchr(kv, '.', klen))
		return opt_fail(e, OPT_EUSAGE, "malformed -C '%s': expected group.key=value", kv);
	for (size_t i = 0; i < NKEYS; i++) {
		const struct cfg_key *k = &keys[i];

		if (strlen(k->key) != klen || strncmp(k->key, kv, klen))
			continue;
		if (!(k->cmds & cmd))
			return opt_fail(e, OPT_EUSAGE, "config key '%s' is a setting of %s (see "
					"--config-help)", k->key, cmd_names(k->cmds));
		if (parse_value(k, eq + 1, val))
			return bad_value(k, eq + 1, e);
		*key = k;
		return OPT_OK;
	}
	return opt_fail(e, OPT_EUSAGE, "unknown config key '%.*s' (see --config-help)", (int)klen, kv);
}

void cfg_help(FILE *f, unsigned cmd)
{
	int w = 0;

	for (size_t i = 0; i < NKEYS; i++) {
		int len = (int)(strlen(keys[i].key) + 1 + strlen(keys[i].value));

		if ((keys[i].cmds & cmd) && len > w)
			w = len;
	}
	fprintf(f, "Settings (-C KEY=VALUE; BOOL: true/y/1 or false/n/0):\n");
	for (size_t i = 0; i < NKEYS; i++) {
		const struct cfg_key *k = &keys[i];
		int len = (int)(strlen(k->key) + 1 + strlen(k->value));

		if (k->cmds & cmd)
			fprintf(f, "  %s=%s%*s  %s (default: %s)\n", k->key, k->value, w - len, "",
				k->help, k->defval);
	}
}
