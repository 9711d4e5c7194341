/* symcache.h - the persistent symbolization index cache: one flat,
 * mmap-able file per vmlinux build-id under $XDG_CACHE_HOME/retsnoop/
 * (else ~/.cache/retsnoop/) holding the CU address table and the per-CU
 * indexes built so far (dwarf_index.h layout). Written to a temporary file
 * and renamed into place, so concurrent writers and readers never see a
 * partial file; a header checksum plus one checksum per CU (verified on
 * first use) make a truncated, corrupted or stale file read as a miss. */
#ifndef RS_SYMCACHE_H
#define RS_SYMCACHE_H

#include <stddef.h>
#include <stdint.h>
#include "dwarf_index.h"

/* an address range of a compile unit */
struct sc_range {
	uint64_t lo, hi;
	uint32_t cu;
	uint32_t pad;
};

struct symcache;

/* the cache file path for this build-id (dir from $XDG_CACHE_HOME / $HOME);
 * returns -1 when no cache directory can be named */
int symcache_path(const uint8_t *bid, size_t bidlen, char *out, size_t outlen);

/* Maps and validates the cache file; NULL when absent or invalid. */
struct symcache *symcache_open(const char *path, const uint8_t *bid, size_t bidlen);
void symcache_close(struct symcache *sc);

const struct sc_range *symcache_ranges(const struct symcache *sc, uint32_t *n);
uint32_t symcache_ncus(const struct symcache *sc);
/* offset of the CU's unit header in .debug_info */
uint64_t symcache_cu_unit_off(const struct symcache *sc, uint32_t cu);
/* 1: *out points into the mapping (checksum verified); 0: CU not cached;
 * -1: CU data corrupt (caller rebuilds it) */
int symcache_cu(struct symcache *sc, uint32_t cu, struct dwi_cu *out);

/* Writes a complete cache file atomically (tmp file + rename). cus[i] may
 * be NULL (or have no data) for CUs not indexed. Returns 0 or -1. */
int symcache_write(const char *path, const uint8_t *bid, size_t bidlen,
		   const struct sc_range *ranges, uint32_t nranges,
		   const uint64_t *cu_unit_offs, const struct dwi_cu *const *cus, uint32_t ncus);

#endif
