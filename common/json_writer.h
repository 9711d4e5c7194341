/* json_writer.h - the one JSON writer of the tools (JSON and Perfetto
 * outputs): strings with escaping. */
#ifndef RS_JSON_WRITER_H
#define RS_JSON_WRITER_H

#include <stdio.h>

/* writes S as a JSON string literal (quotes included); bytes that are not
 * printable ASCII are escaped as \u00XX so that any byte string stays valid */
void json_put_str(FILE *out, const char *s);

#endif
