/* file_header.h - what a recording starts with, built from the recorder's
 * state: the header key/values (kernel identity, _text, attach mode,
 * features, modes), the kallsyms snapshot (with the [bpf] symbols as they
 * are after attaching), the module and function tables.
 * The live tool's hooks get the same tables. */
#ifndef RS_FILE_HEADER_H
#define RS_FILE_HEADER_H

#include <stddef.h>
#include <stdint.h>
#include "format/rsfile.h"
#include "record/kernel_info.h"
#include "record/options.h"
#include "record/select.h"
#include "symbols/ksyms.h"

struct file_header {
	struct rsf_meta meta;
	struct rsf_ksym *ksyms;   /* point into the ksyms given to build and bpf_ks */
	struct ksyms *bpf_ks;     /* the [bpf] symbols read after attaching */
	size_t nksyms;
	struct kmodules mods;
	struct rsf_func *funcs;   /* point into the selection */
	size_t nfuncs;
};

/* lbr_status: why -B is not used (NULL when it is or was not asked for);
 * bpf_ks: the [bpf] symbols as they are now (taken over), or NULL: read
 * them from /proc/kallsyms; -1 with the reason in err */
int file_header_build(struct file_header *h, const struct record_opts *o,
		      const struct ksyms *ks, const struct selection *sel,
		      const char *attach_mode, uint32_t features, const char *lbr_status,
		      struct ksyms *bpf_ks, char *err, size_t errlen);
void file_header_free(struct file_header *h);

#endif
