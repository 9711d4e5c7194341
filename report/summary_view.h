/* summary_view.h - the `summary` view as a report output (output.h):
 * failing functions x error codes, the deepest failing function per entry
 * function, and entry latency percentiles; aggregates only, memory bounded
 * by distinct functions. */
#ifndef RS_SUMMARY_VIEW_H
#define RS_SUMMARY_VIEW_H

#include <stdint.h>
#include "output.h"

extern const struct rp_output rp_out_summary;

/* log-linear latency histogram (exposed for tests) */
/* exact below 128, then 64 sub-buckets per power of two (<1.6% error) */
#define LATH_BUCKETS (128 + 57 * 64)
int lath_index(uint64_t v);
uint64_t lath_value(int idx);   /* smallest value of bucket idx */

#endif
