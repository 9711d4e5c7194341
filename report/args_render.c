/* args_render.c - loads the recording's BTF ("btf", "func_btf" blobs),
 * turns FUNC_ARGS records and probe values into named, typed, rendered
 * items (values by args_value.c), and prints item lists in the compact,
 * multiline and verbose layouts (see args_render.h). */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "../common/array_grow.h"
#include "../common/errnos.h"
#include "args_btf_check.h"
#include "args_render.h"
#include "args_value.h"

#define GLYPH_ROW   "\u203a"   /* › */

struct args_btf {
	struct btf *btf;
	struct btf_dump *dump;
	FILE *dump_out;            /* where the dumper prints (args_value.c) */
	uint32_t *protos;          /* FUNC_PROTO id per function id (checked) */
	char **tnames;             /* C type names by id, made when first asked */
	size_t nprotos;
	char err[192];
};

/* ------------------------------------------------------------ the BTF */
static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	(void)level;
	(void)fmt;
	(void)args;
	return 0;
}

/* libbpf checks the blob's header and sections (its complaints would be
 * noise next to our one line), args_btf_check.c the references */
static struct btf *load_btf(const void *data, size_t size, char *err, size_t errlen)
{
	libbpf_print_fn_t old = libbpf_set_print(quiet_print);
	struct btf *btf = size && size <= UINT32_MAX ? btf__new(data, (uint32_t)size) : NULL;
	int e = btf ? 0 : errno;
	char why[96];

	libbpf_set_print(old);
	if (!btf) {
		snprintf(err, errlen, "the recording's BTF blob is unusable (%zu bytes: %s)", size,
			 e ? strerror(e) : "empty");
	} else if (args_btf_check(btf, why, sizeof(why))) {
		snprintf(err, errlen, "the recording's BTF blob is unusable (%s)", why);
		btf__free(btf);
		btf = NULL;
	}
	return btf;
}

static void load_protos(struct args_btf *ab, const void *func_btf, size_t size)
{
	size_t n = size / 4;

	ab->protos = n ? calloc(n, sizeof(*ab->protos)) : NULL;
	if (!ab->protos)
		return;
	ab->nprotos = n;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = (const uint8_t *)func_btf + 4 * i;
		uint32_t id = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		const struct btf_type *t = id ? btf__type_by_id(ab->btf, id) : NULL;

		/* an id that is not a FUNC_PROTO renders raw, never wrongly */
		ab->protos[i] = t && btf_is_func_proto(t) ? id : 0;
	}
}

struct args_btf *args_btf_new(const void *btf, size_t btf_size, const void *func_btf,
			      size_t func_btf_size)
{
	struct args_btf *ab = calloc(1, sizeof(*ab));

	if (!ab)
		return NULL;
	if (!btf || !btf_size) {
		snprintf(ab->err, sizeof(ab->err), "the recording has no BTF blob");
		return ab;
	}
	ab->btf = load_btf(btf, btf_size, ab->err, sizeof(ab->err));
	if (!ab->btf)
		return ab;
	btf__set_pointer_size(ab->btf, 8);   /* x86-64 recordings; the blob may lack "long" */
	ab->dump = av_dump_new(ab->btf, &ab->dump_out);
	if (func_btf)
		load_protos(ab, func_btf, func_btf_size);
	return ab;
}

void args_btf_free(struct args_btf *ab)
{
	if (!ab)
		return;
	for (uint32_t i = 0; ab->tnames && i < btf__type_cnt(ab->btf); i++)
		free(ab->tnames[i]);
	free(ab->tnames);
	btf_dump__free(ab->dump);
	btf__free(ab->btf);
	free(ab->protos);
	free(ab);
}

const char *args_btf_error(const struct args_btf *ab)
{
	return !ab ? "no BTF" : ab->btf ? NULL : ab->err;
}

uint32_t args_btf_proto(const struct args_btf *ab, uint32_t func_id)
{
	return ab && ab->btf && func_id < ab->nprotos ? ab->protos[func_id] : 0;
}

const void *args_btf_btf(const struct args_btf *ab)
{
	return ab ? ab->btf : NULL;
}

/* ------------------------------------------------------------- items */
/* S (malloc'd) cut to WIDTH columns (UTF-8 code points), the last one a
 * `…` (with ASCII the last three "..."); NULL when out of memory (S freed) */
static char *cut_width(char *s, int width, bool ascii)
{
	const char *mark = av_cut_mark(ascii);
	int mcols = ascii ? 3 : 1;
	int cols = 0;
	char *p, *n;
	size_t keep = 0;

	if (width <= 0)
		return s;
	for (p = s; *p; p++) {
		if (((unsigned char)*p & 0xc0) == 0x80)
			continue;
		if (cols == width - mcols)
			keep = (size_t)(p - s);
		if (++cols > width)
			break;
	}
	if (!*p)
		return s;
	n = realloc(s, keep + strlen(mark) + 1);
	if (!n) {
		free(s);
		return NULL;
	}
	strcpy(n + keep, mark);
	return n;
}

static char *state_text(enum args_state st, int err)
{
	char buf[64];
	const char *n;

	switch (st) {
	case ARGS_NULL: return strdup("NULL");
	case ARGS_UNAVAIL: return strdup("(unavailable: on the stack, fentry)");
	case ARGS_CUT: return strdup("(trunc)");
	case ARGS_ERR:
		n = errno_name(-err);
		if (n)
			snprintf(buf, sizeof(buf), "<ERR:-%s>", n);
		else
			snprintf(buf, sizeof(buf), "<ERR:%d>", err);
		return strdup(buf);
	default:
		return strdup("");
	}
}

static struct args_item *new_item(struct args_list *l, const char *name, const char *type)
{
	struct args_item *it;

	if (array_grow((void **)&l->items, l->n, &l->cap, sizeof(*l->items), 8))
		return NULL;
	it = &l->items[l->n];
	memset(it, 0, sizeof(*it));
	it->name = strdup(name ? name : "?");
	it->type = type ? strdup(type) : NULL;
	if (!it->name || (type && !it->type)) {
		free(it->name);
		free(it->type);
		return NULL;
	}
	l->n++;
	return it;
}

int args_list_add_text(struct args_list *l, const char *name, const char *type,
		       const char *value, enum args_state state, int err)
{
	struct args_item *it = new_item(l, name, type);

	if (!it)
		return -1;
	it->state = state;
	it->err = err;
	it->value = state == ARGS_OK ? strdup(value ? value : "") : state_text(state, err);
	if (!it->value) {
		l->n--;
		free(it->name);
		free(it->type);
		return -1;
	}
	return 0;
}

void args_list_free(struct args_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].name);
		free(l->items[i].type);
		free(l->items[i].value);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

/* a memory stream for one value; its text is finished by end_value */
struct vbuf {
	FILE *f;
	char *s;
	size_t n;
};

static int begin_value(struct vbuf *b)
{
	b->s = NULL;
	b->f = open_memstream(&b->s, &b->n);
	return b->f ? 0 : -1;
}

/* the text (malloc'd) cut to the width, or NULL when out of memory */
static char *end_value(struct vbuf *b, const struct args_fmt *fmt)
{
	if (fclose(b->f)) {
		free(b->s);
		return NULL;
	}
	return fmt->mode == ARGS_FMT_VERBOSE ? b->s : cut_width(b->s, fmt->max_width, fmt->ascii);
}

static struct av_ctx av_ctx_of(const struct args_btf *ab, const struct args_fmt *fmt)
{
	return (struct av_ctx){
		.btf = ab ? ab->btf : NULL,
		.dump = ab ? ab->dump : NULL,
		.dump_out = ab ? (FILE **)&ab->dump_out : NULL,
		.verbose = fmt->mode == ARGS_FMT_VERBOSE,
		.ascii = fmt->ascii,
	};
}

char *args_render_value(const struct args_btf *ab, uint32_t type_id, const void *data,
			size_t len, bool trunc, const struct args_fmt *fmt)
{
	struct av_ctx c = av_ctx_of(ab, fmt);
	struct vbuf b;

	if (begin_value(&b))
		return NULL;
	if (!c.btf)
		fputs("?", b.f);
	else if (!av_render(&c, b.f, type_id, data, len) && trunc)
		fputs(av_cut_mark(fmt->ascii), b.f);
	return end_value(&b, fmt);
}

/* does the declaration of ID spell out an anonymous struct, union or
 * enum? libbpf then prints its whole body, walking members whose layout
 * a damaged blob may make it divide by zero over; such names are written
 * here instead, as `struct {...} *` */
static bool anon_decl(const struct btf *btf, uint32_t id, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	if (!t || !id || depth > 16)
		return depth > 16;
	switch (btf_kind(t)) {
	case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return anon_decl(btf, t->type, depth + 1);
	case BTF_KIND_ARRAY:
		return anon_decl(btf, btf_array(t)->type, depth + 1);
	case BTF_KIND_FUNC_PROTO:
		for (uint16_t i = 0; i < btf_vlen(t); i++)
			if (anon_decl(btf, btf_params(t)[i].type, depth + 1))
				return true;
		return anon_decl(btf, t->type, depth + 1);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		return !t->name_off;
	default:
		return false;
	}
}

/* `const struct {...} *`: pointers and modifiers down to an anonymous
 * struct, union or enum; "?" for anything more involved */
static void anon_name(FILE *f, const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int ptrs = 0;
	bool cnst = false;

	for (int i = 0; t && i < 16 && (btf_is_ptr(t) || btf_is_mod(t)); i++) {
		cnst |= btf_is_const(t);
		ptrs += btf_is_ptr(t);
		t = btf__type_by_id(btf, t->type);
	}
	if (!t || !(btf_is_composite(t) || btf_is_any_enum(t))) {
		fputs("?", f);
		return;
	}
	fprintf(f, "%s%s {...}%s", cnst ? "const " : "",
		btf_is_union(t) ? "union" : btf_is_composite(t) ? "struct" : "enum", ptrs ? " " : "");
	while (ptrs--)
		fputc('*', f);
}

/* TYPE_ID's C name from libbpf's declaration printer, made once per id */
static const char *type_name(struct args_btf *ab, uint32_t type_id)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = "");
	struct vbuf b;

	if (!ab || !ab->dump || !btf__type_by_id(ab->btf, type_id))
		return NULL;
	if (!ab->tnames && !(ab->tnames = calloc(btf__type_cnt(ab->btf), sizeof(*ab->tnames))))
		return NULL;
	if (ab->tnames[type_id] || begin_value(&b))
		return ab->tnames[type_id];
	ab->dump_out = b.f;
	if (anon_decl(ab->btf, type_id, 0))
		anon_name(b.f, ab->btf, type_id);
	else if (btf_dump__emit_type_decl(ab->dump, type_id, &o) < 0)
		fputs("?", b.f);
	ab->dump_out = NULL;
	if (fclose(b.f)) {
		free(b.s);
		return NULL;
	}
	return ab->tnames[type_id] = b.s;
}

char *args_type_name(const struct args_btf *ab, uint32_t type_id)
{
	/* the cache is the loaded BTF's, not part of what callers see */
	const char *n = type_name((struct args_btf *)ab, type_id);

	return n ? strdup(n) : NULL;
}

/* the item takes VALUE (malloc'd) */
static int add_owned(struct args_list *l, const char *name, char *type, char *value)
{
	struct args_item *it = value ? new_item(l, name, type) : NULL;

	free(type);
	if (!it) {
		free(value);
		return -1;
	}
	it->value = value;
	return 0;
}

int args_list_add_typed(struct args_list *l, const struct args_btf *ab, const char *name,
			uint32_t type_id, const void *data, size_t len, bool trunc,
			const struct args_fmt *fmt)
{
	char *v = args_render_value(ab, type_id, data, len, trunc, fmt);

	if (add_owned(l, name, args_type_name(ab, type_id), v))
		return -1;
	l->items[l->n - 1].trunc = trunc;
	return 0;
}

/* ------------------------------------------------------------- printing */
void args_print_compact(FILE *f, const struct args_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		fprintf(f, "%s%s=%s", i ? " " : "", l->items[i].name, l->items[i].value);
}

void args_print_rows(FILE *f, const struct args_list *l, int indent)
{
	for (size_t i = 0; i < l->n; i++) {
		const char *v = l->items[i].value, *nl;

		fprintf(f, "%*s" GLYPH_ROW " %s = ", indent, "", l->items[i].name);
		/* a verbose value's further lines keep their indentation, under
		 * the name */
		while ((nl = strchr(v, '\n'))) {
			fprintf(f, "%.*s\n%*s", (int)(nl - v), v, indent + 2, "");
			v = nl + 1;
		}
		fprintf(f, "%s\n", v);
	}
}

/* ------------------------------------------------------ FUNC_ARGS records */
/* one argument's name and type: named parameters from the prototype,
 * then varargN slots, argN for raw registers or unnamed parameters */
struct arg_slot {
	char name[64];
	uint32_t type;               /* parameter's BTF type, 0 when none */
};

static void slot_of(const struct btf *btf, const struct btf_type *proto, int nparams, int i,
		    const struct rs_arg_desc *d, int *nvar, struct arg_slot *s)
{
	const char *n = NULL;

	s->type = 0;
	if (d->kind == RS_ARG_VARARG) {
		snprintf(s->name, sizeof(s->name), "vararg%d", (*nvar)++);
		return;
	}
	if (proto && i < nparams) {
		s->type = btf_params(proto)[i].type;
		n = btf__name_by_offset(btf, btf_params(proto)[i].name_off);
	}
	if (n && *n)
		snprintf(s->name, sizeof(s->name), "%s", n);
	else
		snprintf(s->name, sizeof(s->name), "arg%d", i);
}

/* the pointed-to type of a pointer parameter, 0 when it is not one */
static uint32_t pointee(const struct btf *btf, uint32_t type)
{
	const struct btf_type *t = btf__type_by_id(btf, av_skip_mods(btf, type));

	return t && btf_is_ptr(t) ? t->type : 0;
}

/* bytes without a usable type: up to 8 as an integer, more in hex */
static void raw_bytes(FILE *f, const uint8_t *p, size_t len, bool hex)
{
	uint64_t v = 0;

	if (len > 8) {
		fputs("0x", f);
		for (size_t i = len; i-- > 0;)
			fprintf(f, "%02x", p[i]);
		return;
	}
	for (size_t i = 0; i < len; i++)
		v |= (uint64_t)p[i] << (8 * i);
	if (hex)
		fprintf(f, "0x%llx", (unsigned long long)v);
	else
		av_smart_int(f, v, false);
}

/* the value of one captured argument written to F */
static void arg_value(FILE *f, const struct av_ctx *c, const struct rs_arg_desc *d,
		      const uint8_t *p, uint32_t type)
{
	bool cut = false;
	uint32_t pt;

	switch (d->kind) {
	case RS_ARG_STR:
		av_quoted(f, (const char *)p, strnlen((const char *)p, d->len), c->ascii);
		break;
	case RS_ARG_VARARG:
		if ((d->flags & RS_ARGF_STRISH) && d->len > 8)
			av_quoted(f, (const char *)p + 8, strnlen((const char *)p + 8, d->len - 8u),
				  c->ascii);
		else
			raw_bytes(f, p, d->len < 8 ? d->len : 8, false);
		break;
	case RS_ARG_PTR_DATA:
		pt = c->btf ? pointee(c->btf, type) : 0;
		fputc('&', f);
		if (pt)
			cut = av_render(c, f, pt, p, d->len);
		else
			raw_bytes(f, p, d->len, true);
		break;
	case RS_ARG_VALUE:
		if (c->btf && type)
			cut = av_render(c, f, type, p, d->len);
		else
			raw_bytes(f, p, d->len, false);
		break;
	default:   /* RS_ARG_PTR, RS_ARG_RAW, unknown kinds: the 8 bytes in hex */
		raw_bytes(f, p, d->len, true);
	}
	if ((d->flags & RS_ARGF_TRUNC) && !cut)
		fputs(av_cut_mark(c->ascii), f);
}

static enum args_state desc_state(const struct rs_arg_desc *d)
{
	if (d->flags & RS_ARGF_ERR)
		return ARGS_ERR;
	if (d->flags & RS_ARGF_UNAVAIL)
		return ARGS_UNAVAIL;
	if (d->flags & RS_ARGF_NULL)
		return ARGS_NULL;
	return ARGS_OK;
}

static int add_arg(struct args_list *l, const struct args_btf *ab, const struct args_fmt *fmt,
		   const struct rs_rec_func_args *rec, const struct rs_arg_desc *d,
		   const struct arg_slot *s)
{
	struct av_ctx c = av_ctx_of(ab, fmt);
	enum args_state st = desc_state(d);
	char *type = s->type ? args_type_name(ab, s->type) : NULL;
	struct vbuf b;
	int ret;

	if (d->kind == RS_ARG_NONE && st == ARGS_OK) {
		st = ARGS_ERR;   /* no bytes and no reason: nothing to show */
	}
	if (st != ARGS_OK) {
		ret = args_list_add_text(l, s->name, type, NULL, st, d->err);
		free(type);
		/* the recorder found no way to capture this type (-EDOM) */
		if (!ret && d->kind == RS_ARG_NONE) {
			free(l->items[l->n - 1].value);
			l->items[l->n - 1].value = strdup("(unsupported type)");
			if (!l->items[l->n - 1].value)
				ret = -1;
		}
	} else {
		if (begin_value(&b)) {
			free(type);
			return -1;
		}
		arg_value(b.f, &c, d, rec->data + d->off, s->type);
		ret = add_owned(l, s->name, type, end_value(&b, fmt));
	}
	if (!ret) {
		l->items[l->n - 1].trunc = d->flags & RS_ARGF_TRUNC;
		l->items[l->n - 1].user = d->flags & RS_ARGF_USER;
	}
	return ret;
}

int args_render_rec(const struct args_btf *ab, const struct rs_rec_func_args *rec,
		    const struct args_fmt *fmt, struct args_list *l)
{
	uint32_t pid = rec->flags & RS_ARGS_NO_BTF ? 0 : args_btf_proto(ab, rec->func_id);
	const struct btf *btf = ab ? ab->btf : NULL;
	const struct btf_type *proto = pid ? btf__type_by_id(btf, pid) : NULL;
	int nparams = proto ? btf_vlen(proto) : 0, nvar = 0, i;
	struct arg_slot s;

	/* a trailing parameter of type void without a name is the `...` */
	if (nparams && !btf_params(proto)[nparams - 1].type)
		nparams--;
	for (i = 0; i < rec->nargs && i < RS_MAX_FUNC_ARGS; i++) {
		slot_of(btf, proto, nparams, i, &rec->args[i], &nvar, &s);
		if (add_arg(l, ab, fmt, rec, &rec->args[i], &s))
			return -1;
	}
	/* parameters the per-call budget left out */
	for (; (rec->flags & RS_ARGS_BUDGET) && i < nparams; i++) {
		struct rs_arg_desc none = { .kind = RS_ARG_NONE };
		char *type;
		int ret;

		slot_of(btf, proto, nparams, i, &none, &nvar, &s);
		type = args_type_name(ab, s.type);
		ret = args_list_add_text(l, s.name, type, NULL, ARGS_CUT, 0);
		free(type);
		if (ret)
			return -1;
	}
	return 0;
}
