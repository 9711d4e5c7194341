/* clone_btf.h - the BTF function info of a loaded program, for loading a
 * copy of its instructions (the fentry clones of record/attach.c): with
 * it the kernel verifies the copy's global functions (the -A capture,
 * bpf/args_capture.bpf.h) once each instead of inlining them into every
 * path of the caller. */
#ifndef RS_CLONE_BTF_H
#define RS_CLONE_BTF_H

#include <stddef.h>
#include <linux/bpf.h>

struct bpf_program;

struct clone_btf {
	int btf_fd;                  /* the program's BTF, -1 when none */
	struct bpf_func_info *fi;    /* one per subprogram, by the copy's offsets */
	__u32 n;
};

/* The function info of loaded program TMPL laid over INSNS (its
 * pre-load instructions, CNT of them): 0, or -1 (CB then empty: load
 * the copy without BTF) when the program has none or the layouts do not
 * match. OBJ, OBJ_SZ: the ELF object TMPL was opened from (its
 * subprograms' names) */
int clone_btf_get(const struct bpf_program *tmpl, const struct bpf_insn *insns, size_t cnt,
		  const void *obj, size_t obj_sz, struct clone_btf *cb);
void clone_btf_free(struct clone_btf *cb);

#endif
