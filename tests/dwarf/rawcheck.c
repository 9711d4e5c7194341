/* rawcheck.c - differential test of the two compile-unit index producers:
 * for every unit of an ELF file's .debug_info, builds the index through
 * libdw (dwarf_idx_libdw.c) and through the raw reader (dwarf_idx_raw.c)
 * and requires byte-identical indexes. Units the raw reader declines are
 * counted; more than 2% of them fails the run (the fast path would be
 * silently lost). Built with the sanitizers, so it also runs the raw
 * reader over a whole real vmlinux under ASan/UBSan.
 * usage: rawcheck ELF   prints "dwarf-raw-vs-libdw: N passed, N failed" */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#include "../../symbols/dwarf_index.h"
#include "../../symbols/dwarf_raw.h"

static int memeq(const void *a, const void *b, size_t n)
{
	return !n || !memcmp(a, b, n);
}

static int same(const struct dwi_cu *a, const struct dwi_cu *b)
{
	return a->nivals == b->nivals && a->nscopes == b->nscopes && a->nlines == b->nlines &&
	       a->strs_len == b->strs_len &&
	       memeq(a->ivals, b->ivals, a->nivals * sizeof(*a->ivals)) &&
	       memeq(a->scopes, b->scopes, a->nscopes * sizeof(*a->scopes)) &&
	       memeq(a->lines, b->lines, a->nlines * sizeof(*a->lines)) &&
	       memeq(a->strs, b->strs, a->strs_len);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: rawcheck ELF\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	int fd = open(argv[1], O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Dwarf *dbg = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	struct dwarf_raw raw;
	if (!dbg || dwarf_raw_open(elf, &raw)) {
		printf("rawcheck: %s: cannot open DWARF raw and through libdw\n", argv[1]);
		printf("dwarf-raw-vs-libdw: 0 passed, 1 failed\n");
		return 1;
	}
	Dwarf_Off off = 0, next;
	size_t hsize;
	unsigned units = 0, ok = 0, bad = 0, declined = 0, both_fail = 0;
	while (dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die die;
		struct dwi_cu a, b;
		units++;
		int ra = dwarf_offdie(dbg, off + hsize, &die) ? dwarf_index_build(&die, &a) : -1;
		int rb = dwarf_index_build_raw(&raw, off, &b);
		if (rb == DRAW_UNSUPPORTED) {
			declined++;
		} else if (ra && rb) {
			both_fail++;
		} else if (ra || rb || !same(&a, &b)) {
			if (bad < 5)
				printf("  unit at 0x%llx: libdw %d raw %d, indexes differ "
				       "(ivals %u/%u scopes %u/%u lines %u/%u strs %u/%u)\n",
				       (unsigned long long)off, ra, rb, ra ? 0 : a.nivals, rb ? 0 : b.nivals,
				       ra ? 0 : a.nscopes, rb ? 0 : b.nscopes, ra ? 0 : a.nlines,
				       rb ? 0 : b.nlines, ra ? 0 : a.strs_len, rb ? 0 : b.strs_len);
			bad++;
		} else {
			ok++;
		}
		if (!ra)
			dwarf_index_free(&a);
		if (!rb)
			dwarf_index_free(&b);
		off = next;
	}
	printf("rawcheck: %u units: %u identical, %u differ, %u declined by the raw reader, "
	       "%u failed in both\n", units, ok, bad, declined, both_fail);
	int too_many_declined = units && declined * 50 > units;
	if (too_many_declined)
		printf("rawcheck: more than 2%% of the units fall back to libdw\n");
	int pass = units > 0 && !bad && !too_many_declined;
	printf("dwarf-raw-vs-libdw: %d passed, %d failed\n", pass, !pass);
	dwarf_end(dbg);
	elf_end(elf);
	close(fd);
	return pass ? 0 : 1;
}
