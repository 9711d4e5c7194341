/* addr2line_cmd.c - `retsnoop-report addr2line -e VMLINUX [-i] [--dwarf-names] [--no-cache]`:
 * reads one hex link-time address per line on stdin (exact-address
 * semantics, no KASLR slide) and prints one "FUNCTION PATH:LINE" line per
 * frame, innermost first, then an empty line. With -i every inlined frame
 * is printed; without it only the real (out-of-line) function, with the
 * location inside it. Output is flushed whenever no more input is already
 * waiting, so it works interactively through a pipe. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "addr2line_cmd.h"
#include "report_version.h"
#include "../common/shared_opts.h"
#include "../symbols/dwarf_sym.h"

#define MAX_FRAMES 64

#define PROG "retsnoop-report addr2line"

struct a2l_opts {
	const char *vmlinux;
	bool inl, dwarf_names;
	unsigned flags;
};

enum { A2L_VMLINUX, A2L_INLINES, A2L_DWARF_NAMES, A2L_NO_CACHE };

static int a2l_parse(void *ctx, int id, const char *v, struct opt_error *e)
{
	struct a2l_opts *o = ctx;

	(void)e;
	switch (id) {
	case A2L_VMLINUX: o->vmlinux = v; break;
	case A2L_INLINES: o->inl = true; break;
	case A2L_DWARF_NAMES: o->dwarf_names = true; break;
	case A2L_NO_CACHE: o->flags |= DWARF_SYM_NO_CACHE; break;
	}
	return OPT_OK;
}

static const struct opt_spec a2l_table[] = {
	{ "Options", NULL, 'e', OPT_REQUIRED, "VMLINUX", A2L_VMLINUX, a2l_parse, OPT_ADDR2LINE, 0,
	  "ELF file with DWARF (link-time addresses)" },
	{ NULL, "inlines", 'i', OPT_NOARG, NULL, A2L_INLINES, a2l_parse, OPT_ADDR2LINE, 0,
	  "include inlined frames" },
	{ NULL, "dwarf-names", 0, OPT_NOARG, NULL, A2L_DWARF_NAMES, a2l_parse, OPT_ADDR2LINE, 0,
	  "name the real function as DWARF does, not as .symtab" },
	{ NULL, "no-cache", 0, OPT_NOARG, NULL, A2L_NO_CACHE, a2l_parse, OPT_ADDR2LINE, 0,
	  "neither read nor write the index cache" },
};

/* 0 to run with O, else the exit status (help, a usage error) */
static int parse_args(struct a2l_opts *o, int argc, char **argv, int *status)
{
	struct shared_opts s;
	struct opt_group groups[2] = {
		OPT_GROUP(a2l_table, o),
		{ shared_opt_table, shared_opt_count, &s },
	};
	struct opt_cmdline c = {
		.prog = PROG, .cmd = OPT_ADDR2LINE, .groups = groups, .ngroups = 2,
		.dashdash = OPT_DD_WORDS,
	};
	struct opt_error e;
	int r;

	memset(o, 0, sizeof(*o));
	shared_opts_init(&s, OPT_ADDR2LINE, NULL, NULL);
	r = opt_parse(&c, argc, argv, &e);
	if (r == OPT_OK && !s.help && !s.usage && !s.version && !o->vmlinux)
		r = opt_fail(&e, OPT_EUSAGE, "missing -e VMLINUX");
	*status = 0;
	if (r < 0) {
		opt_error_print(stderr, PROG, r, &e);
		*status = 2;
	} else if (s.list) {
		opt_list(stdout, &c);
	} else if (s.help) {
		printf("Usage: " PROG " -e VMLINUX [-i] [--dwarf-names] [--no-cache]\n"
		       "Reads hex addresses (one per line) on stdin; prints FUNCTION PATH:LINE\n"
		       "per frame, innermost first, then an empty line.\n\n");
		opt_help(stdout, &c);
	} else if (s.usage) {
		opt_usage(stdout, &c, "< ADDRESSES");
	} else if (s.version) {
		printf(PROG " %s\n", REPORT_VERSION);
	} else {
		return 0;
	}
	return -1;
}

static int parse_hex(const char *s, uint64_t *out)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s)
		return -1;
	uint64_t v = 0;
	int nd = 0;
	for (; *s; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else if (*s == ' ' || *s == '\t' || *s == '\r')
			break;
		else
			return -1;
		if (++nd > 16)
			return -1;
		v = (v << 4) | (uint64_t)d;
	}
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	if (*s)
		return -1;
	*out = v;
	return 0;
}

/* hands every complete address line in buf[0, len) to the library's batch
 * prefetch (parallel indexing of the CUs they need) */
static void prefetch(struct dwarf_sym *ds, const char *buf, size_t len)
{
	size_t cap = 1024, n = 0;
	uint64_t *v = malloc(cap * sizeof(*v));
	char line[256];

	for (size_t pos = 0; v && pos < len; ) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		if (!nl)
			break;
		size_t ll = (size_t)(nl - (buf + pos));
		if (ll < sizeof(line)) {
			memcpy(line, buf + pos, ll);
			line[ll] = '\0';
			if (n == cap) {
				uint64_t *nv = realloc(v, 2 * cap * sizeof(*v));
				if (!nv)
					break;
				v = nv;
				cap *= 2;
			}
			if (!parse_hex(line, &v[n]))
				n++;
		}
		pos += ll + 1;
	}
	if (n > 1)
		dwarf_sym_prefetch(ds, v, n);
	free(v);
}

static void print_frame(const struct sym_frame *f)
{
	fputs(f->func, stdout);
	putchar(' ');
	fputs(f->file, stdout);
	printf(":%d\n", f->line);
}

/* one lookup session over stdin */
struct a2l {
	struct dwarf_sym *ds;
	bool inl, dwarf_names;
	int bad;
	struct sym_frame frames[MAX_FRAMES];
};

/* answers one input line (LL bytes at P, not terminated) */
static void answer(struct a2l *a, const char *p, size_t ll, size_t lineno)
{
	char line[256];
	size_t cl = ll < sizeof(line) - 1 ? ll : sizeof(line) - 1;
	uint64_t addr;
	int n;

	memcpy(line, p, cl);
	line[cl] = '\0';
	if (cl == strspn(line, " \t\r"))
		return;
	if (ll >= sizeof(line) - 1 || parse_hex(line, &addr)) {
		fprintf(stderr, PROG ": stdin line %zu: '%s' is not a hex address\n", lineno, line);
		fputs("?? ??:0\n\n", stdout);
		a->bad = 1;
		return;
	}
	n = dwarf_sym_lookup(a->ds, addr, a->frames, MAX_FRAMES);
	if (n > 0 && !a->dwarf_names) {
		/* like llvm-symbolizer: the real function is named as the
		 * symbol table names it (clones: "foo.isra.0") */
		const char *s = dwarf_sym_elf_name(a->ds, addr);

		if (s)
			a->frames[n - 1].func = s;
	}
	if (a->inl) {
		for (int i = 0; i < n; i++)
			print_frame(&a->frames[i]);
	} else if (n > 0) {
		print_frame(&a->frames[n - 1]);
	}
	putchar('\n');
}

/* reads more of stdin into *buf (growing it when full); false at EOF or
 * out of memory */
static bool refill(struct a2l *a, char **buf, size_t *cap, size_t *len, size_t *pos)
{
	ssize_t r;

	fflush(stdout);   /* nothing complete buffered: flush before we may block */
	memmove(*buf, *buf + *pos, *len - *pos);
	*len -= *pos;
	*pos = 0;
	if (*len == *cap) {
		char *nb = realloc(*buf, *cap * 2);

		if (!nb)
			return false;
		*buf = nb;
		*cap *= 2;
	}
	do
		r = read(0, *buf + *len, *cap - *len);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return false;
	*len += (size_t)r;
	prefetch(a->ds, *buf, *len);
	return true;
}

/* answers every line of stdin */
static void serve(struct a2l *a)
{
	static char obuf[1 << 16];
	size_t cap = 1 << 16, len = 0, pos = 0, lineno = 0;
	char *buf = malloc(cap);
	bool eof = false;

	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	/* buf[pos, len) holds input not yet consumed */
	while (buf && (!eof || pos < len)) {
		char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll;

		if (!nl && !eof) {
			eof = !refill(a, &buf, &cap, &len, &pos);
			continue;
		}
		ll = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		answer(a, buf + pos, ll, ++lineno);
		pos += nl ? ll + 1 : ll;
	}
	fflush(stdout);
	free(buf);
}

int addr2line_main(int argc, char **argv)
{
	struct a2l_opts o;
	struct a2l a = {0};
	char err[512];
	int status;

	if (parse_args(&o, argc, argv, &status))
		return status;
	a.ds = dwarf_sym_open(o.vmlinux, o.flags, err, sizeof(err));
	if (!a.ds) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	a.inl = o.inl;
	a.dwarf_names = o.dwarf_names;
	serve(&a);
	dwarf_sym_close(a.ds);
	return a.bad;
}
