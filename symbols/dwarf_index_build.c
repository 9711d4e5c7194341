/* dwarf_index_build.c - builds one compile unit's index (dwarf_index.h)
 * through libdw: the line table and the subprogram / inlined-subroutine /
 * lexical-block DIEs of the unit are read once; names and kernel-relative
 * paths are interned into a de-duplicated string pool (memoized by the
 * libdw string pointer and by abstract-origin DIE), and the nested scope
 * ranges are flattened into innermost-scope intervals. The result owns
 * its memory: it outlives the Dwarf handle it was read from. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include "dwarf_index.h"
#include "dwarf_path.h"
#include "../common/runsort.h"

/* ------------------------------------------------------------ builder -- */
struct dwib_map {
	uintptr_t *k;     /* 0 = empty slot */
	uint32_t *v;
	uint32_t cap, n;
};

/* an address range of scope, at DIE nesting depth */
struct dwib_rng {
	uint64_t lo, hi;
	uint32_t scope, depth;
};

/* the index under construction */
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

static void dwib_free(struct dwib *b);

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elsz)
{
	if (need <= *cap)
		return 0;
	uint32_t nc = *cap ? *cap : 64;
	while (nc < need)
		nc *= 2;
	void *np = realloc(*p, (size_t)nc * elsz);
	if (!np)
		return -1;
	*p = np;
	*cap = nc;
	return 0;
}

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* pool offset of s (added once); DWI_NONE on OOM */
static uint32_t dwib_str(struct dwib *b, const char *s)
{
	size_t n = strlen(s);
	if (b->sh_n * 2 >= b->sh_cap) {
		uint32_t nc = b->sh_cap ? b->sh_cap * 2 : 256;
		uint32_t *nh = malloc(nc * sizeof(*nh));
		if (!nh) {
			b->oom = 1;
			return DWI_NONE;
		}
		memset(nh, 0xff, nc * sizeof(*nh));
		for (uint32_t i = 0; i < b->sh_cap; i++) {
			uint32_t o = b->sh[i];
			if (o == DWI_NONE)
				continue;
			const char *t = b->strs + o;
			uint32_t j = (uint32_t)hash_bytes(t, strlen(t)) & (nc - 1);
			while (nh[j] != DWI_NONE)
				j = (j + 1) & (nc - 1);
			nh[j] = o;
		}
		free(b->sh);
		b->sh = nh;
		b->sh_cap = nc;
	}
	uint32_t j = (uint32_t)hash_bytes(s, n) & (b->sh_cap - 1);
	while (b->sh[j] != DWI_NONE) {
		const char *t = b->strs + b->sh[j];
		if (!strcmp(t, s))
			return b->sh[j];
		j = (j + 1) & (b->sh_cap - 1);
	}
	if (grow((void **)&b->strs, &b->strs_cap, b->strs_len + (uint32_t)n + 1, 1)) {
		b->oom = 1;
		return DWI_NONE;
	}
	uint32_t off = b->strs_len;
	memcpy(b->strs + off, s, n + 1);
	b->strs_len += (uint32_t)n + 1;
	b->sh[j] = off;
	b->sh_n++;
	return off;
}

/* the pool starts with "??" at offset 0 */
static void dwib_init(struct dwib *b, const char *comp_dir)
{
	memset(b, 0, sizeof(*b));
	b->comp_dir = comp_dir;
	dwib_str(b, "??"); /* offset 0 */
}

/* slot of key (non-zero) in the map, created holding DWI_NONE; NULL on OOM */
static uint32_t *map_slot(struct dwib *b, struct dwib_map *m, uintptr_t key)
{
	if (m->n * 2 >= m->cap) {
		uint32_t nc = m->cap ? m->cap * 2 : 256;
		uintptr_t *nk = calloc(nc, sizeof(*nk));
		uint32_t *nv = malloc(nc * sizeof(*nv));
		if (!nk || !nv) {
			free(nk);
			free(nv);
			b->oom = 1;
			return NULL;
		}
		for (uint32_t i = 0; i < m->cap; i++) {
			if (!m->k[i])
				continue;
			uint32_t j = (uint32_t)((m->k[i] * 0x9E3779B97F4A7C15ULL) >> 32) & (nc - 1);
			while (nk[j])
				j = (j + 1) & (nc - 1);
			nk[j] = m->k[i];
			nv[j] = m->v[i];
		}
		free(m->k);
		free(m->v);
		m->k = nk;
		m->v = nv;
		m->cap = nc;
	}
	uint32_t j = (uint32_t)((key * 0x9E3779B97F4A7C15ULL) >> 32) & (m->cap - 1);
	while (m->k[j]) {
		if (m->k[j] == key)
			return &m->v[j];
		j = (j + 1) & (m->cap - 1);
	}
	m->k[j] = key;
	m->v[j] = DWI_NONE;
	m->n++;
	return &m->v[j];
}

/* pool offset of a string that stays valid while building, memoized by
 * its address; path != 0 stores it kernel-relative (dwarf_path.h).
 * NULL gives DWI_NONE. */
static uint32_t dwib_intern(struct dwib *b, const char *s, int path)
{
	if (!s)
		return DWI_NONE;
	uint32_t *slot = map_slot(b, &b->strmap, (uintptr_t)s * 2 + (path ? 1 : 0));
	if (!slot)
		return DWI_NONE;
	if (*slot != DWI_NONE)
		return *slot;
	if (path) {
		char rel[4096];
		dwarf_path_relative(s, b->comp_dir, rel, sizeof(rel));
		*slot = dwib_str(b, rel);
	} else {
		*slot = dwib_str(b, s);
	}
	return *slot;
}

/* memo slot for the name of the origin DIE at this .debug_info offset
 * (DWI_NONE until set); NULL on OOM */
static uint32_t *dwib_origin_slot(struct dwib *b, uint64_t die_off)
{
	return map_slot(b, &b->originmap, (uintptr_t)die_off + 1);
}

/* Line table, fed in address order: one call per distinct address with
 * the row picked there (file DWI_NONE: only an end-of-sequence row).
 * Drops rows repeating the previous file:line. 0, -1 OOM. */
static int dwib_line(struct dwib *b, uint64_t addr, uint32_t file, uint32_t line)
{
	if (b->nlines) {
		struct dwi_line *prev = &b->lines[b->nlines - 1];
		if (prev->file == file && prev->line == line)
			return 0;
	}
	if (grow((void **)&b->lines, &b->lines_cap, b->nlines + 1, sizeof(*b->lines))) {
		b->oom = 1;
		return -1;
	}
	b->lines[b->nlines++] = (struct dwi_line){ .addr = addr, .file = file, .line = line };
	return 0;
}

/* an address range of the scope that the next dwib_scope call creates */
static int dwib_range(struct dwib *b, uint64_t lo, uint64_t hi, uint32_t depth)
{
	if (grow((void **)&b->rngs, &b->rngs_cap, b->nrngs + 1, sizeof(*b->rngs))) {
		b->oom = 1;
		return -1;
	}
	b->rngs[b->nrngs++] = (struct dwib_rng){ lo, hi, b->nscopes, depth };
	return 0;
}

/* creates the scope owning the ranges added since the previous one;
 * returns its index, -1 on OOM */
static int dwib_scope(struct dwib *b, uint32_t name, int32_t parent, uint32_t call_file,
	       uint32_t call_line)
{
	if (grow((void **)&b->scopes, &b->scopes_cap, b->nscopes + 1, sizeof(*b->scopes))) {
		b->oom = 1;
		return -1;
	}
	b->scopes[b->nscopes] = (struct dwi_scope){ name, call_file, call_line, parent };
	return (int)b->nscopes++;
}

static int rng_cmp(const void *pa, const void *pb)
{
	const struct dwib_rng *a = pa, *b = pb;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi > b->hi ? -1 : 1;
	return a->scope < b->scope ? -1 : a->scope > b->scope;
}

static int emit(struct dwib *b, uint64_t start, uint32_t scope)
{
	if (b->nivals) {
		struct dwi_ival *last = &b->ivals[b->nivals - 1];
		if (last->start == start) {
			last->scope = scope;
			if (b->nivals > 1 && b->ivals[b->nivals - 2].scope == scope)
				b->nivals--;
			return 0;
		}
		if (last->scope == scope)
			return 0;
	}
	if (grow((void **)&b->ivals, &b->ivals_cap, b->nivals + 1, sizeof(*b->ivals)))
		return -1;
	b->ivals[b->nivals++] = (struct dwi_ival){ .start = start, .scope = scope };
	return 0;
}

/* flatten nested ranges into innermost-scope intervals */
static int sweep(struct dwib *b)
{
	if (runsort(b->rngs, b->nrngs, sizeof(*b->rngs), rng_cmp))
		return -1;
	struct dwib_rng *stack = malloc((b->nrngs + 1) * sizeof(*stack));
	uint32_t sp = 0;
	if (!stack)
		return -1;
	for (uint32_t i = 0; i < b->nrngs; i++) {
		struct dwib_rng r = b->rngs[i];
		while (sp && stack[sp - 1].hi <= r.lo) {
			uint64_t pos = stack[--sp].hi;
			if (emit(b, pos, sp ? stack[sp - 1].scope : DWI_NONE))
				goto oom;
		}
		if (sp && r.hi > stack[sp - 1].hi)
			r.hi = stack[sp - 1].hi;
		if (r.hi <= r.lo)
			continue;
		stack[sp++] = r;
		if (emit(b, r.lo, r.scope))
			goto oom;
	}
	while (sp) {
		uint64_t pos = stack[--sp].hi;
		if (emit(b, pos, sp ? stack[sp - 1].scope : DWI_NONE))
			goto oom;
	}
	free(stack);
	return 0;
oom:
	free(stack);
	return -1;
}

/* flattens the ranges and hands the arrays to out; 0, or -1 on OOM; the
 * builder is freed either way */
static int dwib_finish(struct dwib *b, struct dwi_cu *out)
{
	int ret = -1;
	memset(out, 0, sizeof(*out));
	if (!b->oom && !sweep(b)) {
		out->ivals = b->ivals;
		out->scopes = b->scopes;
		out->lines = b->lines;
		out->strs = b->strs;
		out->nivals = b->nivals;
		out->nscopes = b->nscopes;
		out->nlines = b->nlines;
		out->strs_len = b->strs_len;
		out->owned = 1;
		b->ivals = NULL;
		b->scopes = NULL;
		b->lines = NULL;
		b->strs = NULL;
		ret = 0;
	}
	dwib_free(b);
	return ret;
}

static void dwib_free(struct dwib *b)
{
	free(b->ivals);
	free(b->scopes);
	free(b->lines);
	free(b->strs);
	free(b->sh);
	free(b->strmap.k);
	free(b->strmap.v);
	free(b->originmap.k);
	free(b->originmap.v);
	free(b->rngs);
	memset(b, 0, sizeof(*b));
}

/* ------------------------------------------------------- libdw walk -- */
struct lctx {
	struct dwib b;
	Dwarf_Files *files;
	size_t nfiles;
};

static int build_lines(struct lctx *c, Dwarf_Die *cudie)
{
	Dwarf_Lines *lines;
	size_t n;

	if (dwarf_getsrclines(cudie, &lines, &n) != 0)
		return 0; /* a CU without a line table is not an error */
	for (size_t i = 0; i < n; ) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		if (!l || dwarf_lineaddr(l, &a)) {
			i++;
			continue;
		}
		/* among the rows at this address keep the last non-end row */
		Dwarf_Line *pick = NULL, *endrow = NULL;
		size_t k = i;
		for (; k < n; k++) {
			Dwarf_Line *m = dwarf_onesrcline(lines, k);
			Dwarf_Addr ma;
			if (!m || dwarf_lineaddr(m, &ma) || ma != a)
				break;
			bool end = false;
			dwarf_lineendsequence(m, &end);
			if (end)
				endrow = m;
			else
				pick = m;
		}
		i = k;
		uint32_t file = DWI_NONE, line = 0;
		if (pick) {
			int ln = 0;
			dwarf_lineno(pick, &ln);
			file = dwib_intern(&c->b, dwarf_linesrc(pick, NULL, NULL), 1);
			if (file == DWI_NONE)
				file = dwib_str(&c->b, "??");
			line = ln > 0 ? (uint32_t)ln : 0;
		} else if (!endrow) {
			continue;
		}
		if (dwib_line(&c->b, a, file, line))
			return -1;
	}
	return 0;
}

/* function name of a scope DIE, through DW_AT_abstract_origin /
 * DW_AT_specification; names are memoized per origin DIE */
static uint32_t scope_name(struct lctx *c, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die origin;
	const char *s;

	if (dwarf_attr(die, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &origin)) {
		uint32_t *slot = dwib_origin_slot(&c->b, dwarf_dieoffset(&origin));
		if (!slot)
			return DWI_NONE;
		if (*slot != DWI_NONE)
			return *slot;
		s = dwarf_attr_integrate(&origin, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
		*slot = s ? dwib_intern(&c->b, s, 0) : DWI_NONE;
		return *slot;
	}
	s = dwarf_attr_integrate(die, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
	return s ? dwib_intern(&c->b, s, 0) : DWI_NONE;
}

/* scope index, -1 when the DIE has no code, -2 on OOM */
static int add_scope(struct lctx *c, Dwarf_Die *die, int32_t parent, uint32_t depth, bool inl)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int nr = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (dwib_range(&c->b, lo, hi, depth))
			return -2;
		nr++;
	}
	if (!nr)
		return -1;
	uint32_t name = scope_name(c, die);
	if (name == DWI_NONE)
		name = dwib_str(&c->b, "??");
	uint32_t call_file = DWI_NONE, call_line = 0;
	if (inl) {
		Dwarf_Attribute a;
		Dwarf_Word w;
		if (dwarf_attr(die, DW_AT_call_line, &a) && !dwarf_formudata(&a, &w))
			call_line = (uint32_t)w;
		if (c->files && dwarf_attr(die, DW_AT_call_file, &a) && !dwarf_formudata(&a, &w) &&
		    w < c->nfiles)
			call_file = dwib_intern(&c->b, dwarf_filesrc(c->files, w, NULL, NULL), 1);
	}
	int idx = dwib_scope(&c->b, name, parent, call_file, call_line);
	return idx < 0 ? -2 : idx;
}

static int walk(struct lctx *c, Dwarf_Die *parent_die, int32_t scope, uint32_t depth)
{
	Dwarf_Die child;
	if (depth > 200 || dwarf_child(parent_die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		int r;
		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
			r = add_scope(c, &child, scope, depth, tag == DW_TAG_inlined_subroutine);
			if (r == -2)
				return -1;
			if (r >= 0 && dwarf_haschildren(&child) && walk(c, &child, r, depth + 1))
				return -1;
			break;
		case DW_TAG_lexical_block:
			if (scope >= 0 && dwarf_haschildren(&child) && walk(c, &child, scope, depth + 1))
				return -1;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int dwarf_index_build(Dwarf *dbg, uint64_t unit_off, struct dwi_cu *out)
{
	struct lctx c = { .files = NULL };
	Dwarf_Attribute a;
	Dwarf_Die cudie;
	Dwarf_Off next;
	size_t hsize;

	memset(out, 0, sizeof(*out));
	if (dwarf_nextcu(dbg, unit_off, &next, &hsize, NULL, NULL, NULL) != 0 ||
	    !dwarf_offdie(dbg, unit_off + hsize, &cudie))
		return -1;
	dwib_init(&c.b, dwarf_attr(&cudie, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL);
	if (dwarf_getsrcfiles(&cudie, &c.files, &c.nfiles) != 0)
		c.files = NULL;
	if (build_lines(&c, &cudie) || walk(&c, &cudie, -1, 0)) {
		dwib_free(&c.b);
		return -1;
	}
	return dwib_finish(&c.b, out);
}
