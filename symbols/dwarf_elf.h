/* dwarf_elf.h - ELF-level helpers of the DWARF symbolizer (internal):
 * the GNU build-id note, the .symtab function table used as the name
 * fallback where DWARF has no function (assembly code), and where a
 * section's bytes lie in the file. */
#ifndef RS_DWARF_ELF_H
#define RS_DWARF_ELF_H

#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

struct elf_funcs {
	struct elf_func {
		uint64_t addr, size;
		const char *name;
		int bind;           /* elf_funcs_bind_rank */
		uint32_t idx;       /* symbol table index */
	} *v;
	size_t n;
};

/* build-id of an open ELF: length (0 none), copied into buf */
int elf_build_id(Elf *elf, uint8_t *buf, size_t bufsz);
/* loads STT_FUNC / STT_NOTYPE symbols of executable sections, sorted */
int elf_funcs_load(Elf *elf, struct elf_funcs *out);
void elf_funcs_free(struct elf_funcs *f);
/* sorts entries added by hand (module symbols) the way elf_funcs_load does;
 * bind is GELF_ST_BIND of the symbol */
void elf_funcs_sort(struct elf_funcs *f);
int elf_funcs_bind_rank(int bind);
/* the symbol covering addr (addr in [a, a+size), or == a when size 0) */
const char *elf_funcs_lookup(const struct elf_funcs *f, uint64_t addr);
/* value of any symbol by name; 0 ok, -1 absent */
int elf_symbol_addr(Elf *elf, const char *name, uint64_t *addr);
/* file offset and size of the named section when its bytes are stored as
 * is (not SHT_NOBITS, not compressed); 0 ok, -1 otherwise */
int elf_section_extent(Elf *elf, const char *name, uint64_t *off, uint64_t *size);

#endif
