/* json_writer.c - the JSON writer (json_writer.h). */
#include "json_writer.h"

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
