/* perfetto_out.h - `--perfetto FILE`: Chrome trace-event JSON for
 * ui.perfetto.dev / chrome://tracing, one track per thread. */
#ifndef RS_PERFETTO_OUT_H
#define RS_PERFETTO_OUT_H

#include "analysis.h"

struct perfetto_out;
/* NULL with a message in err when PATH cannot be created */
struct perfetto_out *perfetto_out_new(struct anl_env *env, const char *path, char *err, size_t errlen);
int perfetto_out_session(struct perfetto_out *p, const struct anl_session *s);
/* terminates the JSON and closes the file: 0 or -1 (message in err) */
int perfetto_out_finish(struct perfetto_out *p, char *err, size_t errlen);
void perfetto_out_free(struct perfetto_out *p);

#endif
