/* args_spec.c - classifies a function's BTF parameters into the BPF
 * capture plan (args_spec.h). */
#include "record/args_spec.h"
#include <bpf/btf.h>
#include <errno.h>
#include <string.h>

/* T with typedefs and const/volatile/restrict/type tags skipped; *is_const
 * tells whether a const was among them */
static const struct btf_type *skip_mods(const struct btf *btf, uint32_t id, bool *is_const)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
		if (btf_is_const(t) && is_const)
			*is_const = true;
		t = btf__type_by_id(btf, t->type);
	}
	return t;
}

static bool is_char(const struct btf_type *t)
{
	return t && btf_is_int(t) && t->size == 1 &&
	       (btf_int_encoding(t) & BTF_INT_CHAR || btf_int_bits(t) == 8) &&
	       !(btf_int_encoding(t) & BTF_INT_BOOL);
}

/* a char of any signedness named "char" (not u8/unsigned char buffers) */
static bool is_plain_char(const struct btf *btf, const struct btf_type *t)
{
	return is_char(t) && !strcmp(btf__name_by_offset(btf, t->name_off), "char");
}

/* kind and captured size of a pointer parameter (T points to PTR_ID) */
static void classify_ptr(const struct btf *btf, uint32_t ptr_id, bool raw_ptrs,
			 struct rs_args_spec_arg *a, bool *const_char)
{
	bool is_const = false;
	const struct btf_type *p = skip_mods(btf, ptr_id, &is_const);
	__s64 sz;

	a->kind = RS_ARG_PTR;
	a->size = 8;
	if (p && is_plain_char(btf, p))
		*const_char = is_const;   /* a format string even as a raw pointer */
	if (!p || raw_ptrs)
		return;
	if (is_plain_char(btf, p)) {
		a->kind = RS_ARG_STR;
		a->size = 0;
		return;
	}
	if (!btf_is_int(p) && !btf_is_enum(p) && !btf_is_enum64(p) && !btf_is_composite(p) &&
	    !btf_is_float(p) && !btf_is_array(p))
		return;
	sz = btf__resolve_size(btf, ptr_id);
	if (sz <= 0)
		return;
	a->kind = RS_ARG_PTR_DATA;
	a->size = sz > 0xffff ? 0xffff : (uint16_t)sz;
}

/* places a value of NSLOTS 8-byte slots (by SysV rules) */
static void place(struct rs_args_spec *spec, struct rs_args_spec_arg *a, uint32_t size)
{
	uint32_t n = (size + 7) / 8;

	if (!n)
		n = 1;
	if (size <= 16 && spec->nregs + n <= RS_ARG_REG_SLOTS) {
		a->slot = spec->nregs;
		spec->nregs += n;
	} else {
		uint32_t s = RS_ARG_REG_SLOTS + spec->nstack;

		a->slot = s > 255 ? 255 : (uint8_t)s;
		spec->nstack = spec->nstack + n > 255 ? 255 : (uint8_t)(spec->nstack + n);
	}
	a->nslots = n > 255 ? 255 : (uint8_t)n;
}

static void raw_regs(struct rs_args_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->flags = RS_ARGS_SPEC_NO_BTF;
	spec->nargs = RS_ARG_REG_SLOTS;
	spec->nregs = RS_ARG_REG_SLOTS;
	for (int i = 0; i < RS_ARG_REG_SLOTS; i++) {
		spec->args[i].kind = RS_ARG_RAW;
		spec->args[i].slot = (uint8_t)i;
		spec->args[i].nslots = 1;
		spec->args[i].size = 8;
	}
}

/* one named parameter of type ID */
static void classify(const struct btf *btf, uint32_t id, bool raw_ptrs,
		     struct rs_args_spec *spec, struct rs_args_spec_arg *a, bool *const_char)
{
	const struct btf_type *t = skip_mods(btf, id, NULL);
	__s64 sz = btf__resolve_size(btf, id);

	*const_char = false;
	if (t && btf_is_ptr(t)) {
		classify_ptr(btf, t->type, raw_ptrs, a, const_char);
		place(spec, a, 8);
		return;
	}
	if (t && sz >= 0 && (btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t) ||
			     btf_is_composite(t) || btf_is_float(t))) {
		a->kind = RS_ARG_VALUE;
		a->size = sz > 0xffff ? 0xffff : (uint16_t)sz;
		place(spec, a, (uint32_t)sz);
		return;
	}
	/* no size or an unknown kind: the slot is used, nothing captured */
	a->kind = RS_ARG_NONE;
	place(spec, a, 8);
}

int args_spec_build(const struct btf *btf, uint32_t proto_id, bool raw_ptrs,
		    struct rs_args_spec *spec)
{
	const struct btf_type *t = btf && proto_id ? btf__type_by_id(btf, proto_id) : NULL;
	const struct btf_param *p;
	int n;
	bool const_char = false;

	if (!t || !btf_is_func_proto(t)) {
		raw_regs(spec);
		return t || (btf && proto_id) ? -EINVAL : 0;
	}
	memset(spec, 0, sizeof(*spec));
	p = btf_params(t);
	n = btf_vlen(t);
	for (int i = 0; i < n; i++) {
		if (!p[i].type) {   /* `...` (always last) */
			if (i > 0 && const_char)
				spec->flags |= RS_ARGS_SPEC_VARARGS;
			break;
		}
		if (spec->nargs == RS_MAX_FUNC_ARGS)
			break;
		classify(btf, p[i].type, raw_ptrs, spec, &spec->args[spec->nargs++], &const_char);
	}
	return 0;
}
