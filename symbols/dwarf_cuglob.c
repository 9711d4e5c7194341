/* dwarf_cuglob.c - record-time source-path globs (":kernel/bpf/ *.c"):
 * lists the out-of-line functions of every compile unit whose
 * kernel-relative name matches (see dwarf_sym.h). */
#include <string.h>
#include <dwarf.h>
#include "dwarf_sym.h"
#include "dwarf_sym_internal.h"
#include "dwarf_path.h"
#include "../common/glob.h"

static int cu_funcs(Dwarf_Die *cu, const char *rel, dwarf_cu_func_cb cb, void *ctx)
{
	Dwarf_Die child;
	if (dwarf_child(cu, &child) != 0)
		return 0;
	do {
		if (dwarf_tag(&child) != DW_TAG_subprogram)
			continue;
		Dwarf_Addr lo;
		if (dwarf_entrypc(&child, &lo) != 0 && dwarf_lowpc(&child, &lo) != 0)
			continue;
		Dwarf_Attribute a;
		const char *name = dwarf_attr_integrate(&child, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
		if (!name)
			continue;
		int r = cb(name, lo, rel, ctx);
		if (r)
			return r;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int dwarf_sym_cu_glob(struct dwarf_sym *ds, const char *glob, dwarf_cu_func_cb cb, void *ctx)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int matched = 0;

	if (dwarf_sym_dbg(ds))
		return -1;
	while (dwarf_nextcu(ds->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(ds->dbg, off + hsize, &cu)) {
			Dwarf_Attribute a;
			const char *name = dwarf_attr(&cu, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
			const char *cd = dwarf_attr(&cu, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
			char rel[4096];
			if (name) {
				dwarf_path_relative(name, cd, rel, sizeof(rel));
				if (glob_match(glob, rel)) {
					matched++;
					if (cu_funcs(&cu, rel, cb, ctx))
						return matched;
				}
			}
		}
		off = next;
	}
	return matched;
}
