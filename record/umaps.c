/* umaps.c - -U: processes' executable mappings as UMAPS records
 * (umaps.h): the per-process table, /proc/PID/maps reading, the checks
 * that say when to read again, and the record. */
#include "record/umaps.h"
#include "record/buildid_cache.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#define QUIET_NS 1000000000ULL           /* after a read that changed nothing */
#define MAX_PROCS 8192                   /* the table is cleared past this */
#define DLOPEN_REACH (1ULL << 30)        /* stack words this far below the code are checked */

struct urange {
	uint64_t start, end;
};

struct uproc {
	uint32_t pid;
	uint32_t gen;                 /* exec_gen when last read */
	bool used, gone;
	uint64_t quiet_until;         /* no address-triggered read before (ns) */
	struct urange *all;           /* every mapping, sorted */
	size_t nall;
	struct urange *code;          /* executable mappings, sorted */
	size_t ncode;
	uint64_t code_lo, code_hi;    /* span of the libraries' executable mappings */
	struct rs_rec_umaps *rec;     /* the last record written (ts aside, compared) */
};

struct umaps {
	int gen_fd;
	struct uproc *t;              /* open addressing by pid */
	size_t cap, n;
	struct buildid_cache *bids;
	struct umaps_counts c;
};

/* one parse of /proc/PID/maps */
struct maps_read {
	struct urange *all;
	size_t nall, allcap;
	struct rs_umap *maps;
	size_t nmaps, mapcap;
	char *strs;
	size_t slen, scap;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct umaps *umaps_new(int exec_gen_fd)
{
	struct umaps *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->gen_fd = exec_gen_fd;
	u->cap = 256;
	u->t = calloc(u->cap, sizeof(*u->t));
	u->bids = buildid_cache_new();
	if (!u->t || !u->bids) {
		umaps_free(u);
		return NULL;
	}
	return u;
}

static void proc_clear(struct uproc *p)
{
	free(p->all);
	free(p->code);
	free(p->rec);
	memset(p, 0, sizeof(*p));
}

static void table_clear(struct umaps *u)
{
	for (size_t i = 0; i < u->cap; i++)
		if (u->t[i].used)
			proc_clear(&u->t[i]);
	u->n = 0;
}

void umaps_free(struct umaps *u)
{
	if (!u)
		return;
	if (u->t)
		table_clear(u);
	free(u->t);
	buildid_cache_free(u->bids);
	free(u);
}

void umaps_counts(const struct umaps *u, struct umaps_counts *c)
{
	*c = u->c;
}

static struct uproc *slot(struct uproc *t, size_t cap, uint32_t pid)
{
	size_t i = (pid * 2654435761u) & (cap - 1);

	while (t[i].used && t[i].pid != pid)
		i = (i + 1) & (cap - 1);
	return &t[i];
}

/* the process's entry, new (zeroed, used) when absent; NULL: no memory */
static struct uproc *proc_get(struct umaps *u, uint32_t pid, bool *fresh)
{
	struct uproc *p;

	if (u->n >= MAX_PROCS)
		table_clear(u);   /* re-read later: a duplicate record at worst */
	if ((u->n + 1) * 2 > u->cap) {
		size_t ncap = u->cap * 2;
		struct uproc *nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return NULL;
		for (size_t i = 0; i < u->cap; i++)
			if (u->t[i].used)
				*slot(nt, ncap, u->t[i].pid) = u->t[i];
		free(u->t);
		u->t = nt;
		u->cap = ncap;
	}
	p = slot(u->t, u->cap, pid);
	*fresh = !p->used;
	if (!p->used) {
		p->used = true;
		p->pid = pid;
		u->n++;
		u->c.procs++;
	}
	return p;
}

static uint32_t exec_gen(const struct umaps *u, uint32_t pid)
{
	uint32_t g = 0;

	if (u->gen_fd >= 0 && bpf_map_lookup_elem(u->gen_fd, &pid, &g))
		g = 0;
	return g;
}

static bool grow(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 16;
	void *nv;

	if (need <= *cap)
		return true;
	while (ncap < need)
		ncap *= 2;
	nv = realloc(*v, ncap * elem);
	if (!nv)
		return false;
	*v = nv;
	*cap = ncap;
	return true;
}

static int add_string(struct maps_read *m, const char *s, uint32_t *off)
{
	size_t len = strlen(s) + 1;

	if (!grow((void **)&m->strs, &m->scap, m->slen + len, 1))
		return -1;
	memcpy(m->strs + m->slen, s, len);
	*off = (uint32_t)m->slen;
	m->slen += len;
	return 0;
}

/* the build-id of the mapping's file: through /proc/PID/map_files (the
 * file the process mapped, whatever its mount namespace), else the path
 * when it is the same file (device and inode of the maps line) */
static int map_build_id(struct umaps *u, uint32_t pid, const struct rs_umap *e, const char *path,
			dev_t dev, uint64_t ino)
{
	char mf[96];
	struct stat st;
	struct rs_umap *w = (struct rs_umap *)e;
	int n = 0;

	snprintf(mf, sizeof(mf), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64, pid, e->start, e->end);
	if (stat(mf, &st) == 0)
		n = buildid_cache_get(u->bids, mf, &st, w->build_id);
	else if (stat(path, &st) == 0 && st.st_dev == dev && st.st_ino == ino)
		n = buildid_cache_get(u->bids, path, &st, w->build_id);
	if (n <= 0)
		u->c.no_build_id++;
	w->build_id_len = n > 0 ? (uint8_t)n : 0;
	return 0;
}

/* one line of /proc/PID/maps: every mapping into all, executable ones
 * into maps (with the path and build-id) */
static int parse_line(struct umaps *u, uint32_t pid, char *line, struct maps_read *m)
{
	unsigned long long start, end, pgoff, ino;
	unsigned maj, min;
	char perms[8];
	int pos = 0;
	char *path, *nl;
	struct rs_umap *e;
	static const char deleted[] = " (deleted)";

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &maj, &min,
		   &ino, &pos) < 7 || !pos)
		return 0;   /* not a mapping line */
	path = line + pos;
	if ((nl = strchr(path, '\n')))
		*nl = '\0';
	if (!grow((void **)&m->all, &m->allcap, m->nall + 1, sizeof(*m->all)))
		return -1;
	m->all[m->nall++] = (struct urange){ start, end };
	if (!strchr(perms, 'x'))
		return 0;
	size_t plen = strlen(path), dlen = sizeof(deleted) - 1;

	if (plen > dlen && !strcmp(path + plen - dlen, deleted))
		path[plen - dlen] = '\0';
	if (!grow((void **)&m->maps, &m->mapcap, m->nmaps + 1, sizeof(*m->maps)))
		return -1;
	e = &m->maps[m->nmaps];
	memset(e, 0, sizeof(*e));
	e->start = start;
	e->end = end;
	e->pgoff = pgoff;
	if (add_string(m, path, &e->path_off))
		return -1;
	if (path[0] == '/')
		map_build_id(u, pid, e, path, makedev(maj, min), ino);
	m->nmaps++;
	return 0;
}

/* 0 read, -1 no memory, 1 the process is gone (or unreadable) */
static int read_maps(struct umaps *u, uint32_t pid, struct maps_read *m)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 1;
	u->c.reads++;
	while (!ret && getline(&line, &cap, f) > 0)
		ret = parse_line(u, pid, line, m);
	free(line);
	fclose(f);
	if (!ret && !m->nall)
		return 1;   /* an exited process's maps read empty */
	return ret;
}

static void maps_read_free(struct maps_read *m)
{
	free(m->all);
	free(m->maps);
	free(m->strs);
}

/* the record of M (NULL: no memory) */
static struct rs_rec_umaps *build_rec(uint32_t pid, const struct maps_read *m)
{
	size_t fixed = sizeof(struct rs_rec_umaps) + m->nmaps * sizeof(struct rs_umap);
	size_t size = RS_REC_ALIGN(fixed + m->slen);
	struct rs_rec_umaps *r = calloc(1, size);

	if (!r)
		return NULL;
	r->hdr.type = RS_REC_UMAPS;
	r->hdr.size = (uint32_t)size;
	r->ts = mono_ns();
	r->pid = pid;
	r->nmaps = (uint32_t)m->nmaps;
	r->strings_len = (uint32_t)m->slen;
	if (m->nmaps)
		memcpy(r->maps, m->maps, m->nmaps * sizeof(struct rs_umap));
	if (m->slen)
		memcpy((char *)r + fixed, m->strs, m->slen);
	return r;
}

/* the same mappings as the last record written (its timestamp aside) */
static bool same_rec(const struct rs_rec_umaps *a, const struct rs_rec_umaps *b)
{
	size_t off = offsetof(struct rs_rec_umaps, pid);

	return a && b && a->hdr.size == b->hdr.size &&
	       !memcmp((const char *)a + off, (const char *)b + off, a->hdr.size - off);
}

/* the process's new view: its ranges and the span of its libraries'
 * code (the files mapped above the lowest one, the program; dlopen maps
 * next to them) */
static void adopt(struct uproc *p, struct maps_read *m)
{
	const char *prog = NULL;

	free(p->all);
	p->all = m->all;
	p->nall = m->nall;
	m->all = NULL;
	free(p->code);
	p->code = malloc((m->nmaps ? m->nmaps : 1) * sizeof(*p->code));
	p->ncode = 0;
	p->code_lo = UINT64_MAX;
	p->code_hi = 0;
	for (size_t i = 0; p->code && i < m->nmaps; i++) {
		const struct rs_umap *e = &m->maps[i];
		const char *path = m->strs + e->path_off;

		p->code[p->ncode++] = (struct urange){ e->start, e->end };
		if (path[0] != '/')
			continue;
		if (!prog)
			prog = path;
		if (!strcmp(path, prog))
			continue;
		if (e->start < p->code_lo)
			p->code_lo = e->start;
		if (e->end > p->code_hi)
			p->code_hi = e->end;
	}
}

/* reads P's mappings and writes a record when they changed; 1 when
 * nothing changed (or the process is gone), 0 written, <0 error */
static int refresh(struct umaps *u, struct uproc *p, umaps_emit_fn emit, void *ctx)
{
	struct maps_read m = {};
	struct rs_rec_umaps *rec;
	int r = read_maps(u, p->pid, &m);

	if (r) {
		if (r > 0 && !p->rec && !p->gone) {
			p->gone = true;
			u->c.gone++;
		}
		maps_read_free(&m);
		return r > 0 ? 1 : -1;
	}
	rec = build_rec(p->pid, &m);
	adopt(p, &m);
	maps_read_free(&m);
	if (!rec)
		return -1;
	if (same_rec(rec, p->rec)) {
		free(rec);
		return 1;
	}
	free(p->rec);
	p->rec = rec;
	p->gone = false;
	u->c.records++;
	return emit(ctx, &rec->hdr, rec->hdr.size) < 0 ? -1 : 0;
}

static bool in_ranges(const struct urange *v, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (a < v[mid].start)
			hi = mid;
		else if (a >= v[mid].end)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* a stack word that may be a return address into code mapped after the
 * last read (dlopen): near the known code, outside every known mapping */
static bool stack_points_outside(const struct uproc *p, const struct rs_rec_ustack *us)
{
	uint64_t lo, w;

	if (!p->ncode || p->code_hi <= p->code_lo)
		return false;
	lo = p->code_lo > DLOPEN_REACH ? p->code_lo - DLOPEN_REACH : 0;
	for (uint32_t off = 0; off + 8 <= us->stack_len; off += 8) {
		memcpy(&w, us->stack + off, 8);
		if (w >= lo && w >= 0x10000 && w < p->code_hi && !in_ranges(p->all, p->nall, w))
			return true;
	}
	return false;
}

int umaps_on_ustack(struct umaps *u, const struct rs_rec_ustack *us, umaps_emit_fn emit,
		    void *ctx)
{
	bool fresh;
	struct uproc *p;
	uint32_t gen;
	uint64_t now;
	int r;

	if ((us->flags & RS_USTACKF_NO_USER) || !us->pid)
		return 0;
	p = proc_get(u, us->pid, &fresh);
	if (!p)
		return 0;
	gen = exec_gen(u, us->pid);
	if (!fresh && gen == p->gen && !p->gone) {
		now = mono_ns();
		if (now < p->quiet_until)
			return 0;
		if (in_ranges(p->code, p->ncode, us->regs[16]) && !stack_points_outside(p, us))
			return 0;
		r = refresh(u, p, emit, ctx);
		if (r == 1)   /* nothing new: the address is something else */
			p->quiet_until = now + QUIET_NS;
		return r < 0 ? r : 0;
	}
	if (p->gone && !fresh && gen == p->gen)
		return 0;
	p->gen = gen;
	r = refresh(u, p, emit, ctx);
	return r < 0 ? r : 0;
}

int umaps_on_pid(struct umaps *u, uint32_t pid, umaps_emit_fn emit, void *ctx)
{
	bool fresh;
	struct uproc *p;
	uint32_t gen;
	int r;

	if (!pid)
		return 0;
	p = proc_get(u, pid, &fresh);
	if (!p)
		return 0;
	gen = exec_gen(u, pid);
	if (!fresh && gen == p->gen)
		return 0;
	p->gen = gen;
	r = refresh(u, p, emit, ctx);
	return r < 0 ? r : 0;
}
