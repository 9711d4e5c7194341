/* ksym_iter_abi.h - the records bpf/ksym_iter.bpf.c writes for each kallsyms
 * function symbol through a BPF ksym iterator (instead of /proc/kallsyms
 * text): read by record/ksym_records.c. */
#ifndef RS_KSYM_ITER_ABI_H
#define RS_KSYM_ITER_ABI_H

#ifdef __bpf__
typedef unsigned char rs_ki_u8;
typedef unsigned short rs_ki_u16;
typedef unsigned long long rs_ki_u64;
#else
#include <stdint.h>
typedef uint8_t rs_ki_u8;
typedef uint16_t rs_ki_u16;
typedef uint64_t rs_ki_u64;
#endif

#define RS_KI_NAME_MAX 512   /* KSYM_NAME_LEN of 6.1+ (128 before), with the NUL */
#define RS_KI_MOD_MAX  64    /* MODULE_NAME_LEN is 64 - sizeof(long), with the NUL */

/* one symbol, unaligned in the stream: the first RS_KI_HDR_SIZE bytes of
 * this header (sizeof pads it), then name_len bytes of the name (NUL
 * included), then mod_len bytes of the module name (NUL included; mod_len
 * 0: vmlinux). addr is 0 where /proc/kallsyms would show
 * zeros (kptr_restrict); type as /proc/kallsyms shows it (a module
 * symbol's case says exported or not). */
struct rs_ksym_rec {
	rs_ki_u64 addr;
	rs_ki_u16 name_len;
	rs_ki_u8 mod_len;
	char type;
};

#define RS_KI_HDR_SIZE 12
#define RS_KI_REC_MAX  (RS_KI_HDR_SIZE + RS_KI_NAME_MAX + RS_KI_MOD_MAX)

#endif
