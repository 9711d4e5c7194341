/* rsf_tables.c - the kallsyms snapshot, module table and traced-function
 * table: fixed-size entries plus one deduplicated string table, encoded in
 * one pass by the writer and decoded by the reader with every string
 * pointing into the decompressed block (one arena, no per-string malloc). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rsf_internal.h"

/* ------------------------------------------------- string table builder */
struct strtab {
	struct rsf_buf buf;
	uint32_t *slots;        /* open addressing: string offsets, RSF_NO_STR = empty */
	size_t nslots, used;
};

static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;    /* FNV-1a */
	for (size_t i = 0; i < n; i++) {
		h ^= (uint8_t)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* grows the slots to at least 2 * WANT (a power of two, 1024 at least) */
static int strtab_grow_to(struct strtab *t, size_t want)
{
	size_t n = t->nslots ? t->nslots * 2 : 1024;

	while (n < 2 * want)
		n *= 2;
	uint32_t *slots = malloc(n * sizeof(*slots));
	if (!slots)
		return -1;
	memset(slots, 0xff, n * sizeof(*slots));
	for (size_t i = 0; i < t->nslots; i++) {
		uint32_t off = t->slots[i];
		if (off == RSF_NO_STR)
			continue;
		const char *s = (const char *)t->buf.data + off;
		size_t j = str_hash(s, strlen(s)) & (n - 1);
		while (slots[j] != RSF_NO_STR)
			j = (j + 1) & (n - 1);
		slots[j] = off;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

/* Returns the offset of S in the table (adding it once), or RSF_NO_STR on
 * failure. NULL is encoded as RSF_NO_STR by the caller. */
static int strtab_add(struct strtab *t, const char *s, uint32_t *off)
{
	if ((t->used + 1) * 2 > t->nslots && strtab_grow_to(t, t->used + 1))
		return -1;
	size_t n = strlen(s);
	size_t j = str_hash(s, n) & (t->nslots - 1);
	while (t->slots[j] != RSF_NO_STR) {
		const char *o = (const char *)t->buf.data + t->slots[j];
		if (strcmp(o, s) == 0) {
			*off = t->slots[j];
			return 0;
		}
		j = (j + 1) & (t->nslots - 1);
	}
	if (t->buf.len + n + 1 >= RSF_NO_STR)
		return -1;
	*off = (uint32_t)t->buf.len;
	if (rsf_buf_append(&t->buf, s, n + 1))
		return -1;
	t->slots[j] = *off;
	t->used++;
	return 0;
}

static void strtab_free(struct strtab *t)
{
	rsf_buf_free(&t->buf);
	free(t->slots);
}

/* table = header, entries (already in OUT after the header), strtab */
static const char *table_begin(struct rsf_buf *out, size_t n, size_t ent_size)
{
	if (n > UINT32_MAX / ent_size)
		return "table has too many entries";
	out->len = 0;
	if (rsf_buf_reserve(out, RSF_TABLE_HDR_SIZE + n * ent_size))
		return "out of memory";
	memset(out->data, 0, RSF_TABLE_HDR_SIZE + n * ent_size);
	rsf_put32(out->data, (uint32_t)n);
	rsf_put32(out->data + 4, (uint32_t)ent_size);
	out->len = RSF_TABLE_HDR_SIZE + n * ent_size;
	return NULL;
}

static const char *table_end(struct rsf_buf *out, struct strtab *t)
{
	if (t->buf.len > RSF_TABLE_MAX) {
		strtab_free(t);
		return "string table too large";
	}
	rsf_put32(out->data + 8, (uint32_t)t->buf.len);
	int err = rsf_buf_append(out, t->buf.data, t->buf.len);
	strtab_free(t);
	if (err)
		return "out of memory";
	if (out->len > RSF_TABLE_MAX)
		return "table too large";
	return NULL;
}

static const char *add_str(struct strtab *t, const char *s, bool may_be_null,
			   uint8_t *dst)
{
	uint32_t off = RSF_NO_STR;

	if (!s) {
		if (!may_be_null)
			return "entry without a name";
	} else if (strtab_add(t, s, &off)) {
		return "out of memory (string table)";
	}
	rsf_put32(dst, off);
	return NULL;
}

/* a name appended as is, not deduplicated: kallsyms names are nearly all
 * distinct, and hashing ~100k of them cost as much as compressing them */
static const char *append_str(struct strtab *t, const char *s, uint8_t *dst)
{
	size_t n = strlen(s);

	if (t->buf.len + n + 1 >= RSF_NO_STR)
		return "string table too large";
	rsf_put32(dst, (uint32_t)t->buf.len);
	if (rsf_buf_append(&t->buf, s, n + 1))
		return "out of memory (string table)";
	return NULL;
}

#define PFX "__pfx_"
#define PFX_LEN 6

const char *rsf_table_encode_ksyms(const struct rsf_ksym *k, size_t n, struct rsf_buf *out)
{
	struct strtab t = {};
	const char *e = table_begin(out, n, RSF_KSYM_ENT_SIZE), *mod = NULL;
	uint32_t mod_off = RSF_NO_STR, pfx_off = RSF_NO_STR;

	if (e)
		return e;
	/* the names' bytes reserved once (~155k on a distribution kernel): no
	 * copy while it grows */
	if (strtab_grow_to(&t, 64) || rsf_buf_reserve(&t.buf, n * 16 + 64)) {
		strtab_free(&t);
		return "out of memory";
	}
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = out->data + RSF_TABLE_HDR_SIZE + i * RSF_KSYM_ENT_SIZE;

		rsf_put64(p, k[i].addr);
		p[16] = (uint8_t)k[i].type;
		if (!k[i].name) {
			strtab_free(&t);
			return "entry without a name";
		}
		/* X right after its padding symbol __pfx_X: the tail of that name */
		if (pfx_off != RSF_NO_STR && !strcmp(k[i - 1].name + PFX_LEN, k[i].name)) {
			rsf_put32(p + 8, pfx_off + PFX_LEN);
			pfx_off = RSF_NO_STR;
		} else {
			pfx_off = !strncmp(k[i].name, PFX, PFX_LEN) ? (uint32_t)t.buf.len : RSF_NO_STR;
			if ((e = append_str(&t, k[i].name, p + 8))) {
				strtab_free(&t);
				return e;
			}
		}
		/* modules come in runs: the hash only when the module changes */
		if (k[i].module && mod && !strcmp(k[i].module, mod)) {
			rsf_put32(p + 12, mod_off);
		} else if ((e = add_str(&t, k[i].module, true, p + 12))) {
			strtab_free(&t);
			return e;
		} else {
			mod = k[i].module;
			mod_off = rsf_get32(p + 12);
		}
	}
	return table_end(out, &t);
}

/* a module's sections as one string: "ADDRHEX NAME\n" per section (names
 * with a newline or empty are left out); none: RSF_NO_STR */
static const char *put_sections(struct strtab *t, const struct rsf_module *m, uint8_t *dst)
{
	struct rsf_buf b = {};
	char line[40];
	const char *e = NULL;

	rsf_put32(dst, RSF_NO_STR);
	if (!m->nsects)
		return NULL;
	for (uint32_t i = 0; i < m->nsects; i++) {
		const char *n = m->sects[i].name;
		if (!n || !*n || strchr(n, '\n'))
			continue;
		int l = snprintf(line, sizeof(line), "%llx ", (unsigned long long)m->sects[i].addr);
		if (rsf_buf_append(&b, line, (size_t)l) || rsf_buf_append(&b, n, strlen(n)) ||
		    rsf_buf_append(&b, "\n", 1)) {
			e = "out of memory";
			goto out;
		}
	}
	if (!b.len)
		goto out;
	if (rsf_buf_append(&b, "", 1))
		e = "out of memory";
	else
		e = add_str(t, (const char *)b.data, false, dst);
out:
	rsf_buf_free(&b);
	return e;
}

const char *rsf_table_encode_modules(const struct rsf_module *m, size_t n, struct rsf_buf *out)
{
	struct strtab t = {};
	const char *e = table_begin(out, n, RSF_MODULE_ENT_SIZE);
	if (e)
		return e;
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = out->data + RSF_TABLE_HDR_SIZE + i * RSF_MODULE_ENT_SIZE;
		uint32_t bl = m[i].build_id_len > sizeof(m[i].build_id) ?
			      (uint32_t)sizeof(m[i].build_id) : m[i].build_id_len;
		rsf_put64(p, m[i].base);
		rsf_put64(p + 8, m[i].size);
		if ((e = add_str(&t, m[i].name, false, p + 16))) {
			strtab_free(&t);
			return e;
		}
		rsf_put32(p + 20, bl);
		memcpy(p + 24, m[i].build_id, bl);
		if ((e = put_sections(&t, &m[i], p + 88))) {
			strtab_free(&t);
			return e;
		}
	}
	return table_end(out, &t);
}

const char *rsf_table_encode_funcs(const struct rsf_func *f, size_t n, struct rsf_buf *out)
{
	struct strtab t = {};
	const char *e = table_begin(out, n, RSF_FUNC_ENT_SIZE);
	if (e)
		return e;
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = out->data + RSF_TABLE_HDR_SIZE + i * RSF_FUNC_ENT_SIZE;
		rsf_put64(p, f[i].addr);
		rsf_put32(p + 8, f[i].flags);
		if ((e = add_str(&t, f[i].name, false, p + 12)) ||
		    (e = add_str(&t, f[i].module, true, p + 16))) {
			strtab_free(&t);
			return e;
		}
	}
	return table_end(out, &t);
}

/* ---------------------------------------------------------------- reader */
struct table_view {
	uint32_t n, ent_size;
	const uint8_t *ents;
	const char *strs;
	uint32_t strs_len;
};

static const char *table_parse(const uint8_t *raw, size_t len, uint32_t count,
			       size_t min_ent, struct table_view *v)
{
	if (len < RSF_TABLE_HDR_SIZE)
		return "table shorter than its header";
	v->n = rsf_get32(raw);
	v->ent_size = rsf_get32(raw + 4);
	v->strs_len = rsf_get32(raw + 8);
	if (v->n != count)
		return "entry count does not match the block header";
	if (v->ent_size < min_ent)
		return "entry size too small";
	uint64_t need = RSF_TABLE_HDR_SIZE + (uint64_t)v->n * v->ent_size + v->strs_len;
	if (need != len)
		return "table sizes do not add up";
	v->ents = raw + RSF_TABLE_HDR_SIZE;
	v->strs = (const char *)v->ents + (size_t)v->n * v->ent_size;
	if (v->strs_len && v->strs[v->strs_len - 1] != '\0')
		return "string table not terminated";
	return NULL;
}

static const char *get_str(const struct table_view *v, const uint8_t *p,
			   bool may_be_null, const char **s)
{
	uint32_t off = rsf_get32(p);

	if (off == RSF_NO_STR) {
		*s = NULL;
		return may_be_null ? NULL : "entry without a name";
	}
	if (off >= v->strs_len)
		return "string offset out of bounds";
	*s = v->strs + off;
	return NULL;
}

static void *alloc_array(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

const char *rsf_table_decode_ksyms(const uint8_t *raw, size_t len, uint32_t count,
				   struct rsf_ksym **out, size_t *n)
{
	struct table_view v;
	const char *e = table_parse(raw, len, count, RSF_KSYM_ENT_SIZE, &v);
	if (e)
		return e;
	struct rsf_ksym *k = alloc_array(v.n, sizeof(*k));
	if (!k)
		return "out of memory";
	for (uint32_t i = 0; i < v.n; i++) {
		const uint8_t *p = v.ents + (size_t)i * v.ent_size;
		k[i].addr = rsf_get64(p);
		if ((e = get_str(&v, p + 8, false, &k[i].name)) ||
		    (e = get_str(&v, p + 12, true, &k[i].module))) {
			free(k);
			return e;
		}
		k[i].type = (char)p[16];
	}
	*out = k;
	*n = v.n;
	return NULL;
}

/* parses "ADDRHEX NAME\n" lines; counts only when v is NULL. Returns the
 * number of sections, -1 when malformed. Names are copied to *names. */
static long parse_sections(const char *s, struct rsf_modsect *v, char **names)
{
	long n = 0;
	while (*s) {
		char *end;
		errno = 0;
		unsigned long long a = strtoull(s, &end, 16);
		if (end == s || *end != ' ' || errno)
			return -1;
		const char *name = end + 1, *nl = strchr(name, '\n');
		if (!nl || nl == name)
			return -1;
		if (v) {
			size_t len = (size_t)(nl - name);
			memcpy(*names, name, len);
			(*names)[len] = '\0';
			v[n] = (struct rsf_modsect){ *names, a };
			*names += len + 1;
		}
		n++;
		s = nl + 1;
	}
	return n;
}

const char *rsf_table_decode_modules(const uint8_t *raw, size_t len, uint32_t count,
				     struct rsf_module **out, size_t *n)
{
	struct table_view v;
	const char *e = table_parse(raw, len, count, RSF_MODULE_ENT_V0, &v);
	if (e)
		return e;
	/* the section lists go into the same allocation as the modules */
	size_t nsects = 0, names = 0;
	const char **sstr = calloc(v.n ? v.n : 1, sizeof(*sstr));
	if (!sstr)
		return "out of memory";
	for (uint32_t i = 0; v.ent_size >= RSF_MODULE_ENT_V0 + 4 && i < v.n; i++) {
		const uint8_t *p = v.ents + (size_t)i * v.ent_size;
		if ((e = get_str(&v, p + 88, true, &sstr[i]))) {
			free(sstr);
			return e;
		}
		long k = sstr[i] ? parse_sections(sstr[i], NULL, NULL) : 0;
		if (k < 0) {
			free(sstr);
			return "malformed module section list";
		}
		nsects += (size_t)k;
		names += sstr[i] ? strlen(sstr[i]) : 0;
	}
	size_t head = (size_t)(v.n ? v.n : 1) * sizeof(struct rsf_module);
	head = (head + 7) & ~(size_t)7;
	struct rsf_module *m = calloc(1, head + nsects * sizeof(struct rsf_modsect) + names + 1);
	if (!m) {
		free(sstr);
		return "out of memory";
	}
	struct rsf_modsect *sv = (struct rsf_modsect *)((char *)m + head);
	char *np = (char *)(sv + nsects);
	for (uint32_t i = 0; i < v.n; i++) {
		const uint8_t *p = v.ents + (size_t)i * v.ent_size;
		m[i].base = rsf_get64(p);
		m[i].size = rsf_get64(p + 8);
		if ((e = get_str(&v, p + 16, false, &m[i].name))) {
			free(m);
			free(sstr);
			return e;
		}
		uint32_t bl = rsf_get32(p + 20);
		if (bl > sizeof(m[i].build_id)) {
			free(m);
			free(sstr);
			return "module build-id too long";
		}
		m[i].build_id_len = bl;
		memcpy(m[i].build_id, p + 24, bl);
		if (sstr[i]) {
			long k = parse_sections(sstr[i], sv, &np);
			m[i].sects = sv;
			m[i].nsects = (uint32_t)k;
			sv += k;
		}
	}
	free(sstr);
	*out = m;
	*n = v.n;
	return NULL;
}

const char *rsf_table_decode_funcs(const uint8_t *raw, size_t len, uint32_t count,
				   struct rsf_func **out, size_t *n)
{
	struct table_view v;
	const char *e = table_parse(raw, len, count, RSF_FUNC_ENT_SIZE, &v);
	if (e)
		return e;
	struct rsf_func *f = alloc_array(v.n, sizeof(*f));
	if (!f)
		return "out of memory";
	for (uint32_t i = 0; i < v.n; i++) {
		const uint8_t *p = v.ents + (size_t)i * v.ent_size;
		f[i].addr = rsf_get64(p);
		f[i].flags = rsf_get32(p + 8);
		if ((e = get_str(&v, p + 12, false, &f[i].name)) ||
		    (e = get_str(&v, p + 16, true, &f[i].module))) {
			free(f);
			return e;
		}
	}
	*out = f;
	*n = v.n;
	return NULL;
}
