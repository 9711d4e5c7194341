/* dwarf_elf.c - GNU build-id and .symtab access for the DWARF symbolizer
 * (see dwarf_elf.h), on libelf / libdwelf. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include "dwarf_elf.h"

int elf_build_id(Elf *elf, uint8_t *buf, size_t bufsz)
{
	const void *id = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
	if (n <= 0 || !id)
		return 0;
	if ((size_t)n > bufsz)
		n = (ssize_t)bufsz;
	memcpy(buf, id, (size_t)n);
	return (int)n;
}

int elf_file_build_id(const char *path, uint8_t *buf, size_t bufsz)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int r = -1;
	if (elf && elf_kind(elf) == ELF_K_ELF)
		r = elf_build_id(elf, buf, bufsz);
	if (elf)
		elf_end(elf);
	close(fd);
	return r;
}

void dwarf_build_id_hex(const uint8_t *id, size_t len, char *out)
{
	static const char hx[] = "0123456789abcdef";
	for (size_t i = 0; i < len; i++) {
		out[2 * i] = hx[id[i] >> 4];
		out[2 * i + 1] = hx[id[i] & 15];
	}
	out[2 * len] = '\0';
}

static Elf_Scn *find_symtab(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, sh) && sh->sh_type == SHT_SYMTAB)
			return scn;
	}
	return NULL;
}

static int func_cmp(const void *pa, const void *pb)
{
	const struct elf_func *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	/* sized symbols win over size-0 aliases at the same address */
	if ((a->size != 0) != (b->size != 0))
		return a->size ? 1 : -1;
	/* then global over weak over local: lookups take the last one */
	if (a->bind != b->bind)
		return a->bind < b->bind ? -1 : 1;
	/* equal aliases: the later one in the symbol table, like llvm-symbolizer */
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

int elf_funcs_load(Elf *elf, struct elf_funcs *out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_symtab(elf, &sh);
	memset(out, 0, sizeof(*out));
	if (!scn)
		return 0;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !sh.sh_entsize)
		return 0;
	size_t n = sh.sh_size / sh.sh_entsize;
	out->v = malloc((n ? n : 1) * sizeof(*out->v));
	if (!out->v)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s))
			continue;
		int type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_NOTYPE) || s.st_shndx == SHN_UNDEF ||
		    s.st_shndx >= SHN_LORESERVE)
			continue;
		GElf_Shdr ssh;
		Elf_Scn *ss = elf_getscn(elf, s.st_shndx);
		if (!ss || !gelf_getshdr(ss, &ssh) || !(ssh.sh_flags & SHF_EXECINSTR))
			continue;
		const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		out->v[out->n++] = (struct elf_func){ s.st_value, s.st_size, name,
						      elf_funcs_bind_rank(GELF_ST_BIND(s.st_info)),
						      (uint32_t)i };
	}
	elf_funcs_sort(out);
	return 0;
}

int elf_funcs_bind_rank(int bind)
{
	return bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;
}

void elf_funcs_sort(struct elf_funcs *f)
{
	if (f->n)
		qsort(f->v, f->n, sizeof(*f->v), func_cmp);
}

void elf_funcs_free(struct elf_funcs *f)
{
	free(f->v);
	memset(f, 0, sizeof(*f));
}

const char *elf_funcs_lookup(const struct elf_funcs *f, uint64_t addr)
{
	size_t lo = 0, hi = f->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the nearest symbol at or below addr, like llvm-symbolizer: a label
	 * without size (assembly entry points) names everything after it */
	if (lo && (!f->v[lo - 1].size || addr < f->v[lo - 1].addr + f->v[lo - 1].size))
		return f->v[lo - 1].name;
	/* else walk back over same-address symbols and earlier sized ones */
	for (size_t i = lo; i > 0 && lo - i < 8; i--) {
		const struct elf_func *e = &f->v[i - 1];
		if (e->size ? addr < e->addr + e->size : addr == e->addr)
			return e->name;
	}
	return NULL;
}

int elf_symbol_addr(Elf *elf, const char *name, uint64_t *addr)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_symtab(elf, &sh);
	if (!scn)
		return -1;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !sh.sh_entsize)
		return -1;
	size_t n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
			continue;
		const char *nm = elf_strptr(elf, sh.sh_link, s.st_name);
		if (nm && !strcmp(nm, name)) {
			*addr = s.st_value;
			return 0;
		}
	}
	return -1;
}

int elf_section_extent(Elf *elf, const char *name, uint64_t *off, uint64_t *size)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(n, name))
			continue;
		if (sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED))
			return -1;
		*off = sh.sh_offset;
		*size = sh.sh_size;
		return 0;
	}
	return -1;
}
