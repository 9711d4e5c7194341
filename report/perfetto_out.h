/* perfetto_out.h - `--perfetto FILE` as a report output (output.h):
 * Chrome trace-event JSON for ui.perfetto.dev / chrome://tracing, one
 * track per thread, final sessions only. */
#ifndef RS_PERFETTO_OUT_H
#define RS_PERFETTO_OUT_H

#include "output.h"

extern const struct rp_output rp_out_perfetto;

#endif
