/* args_btf_check.c - checks a recording's BTF blob before anything walks
 * it (args_btf_check.h). The blob is input like any other: libbpf 1.1's
 * btf__new checks its sections but not that a type refers to types that
 * exist or that names lie in the string section, and libbpf's dumper
 * indexes its per-type state by those ids, copies those names without a
 * check and follows declarator chains without a bound. So every reference
 * must name an existing type, every name must be in the string section,
 * and the types must not contain themselves (by value, through modifiers,
 * typedefs, arrays, prototypes, or pointers to unnamed types: C can only
 * refer back to a type by its name). */
#include <bpf/btf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "args_btf_check.h"

/* how many types T refers to */
static size_t nrefs(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		return 1;
	case BTF_KIND_ARRAY:
		return 2;
	case BTF_KIND_FUNC_PROTO:
		return 1u + btf_vlen(t);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_DATASEC:
		return btf_vlen(t);
	default:
		return 0;
	}
}

/* T's K-th reference (K < nrefs(T)) */
static uint32_t ref_at(const struct btf_type *t, size_t k)
{
	switch (btf_kind(t)) {
	case BTF_KIND_ARRAY:
		return k ? btf_array(t)->index_type : btf_array(t)->type;
	case BTF_KIND_FUNC_PROTO:
		return k ? btf_params(t)[k - 1].type : t->type;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return btf_members(t)[k].type;
	case BTF_KIND_DATASEC:
		return btf_var_secinfos(t)[k].type;
	default:
		return t->type;
	}
}

/* a pointer to a named struct, union, enum or forward declaration, or to a
 * typedef (through modifiers): C names it and stops there, which is how
 * `struct s { struct s *next; }` refers to itself */
static bool names_target(const struct btf *btf, uint32_t id)
{
	for (int i = 0; i < 32 && id; i++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		switch (btf_kind(t)) {
		case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			continue;
		case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_FWD: case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			return t->name_off != 0;
		case BTF_KIND_TYPEDEF:
			return true;
		default:
			return false;
		}
	}
	return false;
}

/* the references a walk follows: all of them (members by value, element
 * types, prototypes, modifiers), except a pointer's to a named type */
static bool follows(const struct btf *btf, const struct btf_type *t)
{
	return nrefs(t) > 0 && !(btf_is_ptr(t) && names_target(btf, t->type));
}

enum { WHITE, GREY, BLACK };

struct dfs {
	const struct btf *btf;
	size_t n;                  /* types, void included */
	uint8_t *color;
	uint32_t *stack;
	size_t *next;              /* per stack entry: its next reference */
};

/* depth-first over chain references from ID: false when it meets a loop */
static bool no_loop(struct dfs *d, uint32_t id)
{
	size_t top = 0;

	d->stack[top] = id;
	d->next[top++] = 0;
	d->color[id] = GREY;
	while (top) {
		uint32_t cur = d->stack[top - 1], r;
		const struct btf_type *t = btf__type_by_id(d->btf, cur);
		size_t k = d->next[top - 1]++;

		if (!follows(d->btf, t) || k >= nrefs(t)) {
			d->color[cur] = BLACK;
			top--;
			continue;
		}
		r = ref_at(t, k);
		if (!r || d->color[r] == BLACK)
			continue;
		if (d->color[r] == GREY || top == d->n)
			return false;
		d->color[r] = GREY;
		d->stack[top] = r;
		d->next[top++] = 0;
	}
	return true;
}

/* the names of T and of its members, parameters or enumerators are in
 * the string section (libbpf's dumper copies them without looking) */
static bool names_ok(const struct btf *btf, const struct btf_type *t)
{
	uint16_t vlen = btf_vlen(t);

	if (!btf__name_by_offset(btf, t->name_off))
		return false;
	for (uint16_t i = 0; i < vlen; i++) {
		uint32_t off;

		switch (btf_kind(t)) {
		case BTF_KIND_STRUCT: case BTF_KIND_UNION: off = btf_members(t)[i].name_off; break;
		case BTF_KIND_FUNC_PROTO: off = btf_params(t)[i].name_off; break;
		case BTF_KIND_ENUM: off = btf_enum(t)[i].name_off; break;
		case BTF_KIND_ENUM64: off = btf_enum64(t)[i].name_off; break;
		default: return true;
		}
		if (!btf__name_by_offset(btf, off))
			return false;
	}
	return true;
}

static int check_refs(const struct btf *btf, size_t n, char *err, size_t errlen)
{
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!names_ok(btf, t)) {
			snprintf(err, errlen, "type %u has a name outside the string section", id);
			return -1;
		}
		for (size_t k = 0; k < nrefs(t); k++) {
			uint32_t r = ref_at(t, k);

			if (r >= n) {
				snprintf(err, errlen, "type %u refers to type %u, past the last (%zu)", id,
					 r, n - 1);
				return -1;
			}
		}
	}
	return 0;
}

int args_btf_check(const struct btf *btf, char *err, size_t errlen)
{
	struct dfs d = { .btf = btf, .n = btf__type_cnt(btf) };
	int ret = -1;

	if (check_refs(btf, d.n, err, errlen))
		return -1;
	d.color = calloc(d.n, 1);
	d.stack = malloc(d.n * sizeof(*d.stack));
	d.next = malloc(d.n * sizeof(*d.next));
	if (!d.color || !d.stack || !d.next) {
		snprintf(err, errlen, "out of memory checking it");
		goto out;
	}
	for (uint32_t id = 1; id < d.n; id++)
		if (d.color[id] == WHITE && !no_loop(&d, id)) {
			snprintf(err, errlen, "type %u contains itself", id);
			goto out;
		}
	ret = 0;
out:
	free(d.color);
	free(d.stack);
	free(d.next);
	return ret;
}
