/* ksym_records.c - the ksym iterator's binary records into a ksyms table
 * (ksym_records.h): every name and module points into the read buffer, the
 * way symbols/ksyms.c keeps /proc/kallsyms text, so both give one table. */
#include "record/ksym_records.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpf/ksym_iter_abi.h"

_Static_assert(RS_KI_HDR_SIZE == __builtin_offsetof(struct rs_ksym_rec, type) + 1,
	       "the record header is its first RS_KI_HDR_SIZE bytes");

/* a NUL-terminated string of exactly LEN bytes (NUL included) at S */
static bool is_str(const char *s, size_t len)
{
	return len >= 2 && s[len - 1] == '\0' && memchr(s, '\0', len - 1) == NULL;
}

/* the kallsyms iterator's stop call shows the iterator once more past the
 * end: the last symbol's name and address again, under the kprobes pseudo
 * module its last lookup set. /proc/kallsyms never shows it. */
static bool is_stop_repeat(const struct ksym *prev, const struct ksym *last)
{
	return last->module && !strcmp(last->module, "__builtin__kprobes") &&
	       prev->addr == last->addr && !strcmp(prev->name, last->name);
}

static bool skipped(const struct ksym *k, const uint64_t *skip, size_t nskip)
{
	if (!k->module || strcmp(k->module, "bpf"))
		return false;
	for (size_t i = 0; i < nskip; i++)
		if (skip[i] == k->addr)
			return true;
	return false;
}

/* one record at P (LEFT bytes on): into K; its size, 0 if malformed */
static size_t parse_one(char *p, size_t left, struct ksym *k)
{
	struct rs_ksym_rec h;
	size_t size;

	if (left < RS_KI_HDR_SIZE)
		return 0;
	memcpy(&h, p, RS_KI_HDR_SIZE);
	size = RS_KI_HDR_SIZE + (size_t)h.name_len + h.mod_len;
	if (size > left || h.name_len > RS_KI_NAME_MAX || !is_str(p + RS_KI_HDR_SIZE, h.name_len) ||
	    (h.mod_len && !is_str(p + RS_KI_HDR_SIZE + h.name_len, h.mod_len)))
		return 0;
	*k = (struct ksym){ .addr = h.addr, .type = h.type, .name = p + RS_KI_HDR_SIZE,
			    .module = h.mod_len ? p + RS_KI_HDR_SIZE + h.name_len : NULL };
	return size;
}

struct ksyms *ksym_records_parse(char *buf, size_t len, const uint64_t *skip, size_t nskip,
				 char *err, size_t errlen)
{
	/* every record takes at least 14 bytes: no growing */
	size_t cap = len / (RS_KI_HDR_SIZE + 2) + 1, n = 0;
	struct ksym *v = malloc(cap * sizeof(*v)), prev = {}, last = {};
	struct ksyms *ks;
	bool kept = false;   /* the last record went into v */

	if (!v) {
		free(buf);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (size_t off = 0; off < len;) {
		size_t sz = parse_one(buf + off, len - off, &v[n]);

		if (!sz) {
			snprintf(err, errlen, "ksym iterator: malformed record at byte %zu of %zu",
				 off, len);
			free(v);
			free(buf);
			return NULL;
		}
		off += sz;
		prev = last;
		last = v[n];
		kept = !skipped(&v[n], skip, nskip);
		n += kept;
	}
	if (kept && prev.name && is_stop_repeat(&prev, &last))
		n--;
	ks = ksyms_adopt(v, n, buf);
	if (!ks)
		snprintf(err, errlen, "out of memory");
	return ks;
}
