/* args_capture.h - -A on the recording side: each traced function's
 * capture plan (args_spec.h) for the BPF side's arg_specs map, and the
 * header blobs that let a report render the captured bytes without the
 * recorded kernel: "btf" (the traced functions' FUNC_PROTOs and every
 * type they reach, from vmlinux and module BTF, one self-contained BTF
 * built by btf_subset.h) and "func_btf" (u32 per function id: its
 * FUNC_PROTO's id in "btf", 0 = none). */
#ifndef RS_ARGS_CAPTURE_H
#define RS_ARGS_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include "bpf/args_spec.h"
#include "record/header_blobs.h"
#include "record/options.h"
#include "record/select.h"

struct btf;
struct retsnoop_bpf;

struct args_capture {
	struct rs_args_spec *specs;   /* one per traced function */
	uint32_t *func_btf;           /* the "func_btf" blob */
	size_t n;
	size_t with_btf;              /* functions with a prototype */
	uint32_t btf_size;            /* bytes of the "btf" blob */
	uint32_t btf_types;           /* its types */
};

/* Plans every function of SEL (vmlinux BTF: VMLINUX; a module's from
 * /sys/kernel/btf/MODULE) and adds "btf" and "func_btf" to BLOBS.
 * 0, or -1 with the reason in err. */
int args_capture_build(struct args_capture *ac, struct btf *vmlinux, const struct selection *sel,
		       const struct record_opts *o, struct header_blobs *blobs,
		       char *err, size_t errlen);
/* before the skeleton is loaded: -A and the budgets into its read-only
 * data, the map sizes (one entry each without -A) */
void args_capture_preload(struct retsnoop_bpf *s, const struct record_opts *o, size_t nfuncs);
/* after loading: the plans into arg_specs; 0 or -1 with the reason */
int args_capture_fill(const struct args_capture *ac, struct retsnoop_bpf *s,
		      char *err, size_t errlen);
void args_capture_free(struct args_capture *ac);

#endif
