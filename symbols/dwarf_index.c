/* dwarf_index.c - address lookups on one compile unit's compact
 * symbolization index (function-scope intervals, scope tree, line rows,
 * strings; see dwarf_index.h), and freeing it. The index is built by
 * dwarf_index_build.c. */
#include <stdlib.h>
#include <string.h>
#include "dwarf_index.h"

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
