/* report_config.c - the report's `-C group.key=value` settings (stacks.*,
 * fmt.*), shared by retsnoop-report and the live tool (report_config.h). */
#include "report/report_config.h"
#include "common/config_help.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int parse_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "true") || !strcasecmp(v, "y") || !strcmp(v, "1")) {
		*out = true;
		return 0;
	}
	if (!strcasecmp(v, "false") || !strcasecmp(v, "n") || !strcmp(v, "0")) {
		*out = false;
		return 0;
	}
	return -1;
}

/* -C group.key=value; returns 0 or an error message */
const char *report_config_apply(const char *kv, struct report_opts *o)
{
	static char msg[256];
	const char *eq = strchr(kv, '=');
	bool *target = NULL;
	size_t klen;

	if (!eq || !memchr(kv, '.', (size_t)(eq - kv))) {
		snprintf(msg, sizeof(msg), "malformed config '%s' (expected group.key=value)", kv);
		return msg;
	}
	klen = (size_t)(eq - kv);
	if (klen == strlen("fmt.lbr-max-count") && !strncmp(kv, "fmt.lbr-max-count", klen)) {
		char *end;
		long v = strtol(eq + 1, &end, 10);

		if (!eq[1] || *end || v < 0 || v > 1000000) {
			snprintf(msg, sizeof(msg), "invalid fmt.lbr-max-count '%s' (a number >= 0)", eq + 1);
			return msg;
		}
		o->lbr_max_count = (int)v;
		return NULL;
	}
	if (klen == strlen("stacks.symb-mode") && !strncmp(kv, "stacks.symb-mode", klen)) {
		const char *v = eq + 1;

		if (!strcasecmp(v, "none") || !strcasecmp(v, "n"))
			o->symb = SYMB_NONE;
		else if (!strcasecmp(v, "linenum") || !strcasecmp(v, "l"))
			o->symb = SYMB_LINES;
		else if (!strcasecmp(v, "inlines") || !strcasecmp(v, "i"))
			o->symb = SYMB_INLINES;
		else {
			snprintf(msg, sizeof(msg), "invalid stacks.symb-mode '%s' (none, linenum, inlines)", v);
			return msg;
		}
		return NULL;
	}
	if (klen == strlen("stacks.emit-addrs") && !strncmp(kv, "stacks.emit-addrs", klen))
		target = &o->emit_addrs;
	else if (klen == strlen("stacks.dec-offs") && !strncmp(kv, "stacks.dec-offs", klen))
		target = &o->dec_offs;
	else if (klen == strlen("stacks.unfiltered") && !strncmp(kv, "stacks.unfiltered", klen))
		target = &o->unfiltered;
	if (!target) {
		snprintf(msg, sizeof(msg), "unknown config key '%.*s' (see --config-help)", (int)klen, kv);
		return msg;
	}
	if (parse_bool(eq + 1, target)) {
		snprintf(msg, sizeof(msg), "invalid boolean '%s' for '%.*s' (true/y/1 or false/n/0)",
			 eq + 1, (int)klen, kv);
		return msg;
	}
	return NULL;
}

static const struct config_key report_keys[] = {
	{ "stacks.symb-mode", "MODE", "inlines if a vmlinux is found",
	  "none, linenum or inlines (like -sn, -s, -ss)" },
	{ "stacks.unfiltered", "BOOL", "false", "keep BPF trampoline/program frames" },
	{ "stacks.emit-addrs", "BOOL", "false", "print raw addresses next to symbols" },
	{ "stacks.dec-offs", "BOOL", "false", "function offsets in decimal" },
	{ "fmt.lbr-max-count", "N", "0 = all", "at most N LBR entries per session" },
};

void report_config_help(FILE *f)
{
	config_help_print(f, "Rendering settings (-C KEY=VALUE; BOOL: true/y/1 or false/n/0)",
			  report_keys, sizeof(report_keys) / sizeof(report_keys[0]));
}
