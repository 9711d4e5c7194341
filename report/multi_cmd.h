/* multi_cmd.h - retsnoop-report over several recordings (several hosts or
 * runs): one report, sessions merged in time order, each labelled with
 * its recording. */
#ifndef RS_MULTI_CMD_H
#define RS_MULTI_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include "report_args.h"
#include "report_opts.h"

/* views asked for on the command line (-T, -E, -B) */
struct view_ask {
	bool trace, stack, lbr;
};

/* renders PATHS[0..N) with OPTS and RA's outputs and filters; the exit
 * status (0, 1 output error, 2 usage/unreadable/damaged) */
int multi_report(const char *prog, const char *const *paths, size_t n, struct report_opts *opts,
		 struct report_args *ra, struct view_ask ask);

#endif
