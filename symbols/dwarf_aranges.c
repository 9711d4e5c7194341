/* dwarf_aranges.c - reads .debug_aranges directly from the mapped ELF
 * section into (address range -> compile unit header offset) pairs.
 * libdw's dwarf_getaranges opens every CU header in .debug_info to turn
 * offsets into DIEs, which on a vmlinux faults in ~120 MB of the file
 * before the first lookup; here a CU is only touched when an address in it
 * is looked up (see dwarf_aranges.h). The section is a flat table of
 * (address, length) tuples per CU; it is the only DWARF the symbolizer
 * decodes itself - DIEs, line tables and ranges all go through libdw. */
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include "dwarf_aranges.h"

/* n-byte unsigned integer in the file's byte order */
static uint64_t rd(const uint8_t *p, int n, int le)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++) {
		int k = le ? n - 1 - i : i;
		v = (v << 8) | p[k];
	}
	return v;
}

static Elf_Data *section_data(Elf *elf, const char *want)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, want))
			continue;
		if (sh.sh_flags & SHF_COMPRESSED)
			return NULL; /* the caller falls back to libdw */
		return elf_getdata(scn, NULL);
	}
	return NULL;
}

int dwarf_aranges_read(Elf *elf, struct dwarf_arange **out, size_t *nout)
{
	GElf_Ehdr eh;
	Elf_Data *d;
	struct dwarf_arange *v = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	/* relocatable files (modules) need their relocations applied first */
	if (!gelf_getehdr(elf, &eh) || eh.e_type == ET_REL ||
	    !(d = section_data(elf, ".debug_aranges")) || !d->d_buf)
		return -1;
	int le = eh.e_ident[EI_DATA] == ELFDATA2LSB;
	const uint8_t *base = d->d_buf, *p = base, *end = base + d->d_size;

	while (end - p >= 4) {
		const uint8_t *set = p;
		uint64_t len = rd(p, 4, le);
		int offsz = 4;
		p += 4;
		if (len == 0xffffffffu) {
			if (end - p < 8)
				goto bad;
			len = rd(p, 8, le);
			offsz = 8;
			p += 8;
		} else if (len >= 0xfffffff0u) {
			goto bad;
		}
		if (len > (uint64_t)(end - p))
			goto bad;
		const uint8_t *next = p + len;
		if (next - p < 2 + offsz + 2)
			goto bad;
		unsigned ver = (unsigned)rd(p, 2, le);
		p += 2;
		uint64_t cu_off = rd(p, offsz, le);
		p += offsz;
		int asz = p[0], segsz = p[1];
		p += 2;
		if (ver != 2 || (asz != 4 && asz != 8) || segsz != 0)
			goto bad;
		/* tuples start at a multiple of their size from the set start */
		size_t tup = 2 * (size_t)asz;
		size_t hdr = (size_t)(p - set);
		p = set + (hdr + tup - 1) / tup * tup;
		for (; next - p >= (ptrdiff_t)tup; p += tup) {
			uint64_t a = rd(p, asz, le), l = rd(p + asz, asz, le);
			if (!a && !l)
				break;
			if (!l)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 4096;
				void *nv = realloc(v, cap * sizeof(*v));
				if (!nv)
					goto bad;
				v = nv;
			}
			v[n++] = (struct dwarf_arange){ a, a + l, cu_off };
		}
		p = next;
	}
	*out = v;
	*nout = n;
	return 0;
bad:
	free(v);
	return -1;
}
