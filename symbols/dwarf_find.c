/* dwarf_find.c - locates the vmlinux with DWARF for a recorded kernel
 * release in the standard places (optionally under $RETSNOOP_DEBUG_ROOT),
 * checks its GNU build-id, and falls back to a libdebuginfod fetch by
 * build-id when DEBUGINFOD_URLS is set (see dwarf_sym.h). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/debuginfod.h>
#include "dwarf_sym.h"

static const char *const places[] = {
	"/usr/lib/debug/boot/vmlinux-%s",
	"/boot/vmlinux-%s",
	"/lib/modules/%s/build/vmlinux",
	"/usr/lib/debug/lib/modules/%s/vmlinux",
};

/* 1: candidate usable (exists, ELF, build-id matches when asked) */
static int check_candidate(const char *path, const uint8_t *bid, size_t len,
			   char **mismatch_path, char *mismatch_id, size_t idlen)
{
	uint8_t got[64];
	if (access(path, R_OK))
		return 0;
	int n = elf_file_build_id(path, got, sizeof(got));
	if (n < 0)
		return 0;
	if (!len)
		return 1;
	if ((size_t)n == len && !memcmp(got, bid, len))
		return 1;
	if (mismatch_path && !*mismatch_path) {
		*mismatch_path = strdup(path);
		if (idlen > 2 * (size_t)n)
			dwarf_build_id_hex(got, (size_t)n, mismatch_id);
	}
	return 0;
}

char *dwarf_find_vmlinux(const char *release, const uint8_t *build_id, size_t len,
			 char **mismatch_path, char *err, size_t errlen)
{
	char path[4096], rel[4096];
	char mm_id[129] = "";
	char *mm = NULL;
	const char *root = getenv("RETSNOOP_DEBUG_ROOT");
	const char *roots[2] = { root && *root ? root : NULL, "" };

	if (mismatch_path)
		*mismatch_path = NULL;
	if (len > 64)
		len = 64;
	for (int r = 0; r < 2 && release && *release; r++) {
		if (!roots[r])
			continue;
		for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
			snprintf(rel, sizeof(rel), places[i], release);
			snprintf(path, sizeof(path), "%s%s", roots[r], rel);
			if (check_candidate(path, build_id, len, &mm, mm_id, sizeof(mm_id)))  {
				free(mm);
				return strdup(path);
			}
		}
	}

	char dbgd[256];
	char *got = dwarf_debuginfod_fetch(build_id, len, dbgd, sizeof(dbgd));
	if (got) {
		free(mm);
		return got;
	}

	char want[129];
	dwarf_build_id_hex(build_id, len, want);
	if (mm) {
		snprintf(err, errlen, "%s has build-id %s, the recording's kernel has %s",
			 mm, mm_id[0] ? mm_id : "(none)", want);
		if (mismatch_path)
			*mismatch_path = mm;
		else
			free(mm);
	} else {
		const char *rel = release && *release ? release : "(unknown release)";

		if (dbgd[0])      /* DEBUGINFOD_URLS set: its answer, not advice to set it */
			snprintf(err, errlen, "no vmlinux with debug info for %s here, and debuginfod %s",
				 rel, dbgd);
		else
			snprintf(err, errlen, "no vmlinux with debug info for %s (install its -dbg "
				 "package, pass -k, or set DEBUGINFOD_URLS)", rel);
	}
	return NULL;
}

/* libdebuginfod is opened when a fetch is wanted (as libdw does), not
 * linked: it brings some 27 libraries (curl, TLS, Kerberos...) that every
 * start of the tools would otherwise load */
struct dbgd_api {
	debuginfod_client *(*begin)(void);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*end)(debuginfod_client *);
};

static const char *dbgd_load(struct dbgd_api *a)
{
	static void *h;

	if (!h)
		h = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return "cannot load libdebuginfod.so.1 (install libdebuginfod1)";
	*(void **)&a->begin = dlsym(h, "debuginfod_begin");
	*(void **)&a->find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
	*(void **)&a->end = dlsym(h, "debuginfod_end");
	if (!a->begin || !a->find_debuginfo || !a->end)
		return "libdebuginfod.so.1 lacks debuginfod_begin/find_debuginfo/end";
	return NULL;
}

char *dwarf_debuginfod_fetch(const uint8_t *build_id, size_t len, char *why, size_t whylen)
{
	const char *urls = getenv("DEBUGINFOD_URLS"), *lerr;
	struct dbgd_api api;
	debuginfod_client *c;
	char *path = NULL;
	int fd;

	if (why && whylen)
		why[0] = '\0';
	if (!len || !urls || !*urls)
		return NULL;
	if ((lerr = dbgd_load(&api))) {
		if (why)
			snprintf(why, whylen, "%s", lerr);
		return NULL;
	}
	if (!(c = api.begin())) {
		if (why)
			snprintf(why, whylen, "cannot start a client");
		return NULL;
	}
	fd = api.find_debuginfo(c, build_id, (int)len, &path);
	api.end(c);
	if (fd < 0) {
		char hex[129];

		free(path);
		dwarf_build_id_hex(build_id, len > 64 ? 64 : len, hex);
		if (why)
			snprintf(why, whylen, "%s: build-id %s: %s", urls, hex,
				 fd == -ENOENT ? "not found" : strerror(-fd));
		return NULL;
	}
	close(fd);
	return path;
}
