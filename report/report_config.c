/* report_config.c - applies the report's `-C group.key=value` settings
 * (stacks.*, fmt.*, args.fmt-*; the table is common/config_keys.c) to report options,
 * for retsnoop-report and the live tool (report_config.h). */
#include "report/report_config.h"
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int report_config_set(void *ctx, const struct cfg_key *k, uint64_t v, struct opt_error *e)
{
	struct report_opts *o = ctx;

	switch (k->id) {
	case CFG_STACKS_SYMB_MODE:
		o->symb = v == 0 ? SYMB_NONE : v == 1 ? SYMB_LINES : SYMB_INLINES;
		return OPT_OK;
	case CFG_STACKS_UNFILTERED: o->unfiltered = v; return OPT_OK;
	case CFG_STACKS_EMIT_ADDRS: o->emit_addrs = v; return OPT_OK;
	case CFG_STACKS_DEC_OFFS: o->dec_offs = v; return OPT_OK;
	case CFG_FMT_LBR_MAX_COUNT: o->lbr_max_count = (int)v; return OPT_OK;
	case CFG_ARGS_FMT_MODE: o->args.mode = (enum args_fmt_mode)v; return OPT_OK;
	case CFG_ARGS_FMT_MAX_ARG_WIDTH: o->args.max_width = (int)v; return OPT_OK;
	default:
		return opt_fail(e, OPT_EUSAGE, "config key '%s' is not a rendering setting", k->key);
	}
}

/* -C group.key=value; returns 0 or an error message */
const char *report_config_apply(const char *kv, struct report_opts *o)
{
	static struct opt_error e;
	const struct cfg_key *k;
	uint64_t v;

	if (cfg_parse(OPT_REPORT, kv, &k, &v, &e) || report_config_set(o, k, v, &e))
		return e.msg;
	return NULL;
}

void report_config_help(FILE *f)
{
	cfg_help(f, OPT_REPORT);
}
