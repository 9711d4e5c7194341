/* func_flags.c - derives rs_func_flags from BTF return types (func_flags.h);
 * BPF helpers (BPF_CALL_x: `u64 f(u64, u64, u64, u64, u64)`) get their
 * real kind from record/helper_kinds.c. */
#include "record/func_flags.h"
#include <string.h>
#include "bpf/retsnoop_abi.h"
#include "record/helper_kinds.h"
#include <bpf/btf.h>

/* typedefs and modifiers stripped; NULL when an id is broken */
static const struct btf_type *resolve(const struct btf *btf, int id)
{
	for (int guard = 0; guard < 32; guard++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t || !(btf_is_typedef(t) || btf_is_mod(t)))
			return t;
		id = t->type;
	}
	return NULL;
}

static bool is_u64(const struct btf *btf, int id)
{
	const struct btf_type *t = id ? resolve(btf, id) : NULL;

	return t && btf_is_int(t) && t->size == 8 && !(btf_int_encoding(t) & BTF_INT_SIGNED);
}

/* BPF_CALL_x pads every helper to five u64 registers and returns u64 */
static bool is_helper_proto(const struct btf *btf, const struct btf_type *proto)
{
	const struct btf_param *p = btf_params(proto);

	if (btf_vlen(proto) != 5 || !is_u64(btf, proto->type))
		return false;
	for (int i = 0; i < 5; i++)
		if (!is_u64(btf, p[i].type))
			return false;
	return true;
}

static uint32_t ret_type_flags(const struct btf *btf, int id)
{
	const struct btf_type *t;

	if (id == 0)
		return RS_FUNC_RET_VOID | RS_FUNC_CANT_FAIL;
	t = resolve(btf, id);
	if (!t)
		return 0;
	if (btf_is_ptr(t))
		return RS_FUNC_RET_PTR;
	if (btf_is_int(t)) {
		uint8_t enc = btf_int_encoding(t);

		if (enc & BTF_INT_BOOL)
			return RS_FUNC_RET_BOOL | RS_FUNC_CANT_FAIL;
		if (!(enc & BTF_INT_SIGNED))
			return RS_FUNC_CANT_FAIL;
		if (t->size < 4)
			return RS_FUNC_CANT_FAIL;
		if (t->size == 4)
			return RS_FUNC_NEEDS_SIGN_EXT;
		return 0;
	}
	if (btf_is_enum(t) || btf_is_enum64(t)) {
		if (t->size < 4)
			return RS_FUNC_CANT_FAIL;
		return t->size == 4 ? RS_FUNC_NEEDS_SIGN_EXT : 0;
	}
	return 0;
}

uint32_t btf_func_flags(const struct btf *btf, int func_id)
{
	const struct btf_type *fn, *t;
	uint32_t flags;

	if (!btf)
		return RS_FUNC_NEEDS_SIGN_EXT;
	fn = btf__type_by_id(btf, func_id);
	if (!fn || !btf_is_func(fn))
		return RS_FUNC_NEEDS_SIGN_EXT;
	t = btf__type_by_id(btf, fn->type);      /* FUNC_PROTO */
	if (!t || !btf_is_func_proto(t))
		return RS_FUNC_NEEDS_SIGN_EXT;
	if (is_helper_proto(btf, t)) {
		/* a helper the table does not list returns a long error */
		if (helper_kind_flags(btf__name_by_offset(btf, fn->name_off), &flags))
			return flags;
		return 0;
	}
	return ret_type_flags(btf, t->type);
}

/* a pointer's target the verifier types (a struct, a union) or takes as a
 * number (void, an integer) */
static bool ptr_target_ok(const struct btf *btf, int id)
{
	const struct btf_type *t = id ? resolve(btf, id) : NULL;

	return !id || (t && (btf_is_int(t) || btf_is_struct(t) || btf_is_union(t)));
}

/* the argument registers of function FUNC_ID's prototype (*proto) where
 * each argument takes at most max_sz bytes (8: one register, 16: up to
 * two), else -1: a variadic one, no function, no BTF */
static int arg_regs(const struct btf *btf, int func_id, long max_sz, const struct btf_type **proto)
{
	const struct btf_type *fn = btf ? btf__type_by_id(btf, func_id) : NULL;
	const struct btf_param *p;
	int regs = 0;

	if (!fn || !btf_is_func(fn) || !(*proto = btf__type_by_id(btf, fn->type)) ||
	    !btf_is_func_proto(*proto))
		return -1;
	p = btf_params(*proto);
	for (int i = 0; i < btf_vlen(*proto); i++) {
		long sz = p[i].type ? btf__resolve_size(btf, p[i].type) : -1;   /* 0: variadic */

		if (sz <= 0 || sz > max_sz)
			return -1;
		regs += (int)((sz + 7) / 8);
	}
	return regs;
}

int btf_func_arg_regs(const struct btf *btf, int func_id)
{
	const struct btf_type *proto;
	int regs = arg_regs(btf, func_id, 8, &proto);

	return regs > 6 ? -1 : regs;
}

int btf_func_ret_slot(const struct btf *btf, int func_id)
{
	const struct btf_type *proto, *t;
	int regs = arg_regs(btf, func_id, 16, &proto);

	if (regs < 0 || regs > 6 || !proto->type)
		return -1;
	t = resolve(btf, proto->type);
	if (!t)
		return -1;
	if ((btf_is_int(t) && t->size <= 8) || btf_is_enum(t) || btf_is_enum64(t))
		return regs;
	if (btf_is_ptr(t) && ptr_target_ok(btf, t->type))
		return regs;
	return -1;
}
