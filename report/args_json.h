/* args_json.h - captured arguments (args_render.h) as JSON values through
 * the one JSON writer: an array of {name, type, value, error, state,
 * truncated, user}, for frames, trace entries and probe rows. */
#ifndef RS_ARGS_JSON_H
#define RS_ARGS_JSON_H

#include "../common/json_writer.h"
#include "args_render.h"

/* the array L as the next value (L NULL: null) */
void args_json_put(struct json_writer *w, const struct args_list *l);
/* the one-word state names of docs/report.schema.json */
const char *args_state_name(enum args_state st);

#endif
