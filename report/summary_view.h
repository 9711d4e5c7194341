/* summary_view.h - the `summary` view: failing functions x error codes,
 * the deepest failing function per entry function, and entry latency
 * percentiles; aggregates only, memory bounded by distinct functions. */
#ifndef RS_SUMMARY_VIEW_H
#define RS_SUMMARY_VIEW_H

#include <stdio.h>
#include "analysis.h"

struct summary_view;
struct summary_view *summary_view_new(struct anl_env *env);
int summary_view_session(struct summary_view *v, const struct anl_session *s);
void summary_view_print(struct summary_view *v, FILE *out);
void summary_view_free(struct summary_view *v);

/* log-linear latency histogram (exposed for tests) */
/* exact below 128, then 64 sub-buckets per power of two (<1.6% error) */
#define LATH_BUCKETS (128 + 57 * 64)
int lath_index(uint64_t v);
uint64_t lath_value(int idx);   /* smallest value of bucket idx */

#endif
