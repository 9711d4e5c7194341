/* json_writer.h - the one JSON writer of the tools (retsnoop-report's JSON
 * and Perfetto outputs): objects, arrays, keys, strings with escaping and
 * numbers, with the commas placed by the writer. Compact (no blanks); an
 * array begun with jw_arr_begin_lines() puts each element on its own line
 * (trace-event files). Bytes are gathered in the writer and handed to the
 * stream at each jw_newline(), when the buffer fills and at jw_flush():
 * nothing else may write to the stream in between. */
#ifndef RS_JSON_WRITER_H
#define RS_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 32
#define JW_BUF 8192

struct json_writer {
	FILE *f;
	int depth;                      /* open objects and arrays */
	bool has_items[JW_MAX_DEPTH];   /* the container at this depth has a member */
	bool lines[JW_MAX_DEPTH];       /* one element per line */
	bool after_key;                 /* a key was written: its value comes next */
	size_t len;                     /* bytes in buf */
	char buf[JW_BUF];
};

void jw_init(struct json_writer *w, FILE *f);
void jw_obj_begin(struct json_writer *w);
void jw_obj_end(struct json_writer *w);
void jw_arr_begin(struct json_writer *w);
void jw_arr_begin_lines(struct json_writer *w);
void jw_arr_end(struct json_writer *w);
/* the key of the next value in the current object: a plain ASCII name
 * (written as given) */
void jw_key(struct json_writer *w, const char *key);
void jw_str(struct json_writer *w, const char *s);
void jw_str_or_null(struct json_writer *w, const char *s);   /* NULL: null */
void jw_strf(struct json_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void jw_null(struct json_writer *w);
void jw_bool(struct json_writer *w, bool v);
void jw_int(struct json_writer *w, int64_t v);
void jw_uint(struct json_writer *w, uint64_t v);
/* "0x..." (lowercase hex, as a string) */
void jw_hex(struct json_writer *w, uint64_t v);
/* a number already formatted (e.g. microseconds with a fraction) */
void jw_num_text(struct json_writer *w, const char *num);
/* a line break between top-level values (NDJSON); hands the line to the
 * stream */
void jw_newline(struct json_writer *w);
/* hands the gathered bytes to the stream */
void jw_flush(struct json_writer *w);
/* flushes; 0, or -1 when the stream had a write error */
int jw_error(struct json_writer *w);

/* writes S as a JSON string literal (quotes included); bytes that are not
 * printable ASCII are escaped as \u00XX so that any byte string stays valid */
void json_put_str(FILE *out, const char *s);

#endif
