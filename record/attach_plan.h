/* attach_plan.h - the --dry-run report of what would be
 * attached: one line, or with -v every function and the plan per mode. */
#ifndef RS_ATTACH_PLAN_H
#define RS_ATTACH_PLAN_H

#include <stdbool.h>
#include <stdio.h>
#include "record/options.h"
#include "record/select.h"

/* session: -M would be one kprobe.session link (features_probe_kprobe_session) */
void attach_plan_print(FILE *f, const struct selection *sel, enum attach_mode mode,
		       bool session, bool verbose);

#endif
