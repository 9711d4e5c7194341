/* dwarf_path.c - kernel-relative source paths from DWARF file names and
 * DW_AT_comp_dir (see dwarf_path.h for the rules). */
#include <stdio.h>
#include <string.h>
#include "dwarf_path.h"

static const char *const topdirs[] = {
	"arch", "block", "certs", "crypto", "drivers", "fs", "include", "init",
	"io_uring", "ipc", "kernel", "lib", "mm", "net", "rust", "samples",
	"scripts", "security", "sound", "tools", "usr", "virt",
};

bool dwarf_path_is_topdir(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(topdirs) / sizeof(topdirs[0]); i++)
		if (strlen(topdirs[i]) == len && !memcmp(topdirs[i], name, len))
			return true;
	return false;
}

/* lexical normalization in place; keeps a leading '/' and leading ".." */
static void normalize(char *p)
{
	bool abs = p[0] == '/';
	char *comp[512];
	size_t lens[512];
	int n = 0;
	char *s = p;

	while (*s) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		char *e = strchr(s, '/');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (len == 1 && s[0] == '.') {
			/* skip */
		} else if (len == 2 && s[0] == '.' && s[1] == '.' && n > 0 &&
			   !(lens[n - 1] == 2 && comp[n - 1][0] == '.' && comp[n - 1][1] == '.')) {
			n--;
		} else if (len == 2 && s[0] == '.' && s[1] == '.' && abs && n == 0) {
			/* "/.." is "/" */
		} else if (n < 512) {
			comp[n] = s;
			lens[n++] = len;
		}
		s += len;
	}
	/* rebuild; components only move left so memmove is safe */
	char *o = p;
	if (abs)
		*o++ = '/';
	for (int i = 0; i < n; i++) {
		if (i)
			*o++ = '/';
		memmove(o, comp[i], lens[i]);
		o += lens[i];
	}
	*o = '\0';
}

size_t dwarf_path_relative(const char *path, const char *comp_dir, char *out, size_t outlen)
{
	char buf[8200], cd[4096];
	size_t cdlen = 0;

	if (!outlen)
		return 0;
	if (!path) {
		out[0] = '\0';
		return 0;
	}
	cd[0] = '\0';
	if (comp_dir && *comp_dir) {
		snprintf(cd, sizeof(cd), "%s", comp_dir);
		normalize(cd);
		cdlen = strlen(cd);
	}
	if (path[0] != '/' && cdlen && !(strncmp(path, cd, cdlen) == 0 && path[cdlen] == '/'))
		snprintf(buf, sizeof(buf), "%s/%s", cd, path);
	else
		snprintf(buf, sizeof(buf), "%s", path);
	normalize(buf);

	const char *r = buf;
	if (cdlen && strncmp(buf, cd, cdlen) == 0 && buf[cdlen] == '/')
		r = buf + cdlen + 1;

	/* already starts with a top-level dir? */
	const char *slash = strchr(r, '/');
	if (!(slash && dwarf_path_is_topdir(r, (size_t)(slash - r)))) {
		/* first component naming a top-level kernel dir, if any */
		const char *s = r;
		while (*s) {
			while (*s == '/')
				s++;
			const char *e = strchr(s, '/');
			if (!e)
				break;
			if (dwarf_path_is_topdir(s, (size_t)(e - s))) {
				r = s;
				break;
			}
			s = e + 1;
		}
	}
	return (size_t)snprintf(out, outlen, "%s", r) < outlen ? strlen(out) : outlen - 1;
}
