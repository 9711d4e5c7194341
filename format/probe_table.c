/* probe_table.c - encoder and validating decoder of the "probes" header
 * blob (probe_table.h). Layout: u32 version, u32 count, count entries of
 * six u32 (kind, btf_id, ctx_size, spec offset, name offset, 0), then the
 * NUL-terminated strings the offsets point into (offsets from the start of
 * the strings). */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "probe_table.h"

#define ENT_WORDS 6
#define HDR_SIZE 8u

const char *rsf_probe_kind_name(uint32_t kind)
{
	switch (kind) {
	case RSF_PROBE_KPROBE: return "kprobe";
	case RSF_PROBE_KRETPROBE: return "kretprobe";
	case RSF_PROBE_RAWTP: return "rawtp";
	case RSF_PROBE_TP: return "tp";
	}
	return NULL;
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

int rsf_probes_encode(const struct rsf_probe *v, size_t n, void **blob, size_t *size)
{
	size_t strs = 0, ents = n * ENT_WORDS * 4, off = 0;
	unsigned char *b;

	if (n > RSF_PROBES_MAX)
		return -1;
	for (size_t i = 0; i < n; i++)
		strs += strlen(v[i].spec) + 1 + strlen(v[i].name) + 1;
	b = calloc(1, HDR_SIZE + ents + strs);
	if (!b)
		return -1;
	put32(b, RSF_PROBES_VERSION);
	put32(b + 4, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		unsigned char *e = b + HDR_SIZE + i * ENT_WORDS * 4;
		char *s = (char *)b + HDR_SIZE + ents;
		size_t ls = strlen(v[i].spec) + 1, ln = strlen(v[i].name) + 1;

		put32(e, v[i].kind);
		put32(e + 4, v[i].btf_id);
		put32(e + 8, v[i].ctx_size);
		put32(e + 12, (uint32_t)off);
		memcpy(s + off, v[i].spec, ls);
		off += ls;
		put32(e + 16, (uint32_t)off);
		memcpy(s + off, v[i].name, ln);
		off += ln;
	}
	*blob = b;
	*size = HDR_SIZE + ents + strs;
	return 0;
}

/* a string at OFF that ends inside the pool */
static const char *pool_str(const char *pool, size_t len, uint32_t off)
{
	if (off >= len || !memchr(pool + off, '\0', len - off))
		return NULL;
	return pool + off;
}

int rsf_probes_get(const void *blob, size_t size, uint32_t id, struct rsf_probe *out)
{
	const unsigned char *b = blob, *e;
	const char *pool;
	size_t ents, plen;
	uint32_t n;

	if (!b || size < HDR_SIZE || get32(b) != RSF_PROBES_VERSION)
		return -1;
	n = get32(b + 4);
	ents = (size_t)n * ENT_WORDS * 4;
	if (n > RSF_PROBES_MAX || size - HDR_SIZE < ents || id >= n)
		return -1;
	pool = (const char *)b + HDR_SIZE + ents;
	plen = size - HDR_SIZE - ents;
	e = b + HDR_SIZE + (size_t)id * ENT_WORDS * 4;
	out->kind = get32(e);
	out->btf_id = get32(e + 4);
	out->ctx_size = get32(e + 8);
	out->spec = pool_str(pool, plen, get32(e + 12));
	out->name = pool_str(pool, plen, get32(e + 16));
	return rsf_probe_kind_name(out->kind) && out->spec && out->name ? 0 : -1;
}

const char *rsf_probe_name(const void *blob, size_t size, uint32_t id, char *buf, size_t len)
{
	struct rsf_probe p;

	if (rsf_probes_get(blob, size, id, &p) == 0)
		return p.name;
	snprintf(buf, len, "<probe#%u>", id);
	return buf;
}

int rsf_probes_decode(const void *blob, size_t size, struct rsf_probe_table *t,
		      char *err, size_t errlen)
{
	const unsigned char *b = blob;
	uint32_t n;
	size_t ents, plen;

	memset(t, 0, sizeof(*t));
	if (size < HDR_SIZE || get32(b) != RSF_PROBES_VERSION) {
		snprintf(err, errlen, "the probe table is damaged or of an unknown version");
		return -1;
	}
	n = get32(b + 4);
	ents = (size_t)n * ENT_WORDS * 4;
	if (n > RSF_PROBES_MAX || size - HDR_SIZE < ents) {
		snprintf(err, errlen, "the probe table is damaged (%u entries in %zu bytes)", n, size);
		return -1;
	}
	plen = size - HDR_SIZE - ents;
	t->v = calloc(n ? n : 1, sizeof(*t->v));
	t->strings = malloc(plen ? plen : 1);
	if (!t->v || !t->strings) {
		rsf_probes_free(t);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(t->strings, b + HDR_SIZE + ents, plen);
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *e = b + HDR_SIZE + (size_t)i * ENT_WORDS * 4;
		struct rsf_probe *p = &t->v[i];

		p->kind = get32(e);
		p->btf_id = get32(e + 4);
		p->ctx_size = get32(e + 8);
		p->spec = pool_str(t->strings, plen, get32(e + 12));
		p->name = pool_str(t->strings, plen, get32(e + 16));
		if (!rsf_probe_kind_name(p->kind) || !p->spec || !p->name) {
			rsf_probes_free(t);
			snprintf(err, errlen, "the probe table is damaged (entry %u)", i);
			return -1;
		}
	}
	t->n = n;
	return 0;
}

void rsf_probes_free(struct rsf_probe_table *t)
{
	free(t->v);
	free(t->strings);
	memset(t, 0, sizeof(*t));
}
