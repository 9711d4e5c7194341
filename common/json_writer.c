/* json_writer.c - the JSON writer (json_writer.h): separators from the
 * container state, string escaping, numbers, gathered in the writer's
 * buffer and handed to the stream in large writes. */
#include <stdarg.h>
#include <string.h>
#include "json_writer.h"

void jw_init(struct json_writer *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->has_items[0] = false;
	w->lines[0] = false;
	w->after_key = false;
	w->len = 0;
}

void jw_flush(struct json_writer *w)
{
	if (w->len)
		fwrite(w->buf, 1, w->len, w->f);
	w->len = 0;
}

static inline void put(struct json_writer *w, const char *p, size_t n)
{
	if (w->len + n > sizeof(w->buf)) {
		jw_flush(w);
		if (n > sizeof(w->buf)) {
			fwrite(p, 1, n, w->f);
			return;
		}
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static inline void put_c(struct json_writer *w, char c)
{
	if (w->len == sizeof(w->buf))
		jw_flush(w);
	w->buf[w->len++] = c;
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
	if (w->has_items[w->depth]) {
		put_c(w, ',');
		if (w->lines[w->depth])
			put_c(w, '\n');
	}
	w->has_items[w->depth] = true;
}

static void open_container(struct json_writer *w, char c, bool lines)
{
	before_value(w);
	put_c(w, c);
	if (lines)
		put_c(w, '\n');
	if (w->depth + 1 < JW_MAX_DEPTH)
		w->depth++;
	w->has_items[w->depth] = false;
	w->lines[w->depth] = lines;
}

static void close_container(struct json_writer *w, char c)
{
	if (w->lines[w->depth])
		put_c(w, '\n');
	put_c(w, c);
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
	put_c(w, '"');
	put(w, key, strlen(key));
	put(w, "\":", 2);
	w->after_key = true;
}

/* the string's bytes, escaped: printable ASCII as is */
static void put_escaped(struct json_writer *w, const unsigned char *p)
{
	static const char hex[] = "0123456789abcdef";

	while (*p) {
		const unsigned char *q = p;
		char esc[6] = { '\\', 'u', '0', '0' };

		while (*q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\')
			q++;
		put(w, (const char *)p, (size_t)(q - p));
		if (!*q)
			return;
		if (*q == '"' || *q == '\\') {
			esc[1] = (char)*q;
			put(w, esc, 2);
		} else if (*q == '\n' || *q == '\t' || *q == '\r') {
			esc[1] = *q == '\n' ? 'n' : *q == '\t' ? 't' : 'r';
			put(w, esc, 2);
		} else {   /* comms and names are bytes, not UTF-8: keep JSON valid */
			esc[4] = hex[*q >> 4];
			esc[5] = hex[*q & 15];
			put(w, esc, 6);
		}
		p = q + 1;
	}
}

void jw_str(struct json_writer *w, const char *s)
{
	before_value(w);
	put_c(w, '"');
	if (s)
		put_escaped(w, (const unsigned char *)s);
	put_c(w, '"');
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

/* decimal digits of V, written without printf (the JSON output's hot path) */
static void put_u64(struct json_writer *w, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(w, p, (size_t)(buf + sizeof(buf) - p));
}

void jw_int(struct json_writer *w, int64_t v)
{
	before_value(w);
	if (v < 0) {
		put_c(w, '-');
		put_u64(w, -(uint64_t)v);
	} else {
		put_u64(w, (uint64_t)v);
	}
}

void jw_uint(struct json_writer *w, uint64_t v)
{
	before_value(w);
	put_u64(w, v);
}

void jw_hex(struct json_writer *w, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char buf[24], *p = buf + sizeof(buf);

	before_value(w);
	*--p = '"';
	do {
		*--p = hex[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	*--p = '"';
	put(w, p, (size_t)(buf + sizeof(buf) - p));
}

void jw_num_text(struct json_writer *w, const char *num)
{
	before_value(w);
	put(w, num, strlen(num));
}

void jw_newline(struct json_writer *w)
{
	put_c(w, '\n');
	jw_flush(w);
}

int jw_error(struct json_writer *w)
{
	jw_flush(w);
	return ferror(w->f) ? -1 : 0;
}

void json_put_str(FILE *out, const char *s)
{
	struct json_writer w;

	jw_init(&w, out);
	jw_str(&w, s);
	jw_flush(&w);
}
