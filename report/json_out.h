/* json_out.h - `--format json`: one JSON object per session (NDJSON); the
 * fields are documented in docs/json-schema.md. */
#ifndef RS_JSON_OUT_H
#define RS_JSON_OUT_H

#include <stdio.h>
#include "analysis.h"

struct json_out;
struct json_out *json_out_new(struct anl_env *env, FILE *out);
int json_out_session(struct json_out *j, const struct anl_session *s);
void json_out_free(struct json_out *j);
/* writes S as a JSON string literal (quotes included) */
void json_put_str(FILE *out, const char *s);

#endif
