/* report_args.h - parsing of the report-time flags (outputs and filters)
 * that retsnoop-report and the live retsnoop share, into the plain
 * structs the pipeline consumes (struct rp_outsel, struct filters). */
#ifndef RS_REPORT_ARGS_H
#define RS_REPORT_ARGS_H

#include <stdio.h>
#include "filters.h"
#include "report_opts.h"

struct report_args {
	struct rp_outsel sel;
	struct filters filt;
};

void report_args_init(struct report_args *a);
void report_args_free(struct report_args *a);
/* argv[i] is one of ours: returns the number of arguments consumed (>0),
 * 0 when it is not ours, -1 with a one-line message in err. ARGV_BASE is
 * the index of the first argument after the command (a leading `summary`
 * word selects the summary). */
int report_args_parse(struct report_args *a, int argc, char **argv, int i, int argv_base,
		      char *err, size_t errlen);
void report_args_usage(FILE *f);

#endif
