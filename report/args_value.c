/* args_value.c - renders one captured value by its BTF type (args_value.h).
 *
 * Enums and floats go through libbpf's btf_dump__dump_type_data (skip_names,
 * compact: the enumerator's name, or the number with libbpf's suffixes).
 * Structs, unions, arrays, integers and pointers are walked here, because
 * libbpf's dumper cannot be post-processed into this format reliably and,
 * in the libbpf this project builds with (1.1.2), drops non-zero members:
 * a nested struct whose first member is zero is skipped whole, and pointer
 * members are never shown (tests/unit/test_args_render.c checks both
 * cases here). The walker never reads past DATA[LEN): it stops with `…`. */
#include <bpf/btf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include "args_value.h"

#define SMART_INT_MAX   (4u << 20)   /* below: decimal; from here: hex */
#define MAX_DEPTH       24           /* nesting rendered before `…` */
#define MAX_NODES       4096         /* values rendered per top-level value */

struct walk {
	const struct av_ctx *c;
	FILE *f;
	const uint8_t *base;
	size_t len;
	int depth;
	unsigned nodes;
	bool cut;                      /* bytes (or the node budget) ran out */
};

static void walk_type(struct walk *w, uint32_t id, size_t off, uint32_t bit_off, uint32_t bit_sz);

uint32_t av_skip_mods(const struct btf *btf, uint32_t id)
{
	for (int i = 0; i < 32; i++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t || id == 0)
			return 0;
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		default:
			return id;
		}
	}
	return 0;
}

void av_smart_int(FILE *f, uint64_t v, bool is_signed)
{
	if ((is_signed && (int64_t)v < 0) || v < SMART_INT_MAX)
		fprintf(f, is_signed ? "%" PRId64 : "%" PRIu64, v);
	else
		fprintf(f, "0x%" PRIx64, v);
}

const char *av_cut_mark(bool ascii)
{
	return ascii ? "..." : "\u2026";
}

void av_quoted(FILE *f, const char *s, size_t len, bool ascii)
{
	fputc('\'', f);
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '\'' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (ch == '\t')
			fputs("\\t", f);
		else if (ch < 0x20 || ch == 0x7f || (ascii && ch >= 0x80))
			fprintf(f, "\\x%02x", ch);
		else
			fputc(ch, f);   /* UTF-8 bytes pass through */
	}
	fputc('\'', f);
}

static void cut(struct walk *w)
{
	if (!w->cut)
		fputs(av_cut_mark(w->c->ascii), w->f);
	w->cut = true;
}

/* bytes [off, off+n) are all there */
static bool have(const struct walk *w, size_t off, size_t n)
{
	return off <= w->len && n <= w->len - off;
}

static uint64_t load_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* a bitfield's bits (little-endian), BIT_OFF from byte OFF */
static bool load_bits(const struct walk *w, size_t off, uint32_t bit_off, uint32_t bit_sz,
		      uint64_t *v)
{
	size_t nbytes = (bit_off + bit_sz + 7) / 8;
	uint8_t buf[16] = {0};
	unsigned __int128 x = 0;

	if (bit_sz > 64 || nbytes > sizeof(buf) || !have(w, off, nbytes))
		return false;
	memcpy(buf, w->base + off, nbytes);
	for (size_t i = nbytes; i-- > 0;)
		x = (x << 8) | buf[i];
	x >>= bit_off;
	*v = bit_sz == 64 ? (uint64_t)x : (uint64_t)x & ((1ULL << bit_sz) - 1);
	return true;
}

static void walk_int(struct walk *w, const struct btf_type *t, size_t off, uint32_t bit_off,
		     uint32_t bit_sz)
{
	uint8_t enc = btf_int_encoding(t);
	bool sign = enc & BTF_INT_SIGNED;
	uint64_t v;

	if (bit_sz || btf_int_offset(t)) {
		if (!bit_sz)
			bit_sz = btf_int_bits(t);
		if (!bit_sz) {   /* a 0-bit int: nothing to read */
			fputs("?", w->f);
			return;
		}
		if (!load_bits(w, off, bit_off + btf_int_offset(t), bit_sz, &v))
			return cut(w);
		if (sign && bit_sz < 64 && (v >> (bit_sz - 1)) & 1)
			v |= ~0ULL << bit_sz;
	} else if (t->size == 16) {
		if (!have(w, off, 16))
			return cut(w);
		fprintf(w->f, "0x%016" PRIx64 "%016" PRIx64, load_le(w->base + off + 8, 8),
			load_le(w->base + off, 8));
		return;
	} else {
		if (!t->size || t->size > 8) {   /* no C integer is that wide */
			fputs("?", w->f);
			return;
		}
		if (!have(w, off, t->size))
			return cut(w);
		v = load_le(w->base + off, t->size);
		if (sign && t->size < 8 && (v >> (t->size * 8 - 1)) & 1)
			v |= ~0ULL << (t->size * 8);
	}
	if (enc & BTF_INT_BOOL)
		fputs(v ? "true" : "false", w->f);
	else
		av_smart_int(w->f, v, sign);
}

/* the dumper's output goes to the FILE its context points to, set
 * before each call */
static void dump_cb(void *ctx, const char *fmt, va_list args)
{
	FILE *f = *(FILE **)ctx;

	if (f)
		vfprintf(f, fmt, args);
}

struct btf_dump *av_dump_new(const struct btf *btf, FILE **out)
{
	return btf_dump__new(btf, dump_cb, out, NULL);   /* libbpf 1.x: NULL on error */
}

/* enums and floats: libbpf's dumper, names and casts off */
static void walk_libbpf(struct walk *w, const struct btf_type *t, uint32_t id, size_t off,
			uint32_t bit_off, uint32_t bit_sz)
{
	LIBBPF_OPTS(btf_dump_type_data_opts, o, .compact = true, .skip_names = true,
		    .emit_zeroes = true);
	uint8_t tmp[16] = {0};
	const void *p = w->base + off;
	uint32_t sz = t->size;

	/* libbpf copies the value into a C enum or floating type of that size */
	if (btf_is_float(t) ? !(sz == 2 || sz == 4 || sz == 8 || sz == 12 || sz == 16)
			    : !(sz == 1 || sz == 2 || sz == 4 || sz == 8)) {
		fputs("?", w->f);
		return;
	}

	if (bit_sz) {   /* an enum bitfield: its value in a whole enum's bytes */
		uint64_t v;

		if (t->size > 8 || !load_bits(w, off, bit_off, bit_sz, &v))
			return cut(w);
		memcpy(tmp, &v, t->size);
		p = tmp;
	} else if (!have(w, off, t->size)) {
		return cut(w);
	}
	if (!w->c->dump || !w->c->dump_out) {
		fputs("?", w->f);
		return;
	}
	*w->c->dump_out = w->f;
	if (btf_dump__dump_type_data(w->c->dump, id, p, t->size, &o) < 0)
		fputs("?", w->f);
	*w->c->dump_out = NULL;
}

static void walk_ptr(struct walk *w, size_t off)
{
	uint64_t v;

	if (!have(w, off, 8))
		return cut(w);
	v = load_le(w->base + off, 8);
	if (v)
		fprintf(w->f, "0x%" PRIx64, v);
	else
		fputs("NULL", w->f);
}

static bool is_char_type(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, av_skip_mods(btf, id));

	return t && btf_is_int(t) && t->size == 1 &&
	       ((btf_int_encoding(t) & BTF_INT_CHAR) || strstr(btf__name_by_offset(btf, t->name_off) ?: "", "char"));
}

static void walk_array(struct walk *w, const struct btf_type *t, size_t off)
{
	const struct btf_array *a = btf_array(t);
	int64_t esz = btf__resolve_size(w->c->btf, a->type);

	if (is_char_type(w->c->btf, a->type)) {
		size_t avail = off < w->len ? w->len - off : 0, n = a->nelems < avail ? a->nelems : avail;
		const char *s = (const char *)w->base + off;
		size_t l = strnlen(s, n);

		av_quoted(w->f, s, l, w->c->ascii);
		if (l == n && n < a->nelems)
			cut(w);
		return;
	}
	fputc('[', w->f);
	for (uint32_t i = 0; esz > 0 && i < a->nelems && !w->cut; i++) {
		if (i)
			fputc(',', w->f);
		if (!have(w, off + (size_t)i * (size_t)esz, 1)) {
			cut(w);
			break;
		}
		walk_type(w, a->type, off + (size_t)i * (size_t)esz, 0, 0);
	}
	fputc(']', w->f);
}

/* member bytes all zero (bitfields: its bits); cut members are not zero */
static bool member_zero(const struct walk *w, uint32_t mtype, size_t off, uint32_t bit_off,
			uint32_t bit_sz)
{
	int64_t sz;
	uint64_t v;

	if (bit_sz)
		return load_bits(w, off, bit_off, bit_sz, &v) && v == 0;
	sz = btf__resolve_size(w->c->btf, mtype);
	if (sz < 0 || !have(w, off, (size_t)sz))
		return false;
	for (int64_t i = 0; i < sz; i++)
		if (w->base[off + (size_t)i])
			return false;
	return true;
}

static void newline(struct walk *w, int depth)
{
	fputc('\n', w->f);
	for (int i = 0; i < depth; i++)
		fputs("    ", w->f);
}

static void walk_struct(struct walk *w, const struct btf_type *t, size_t off)
{
	const struct btf_member *m = btf_members(t);
	bool first = true;

	fputc('{', w->f);
	for (int i = 0; i < btf_vlen(t) && !w->cut; i++, m++) {
		uint32_t boff = btf_member_bit_offset(t, i), bsz = btf_member_bitfield_size(t, i);
		size_t moff = off + boff / 8;
		const char *name = btf__name_by_offset(w->c->btf, m->name_off);

		if (member_zero(w, m->type, moff, boff % 8, bsz))
			continue;
		if (!first)
			fputc(',', w->f);
		first = false;
		if (w->c->verbose)
			newline(w, w->depth + 1);
		if (!have(w, moff, 1)) {
			cut(w);
			break;
		}
		if (name && *name)
			fprintf(w->f, w->c->verbose ? ".%s = " : ".%s=", name);
		w->depth++;
		walk_type(w, m->type, moff, boff % 8, bsz);
		w->depth--;
	}
	if (w->c->verbose && !first)
		newline(w, w->depth);
	fputc('}', w->f);
}

static void walk_type(struct walk *w, uint32_t id, size_t off, uint32_t bit_off, uint32_t bit_sz)
{
	const struct btf_type *t;

	id = av_skip_mods(w->c->btf, id);
	t = id ? btf__type_by_id(w->c->btf, id) : NULL;
	if (w->depth > MAX_DEPTH || ++w->nodes > MAX_NODES)
		return cut(w);
	if (!t) {
		fputs("?", w->f);
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		return walk_int(w, t, off, bit_off, bit_sz);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FLOAT:
		return walk_libbpf(w, t, id, off, bit_off, bit_sz);
	case BTF_KIND_PTR:
		return walk_ptr(w, off);
	case BTF_KIND_ARRAY:
		return walk_array(w, t, off);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return walk_struct(w, t, off);
	default:
		fputs("?", w->f);
	}
}

bool av_render(const struct av_ctx *c, FILE *f, uint32_t type_id, const void *data, size_t len)
{
	struct walk w = { .c = c, .f = f, .base = data, .len = data ? len : 0 };

	walk_type(&w, type_id, 0, 0, 0);
	return w.cut;
}
