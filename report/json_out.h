/* json_out.h - `--format json` as a report output (output.h): one JSON
 * object per session snapshot (NDJSON) on stdout; the fields are
 * documented in docs/json-schema.md. */
#ifndef RS_JSON_OUT_H
#define RS_JSON_OUT_H

#include "output.h"

extern const struct rp_output rp_out_json;

#endif
