/* args_spec.h - how the BPF side captures one traced function's arguments
 * (-A): one struct rs_args_spec per function id in the arg_specs map,
 * filled by record/args_spec.c from the function's BTF prototype and read
 * by bpf/args_capture.bpf.h. Not part of the file format: the records it
 * produces (RS_REC_FUNC_ARGS) are, in bpf/retsnoop_abi.h.
 *
 * Arguments live in 8-byte slots in x86-64 calling-convention order:
 * slots 0..5 are the registers rdi rsi rdx rcx r8 r9, slot 6 and up the
 * stack words after the return address. */
#ifndef RS_ARGS_SPEC_ABI_H
#define RS_ARGS_SPEC_ABI_H

#include "retsnoop_abi.h"

#define RS_ARG_REG_SLOTS   6     /* argument registers */
#define RS_ARG_STACK_SLOTS 16    /* stack words the BPF side reads at most */
#define RS_ARG_SLOTS (RS_ARG_REG_SLOTS + RS_ARG_STACK_SLOTS)

struct rs_args_spec_arg {
	rs_u8 kind;     /* enum rs_arg_kind; RS_ARG_NONE: a type that cannot be
			 * captured (recorded as an error, -EDOM) */
	rs_u8 slot;     /* first slot of the value (RS_ARG_PTR_DATA/STR: of the pointer) */
	rs_u8 nslots;   /* slots the value takes (1 or 2 in registers, more on the stack) */
	rs_u8 _pad;
	rs_u16 size;    /* RS_ARG_VALUE: the value's bytes; RS_ARG_PTR_DATA: the
			 * pointee's bytes (before the args.max-sized-arg-size cut);
			 * RS_ARG_STR: 0; RS_ARG_PTR, RS_ARG_RAW: 8 */
	rs_u16 _pad2;
};

enum rs_args_spec_flags {
	RS_ARGS_SPEC_NO_BTF  = 0x01,  /* nargs raw registers (RS_ARG_RAW) */
	RS_ARGS_SPEC_VARARGS = 0x02,  /* printf-like: args[nargs-1] is the format
				       * string; the 8-byte vararg slots follow the
				       * named arguments: registers nregs..5, then
				       * stack words from nstack on */
};

struct rs_args_spec {
	rs_u8 nargs;    /* described arguments (named ones; raw registers) */
	rs_u8 flags;    /* enum rs_args_spec_flags */
	rs_u8 nregs;    /* argument registers the named arguments take */
	rs_u8 nstack;   /* stack words the named arguments take */
	struct rs_args_spec_arg args[RS_MAX_FUNC_ARGS];
};

#endif
