/* dwarf_ibuild.h - the index builder shared by the two producers of a
 * compile unit's index (libdw: dwarf_idx_libdw.c, raw reader:
 * dwarf_idx_raw.c; internal): string pool with de-duplication, memoized
 * name / path interning, line rows, scopes with their address ranges, and
 * the final flattening into innermost-scope intervals (dwarf_index.h). Both
 * producers feed it the same calls in the same order, so they yield
 * byte-identical indexes. */
#ifndef RS_DWARF_IBUILD_H
#define RS_DWARF_IBUILD_H

#include <stdint.h>
#include "dwarf_index.h"

struct dwib_map {
	uintptr_t *k;     /* 0 = empty slot */
	uint32_t *v;
	uint32_t cap, n;
};

struct dwib_rng {
	uint64_t lo, hi;
	uint32_t scope, depth;
};

struct dwib {
	char *strs;
	uint32_t strs_len, strs_cap;
	uint32_t *sh;                 /* content hash set of pool offsets */
	uint32_t sh_cap, sh_n;
	struct dwib_map strmap;       /* string pointer (+ kind) -> pool offset */
	struct dwib_map originmap;    /* origin DIE offset + 1 -> name offset */
	const char *comp_dir;
	struct dwib_rng *rngs;
	uint32_t nrngs, rngs_cap;
	struct dwi_scope *scopes;
	uint32_t nscopes, scopes_cap;
	struct dwi_ival *ivals;
	uint32_t nivals, ivals_cap;
	struct dwi_line *lines;
	uint32_t nlines, lines_cap;
	int oom;
};

void dwib_init(struct dwib *b, const char *comp_dir);
/* pool offset of s (added once); DWI_NONE on OOM */
uint32_t dwib_str(struct dwib *b, const char *s);
/* pool offset of a string that stays valid while building, memoized by
 * its address; path != 0 stores it kernel-relative (dwarf_path.h).
 * NULL gives DWI_NONE. */
uint32_t dwib_intern(struct dwib *b, const char *s, int path);
/* memo slot for the name of the origin DIE at this .debug_info offset
 * (DWI_NONE until set); NULL on OOM */
uint32_t *dwib_origin_slot(struct dwib *b, uint64_t die_off);

/* Line table, fed in address order: one call per distinct address with
 * the row picked there (file DWI_NONE: only an end-of-sequence row).
 * Drops rows repeating the previous file:line. 0, -1 OOM. */
int dwib_line(struct dwib *b, uint64_t addr, uint32_t file, uint32_t line);
/* An address range of the scope that the next dwib_scope call creates. */
int dwib_range(struct dwib *b, uint64_t lo, uint64_t hi, uint32_t depth);
/* Creates the scope owning the ranges added since the previous one;
 * returns its index, -1 on OOM. */
int dwib_scope(struct dwib *b, uint32_t name, int32_t parent, uint32_t call_file,
	       uint32_t call_line);
/* the index the next dwib_scope call returns */
static inline uint32_t dwib_next_scope(const struct dwib *b) { return b->nscopes; }

/* Flattens the ranges and hands the arrays to out. 0, or -1 on OOM;
 * the builder is freed either way. */
int dwib_finish(struct dwib *b, struct dwi_cu *out);
void dwib_free(struct dwib *b);

#endif
