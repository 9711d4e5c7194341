/* btf_subset.c - copies types and everything they reach from source BTFs
 * into one self-contained BTF (btf_subset.h). A copied type is queued
 * with its new id assigned in queue order; the queue is then emitted in
 * that order with btf__add_*, each reference resolved (and its target
 * queued) as it is written, so forward references and cycles need no
 * second pass. */
#include "record/btf_subset.h"
#include "common/array_grow.h"
#include <bpf/btf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* where a type is reached from (BTF_SUBSET_SHALLOW only; else ROOT):
 * ROOT outside any struct, AGG inside a struct/union, OPAQUE behind a
 * pointer inside a struct/union (named structs and unions become FWD,
 * anonymous ones are copied with their members OPAQUE too) */
enum reach { ROOT, AGG, OPAQUE, NREACH };

struct source {
	const struct btf *btf;
	uint32_t n;               /* btf__type_cnt */
	uint32_t *map[NREACH];    /* source id -> subset id (0: not copied) */
};

struct pending {
	uint32_t src;             /* index into sources */
	uint32_t id;
	uint8_t reach;
};

struct btf_subset {
	struct btf *btf;
	unsigned flags;
	struct source *srcs;
	size_t nsrcs, csrcs;
	struct pending *q;        /* queued, not yet emitted: q[qhead, qn) */
	size_t qhead, qn, qcap;
	uint32_t next_id;         /* id the next queued type gets */
	int err;                  /* sticky: a failed add leaves ids out of step */
};

struct btf_subset *btf_subset_new(unsigned flags)
{
	struct btf_subset *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->btf = btf__new_empty();
	if (!s->btf) {
		free(s);
		return NULL;
	}
	s->flags = flags;
	s->next_id = 1;
	return s;
}

void btf_subset_free(struct btf_subset *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nsrcs; i++)
		for (int r = 0; r < NREACH; r++)
			free(s->srcs[i].map[r]);
	free(s->srcs);
	free(s->q);
	btf__free(s->btf);
	free(s);
}

/* the BTF that defines ID: a split BTF's base for the base's ids */
static const struct btf *owner_of(const struct btf *b, uint32_t id)
{
	const struct btf *base;

	while ((base = btf__base_btf(b)) && id < btf__type_cnt(base))
		b = base;
	return b;
}

static int source_index(struct btf_subset *s, const struct btf *b)
{
	struct source *src;

	for (size_t i = 0; i < s->nsrcs; i++)
		if (s->srcs[i].btf == b)
			return (int)i;
	if (array_grow((void **)&s->srcs, s->nsrcs, &s->csrcs, sizeof(*s->srcs), 4))
		return -ENOMEM;
	src = &s->srcs[s->nsrcs];
	memset(src, 0, sizeof(*src));
	src->btf = b;
	src->n = btf__type_cnt(b);
	for (int r = 0; r < NREACH; r++) {
		src->map[r] = calloc(src->n, sizeof(uint32_t));
		if (!src->map[r]) {
			for (int j = 0; j < r; j++)
				free(src->map[j]);
			return -ENOMEM;
		}
	}
	return (int)s->nsrcs++;
}

/* the subset id of (B, ID) reached as REACH: an existing copy made for
 * the same or a richer reach, else a new one queued */
static int resolve(struct btf_subset *s, const struct btf *b, uint32_t id, enum reach reach)
{
	struct source *src;
	int si;

	if (id == 0)
		return 0;
	b = owner_of(b, id);
	if (id >= btf__type_cnt(b))
		return -EINVAL;
	si = source_index(s, b);
	if (si < 0)
		return si;
	src = &s->srcs[si];
	for (int r = ROOT; r <= (int)reach; r++)
		if (src->map[r][id])
			return (int)src->map[r][id];
	if (array_grow((void **)&s->q, s->qn, &s->qcap, sizeof(*s->q), 64))
		return -ENOMEM;
	s->q[s->qn++] = (struct pending){ .src = (uint32_t)si, .id = id, .reach = (uint8_t)reach };
	src->map[reach][id] = s->next_id;
	return (int)s->next_id++;
}

/* the reach of what a type of kind KIND reached as R refers to */
static enum reach child_reach(const struct btf_subset *s, int kind, enum reach r)
{
	if (!(s->flags & BTF_SUBSET_SHALLOW))
		return ROOT;
	if ((kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION) && r == ROOT)
		return AGG;
	if (kind == BTF_KIND_PTR && r == AGG)
		return OPAQUE;
	return r;
}

static int emit_members(struct btf_subset *s, const struct btf *b, const struct btf_type *t,
			enum reach cr)
{
	const struct btf_member *m = btf_members(t);
	bool kflag = btf_kflag(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		int id = resolve(s, b, m->type, cr);
		uint32_t bit_off = kflag ? BTF_MEMBER_BIT_OFFSET(m->offset) : m->offset;
		uint32_t bit_sz = kflag ? BTF_MEMBER_BITFIELD_SIZE(m->offset) : 0;
		int err;

		if (id < 0)
			return id;
		err = btf__add_field(s->btf, btf__name_by_offset(b, m->name_off), id, bit_off, bit_sz);
		if (err)
			return err;
	}
	return 0;
}

static int emit_enum(struct btf_subset *s, const struct btf *b, const struct btf_type *t)
{
	const char *name = btf__name_by_offset(b, t->name_off);
	int id, err = 0;

	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		id = btf__add_enum(s->btf, name, t->size);
		for (int i = 0; id > 0 && !err && i < btf_vlen(t); i++, e++)
			err = btf__add_enum_value(s->btf, btf__name_by_offset(b, e->name_off),
						  btf_kflag(t) ? (int64_t)e->val : (int64_t)(uint32_t)e->val);
	} else {
		const struct btf_enum64 *e = btf_enum64(t);

		id = btf__add_enum64(s->btf, name, t->size, btf_kflag(t));
		for (int i = 0; id > 0 && !err && i < btf_vlen(t); i++, e++)
			err = btf__add_enum64_value(s->btf, btf__name_by_offset(b, e->name_off),
						    btf_enum64_value(e));
	}
	return id < 0 ? id : err ? err : id;
}

static int emit_proto(struct btf_subset *s, const struct btf *b, const struct btf_type *t,
		      enum reach cr)
{
	const struct btf_param *p = btf_params(t);
	int ret = resolve(s, b, t->type, cr), id;

	if (ret < 0)
		return ret;
	id = btf__add_func_proto(s->btf, ret);
	for (int i = 0; id > 0 && i < btf_vlen(t); i++, p++) {
		int pt = resolve(s, b, p->type, cr), err;

		if (pt < 0)
			return pt;
		err = btf__add_func_param(s->btf, btf__name_by_offset(b, p->name_off), pt);
		if (err)
			return err;
	}
	return id;
}

/* a kind that refers to one type through t->type */
static int emit_ref(struct btf_subset *s, const struct btf *b, const struct btf_type *t,
		    enum reach cr)
{
	const char *name = btf__name_by_offset(b, t->name_off);
	int ref = resolve(s, b, t->type, cr);

	if (ref < 0)
		return ref;
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:      return btf__add_ptr(s->btf, ref);
	case BTF_KIND_TYPEDEF:  return btf__add_typedef(s->btf, name, ref);
	case BTF_KIND_VOLATILE: return btf__add_volatile(s->btf, ref);
	case BTF_KIND_CONST:    return btf__add_const(s->btf, ref);
	case BTF_KIND_RESTRICT: return btf__add_restrict(s->btf, ref);
	case BTF_KIND_TYPE_TAG: return btf__add_type_tag(s->btf, name, ref);
	case BTF_KIND_FUNC:     return btf__add_func(s->btf, name, btf_vlen(t), ref);
	case BTF_KIND_VAR:      return btf__add_var(s->btf, name, btf_var(t)->linkage, ref);
	case BTF_KIND_DECL_TAG:
		return btf__add_decl_tag(s->btf, name, ref, btf_decl_tag(t)->component_idx);
	}
	return -EINVAL;
}

/* type and decl tags with kflag set are attributes (__attribute__((...)),
 * newer kernels): libbpf 1.1's btf__add_* cannot say so, so the flag is
 * set on the copy just written (the subset's own, writable BTF) */
static int copy_tag_kflag(struct btf_subset *s, const struct btf_type *t, int id)
{
	if (id > 0 && btf_kflag(t) && (btf_is_type_tag(t) || btf_is_decl_tag(t)))
		((struct btf_type *)btf__type_by_id(s->btf, id))->info |= 1u << 31;
	return id;
}

/* writes one queued type; returns its new id or -errno */
static int emit(struct btf_subset *s, const struct pending *p)
{
	const struct btf *b = s->srcs[p->src].btf;
	const struct btf_type *t = btf__type_by_id(b, p->id);
	const char *name = btf__name_by_offset(b, t->name_off);
	int kind = btf_kind(t), id, err;
	enum reach cr = child_reach(s, kind, p->reach);

	switch (kind) {
	case BTF_KIND_INT:
		return btf__add_int(s->btf, name, t->size, btf_int_encoding(t));
	case BTF_KIND_FLOAT:
		return btf__add_float(s->btf, name, t->size);
	case BTF_KIND_FWD:
		return btf__add_fwd(s->btf, name, btf_kflag(t) ? BTF_FWD_UNION : BTF_FWD_STRUCT);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return emit_enum(s, b, t);
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		int et = resolve(s, b, a->type, cr), it = resolve(s, b, a->index_type, cr);

		if (et < 0 || it < 0)
			return et < 0 ? et : it;
		return btf__add_array(s->btf, it, et, a->nelems);
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (p->reach == OPAQUE && *name)   /* (a FWD needs a name) */
			return btf__add_fwd(s->btf, name,
					    kind == BTF_KIND_UNION ? BTF_FWD_UNION : BTF_FWD_STRUCT);
		id = kind == BTF_KIND_UNION ? btf__add_union(s->btf, name, t->size)
					    : btf__add_struct(s->btf, name, t->size);
		if (id < 0)
			return id;
		err = emit_members(s, b, t, cr);
		return err ? err : id;
	case BTF_KIND_FUNC_PROTO:
		return emit_proto(s, b, t, cr);
	case BTF_KIND_DATASEC:
		return -EINVAL;
	}
	return copy_tag_kflag(s, t, emit_ref(s, b, t, cr));
}

int btf_subset_add(struct btf_subset *s, const struct btf *src, uint32_t id)
{
	int ret;

	if (s->err)
		return s->err;
	if (id >= btf__type_cnt(src))
		return -EINVAL;
	ret = resolve(s, src, id, ROOT);
	while (ret > 0 && s->qhead < s->qn) {
		struct pending p = s->q[s->qhead++];
		int got = emit(s, &p);

		/* the queue order is the id order */
		if (got >= 0 && (uint32_t)got != btf__type_cnt(s->btf) - 1)
			got = -EINVAL;
		if (got < 0)
			ret = got;
	}
	if (ret < 0)
		s->err = ret;
	return ret;
}

const struct btf *btf_subset_btf(const struct btf_subset *s)
{
	return s->btf;
}

uint32_t btf_subset_types(const struct btf_subset *s)
{
	return btf__type_cnt(s->btf) - 1;
}

const void *btf_subset_raw(struct btf_subset *s, uint32_t *size)
{
	return btf__raw_data(s->btf, size);
}
