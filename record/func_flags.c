/* func_flags.c - derives rs_func_flags from BTF return types (func_flags.h). */
#include "record/func_flags.h"
#include "bpf/retsnoop_abi.h"
#include <bpf/btf.h>

uint32_t btf_func_flags(const struct btf *btf, int func_id)
{
	const struct btf_type *t;
	int id;

	if (!btf)
		return RS_FUNC_NEEDS_SIGN_EXT;
	t = btf__type_by_id(btf, func_id);
	if (!t || !btf_is_func(t))
		return RS_FUNC_NEEDS_SIGN_EXT;
	t = btf__type_by_id(btf, t->type);      /* FUNC_PROTO */
	if (!t || !btf_is_func_proto(t))
		return RS_FUNC_NEEDS_SIGN_EXT;
	id = t->type;
	if (id == 0)
		return RS_FUNC_RET_VOID | RS_FUNC_CANT_FAIL;
	/* strip typedefs and modifiers */
	for (int guard = 0; guard < 32; guard++) {
		t = btf__type_by_id(btf, id);
		if (!t)
			return 0;
		if (btf_is_typedef(t) || btf_is_mod(t))
			id = t->type;
		else
			break;
	}
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
