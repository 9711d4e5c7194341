/* report_config.h - applies one `-C group.key=value` rendering setting
 * (stacks.emit-addrs, stacks.dec-offs, stacks.unfiltered, stacks.symb-mode,
 * fmt.lbr-max-count) to report options. */
#ifndef RS_REPORT_CONFIG_H
#define RS_REPORT_CONFIG_H

#include <stdio.h>
#include "report/report_opts.h"

/* NULL on success, else a one-line message (static storage) */
const char *report_config_apply(const char *kv, struct report_opts *o);
/* --config-help: every key above with its default and a one-line description */
void report_config_help(FILE *f);

#endif
