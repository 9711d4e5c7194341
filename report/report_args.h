/* report_args.h - the report's option table (views, report-only filters,
 * outputs), filling the plain structs the pipeline consumes (struct
 * rp_outsel, struct filters) and the view choice; composed with the shared
 * table (common/shared_opts.h) by retsnoop-report and, for the outputs and
 * --stack-has, by the live retsnoop. */
#ifndef RS_REPORT_ARGS_H
#define RS_REPORT_ARGS_H

#include <stdbool.h>
#include "common/shared_opts.h"
#include "filters.h"
#include "report_opts.h"

struct report_args {
	struct rp_outsel sel;
	struct filters filt;
	bool want_trace, want_stack, want_lbr;   /* -T, -E, -B */
	const char *symfs;                       /* --symfs DIR (user binaries) */
};

/* the table (ctx: struct report_args) */
extern const struct opt_spec report_opt_table[];
extern const size_t report_opt_count;

void report_args_init(struct report_args *a);
void report_args_free(struct report_args *a);
/* after parsing: the shared filters into a->filt (FILTERS: false for the
 * live tool, whose recorder applies them), contradictions checked.
 * OPT_OK or OPT_EUSAGE with the reason in e. */
int report_args_finish(struct report_args *a, const struct shared_opts *s, bool filters,
		       struct opt_error *e);

#endif
