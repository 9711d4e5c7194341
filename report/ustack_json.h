/* ustack_json.h - a session's user stack (ustack_res.h) as the JSON
 * output's "user_stack" object (docs/json-schema.md). */
#ifndef RS_USTACK_JSON_H
#define RS_USTACK_JSON_H

#include "../common/json_writer.h"
#include "ustack_res.h"

/* writes the value (an object) of the "user_stack" key */
void ustack_json_put(struct json_writer *w, const struct us_stack *st);

#endif
