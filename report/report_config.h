/* report_config.h - applies one `-C group.key=value` rendering setting
 * (stacks.emit-addrs, stacks.dec-offs, stacks.unfiltered, stacks.symb-mode,
 * fmt.lbr-max-count; table: common/config_keys.h) to report options. */
#ifndef RS_REPORT_CONFIG_H
#define RS_REPORT_CONFIG_H

#include <stdio.h>
#include "common/config_keys.h"
#include "report/report_opts.h"

/* a parsed key and value (a shared_config_fn; ctx: struct report_opts) */
int report_config_set(void *ctx, const struct cfg_key *k, uint64_t v, struct opt_error *e);
/* NULL on success, else a one-line message (static storage) */
const char *report_config_apply(const char *kv, struct report_opts *o);
/* --config-help: every key above with its default and a one-line description */
void report_config_help(FILE *f);

#endif
