/* dwarf_index.h - the compact per-compile-unit symbolization index: a flat
 * partition of the CU's code into intervals mapping to the innermost
 * function scope (subprogram or inlined instance), the scope tree, the
 * deduplicated line table and the CU's string pool. The same layout is used
 * in memory (built from DWARF by dwarf_index_build) and inside the
 * persistent cache file (symcache.h), so lookups never parse DWARF twice. */
#ifndef RS_DWARF_INDEX_H
#define RS_DWARF_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>

#define DWI_NONE UINT32_MAX

/* [start, next interval's start) belongs to scope (DWI_NONE: no function) */
struct dwi_ival {
	uint64_t start;
	uint32_t scope;
	uint32_t pad;
};

/* a subprogram (parent < 0) or an inlined instance called from its parent */
struct dwi_scope {
	uint32_t name;       /* offset in the string pool */
	uint32_t call_file;  /* string offset of the call site's file, DWI_NONE if unknown */
	uint32_t call_line;
	int32_t parent;      /* index of the enclosing scope, -1 for the subprogram */
};

/* line row: from addr up to the next row; file DWI_NONE = end of sequence */
struct dwi_line {
	uint64_t addr;
	uint32_t file;       /* string offset of the kernel-relative path */
	uint32_t line;
};

/* one CU's index; the arrays are either malloc'ed (built) or point into a
 * mapped cache file (owned == 0) */
struct dwi_cu {
	struct dwi_ival *ivals;
	struct dwi_scope *scopes;
	struct dwi_line *lines;
	char *strs;
	uint32_t nivals, nscopes, nlines, strs_len;
	int owned;
};

/* one symbolized frame; strings point into the index and stay valid until
 * the symbolizer that returned them is closed */
struct sym_frame {
	const char *func;   /* "??" when unknown */
	const char *file;   /* kernel-relative path, "??" when unknown */
	int line;           /* 0 when unknown */
	int is_inline;      /* 1: inlined into the next (outer) frame */
};

/* Builds, through libdw (dwarf_index_build.c), the index of the compile
 * unit whose header is at unit_off in dbg's .debug_info. Returns 0, or -1
 * (no unit there, libdw error, out of memory; *out is then empty). Uses
 * only dbg: separate Dwarf handles may build in separate threads. */
int dwarf_index_build(Dwarf *dbg, uint64_t unit_off, struct dwi_cu *out);
void dwarf_index_free(struct dwi_cu *cu);

/* Frames for addr (exact address, innermost first). Returns the number of
 * frames written (at least 1 when max_frames > 0: a frame with func "??" and
 * only line info when no function covers addr); *has_func tells whether a
 * DWARF function covers addr. */
int dwarf_index_lookup(const struct dwi_cu *cu, uint64_t addr, struct sym_frame *frames,
		       int max_frames, int *has_func);

#endif
