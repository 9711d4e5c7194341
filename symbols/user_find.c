/* user_find.c - locates a user mapping's binary and debug file by GNU
 * build-id (see user_find.h), with the same build-id check and
 * debuginfod fallback (dwarf_find.c) as the kernel's files. */
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dwarf_sym.h"
#include "user_find.h"

#define BID_MAX 64

/* 1 same build-id, 0 other (other_hex filled, if non-NULL), -1 unreadable;
 * only regular files are opened (a recorded path may name a FIFO or a
 * device, whose open or read would block) */
static int same_build_id(const char *path, const uint8_t *bid, size_t len, char *other_hex)
{
	uint8_t got[BID_MAX];
	struct stat st;
	int n = stat(path, &st) || !S_ISREG(st.st_mode) || access(path, R_OK) ? -1 :
		elf_file_build_id(path, got, sizeof(got));

	if (n < 0)
		return -1;
	if ((size_t)n == len && !memcmp(got, bid, len))
		return 1;
	if (other_hex)
		dwarf_build_id_hex(got, (size_t)n, other_hex);
	return 0;
}

int user_elf_has_dwarf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int found = 0;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size &&
			    (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
			    !strcmp(name, ".debug_info"))
				found = 1;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

/* ROOT/usr/lib/debug/.build-id/xx/rest.debug with DWARF and this id */
static char *debug_by_id(const char *root, const uint8_t *bid, size_t len)
{
	char hex[2 * BID_MAX + 1], path[4096];

	dwarf_build_id_hex(bid, len, hex);
	snprintf(path, sizeof(path), "%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	if (same_build_id(path, bid, len, NULL) == 1 && user_elf_has_dwarf(path))
		return strdup(path);
	return NULL;
}

static char *find_dbg(const char *bin, const uint8_t *bid, size_t len, const char *symfs)
{
	const char *env = getenv("RETSNOOP_DEBUG_ROOT");
	const char *roots[3] = { env && *env ? env : NULL, symfs, "" };
	char *p;

	if (bin && user_elf_has_dwarf(bin))
		return strdup(bin);
	for (int i = 0; i < 3; i++)
		if (roots[i] && (p = debug_by_id(roots[i], bid, len)))
			return p;
	return dwarf_debuginfod_fetch(bid, len, NULL, 0);
}

int user_find_files(const char *path, const uint8_t *build_id, size_t len, const char *symfs,
		    struct user_files *out)
{
	char cand[4096], other[2 * BID_MAX + 1] = "", want[2 * BID_MAX + 1];
	const char *mismatch = NULL;

	memset(out, 0, sizeof(*out));
	if (!len || len > BID_MAX) {
		snprintf(out->why, sizeof(out->why), "%s: no build-id recorded", path);
		return -1;
	}
	dwarf_build_id_hex(build_id, len, want);
	for (int i = symfs ? 0 : 1; i < 2 && !out->bin; i++) {
		int r;

		snprintf(cand, sizeof(cand), "%s%s", i == 0 ? symfs : "", path);
		r = path[0] == '/' ? same_build_id(cand, build_id, len, mismatch ? NULL : other) : -1;
		if (r == 1)
			out->bin = strdup(cand);
		else if (r == 0 && !mismatch)
			mismatch = i == 0 ? "--symfs copy" : "file";
	}
	out->dbg = find_dbg(out->bin, build_id, len, symfs);
	if (out->bin)
		return 0;
	if (mismatch)
		snprintf(out->why, sizeof(out->why), "%s: the %s has build-id %s, the recording's %s",
			 path, mismatch, other[0] ? other : "(none)", want);
	else
		snprintf(out->why, sizeof(out->why), "%s: not found (build-id %s)", path, want);
	return -1;
}

void user_files_free(struct user_files *f)
{
	free(f->bin);
	free(f->dbg);
	f->bin = f->dbg = NULL;
}
