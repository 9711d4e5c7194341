/* config_keys.h - every `-C group.key=value` setting in one table: key,
 * value type, range, default, help and which commands take it. The table
 * validates a -C value (cfg_parse) and prints --config-help (cfg_help);
 * each command applies the parsed value to its own options by the key's
 * id (record/ the bpf.* keys, report/ the stacks.* and fmt.* keys). */
#ifndef RS_CONFIG_KEYS_H
#define RS_CONFIG_KEYS_H

#include <stdint.h>
#include <stdio.h>
#include "common/opts.h"

enum cfg_type {
	CFG_BOOL,       /* true/y/1 or false/n/0 */
	CFG_UINT,       /* min..max */
	CFG_POW2,       /* a power of two, min..max */
	CFG_ENUM,       /* one of names[] (or its first letter): the index */
};

enum cfg_id {
	CFG_BPF_RINGBUF_SIZE,
	CFG_BPF_SESSIONS_SIZE,
	CFG_BPF_MAX_DEPTH,
	CFG_BPF_DEFER_STACKS,
	CFG_BPF_KPROBE_SESSION,
	CFG_BPF_RDONLY_CAST,
	CFG_BPF_LEAN,
	CFG_ARGS_MAX_TOTAL,
	CFG_ARGS_MAX_SIZED,
	CFG_ARGS_MAX_STR,
	CFG_ARGS_RAW_PTRS,
	CFG_STACKS_SYMB_MODE,
	CFG_STACKS_UNFILTERED,
	CFG_STACKS_EMIT_ADDRS,
	CFG_STACKS_DEC_OFFS,
	CFG_FMT_LBR_MAX_COUNT,
	CFG_ARGS_FMT_MODE,
	CFG_ARGS_FMT_MAX_ARG_WIDTH,
	CFG_USER_STACK_SIZE,
};

struct cfg_key {
	const char *key;          /* group.key */
	enum cfg_id id;
	enum cfg_type type;
	const char *value;        /* what the value looks like: BOOL, N, ... */
	uint64_t min, max;
	const char *const *names; /* CFG_ENUM */
	const char *defval;       /* as the user would write it */
	unsigned cmds;            /* enum opt_cmd mask */
	const char *help;         /* one line */
};

/* "group.key=value" for command CMD: 0 with the key and the value, or
 * OPT_EUSAGE with the reason in e */
int cfg_parse(unsigned cmd, const char *kv, const struct cfg_key **key, uint64_t *val,
	      struct opt_error *e);
/* --config-help: one aligned line per key CMD takes */
void cfg_help(FILE *f, unsigned cmd);

#endif
