/* dwarf_sym_internal.h - the symbolizer's private state, shared by
 * dwarf_sym.c (core), dwarf_module.c (modules), dwarf_open.c (which of
 * the two opens a file) and dwarf_cuglob.c (CU path globs). Not an API. */
#ifndef RS_DWARF_SYM_INTERNAL_H
#define RS_DWARF_SYM_INTERNAL_H

#include <stdbool.h>
#include <libelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include "dwarf_elf.h"
#include "dwarf_index.h"
#include "symcache.h"

enum { CU_UNKNOWN = 0, CU_READY = 1, CU_FAILED = 2 };

struct dwarf_sym {
	char *path;
	unsigned flags;
	int fd;
	Elf *elf;
	Dwarf *dbg;                 /* opened lazily, recycled on big batches */
	uint8_t bid[64];
	size_t bidlen;
	struct sc_range *ranges;    /* CU address ranges sorted by lo */
	uint32_t nranges;
	uint64_t *cu_offs;          /* CU unit header offset per CU number */
	uint32_t ncus;
	struct dwi_cu *cus;
	uint8_t *cu_state;
	struct symcache *sc;
	char cache_path[4096];
	int dirty;
	int dbg_built;              /* CUs indexed through dbg (recycled at a bound) */
	uint64_t info_off, info_size; /* .debug_info in the file; size 0: unknown */
	uint64_t *units;            /* every unit header offset, in file order */
	uint32_t nunits;
	bool units_done;            /* units listed (vmlinux, first CU build) */
	struct elf_funcs funcs;
	int funcs_loaded;
	/* modules (dwarf_module.c): the Dwarf and Elf belong to libdwfl */
	bool external;
	Dwfl *dwfl;
	void *dwfl_ctx;
	void (*free_dwfl_ctx)(void *);
	uint64_t bias;              /* lookup address - bias = DWARF address */
};

/* a symbolizer over a Dwarf someone else owns (libdwfl for modules): no
 * cache, no worker threads, CU table from the CU DIEs */
struct dwarf_sym *dwarf_sym_from_dwarf(const char *path, Elf *elf, Dwarf *dbg, uint64_t bias,
				       char *err, size_t errlen);

/* a linked ELF (vmlinux): the core of dwarf_sym_open, which sends module
 * debug files (ET_REL) to dwarf_sym_open_module instead */
struct dwarf_sym *dwarf_sym_open_linked(const char *path, unsigned flags, char *err,
					size_t errlen);

int dwarf_sym_dbg(struct dwarf_sym *ds);
int dwarf_sym_ensure_cu(struct dwarf_sym *ds, uint32_t cu);

#endif
