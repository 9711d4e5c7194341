/* args_spec.h - the -A capture plan of one traced function: its BTF
 * FUNC_PROTO's parameters classified (by value, string, pointee bytes,
 * pointer value, printf-like varargs) and placed in x86-64 argument
 * slots (6 registers, then the stack; 9..16-byte values in a register
 * pair when two are left, larger ones on the stack), as the struct
 * rs_args_spec the BPF side reads (bpf/args_spec.h). */
#ifndef RS_ARGS_SPEC_H
#define RS_ARGS_SPEC_H

#include <stdbool.h>
#include <stdint.h>
#include "bpf/args_spec.h"

struct btf;

/* SPEC for FUNC_PROTO PROTO_ID of BTF; BTF NULL or PROTO_ID 0 (no BTF):
 * the six argument registers raw. RAW_PTRS (-C args.capture-raw-ptrs):
 * every pointer is captured as its value. At most RS_MAX_FUNC_ARGS
 * parameters are described. Returns 0, or -EINVAL when PROTO_ID is not a
 * FUNC_PROTO (SPEC is then the raw registers). */
int args_spec_build(const struct btf *btf, uint32_t proto_id, bool raw_ptrs,
		    struct rs_args_spec *spec);

#endif
