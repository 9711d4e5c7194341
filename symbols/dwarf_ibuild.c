/* dwarf_ibuild.c - the compile-unit index builder (see dwarf_ibuild.h):
 * string pool, interning maps, line rows, scopes and the sweep that
 * flattens nested scope ranges into innermost-scope intervals. */
#include <stdlib.h>
#include <string.h>
#include "dwarf_ibuild.h"
#include "dwarf_path.h"
#include "../common/runsort.h"

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

void dwib_init(struct dwib *b, const char *comp_dir)
{
	memset(b, 0, sizeof(*b));
	b->comp_dir = comp_dir;
	dwib_str(b, "??"); /* offset 0 */
}

uint32_t dwib_str(struct dwib *b, const char *s)
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

uint32_t dwib_intern(struct dwib *b, const char *s, int path)
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

uint32_t *dwib_origin_slot(struct dwib *b, uint64_t die_off)
{
	return map_slot(b, &b->originmap, (uintptr_t)die_off + 1);
}

int dwib_line(struct dwib *b, uint64_t addr, uint32_t file, uint32_t line)
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

int dwib_range(struct dwib *b, uint64_t lo, uint64_t hi, uint32_t depth)
{
	if (grow((void **)&b->rngs, &b->rngs_cap, b->nrngs + 1, sizeof(*b->rngs))) {
		b->oom = 1;
		return -1;
	}
	b->rngs[b->nrngs++] = (struct dwib_rng){ lo, hi, b->nscopes, depth };
	return 0;
}

int dwib_scope(struct dwib *b, uint32_t name, int32_t parent, uint32_t call_file,
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

int dwib_finish(struct dwib *b, struct dwi_cu *out)
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

void dwib_free(struct dwib *b)
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
