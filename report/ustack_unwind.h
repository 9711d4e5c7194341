/* ustack_unwind.h - unwinds a recorded user stack (USTACK record) offline
 * with elfutils libdwfl: one Dwfl per recorded process-maps version, its
 * modules reported at their load bias from the found binaries, attached
 * with thread callbacks whose initial registers are the recorded pt_regs
 * and whose memory reads come from the recorded stack copy (and from the
 * mapped files' contents for addresses inside them). The CFI (.eh_frame,
 * .debug_frame) does the walking; no frame pointers are needed. */
#ifndef RS_USTACK_UNWIND_H
#define RS_USTACK_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../bpf/retsnoop_abi.h"

/* one recorded executable mapping as the unwinder takes it */
struct uw_map {
	uint64_t start, end, pgoff;
	const char *bin;     /* the binary with the recorded build-id, or NULL */
	const char *dbg;     /* its DWARF (bin or a debug file), or NULL */
	/* filled by uw_new: runtime minus link-time address, when a file
	 * (bin, else dbg) tells the segment layout */
	bool has_bias;
	uint64_t bias;
};

struct uw_pc {
	uint64_t pc;
	bool activation;     /* exact PC (first frame, signal frame): no -1 */
};

struct ustack_unwinder;

/* maps[] must outlive the unwinder (uw_new fills their bias); NULL when
 * out of memory. An unwinder with no usable binary still returns the
 * first frame. */
struct ustack_unwinder *uw_new(struct uw_map *maps, size_t n, uint32_t pid);
/* walks st's stack: at most max PCs, innermost first; returns how many.
 * why gets the reason the walk stopped early ("" when it reached the
 * outermost frame or max). */
int uw_walk(struct ustack_unwinder *u, const struct rs_rec_ustack *st, struct uw_pc *out,
	    int max, char *why, size_t whylen);
/* the ELF symbol (symtab or dynsym) whose sized range covers runtime
 * address addr in a reported module, *off the offset into it; else NULL */
const char *uw_symbol(struct ustack_unwinder *u, uint64_t addr, uint64_t *off);
void uw_free(struct ustack_unwinder *u);

/* runtime minus link-time address of the ELF file at path mapped at
 * start from file offset pgoff (its PT_LOAD covering pgoff); 0 ok, -1 */
int uw_load_bias(const char *path, uint64_t start, uint64_t pgoff, uint64_t *bias);

#endif
