/* dwarf_sym.c - the symbolizer core: opens the ELF, finds the compile
 * unit of an address (.debug_aranges or the cache's CU table), indexes CUs
 * lazily through libdw (dwarf_index_build.c; a batch's CUs on several
 * threads, each with its own libdw handle), serves them from / saves them
 * to the symcache, and falls back to .symtab names (see dwarf_sym.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include "dwarf_sym.h"
#include "dwarf_sym_internal.h"
#include "dwarf_aranges.h"
#include "dwarf_elf.h"
#include "symcache.h"

/* CUs indexed through one libdw handle before it is recycled: libdw
 * keeps every line table and abbrev it read until dwarf_end, so dropping
 * the handle bounds peak memory on big batches */
#define RECYCLE_EVERY 64
/* a batch needing this many unindexed CUs is indexed by several threads */
#define PREFETCH_MIN_CUS 16
#define MAX_THREADS 4
/* file pages are dropped in blocks of this alignment: a page fault maps
 * the surrounding 64 KB block (the kernel's default fault-around) */
#define RELEASE_ALIGN ((uintptr_t)64 << 10)
/* bytes from a unit header that libdw reads when it adds the unit to its
 * unit table (header and the start of the CU DIE); their pages stay */
#define UNIT_KEEP 256
/* unit headers read between two drops of file pages */
#define WALK_STEP 64

static int range_cmp(const void *pa, const void *pb)
{
	const struct sc_range *a = pa, *b = pb;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->hi < b->hi ? -1 : a->hi > b->hi;
}

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return a < b ? -1 : a > b;
}

int dwarf_sym_dbg(struct dwarf_sym *ds)
{
	if (ds->dbg)
		return 0;
	ds->dbg = dwarf_begin_elf(ds->elf, DWARF_C_READ, NULL);
	return ds->dbg ? 0 : -1;
}

/* start of .debug_info in elf's image of the file, NULL if not there
 * as is */
static const char *info_base(const struct dwarf_sym *ds, Elf *elf)
{
	size_t sz = 0;
	char *raw = elf_rawfile(elf, &sz);
	if (!raw || !ds->info_size || ds->info_off + ds->info_size > sz)
		return NULL;
	return raw + ds->info_off;
}

/* drops the mapped pages of .debug_info [lo, hi), widened to whole
 * RELEASE_ALIGN blocks inside the section, from our RSS, except the pages
 * holding the first UNIT_KEEP bytes of the units known so far (so a new
 * handle's unit-table walk faults nothing in). Dropped pages stay in the
 * page cache and fault back in if read again (even by another thread
 * reading the same mapping). */
static void release_info(const struct dwarf_sym *ds, const char *info, uint64_t lo, uint64_t hi)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t base = (uintptr_t)info, mask = RELEASE_ALIGN - 1;

	if (!info)
		return;
	/* the widened range, as .debug_info offsets */
	uint64_t a = (base + lo) & ~mask, b = (base + hi + mask) & ~mask;
	a = a < base ? 0 : a - base;
	b = b - base > ds->info_size ? ds->info_size : b - base;
	/* the first known unit whose kept bytes reach past a */
	uint32_t i = 0, j = ds->nunits;
	while (i < j) {
		uint32_t m = i + (j - i) / 2;
		if (ds->units[m] + UNIT_KEEP <= a)
			i = m + 1;
		else
			j = m;
	}
	uint64_t cur = a;
	for (;; i++) {
		uint64_t stop = i < ds->nunits && ds->units[i] < b ? ds->units[i] : b;
		/* [cur, stop) shrunk to whole pages */
		uint64_t x = (base + cur + pg - 1) / pg * pg, y = (base + stop) / pg * pg;
		if (x < y)
			madvise((void *)(uintptr_t)x, y - x, MADV_DONTNEED);
		if (stop == b)
			break;
		cur = ds->units[i] + UNIT_KEEP;
		if (cur >= b)
			break;
	}
}

/* Lists every unit's header offset (ds->units), once per ds, before any
 * worker thread exists, dropping every WALK_STEP units the pages faulted
 * in around the headers but not the headers' own pages: libdw's first
 * lookup of a unit in a fresh handle reads the header of every unit
 * before it (its unit table is built in file order), and with those pages
 * resident that walk faults nothing in; otherwise each handle's walk
 * would map ~100 MB of a vmlinux (64 KB around each header) and take
 * ~10 ms of page faults. */
static void collect_units(struct dwarf_sym *ds)
{
	const char *info = info_base(ds, ds->elf);
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	uint64_t done = 0;

	if (ds->units_done || dwarf_sym_dbg(ds))
		return;
	ds->units_done = true;
	while (dwarf_nextcu(ds->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (ds->nunits == cap) {
			cap = cap ? cap * 2 : 4096;
			uint64_t *nu = realloc(ds->units, cap * sizeof(*nu));
			if (!nu)
				break;
			ds->units = nu;
		}
		ds->units[ds->nunits++] = off;
		if (ds->nunits % WALK_STEP == 0 && info) {
			release_info(ds, info, done, off);
			done = off;
		}
		off = next;
	}
	if (info)
		release_info(ds, info, done, ds->info_size);
}

/* a libdw reader of the file: ds's own (ds->elf, ds->dbg) or a prefetch
 * worker's, whose Elf reads the same mapping; each has its own Dwarf, as
 * libdw handles are never shared between threads */
struct reader {
	Elf *elf;
	Dwarf *dbg;     /* NULL until opened, and after a recycle */
	int built;      /* CUs indexed through dbg */
};

/* Indexes CU cu through r (vmlinux only: a module's handle is libdwfl's;
 * call collect_units first). 0, -1 (unit not indexed) or -2 (no libdw
 * handle). Keeps the RSS of big batches bounded: a unit's .debug_info
 * pages are dropped once it is indexed (a unit is read once), and the
 * handle is recycled every RECYCLE_EVERY units. */
static int reader_build(struct dwarf_sym *ds, struct reader *r, uint32_t cu)
{
	const char *info = info_base(ds, r->elf);
	uint64_t off = ds->cu_offs[cu];
	Dwarf_Off next;
	size_t hsize;

	if (!r->dbg && !(r->dbg = dwarf_begin_elf(r->elf, DWARF_C_READ, NULL)))
		return -2;
	int ret = dwarf_index_build(r->dbg, off, &ds->cus[cu]);
	if (info && dwarf_nextcu(r->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0)
		release_info(ds, info, off, next);
	if (++r->built >= RECYCLE_EVERY) {
		dwarf_end(r->dbg);
		r->dbg = NULL;
		r->built = 0;
	}
	return ret;
}

/* CU table from .debug_aranges (read directly, so no CU is touched
 * before it is needed), else from every CU DIE's ranges; CUs are
 * identified by their unit header offset */
static int build_cu_table(struct dwarf_sym *ds, char *err, size_t errlen)
{
	struct dwarf_arange *ar = NULL;
	size_t nar = 0;
	size_t cap = 0, n = 0;
	struct sc_range *rv = NULL;
	uint64_t *offs = NULL;
	size_t noffs = 0, offcap = 0;

	if (dwarf_sym_dbg(ds)) {
		snprintf(err, errlen, "%s: no DWARF debug info (%s)", ds->path, dwarf_errmsg(-1));
		return -1;
	}
	if (!ds->external && dwarf_aranges_read(ds->elf, &ar, &nar) == 0 && nar > 0) {
		rv = malloc(nar * sizeof(*rv));
		offs = malloc(nar * sizeof(*offs));
		if (!rv || !offs)
			goto oom;
		for (size_t i = 0; i < nar; i++) {
			rv[n++] = (struct sc_range){ ar[i].lo, ar[i].hi, 0, 0 };
			offs[noffs++] = ar[i].unit_off;
		}
		free(ar);
		ar = NULL;
		/* CU numbers: ranks of the distinct CU offsets */
		uint64_t *u = malloc((noffs ? noffs : 1) * sizeof(*u));
		if (!u)
			goto oom;
		memcpy(u, offs, noffs * sizeof(*u));
		qsort(u, noffs, sizeof(*u), u64_cmp);
		size_t nu = 0;
		for (size_t i = 0; i < noffs; i++)
			if (!nu || u[nu - 1] != u[i])
				u[nu++] = u[i];
		for (size_t i = 0; i < n; i++) {
			uint64_t *p = bsearch(&offs[i], u, nu, sizeof(*u), u64_cmp);
			rv[i].cu = (uint32_t)(p - u);
		}
		free(offs);
		offs = u;
		noffs = nu;
	} else {
		free(ar);
		ar = NULL;
		Dwarf_Off off = 0, next;
		size_t hsize;
		while (dwarf_nextcu(ds->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			Dwarf_Die cu;
			if (dwarf_offdie(ds->dbg, off + hsize, &cu)) {
				Dwarf_Addr base, lo, hi;
				ptrdiff_t ro = 0;
				while ((ro = dwarf_ranges(&cu, ro, &base, &lo, &hi)) > 0) {
					if (hi <= lo)
						continue;
					if (n == cap) {
						cap = cap ? cap * 2 : 1024;
						void *p = realloc(rv, cap * sizeof(*rv));
						if (!p)
							goto oom;
						rv = p;
					}
					rv[n++] = (struct sc_range){ lo, hi, (uint32_t)noffs, 0 };
				}
				if (noffs == offcap) {
					offcap = offcap ? offcap * 2 : 1024;
					void *p = realloc(offs, offcap * sizeof(*offs));
					if (!p)
						goto oom;
					offs = p;
				}
				offs[noffs++] = off;
			}
			off = next;
		}
	}
	if (!noffs) {
		snprintf(err, errlen, "%s: no DWARF compile units", ds->path);
		free(rv);
		free(offs);
		return -1;
	}
	qsort(rv, n, sizeof(*rv), range_cmp);
	ds->ranges = rv;
	ds->nranges = (uint32_t)n;
	ds->cu_offs = offs;
	ds->ncus = (uint32_t)noffs;
	return 0;
oom:
	free(ar);
	free(rv);
	free(offs);
	snprintf(err, errlen, "%s: out of memory", ds->path);
	return -1;
}


/* per-CU slots, once the CU table is known */
static int alloc_cu_state(struct dwarf_sym *ds, char *err, size_t errlen)
{
	ds->cus = calloc(ds->ncus ? ds->ncus : 1, sizeof(*ds->cus));
	ds->cu_state = calloc(ds->ncus ? ds->ncus : 1, 1);
	if (!ds->cus || !ds->cu_state) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

struct dwarf_sym *dwarf_sym_open_linked(const char *path, unsigned flags, char *err, size_t errlen)
{
	struct dwarf_sym *ds = calloc(1, sizeof(*ds));
	const char *nc = getenv("RETSNOOP_NO_SYMCACHE");

	if (!ds) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (nc && *nc && strcmp(nc, "0"))
		flags |= DWARF_SYM_NO_CACHE;
	ds->flags = flags;
	ds->fd = -1;
	ds->path = strdup(path);
	elf_version(EV_CURRENT);
	ds->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ds->fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	ds->elf = elf_begin(ds->fd, ELF_C_READ_MMAP, NULL);
	if (!ds->elf || elf_kind(ds->elf) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		goto fail;
	}
	int bl = elf_build_id(ds->elf, ds->bid, sizeof(ds->bid));
	ds->bidlen = bl > 0 ? (size_t)bl : 0;
	if (elf_section_extent(ds->elf, ".debug_info", &ds->info_off, &ds->info_size))
		ds->info_size = 0;

	if (!(flags & DWARF_SYM_NO_CACHE) && ds->bidlen &&
	    !symcache_path(ds->bid, ds->bidlen, ds->cache_path, sizeof(ds->cache_path)))
		ds->sc = symcache_open(ds->cache_path, ds->bid, ds->bidlen);
	if (ds->sc) {
		uint32_t nr;
		const struct sc_range *r = symcache_ranges(ds->sc, &nr);
		ds->ncus = symcache_ncus(ds->sc);
		ds->ranges = malloc((nr ? nr : 1) * sizeof(*r));
		ds->cu_offs = malloc((ds->ncus ? ds->ncus : 1) * sizeof(*ds->cu_offs));
		if (!ds->ranges || !ds->cu_offs) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		memcpy(ds->ranges, r, nr * sizeof(*r));
		ds->nranges = nr;
		for (uint32_t i = 0; i < ds->ncus; i++)
			ds->cu_offs[i] = symcache_cu_unit_off(ds->sc, i);
	} else if (build_cu_table(ds, err, errlen)) {
		goto fail;
	} else {
		ds->dirty = 1; /* at least the CU table is worth saving */
	}
	if (alloc_cu_state(ds, err, errlen))
		goto fail;
	return ds;
fail:
	dwarf_sym_close(ds);
	return NULL;
}

struct dwarf_sym *dwarf_sym_from_dwarf(const char *path, Elf *elf, Dwarf *dbg, uint64_t bias,
				       char *err, size_t errlen)
{
	struct dwarf_sym *ds = calloc(1, sizeof(*ds));
	if (!ds || !(ds->path = strdup(path))) {
		free(ds);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ds->flags = DWARF_SYM_NO_CACHE;
	ds->fd = -1;
	ds->elf = elf;
	ds->dbg = dbg;
	ds->bias = bias;
	ds->funcs_loaded = 1; /* ET_REL symbol values are section offsets */
	int bl = elf ? elf_build_id(elf, ds->bid, sizeof(ds->bid)) : 0;
	ds->bidlen = bl > 0 ? (size_t)bl : 0;
	ds->external = true;
	if (build_cu_table(ds, err, errlen))
		goto fail;
	if (alloc_cu_state(ds, err, errlen))
		goto fail;
	return ds;
fail:
	ds->dbg = NULL;
	ds->elf = NULL;
	dwarf_sym_close(ds);
	return NULL;
}

static void save_cache(struct dwarf_sym *ds)
{
	if ((ds->flags & (DWARF_SYM_NO_CACHE | DWARF_SYM_NO_WRITE)) || !ds->bidlen ||
	    !ds->dirty || !ds->cache_path[0])
		return;
	const struct dwi_cu **v = calloc(ds->ncus ? ds->ncus : 1, sizeof(*v));
	if (!v)
		return;
	for (uint32_t i = 0; i < ds->ncus; i++) {
		if (ds->cu_state[i] == CU_READY) {
			v[i] = &ds->cus[i];
		} else if (ds->sc && ds->cu_state[i] == CU_UNKNOWN) {
			/* keep what an earlier run cached, if intact */
			if (symcache_cu(ds->sc, i, &ds->cus[i]) == 1)
				v[i] = &ds->cus[i];
		}
	}
	symcache_write(ds->cache_path, ds->bid, ds->bidlen, ds->ranges, ds->nranges,
		       ds->cu_offs, v, ds->ncus);
	free(v);
}

void dwarf_sym_close(struct dwarf_sym *ds)
{
	if (!ds)
		return;
	if (ds->cus)
		save_cache(ds);
	for (uint32_t i = 0; ds->cus && i < ds->ncus; i++)
		dwarf_index_free(&ds->cus[i]);
	free(ds->cus);
	free(ds->cu_state);
	free(ds->ranges);
	free(ds->cu_offs);
	free(ds->units);
	symcache_close(ds->sc);
	elf_funcs_free(&ds->funcs);
	if (ds->external) {
		if (ds->dwfl)
			dwfl_end(ds->dwfl);
		if (ds->free_dwfl_ctx)
			ds->free_dwfl_ctx(ds->dwfl_ctx);
	} else {
		if (ds->dbg)
			dwarf_end(ds->dbg);
		if (ds->elf)
			elf_end(ds->elf);
	}
	if (ds->fd >= 0)
		close(ds->fd);
	free(ds->path);
	free(ds);
}

const uint8_t *dwarf_sym_build_id(const struct dwarf_sym *ds, size_t *len)
{
	*len = ds->bidlen;
	return ds->bidlen ? ds->bid : NULL;
}

int dwarf_sym_symbol_addr(struct dwarf_sym *ds, const char *name, uint64_t *addr)
{
	return elf_symbol_addr(ds->elf, name, addr);
}

int dwarf_kaslr_slide(struct dwarf_sym *ds, uint64_t rt_text, uint64_t rt_stext, int64_t *slide)
{
	uint64_t link;
	if (rt_text && !dwarf_sym_symbol_addr(ds, "_text", &link)) {
		*slide = (int64_t)(rt_text - link);
		return 0;
	}
	if (rt_stext && !dwarf_sym_symbol_addr(ds, "_stext", &link)) {
		*slide = (int64_t)(rt_stext - link);
		return 0;
	}
	return -1;
}

static int find_cu(const struct dwarf_sym *ds, uint64_t addr)
{
	uint32_t lo = 0, hi = ds->nranges;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ds->ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < ds->ranges[lo - 1].hi)
		return (int)ds->ranges[lo - 1].cu;
	return -1;
}

/* makes ds->cus[cu] usable; 0 ok, -1 not available */
int dwarf_sym_ensure_cu(struct dwarf_sym *ds, uint32_t cu)
{
	if (cu >= ds->ncus)
		return -1;
	if (ds->cu_state[cu] == CU_READY)
		return 0;
	if (ds->cu_state[cu] == CU_FAILED)
		return -1;
	if (ds->sc) {
		int r = symcache_cu(ds->sc, cu, &ds->cus[cu]);
		if (r == 1) {
			ds->cu_state[cu] = CU_READY;
			return 0;
		}
	}
	int r;
	if (ds->external) {
		r = dwarf_index_build(ds->dbg, ds->cu_offs[cu], &ds->cus[cu]);
	} else {
		collect_units(ds);
		struct reader rd = { ds->elf, ds->dbg, ds->dbg_built };
		r = reader_build(ds, &rd, cu);
		ds->dbg = rd.dbg;
		ds->dbg_built = rd.built;
	}
	if (r) {
		ds->cu_state[cu] = CU_FAILED;
		return -1;
	}
	ds->cu_state[cu] = CU_READY;
	ds->dirty = 1;
	return 0;
}

/* ------------------------------------------------ parallel prefetch -- */
struct pf_job {
	struct dwarf_sym *ds;
	const uint32_t *need;
	int *result;              /* per need[] entry: 0 built, -1 failed, 1 not tried */
	size_t n;
	size_t next;              /* next entry to take (atomic) */
};

struct pf_worker {
	struct pf_job *job;
	struct reader rd;
	pthread_t tid;
};

static void *pf_work(void *arg)
{
	struct pf_worker *w = arg;
	struct pf_job *j = w->job;
	for (;;) {
		size_t i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		if (i >= j->n)
			break;
		int r = reader_build(j->ds, &w->rd, j->need[i]);
		j->result[i] = r == -2 ? 1 : r; /* no handle: the serial pass retries */
	}
	return NULL;
}

/* worker threads to use: RETSNOOP_SYM_THREADS, else the online CPUs (at
 * most MAX_THREADS) */
static int pf_threads(void)
{
	const char *e = getenv("RETSNOOP_SYM_THREADS");
	long n = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	return n > MAX_THREADS ? MAX_THREADS : (int)n;
}

/* indexes need[0, nn) on nt threads: this one with ds's handle, the
 * others each with a handle of their own; entries a thread could not
 * try keep result 1 */
static void pf_run(struct dwarf_sym *ds, const uint32_t *need, int *result, size_t nn, int nt)
{
	struct pf_job job = { .ds = ds, .need = need, .result = result, .n = nn };
	struct pf_worker w[MAX_THREADS];
	int nw = 1;
	size_t rawsz = 0;
	char *raw = elf_rawfile(ds->elf, &rawsz);

	for (size_t i = 0; i < nn; i++)
		result[i] = 1;
	collect_units(ds);
	w[0] = (struct pf_worker){ .job = &job, .rd = { ds->elf, ds->dbg, ds->dbg_built } };
	for (int t = 1; t < nt; t++) {
		Elf *elf = raw ? elf_memory(raw, rawsz) : NULL;
		if (!elf)
			break;
		w[nw] = (struct pf_worker){ .job = &job, .rd = { .elf = elf } };
		if (pthread_create(&w[nw].tid, NULL, pf_work, &w[nw])) {
			elf_end(elf);
			break;
		}
		nw++;
	}
	pf_work(&w[0]);
	ds->dbg = w[0].rd.dbg;
	ds->dbg_built = w[0].rd.built;
	for (int t = 1; t < nw; t++) {
		pthread_join(w[t].tid, NULL);
		if (w[t].rd.dbg)
			dwarf_end(w[t].rd.dbg);
		elf_end(w[t].rd.elf);
	}
}

void dwarf_sym_prefetch(struct dwarf_sym *ds, const uint64_t *addrs, size_t n)
{
	uint32_t *need = NULL;
	int *result = NULL;
	size_t nn = 0;
	uint8_t *seen = calloc(ds->ncus ? ds->ncus : 1, 1);

	if (!seen)
		return;
	for (size_t i = 0; i < n; i++) {
		int cu = find_cu(ds, addrs[i]);
		if (cu < 0 || seen[cu] || ds->cu_state[cu] != CU_UNKNOWN)
			continue;
		seen[cu] = 1;
		if (ds->sc && symcache_cu(ds->sc, (uint32_t)cu, &ds->cus[cu]) == 1) {
			ds->cu_state[cu] = CU_READY;
			continue;
		}
		if (!need && !(need = malloc(ds->ncus * sizeof(*need))))
			break;
		need[nn++] = (uint32_t)cu;
	}
	free(seen);
	int nt = pf_threads();
	/* modules: libdwfl owns the one handle (and they are small) */
	if (!ds->external && nn >= PREFETCH_MIN_CUS && nt > 1 &&
	    (result = malloc(nn * sizeof(*result)))) {
		pf_run(ds, need, result, nn, nt);
		for (size_t i = 0; i < nn; i++) {
			uint32_t cu = need[i];
			if (result[i] == 0) {
				ds->cu_state[cu] = CU_READY;
				ds->dirty = 1;
			} else if (result[i] < 0) {
				ds->cu_state[cu] = CU_FAILED;
			}
		}
		free(result);
	}
	for (size_t i = 0; i < nn; i++)
		dwarf_sym_ensure_cu(ds, need[i]);
	free(need);
}

static const char *symtab_name(struct dwarf_sym *ds, uint64_t addr)
{
	if (!ds->funcs_loaded) {
		ds->funcs_loaded = 1;
		elf_funcs_load(ds->elf, &ds->funcs);
	}
	return elf_funcs_lookup(&ds->funcs, addr);
}

const char *dwarf_sym_elf_name(struct dwarf_sym *ds, uint64_t addr)
{
	return symtab_name(ds, addr - ds->bias);
}

int dwarf_sym_lookup(struct dwarf_sym *ds, uint64_t addr, struct sym_frame *frames, int max_frames)
{
	if (max_frames <= 0)
		return 0;
	addr -= ds->bias;
	int cu = find_cu(ds, addr);
	if (cu >= 0 && !dwarf_sym_ensure_cu(ds, (uint32_t)cu)) {
		int has_func;
		int n = dwarf_index_lookup(&ds->cus[cu], addr, frames, max_frames, &has_func);
		if (!has_func) {
			const char *s = symtab_name(ds, addr);
			if (s)
				frames[0].func = s;
		}
		return n;
	}
	const char *s = symtab_name(ds, addr);
	frames[0] = (struct sym_frame){ s ? s : "??", "??", 0, 0 };
	return 1;
}
