/* dwarf_open.c - dwarf_sym_open (dwarf_sym.h): looks at the ELF type and
 * hands a linked file (vmlinux) to the core (dwarf_sym.c) and a module's
 * relocatable debug file to libdwfl (dwarf_module.c). Kept apart so that
 * the core and the module opener never call each other in a loop. */
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>
#include <gelf.h>
#include "dwarf_sym.h"
#include "dwarf_sym_internal.h"

/* an ELF relocatable file; false for anything unreadable, which the core
 * then explains */
static bool is_relocatable(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	GElf_Ehdr eh;
	bool rel = false;
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh))
		rel = eh.e_type == ET_REL;
	elf_end(elf);
	close(fd);
	return rel;
}

struct dwarf_sym *dwarf_sym_open(const char *path, unsigned flags, char *err, size_t errlen)
{
	if (is_relocatable(path))
		return dwarf_sym_open_module(path, NULL, NULL, 0, err, errlen);
	return dwarf_sym_open_linked(path, flags, err, errlen);
}
