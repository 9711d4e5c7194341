/* folded_out.h - `--folded`: aggregated folded stacks ("a;b;c N") for
 * flamegraph.pl and inferno, weighted by session count or by latency. */
#ifndef RS_FOLDED_OUT_H
#define RS_FOLDED_OUT_H

#include <stdbool.h>
#include <stdio.h>
#include "analysis.h"

struct folded_out;
/* by_latency: self time in microseconds per frame instead of counts */
struct folded_out *folded_out_new(struct anl_env *env, bool by_latency);
int folded_out_session(struct folded_out *f, const struct anl_session *s);
/* prints the aggregated stacks, sorted */
int folded_out_finish(struct folded_out *f, FILE *out);
void folded_out_free(struct folded_out *f);

#endif
