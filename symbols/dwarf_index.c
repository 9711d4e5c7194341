/* dwarf_index.c - builds one compile unit's compact symbolization index
 * (function-scope intervals, scope tree, line rows, strings) with libdw,
 * and answers address lookups on it (see dwarf_index.h). */
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include "dwarf_index.h"
#include "dwarf_path.h"

/* ---------------------------------------------------------- growable -- */
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

/* ------------------------------------------------ string pool + maps -- */
struct ptrmap {
	uintptr_t *k;     /* 0 = empty slot */
	uint32_t *v;
	uint32_t cap, n;
	int *oom;
};

struct builder {
	char *strs;
	uint32_t strs_len, strs_cap;
	/* content hash set of pool offsets */
	uint32_t *sh;
	uint32_t sh_cap, sh_n;
	/* libdw string pointer (+kind) -> pool offset; libdw strings are
	 * stable for the Dwarf handle's life */
	struct ptrmap strmap;
	/* abstract origin DIE offset + 1 -> pool offset of its name */
	struct ptrmap originmap;
	const char *comp_dir;

	struct rng { uint64_t lo, hi; uint32_t scope, depth; } *rngs;
	uint32_t nrngs, rngs_cap;
	struct dwi_scope *scopes;
	uint32_t nscopes, scopes_cap;
	struct dwi_ival *ivals;
	uint32_t nivals, ivals_cap;
	struct dwi_line *lines;
	uint32_t nlines, lines_cap;
	Dwarf_Files *files;
	size_t nfiles;
	int oom;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static uint32_t pool_add(struct builder *b, const char *s)
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
static uint32_t *ptrmap_slot(struct ptrmap *m, uintptr_t key)
{
	if (m->n * 2 >= m->cap) {
		uint32_t nc = m->cap ? m->cap * 2 : 256;
		uintptr_t *nk = calloc(nc, sizeof(*nk));
		uint32_t *nv = malloc(nc * sizeof(*nv));
		if (!nk || !nv) {
			free(nk);
			free(nv);
			*m->oom = 1;
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

static void ptrmap_free(struct ptrmap *m)
{
	free(m->k);
	free(m->v);
}

static uint32_t intern_ptr(struct builder *b, const char *p, int kind)
{
	if (!p)
		return DWI_NONE;
	uint32_t *slot = ptrmap_slot(&b->strmap, (uintptr_t)p * 2 + (uintptr_t)kind);
	if (!slot)
		return DWI_NONE;
	if (*slot != DWI_NONE)
		return *slot;
	if (kind == 1) {
		char rel[4096];
		dwarf_path_relative(p, b->comp_dir, rel, sizeof(rel));
		*slot = pool_add(b, rel);
	} else {
		*slot = pool_add(b, p);
	}
	return *slot;
}

/* ------------------------------------------------------------- lines -- */
static int build_lines(struct builder *b, Dwarf_Die *cudie)
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
			file = intern_ptr(b, dwarf_linesrc(pick, NULL, NULL), 1);
			if (file == DWI_NONE)
				file = pool_add(b, "??");
			line = ln > 0 ? (uint32_t)ln : 0;
		} else if (!endrow) {
			continue;
		}
		if (b->nlines) {
			struct dwi_line *prev = &b->lines[b->nlines - 1];
			if (prev->file == file && prev->line == line)
				continue;
		}
		if (grow((void **)&b->lines, &b->lines_cap, b->nlines + 1, sizeof(*b->lines)))
			return -1;
		b->lines[b->nlines++] = (struct dwi_line){ .addr = a, .file = file, .line = line };
	}
	return 0;
}

/* ------------------------------------------------------------ scopes -- */
/* function name of a scope DIE, through DW_AT_abstract_origin /
 * DW_AT_specification; names are memoized per origin DIE */
static uint32_t scope_name(struct builder *b, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die origin;
	const char *s;

	if (dwarf_attr(die, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &origin)) {
		uint32_t *slot = ptrmap_slot(&b->originmap, (uintptr_t)dwarf_dieoffset(&origin) + 1);
		if (!slot)
			return DWI_NONE;
		if (*slot != DWI_NONE)
			return *slot;
		s = dwarf_attr_integrate(&origin, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
		*slot = s ? intern_ptr(b, s, 0) : DWI_NONE;
		return *slot;
	}
	s = dwarf_attr_integrate(die, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
	return s ? intern_ptr(b, s, 0) : DWI_NONE;
}

static int add_scope(struct builder *b, Dwarf_Die *die, int32_t parent, uint32_t depth, bool inl)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	uint32_t idx = b->nscopes;
	int nr = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (grow((void **)&b->rngs, &b->rngs_cap, b->nrngs + 1, sizeof(*b->rngs)))
			return -2;
		b->rngs[b->nrngs++] = (struct rng){ lo, hi, idx, depth };
		nr++;
	}
	if (!nr)
		return -1;
	if (grow((void **)&b->scopes, &b->scopes_cap, b->nscopes + 1, sizeof(*b->scopes)))
		return -2;
	struct dwi_scope *s = &b->scopes[b->nscopes++];
	s->name = scope_name(b, die);
	if (s->name == DWI_NONE)
		s->name = pool_add(b, "??");
	s->parent = parent;
	s->call_file = DWI_NONE;
	s->call_line = 0;
	if (inl) {
		Dwarf_Attribute a;
		Dwarf_Word w;
		if (dwarf_attr(die, DW_AT_call_line, &a) && !dwarf_formudata(&a, &w))
			s->call_line = (uint32_t)w;
		if (b->files && dwarf_attr(die, DW_AT_call_file, &a) && !dwarf_formudata(&a, &w) &&
		    w < b->nfiles)
			s->call_file = intern_ptr(b, dwarf_filesrc(b->files, w, NULL, NULL), 1);
	}
	return (int)idx;
}

static int walk(struct builder *b, Dwarf_Die *parent_die, int32_t scope, uint32_t depth)
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
			r = add_scope(b, &child, scope, depth, tag == DW_TAG_inlined_subroutine);
			if (r == -2)
				return -1;
			if (r >= 0 && dwarf_haschildren(&child) && walk(b, &child, r, depth + 1))
				return -1;
			break;
		case DW_TAG_lexical_block:
			if (scope >= 0 && dwarf_haschildren(&child) && walk(b, &child, scope, depth + 1))
				return -1;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int rng_cmp(const void *pa, const void *pb)
{
	const struct rng *a = pa, *b = pb;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi > b->hi ? -1 : 1;
	return a->scope < b->scope ? -1 : a->scope > b->scope;
}

static int emit(struct builder *b, uint64_t start, uint32_t scope)
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
static int sweep(struct builder *b)
{
	qsort(b->rngs, b->nrngs, sizeof(*b->rngs), rng_cmp);
	struct rng *stack = malloc((b->nrngs + 1) * sizeof(*stack));
	uint32_t sp = 0;
	if (!stack)
		return -1;
	for (uint32_t i = 0; i < b->nrngs; i++) {
		struct rng r = b->rngs[i];
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

int dwarf_index_build(Dwarf_Die *cudie, struct dwi_cu *out)
{
	struct builder b;
	Dwarf_Attribute a;
	int ret = -1;

	memset(&b, 0, sizeof(b));
	memset(out, 0, sizeof(*out));
	b.strmap.oom = &b.oom;
	b.originmap.oom = &b.oom;
	b.comp_dir = dwarf_attr(cudie, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
	if (dwarf_getsrcfiles(cudie, &b.files, &b.nfiles) != 0)
		b.files = NULL;
	pool_add(&b, "??"); /* offset 0 */
	if (build_lines(&b, cudie) || walk(&b, cudie, -1, 0) || sweep(&b) || b.oom)
		goto out;
	out->ivals = b.ivals;
	out->scopes = b.scopes;
	out->lines = b.lines;
	out->strs = b.strs;
	out->nivals = b.nivals;
	out->nscopes = b.nscopes;
	out->nlines = b.nlines;
	out->strs_len = b.strs_len;
	out->owned = 1;
	b.ivals = NULL;
	b.scopes = NULL;
	b.lines = NULL;
	b.strs = NULL;
	ret = 0;
out:
	free(b.ivals);
	free(b.scopes);
	free(b.lines);
	free(b.strs);
	free(b.sh);
	ptrmap_free(&b.strmap);
	ptrmap_free(&b.originmap);
	free(b.rngs);
	return ret;
}

void dwarf_index_free(struct dwi_cu *cu)
{
	if (cu->owned) {
		free(cu->ivals);
		free(cu->scopes);
		free(cu->lines);
		free(cu->strs);
	}
	memset(cu, 0, sizeof(*cu));
}

/* ------------------------------------------------------------ lookup -- */
static const char *str_at(const struct dwi_cu *cu, uint32_t off)
{
	if (off == DWI_NONE || off >= cu->strs_len)
		return "??";
	return cu->strs + off;
}

int dwarf_index_lookup(const struct dwi_cu *cu, uint64_t addr, struct sym_frame *frames,
		       int max_frames, int *has_func)
{
	const char *file = "??";
	int line = 0;
	uint32_t scope = DWI_NONE;

	*has_func = 0;
	if (max_frames <= 0)
		return 0;
	/* last line row <= addr */
	uint32_t lo = 0, hi = cu->nlines;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (cu->lines[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && cu->lines[lo - 1].file != DWI_NONE) {
		file = str_at(cu, cu->lines[lo - 1].file);
		line = (int)cu->lines[lo - 1].line;
	}
	lo = 0;
	hi = cu->nivals;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (cu->ivals[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo)
		scope = cu->ivals[lo - 1].scope;
	if (scope >= cu->nscopes) {
		frames[0] = (struct sym_frame){ "??", file, line, 0 };
		return 1;
	}
	*has_func = 1;
	int n = 0;
	for (int guard = 0; scope < cu->nscopes && n < max_frames && guard < 256; guard++) {
		const struct dwi_scope *s = &cu->scopes[scope];
		frames[n++] = (struct sym_frame){ str_at(cu, s->name), file, line, s->parent >= 0 };
		if (s->parent < 0)
			break;
		file = str_at(cu, s->call_file);
		line = (int)s->call_line;
		scope = (uint32_t)s->parent;
	}
	return n;
}
