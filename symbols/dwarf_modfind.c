/* dwarf_modfind.c - finds a kernel module's debug file (see dwarf_sym.h):
 * one walk of the standard module trees of the recorded release (under
 * $RETSNOOP_DEBUG_ROOT first, then /) lists the candidate files by module
 * name; a candidate is used when it has DWARF and its GNU build-id is the
 * one the recording has for the module; else libdebuginfod by build-id. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gelf.h>
#include "dwarf_sym.h"

#define MAX_DEPTH 8

struct cand {
	char *name;       /* module name, '-' as '_' */
	char *path;
};

struct dwarf_modfind {
	char *release;
	bool walked;
	struct cand *v;
	size_t n, cap;
};

static void norm_name(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

/* "name.ko" or "name.ko.debug" -> malloc'ed normalized "name", else NULL */
static char *module_name_of(const char *file)
{
	size_t l = strlen(file), cut;
	if (l > 3 && !strcmp(file + l - 3, ".ko"))
		cut = l - 3;
	else if (l > 9 && !strcmp(file + l - 9, ".ko.debug"))
		cut = l - 9;
	else
		return NULL;
	char *s = strndup(file, cut);
	if (s)
		norm_name(s);
	return s;
}

static void add_cand(struct dwarf_modfind *mf, char *name, const char *path)
{
	if (mf->n == mf->cap) {
		size_t nc = mf->cap ? mf->cap * 2 : 256;
		struct cand *nv = realloc(mf->v, nc * sizeof(*nv));
		if (!nv) {
			free(name);
			return;
		}
		mf->v = nv;
		mf->cap = nc;
	}
	char *p = strdup(path);
	if (!p) {
		free(name);
		return;
	}
	mf->v[mf->n++] = (struct cand){ name, p };
}

static void walk(struct dwarf_modfind *mf, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			continue;
		bool is_dir = de->d_type == DT_DIR, is_reg = de->d_type == DT_REG;
		if (de->d_type == DT_UNKNOWN || de->d_type == DT_LNK) {
			struct stat st;
			if (stat(path, &st))
				continue;
			is_dir = S_ISDIR(st.st_mode);
			is_reg = S_ISREG(st.st_mode);
		}
		if (is_dir && depth < MAX_DEPTH && strcmp(de->d_name, "build") &&
		    strcmp(de->d_name, "source")) {
			walk(mf, path, depth + 1);
		} else if (is_reg) {
			char *name = module_name_of(de->d_name);
			if (name)
				add_cand(mf, name, path);
		}
	}
	closedir(d);
}

/* the standard places, in order of preference */
static void walk_all(struct dwarf_modfind *mf)
{
	static const char *const places[] = {
		"/usr/lib/debug/lib/modules/%s",
		"/lib/modules/%s",
	};
	const char *root = getenv("RETSNOOP_DEBUG_ROOT");
	const char *roots[2] = { root && *root ? root : NULL, "" };
	char rel[4096], dir[8192];

	mf->walked = true;
	if (!mf->release || !*mf->release)
		return;
	for (int r = 0; r < 2; r++) {
		if (!roots[r])
			continue;
		for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
			snprintf(rel, sizeof(rel), places[i], mf->release);
			snprintf(dir, sizeof(dir), "%s%s", roots[r], rel);
			walk(mf, dir, 0);
		}
	}
}

/* 1 when path is an ELF file with .debug_info (not a stripped module) */
static int has_dwarf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t shstrndx;
	int found = 0;
	if (elf && elf_kind(elf) == ELF_K_ELF && !elf_getshdrstrndx(elf, &shstrndx)) {
		Elf_Scn *scn = NULL;
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *n;
			if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
			    (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
			    (!strcmp(n, ".debug_info") || !strcmp(n, ".zdebug_info")))
				found = 1;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

struct dwarf_modfind *dwarf_modfind_new(const char *release)
{
	struct dwarf_modfind *mf = calloc(1, sizeof(*mf));
	if (mf && release && !(mf->release = strdup(release))) {
		free(mf);
		return NULL;
	}
	return mf;
}

char *dwarf_modfind_path(struct dwarf_modfind *mf, const char *module, const uint8_t *bid,
			 size_t len, char *err, size_t errlen)
{
	char want[129] = "", got_hex[129];
	char *name = strdup(module ? module : "");
	const char *mismatch = NULL;
	uint8_t got[64];

	elf_version(EV_CURRENT);
	if (!name) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	norm_name(name);
	if (len > 64)
		len = 64;
	if (!mf->walked)
		walk_all(mf);
	for (size_t i = 0; i < mf->n; i++) {
		if (strcmp(mf->v[i].name, name))
			continue;
		int n = elf_file_build_id(mf->v[i].path, got, sizeof(got));
		if (n < 0)
			continue;
		if (len && ((size_t)n != len || memcmp(got, bid, len))) {
			if (!mismatch && has_dwarf(mf->v[i].path)) {
				mismatch = mf->v[i].path;
				dwarf_build_id_hex(got, (size_t)n, got_hex);
			}
			continue;
		}
		if (!has_dwarf(mf->v[i].path))
			continue;
		free(name);
		return strdup(mf->v[i].path);
	}

	char dbgd[256];
	char *fetched = dwarf_debuginfod_fetch(bid, len, dbgd, sizeof(dbgd));
	if (fetched) {
		free(name);
		return fetched;
	}
	dwarf_build_id_hex(bid, len, want);
	if (mismatch)
		snprintf(err, errlen, "module %s: %s has build-id %s, the recorded module has %s",
			 module, mismatch, got_hex, want);
	else if (dbgd[0])
		snprintf(err, errlen, "module %s: no debug file here, and debuginfod %s", module, dbgd);
	else
		snprintf(err, errlen, "module %s: no debug file%s%s found (install the "
			 "linux-image-%s-dbg package or set DEBUGINFOD_URLS)", module,
			 len ? " with build-id " : "", want,
			 mf->release && *mf->release ? mf->release : "RELEASE");
	free(name);
	return NULL;
}

void dwarf_modfind_free(struct dwarf_modfind *mf)
{
	if (!mf)
		return;
	for (size_t i = 0; i < mf->n; i++) {
		free(mf->v[i].name);
		free(mf->v[i].path);
	}
	free(mf->v);
	free(mf->release);
	free(mf);
}
