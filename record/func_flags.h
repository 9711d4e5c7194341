/* func_flags.h - error heuristic inputs: a function's rs_func_flags from
 * its BTF return type (void/bool/unsigned never fail; int is sign-extended;
 * pointers fail on NULL/ERR_PTR; long fails on IS_ERR_VALUE; BPF helpers,
 * declared u64, by the table of record/helper_kinds.c). */
#ifndef RS_FUNC_FLAGS_H
#define RS_FUNC_FLAGS_H

#include <stdint.h>
#include "bpf/retsnoop_abi.h"

struct btf;

/* flags for the BTF_KIND_FUNC type func_id; 0 if btf is NULL or the id
 * is not a function */
uint32_t btf_func_flags(const struct btf *btf, int func_id);

/* fexit: the context slot of function FUNC_ID's return value (the number
 * of argument registers before it) where the kernel's verifier lets a
 * program load it directly (an integer, an enum, a pointer to a struct,
 * a union, void or an integer; at most six argument registers), else -1:
 * read through bpf_get_func_ret */
int btf_func_ret_slot(const struct btf *btf, int func_id);
/* fexit: how many argument registers function FUNC_ID's arguments take
 * where each takes one (every argument an integer, an enum or a pointer
 * of at most 8 bytes, at most six of them), else -1: the trampoline's
 * frame past them is then found through bpf_get_func_arg_cnt */
int btf_func_arg_regs(const struct btf *btf, int func_id);
/* flags for a traceable function that has no BTF: assumed int */
#define FUNC_FLAGS_NO_BTF RS_FUNC_NEEDS_SIGN_EXT

#endif
