/* dwarf_aranges.h - .debug_aranges parsed straight from the ELF section
 * (internal to the DWARF symbolizer): address ranges with the offset of
 * their compile unit's header in .debug_info. */
#ifndef RS_DWARF_ARANGES_H
#define RS_DWARF_ARANGES_H

#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

struct dwarf_arange {
	uint64_t lo, hi;
	uint64_t unit_off;   /* CU header offset in .debug_info */
};

/* All non-empty ranges, in section order (malloc'ed into *out). Returns 0,
 * or -1 when the section is absent, compressed or malformed (the caller
 * then derives CU ranges from the CU DIEs). */
int dwarf_aranges_read(Elf *elf, struct dwarf_arange **out, size_t *nout);

#endif
