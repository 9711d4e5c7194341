/* folded_out.h - `--folded` as a report output (output.h): aggregated
 * folded stacks ("a;b;c N") for flamegraph.pl and inferno, weighted by
 * session count or by latency, printed sorted at the end. */
#ifndef RS_FOLDED_OUT_H
#define RS_FOLDED_OUT_H

#include "output.h"

extern const struct rp_output rp_out_folded;

#endif
