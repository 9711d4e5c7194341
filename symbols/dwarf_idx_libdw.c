/* dwarf_idx_libdw.c - builds one compile unit's index (dwarf_index.h)
 * through libdw: the reference producer, used where the raw reader
 * (dwarf_idx_raw.c) declines a unit, and by tests comparing the two. */
#include <stdbool.h>
#include <string.h>
#include <dwarf.h>
#include "dwarf_index.h"
#include "dwarf_ibuild.h"

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

int dwarf_index_build(Dwarf_Die *cudie, struct dwi_cu *out)
{
	struct lctx c = { .files = NULL };
	Dwarf_Attribute a;

	dwib_init(&c.b, dwarf_attr(cudie, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL);
	if (dwarf_getsrcfiles(cudie, &c.files, &c.nfiles) != 0)
		c.files = NULL;
	if (build_lines(&c, cudie) || walk(&c, cudie, -1, 0)) {
		dwib_free(&c.b);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	return dwib_finish(&c.b, out);
}
