/* json_writer.c - the JSON writer (json_writer.h): separators from the
 * container state, string escaping, numbers. */
#include <inttypes.h>
#include <stdarg.h>
#include "json_writer.h"

void jw_init(struct json_writer *w, FILE *f)
{
	*w = (struct json_writer){ .f = f };
}

/* the comma (and line break) before a member, unless a key precedes it */
static void before_value(struct json_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	if (w->has_items[w->depth])
		fputs(w->lines[w->depth] ? ",\n" : ",", w->f);
	w->has_items[w->depth] = true;
}

static void open_container(struct json_writer *w, char c, bool lines)
{
	before_value(w);
	fputc(c, w->f);
	if (lines)
		fputc('\n', w->f);
	if (w->depth + 1 < JW_MAX_DEPTH)
		w->depth++;
	w->has_items[w->depth] = false;
	w->lines[w->depth] = lines;
}

static void close_container(struct json_writer *w, char c)
{
	if (w->lines[w->depth])
		fputc('\n', w->f);
	fputc(c, w->f);
	if (w->depth > 0)
		w->depth--;
}

void jw_obj_begin(struct json_writer *w)
{
	open_container(w, '{', false);
}

void jw_obj_end(struct json_writer *w)
{
	close_container(w, '}');
}

void jw_arr_begin(struct json_writer *w)
{
	open_container(w, '[', false);
}

void jw_arr_begin_lines(struct json_writer *w)
{
	open_container(w, '[', true);
}

void jw_arr_end(struct json_writer *w)
{
	close_container(w, ']');
}

void jw_key(struct json_writer *w, const char *key)
{
	before_value(w);
	json_put_str(w->f, key);
	fputc(':', w->f);
	w->after_key = true;
}

void jw_str(struct json_writer *w, const char *s)
{
	before_value(w);
	json_put_str(w->f, s);
}

void jw_str_or_null(struct json_writer *w, const char *s)
{
	if (s)
		jw_str(w, s);
	else
		jw_null(w);
}

void jw_strf(struct json_writer *w, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	jw_str(w, buf);
}

void jw_null(struct json_writer *w)
{
	jw_num_text(w, "null");
}

void jw_bool(struct json_writer *w, bool v)
{
	jw_num_text(w, v ? "true" : "false");
}

void jw_int(struct json_writer *w, int64_t v)
{
	before_value(w);
	fprintf(w->f, "%" PRId64, v);
}

void jw_uint(struct json_writer *w, uint64_t v)
{
	before_value(w);
	fprintf(w->f, "%" PRIu64, v);
}

void jw_num_text(struct json_writer *w, const char *num)
{
	before_value(w);
	fputs(num, w->f);
}

void jw_newline(struct json_writer *w)
{
	fputc('\n', w->f);
}

int jw_error(const struct json_writer *w)
{
	return ferror(w->f) ? -1 : 0;
}

void json_put_str(FILE *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	putc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		unsigned char c = *p;

		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc(c, out);
		} else if (c == '\n') {
			fputs("\\n", out);
		} else if (c == '\t') {
			fputs("\\t", out);
		} else if (c == '\r') {
			fputs("\\r", out);
		} else if (c < 0x20 || c == 0x7f || c >= 0x80) {
			/* comms and names are bytes, not UTF-8: keep JSON valid */
			fputs("\\u00", out);
			putc(hex[c >> 4], out);
			putc(hex[c & 15], out);
		} else {
			putc(c, out);
		}
	}
	putc('"', out);
}
