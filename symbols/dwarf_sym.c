/* dwarf_sym.c - the symbolizer core: opens the ELF, finds the compile
 * unit of an address (.debug_aranges or the cache's CU table), indexes CUs
 * lazily with dwarf_index.c, serves them from / saves them to the
 * symcache, and falls back to .symtab names (see dwarf_sym.h). */
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

/* CUs indexed between two libdw handle recycles: libdw keeps every line
 * table and abbrev it ever read until dwarf_end, so dropping the handle
 * bounds peak memory on big batches */
#define RECYCLE_EVERY 128
/* a batch needing this many unindexed CUs is indexed by several threads */
#define PREFETCH_MIN_CUS 16
#define MAX_THREADS 4

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

/* drops the file pages we touched from our RSS (they stay in the page
 * cache); safe while other threads read the mapping: they fault the
 * pages back in */
static void release_pages(struct dwarf_sym *ds)
{
	size_t sz = 0;
	if (ds->external)
		return;
	char *raw = elf_rawfile(ds->elf, &sz);
	if (raw && sz) {
		long pg = sysconf(_SC_PAGESIZE);
		uintptr_t a = ((uintptr_t)raw + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
		if (a < (uintptr_t)raw + sz)
			madvise((void *)a, (uintptr_t)raw + sz - a, MADV_DONTNEED);
	}
}

static void recycle_dbg(struct dwarf_sym *ds)
{
	if (!ds->dbg || ds->external)
		return;
	dwarf_end(ds->dbg);
	ds->dbg = NULL;
	release_pages(ds);
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

/* the CU DIE of the unit whose header is at unit_off */
static int unit_die(struct dwarf_sym *ds, uint64_t unit_off, Dwarf_Die *die)
{
	Dwarf_Off next;
	size_t hsize;
	if (dwarf_nextcu(ds->dbg, unit_off, &next, &hsize, NULL, NULL, NULL) != 0)
		return -1;
	return dwarf_offdie(ds->dbg, unit_off + hsize, die) ? 0 : -1;
}

struct dwarf_sym *dwarf_sym_open(const char *path, unsigned flags, char *err, size_t errlen)
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
	GElf_Ehdr eh;
	if (gelf_getehdr(ds->elf, &eh) && eh.e_type == ET_REL) {
		/* a module's debug file: relocated through libdwfl */
		dwarf_sym_close(ds);
		return dwarf_sym_open_module(path, NULL, NULL, 0, err, errlen);
	}
	const char *force = getenv("RETSNOOP_DWARF_LIBDW");
	ds->raw_ok = !(force && *force && strcmp(force, "0")) && !dwarf_raw_open(ds->elf, &ds->raw);
	int bl = elf_build_id(ds->elf, ds->bid, sizeof(ds->bid));
	ds->bidlen = bl > 0 ? (size_t)bl : 0;

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
	ds->cus = calloc(ds->ncus ? ds->ncus : 1, sizeof(*ds->cus));
	ds->cu_state = calloc(ds->ncus ? ds->ncus : 1, 1);
	if (!ds->cus || !ds->cu_state) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
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
	ds->cus = calloc(ds->ncus ? ds->ncus : 1, sizeof(*ds->cus));
	ds->cu_state = calloc(ds->ncus ? ds->ncus : 1, 1);
	if (!ds->cus || !ds->cu_state) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
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
	if (ds->raw_ok) {
		int r = dwarf_index_build_raw(&ds->raw, ds->cu_offs[cu], &ds->cus[cu]);
		if (r != DRAW_UNSUPPORTED) {
			ds->cu_state[cu] = r ? CU_FAILED : CU_READY;
			ds->dirty |= !r;
			if (++ds->built_since_recycle >= RECYCLE_EVERY) {
				ds->built_since_recycle = 0;
				release_pages(ds);
			}
			return r ? -1 : 0;
		}
	}
	Dwarf_Die die;
	if (dwarf_sym_dbg(ds) || unit_die(ds, ds->cu_offs[cu], &die) ||
	    dwarf_index_build(&die, &ds->cus[cu])) {
		ds->cu_state[cu] = CU_FAILED;
		return -1;
	}
	ds->cu_state[cu] = CU_READY;
	ds->dirty = 1;
	if (++ds->built_since_recycle >= RECYCLE_EVERY) {
		ds->built_since_recycle = 0;
		recycle_dbg(ds);
	}
	return 0;
}

/* ------------------------------------------------ parallel prefetch -- */
struct pf_job {
	struct dwarf_sym *ds;
	const uint32_t *need;
	int *result;              /* per need[] entry: build result */
	size_t n;
	size_t next;              /* next entry to take (atomic) */
	size_t built;             /* entries built (atomic), for page release */
};

static void *pf_worker(void *arg)
{
	struct pf_job *j = arg;
	for (;;) {
		size_t i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		if (i >= j->n)
			break;
		uint32_t cu = j->need[i];
		j->result[i] = dwarf_index_build_raw(&j->ds->raw, j->ds->cu_offs[cu], &j->ds->cus[cu]);
		if (__atomic_add_fetch(&j->built, 1, __ATOMIC_RELAXED) % RECYCLE_EVERY == 0)
			release_pages(j->ds);
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

void dwarf_sym_prefetch(struct dwarf_sym *ds, const uint64_t *addrs, size_t n)
{
	uint32_t *need = NULL;
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
	struct pf_job job = { .ds = ds, .need = need, .n = nn };
	if (ds->raw_ok && nn >= PREFETCH_MIN_CUS && nt > 1 &&
	    (job.result = malloc(nn * sizeof(*job.result)))) {
		pthread_t tids[MAX_THREADS];
		int started = 0;
		for (int t = 1; t < nt; t++)
			if (!pthread_create(&tids[started], NULL, pf_worker, &job))
				started++;
		pf_worker(&job);
		for (int t = 0; t < started; t++)
			pthread_join(tids[t], NULL);
		for (size_t i = 0; i < nn; i++) {
			uint32_t cu = need[i];
			if (job.result[i] == 0) {
				ds->cu_state[cu] = CU_READY;
				ds->dirty = 1;
			} else if (job.result[i] == -1) {
				ds->cu_state[cu] = CU_FAILED;
			}
			/* DRAW_UNSUPPORTED: left to libdw, below */
		}
		free(job.result);
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
