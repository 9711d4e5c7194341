/* opts.c - the generic option parser and the --help / --usage generators
 * over a command's composed option tables (opts.h). */
#include "common/opts.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int opt_fail(struct opt_error *e, int kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return kind;
}

void opt_error_print(FILE *f, const char *prog, int kind, const struct opt_error *e)
{
	fprintf(f, "%s: %s\n", prog, e->msg);
	if (kind == OPT_EUSAGE)
		fprintf(f, "Try '%s --help' for more information.\n", prog);
}

int opt_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* ---------------------------------------------------------------- lookup */
struct found {
	const struct opt_spec *s;
	void *ctx;
};

static bool takes(const struct opt_cmdline *c, const struct opt_spec *s)
{
	return (s->cmds & c->cmd) != 0;
}

static struct found find_short(const struct opt_cmdline *c, char ch)
{
	for (size_t g = 0; g < c->ngroups; g++)
		for (size_t i = 0; i < c->groups[g].n; i++) {
			const struct opt_spec *s = &c->groups[g].v[i];

			if (s->shrt == ch && takes(c, s))
				return (struct found){ s, c->groups[g].ctx };
		}
	return (struct found){ NULL, NULL };
}

/* exact long name, else the only one it is a prefix of (as getopt_long) */
static struct found find_long(const struct opt_cmdline *c, const char *name, size_t len,
			      bool *ambiguous)
{
	struct found hit = { NULL, NULL };
	int nprefix = 0;

	*ambiguous = false;
	for (size_t g = 0; g < c->ngroups; g++)
		for (size_t i = 0; i < c->groups[g].n; i++) {
			const struct opt_spec *s = &c->groups[g].v[i];

			if (!s->lng || !takes(c, s) || strncmp(s->lng, name, len))
				continue;
			if (!s->lng[len])
				return (struct found){ s, c->groups[g].ctx };
			if (!hit.s || hit.s->parse != s->parse || hit.s->id != s->id)
				nprefix++;
			hit = (struct found){ s, c->groups[g].ctx };
		}
	if (nprefix > 1) {
		*ambiguous = true;
		return (struct found){ NULL, NULL };
	}
	return hit;
}

/* ---------------------------------------------------------------- @FILE */
static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* @FILE values live until exit: parsers may keep pointers to them */
struct kept {
	struct kept *next;
	char s[];
};

static struct kept *kept_list;

static void free_kept(void)
{
	while (kept_list) {
		struct kept *k = kept_list;

		kept_list = k->next;
		free(k);
	}
}

static char *keep_value(const char *v)
{
	size_t n = strlen(v) + 1;
	struct kept *k = malloc(sizeof(*k) + n);

	if (!k)
		return NULL;
	if (!kept_list)
		atexit(free_kept);
	memcpy(k->s, v, n);
	k->next = kept_list;
	kept_list = k;
	return k->s;
}


static int apply_file(struct found f, const char *flag, const char *path, struct opt_error *e)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int r = OPT_OK, lineno = 0, nvalues = 0;

	if (!fp)
		return opt_fail(e, OPT_EINPUT, "%s @%s: cannot open: %s", flag, path, strerror(errno));
	while (r == OPT_OK && getline(&line, &cap, fp) >= 0) {
		char *v = trim(line), *copy;

		lineno++;
		if (!*v || *v == '#')
			continue;
		copy = keep_value(v);
		if (!copy) {
			r = opt_fail(e, OPT_EINPUT, "out of memory");
			break;
		}
		r = f.s->parse(f.ctx, f.s->id, copy, e);
		nvalues++;
		if (r < 0) {
			char inner[OPT_ERRLEN];

			snprintf(inner, sizeof(inner), "%s", e->msg);
			opt_fail(e, r, "%s:%d: %s", path, lineno, inner);
		}
	}
	if (r == OPT_OK && ferror(fp))
		r = opt_fail(e, OPT_EINPUT, "%s @%s: read error: %s", flag, path, strerror(errno));
	else if (r == OPT_OK && !nvalues)
		r = opt_fail(e, OPT_EUSAGE, "%s @%s: the file holds no value", flag, path);
	free(line);
	fclose(fp);
	return r;
}

static int apply(struct found f, const char *flag, const char *val, struct opt_error *e)
{
	if (val && val[0] == '@' && val[1] && (f.s->flags & OPT_AT_FILE))
		return apply_file(f, flag, val + 1, e);
	return f.s->parse(f.ctx, f.s->id, val, e);
}

/* --------------------------------------------------------------- parsing */
/* argv[*i] is "--name[=value]" */
static int parse_long(struct opt_cmdline *c, int argc, char **argv, int *i, struct opt_error *e)
{
	const char *a = argv[*i] + 2, *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	bool ambiguous;
	struct found f = find_long(c, a, len, &ambiguous);
	char flag[80];

	snprintf(flag, sizeof(flag), "--%.*s", (int)len, a);
	if (ambiguous)
		return opt_fail(e, OPT_EUSAGE, "ambiguous option '%s'", flag);
	if (!f.s)
		return opt_fail(e, OPT_EUSAGE, "unknown option '%s'", flag);
	snprintf(flag, sizeof(flag), "--%s", f.s->lng);
	if (f.s->arg == OPT_NOARG) {
		if (eq)
			return opt_fail(e, OPT_EUSAGE, "option '%s' takes no value", flag);
		return apply(f, flag, NULL, e);
	}
	if (eq)
		return apply(f, flag, eq + 1, e);
	if (f.s->arg == OPT_OPTIONAL)
		return apply(f, flag, NULL, e);
	if (*i + 1 >= argc)
		return opt_fail(e, OPT_EUSAGE, "option '%s' needs a value (%s)", flag,
				f.s->value ? f.s->value : "VALUE");
	return apply(f, flag, argv[++*i], e);
}

/* argv[*i] is "-abc": a bundle of short flags, the last one may take the
 * rest of the word or the next word as its value */
static int parse_short(struct opt_cmdline *c, int argc, char **argv, int *i, struct opt_error *e)
{
	const char *a = argv[*i];

	for (size_t k = 1; a[k]; k++) {
		struct found f = find_short(c, a[k]);
		char flag[3] = { '-', a[k], 0 };
		const char *rest = a + k + 1;
		int r;

		if (!f.s)
			return opt_fail(e, OPT_EUSAGE, "unknown option '%s'", flag);
		if (f.s->arg == OPT_NOARG) {
			r = apply(f, flag, NULL, e);
			if (r)
				return r;
			continue;
		}
		if (*rest)
			return apply(f, flag, rest, e);
		if (f.s->arg == OPT_OPTIONAL)
			return apply(f, flag, NULL, e);
		if (*i + 1 >= argc)
			return opt_fail(e, OPT_EUSAGE, "option '%s' needs a value (%s)", flag,
					f.s->value ? f.s->value : "VALUE");
		return apply(f, flag, argv[++*i], e);
	}
	return OPT_OK;
}

static int parse_word(struct opt_cmdline *c, const char *w, struct opt_error *e)
{
	if (!c->word)
		return opt_fail(e, OPT_EUSAGE, "unexpected argument '%s'%s", w,
				c->dashdash == OPT_DD_COMMAND ? " (a command goes after --)" : "");
	return c->word(c->word_ctx, w, e);
}

int opt_parse(struct opt_cmdline *c, int argc, char **argv, struct opt_error *e)
{
	int r = OPT_OK;

	e->msg[0] = '\0';
	c->command = NULL;
	for (int i = 1; i < argc && r == OPT_OK; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			if (c->dashdash == OPT_DD_COMMAND) {
				if (i + 1 < argc)
					c->command = &argv[i + 1];
				break;
			}
			while (++i < argc && r == OPT_OK)
				r = parse_word(c, argv[i], e);
			break;
		}
		if (a[0] == '-' && a[1] == '-')
			r = parse_long(c, argc, argv, &i, e);
		else if (a[0] == '-' && a[1])
			r = parse_short(c, argc, argv, &i, e);
		else
			r = parse_word(c, a, e);
	}
	return r;
}

int opt_first_word(const struct opt_cmdline *c, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool ambiguous;
		struct found f;

		if (!strcmp(a, "--"))
			return -1;
		if (a[0] != '-' || !a[1])
			return i;
		if (a[1] == '-') {
			f = find_long(c, a + 2, strlen(a + 2), &ambiguous);
			if (f.s && f.s->arg == OPT_REQUIRED && !strchr(a, '='))
				i++;
			continue;
		}
		for (size_t k = 1; a[k]; k++) {
			f = find_short(c, a[k]);
			if (f.s && f.s->arg != OPT_NOARG) {
				if (!a[k + 1] && f.s->arg == OPT_REQUIRED)
					i++;
				break;
			}
		}
	}
	return -1;
}

/* ------------------------------------------------------------------ help */
#define HELP_COL 28

static int spec_column(const struct opt_spec *s, char *buf, size_t len)
{
	const char *v = s->value ? s->value : "VALUE";
	int n = 0;

	if (s->shrt && s->lng)
		n = snprintf(buf, len, "-%c, --%s", s->shrt, s->lng);
	else if (s->shrt)
		n = snprintf(buf, len, "-%c", s->shrt);
	else
		n = snprintf(buf, len, "    --%s", s->lng);
	if (s->arg == OPT_REQUIRED)
		n += snprintf(buf + n, len - (size_t)n, " %s", v);
	else if (s->arg == OPT_OPTIONAL)
		n += snprintf(buf + n, len - (size_t)n, s->lng ? "[=%s]" : "[%s]", v);
	return n;
}

static void help_line(FILE *f, const struct opt_spec *s)
{
	char col[96];
	int n = spec_column(s, col, sizeof(col));
	const char *h = s->help ? s->help : "";
	const char *nl = strchr(h, '\n');

	/* the option column never has two spaces in a row: tests and the man
	 * page check read it up to the first double space */
	if (n + 2 > HELP_COL - 2)
		fprintf(f, "  %s  %.*s\n", col, nl ? (int)(nl - h) : (int)strlen(h), h);
	else
		fprintf(f, "  %-*s%.*s\n", HELP_COL - 2, col, nl ? (int)(nl - h) : (int)strlen(h), h);
	while (nl) {
		h = nl + 1;
		nl = strchr(h, '\n');
		fprintf(f, "%*s%.*s\n", HELP_COL, "", nl ? (int)(nl - h) : (int)strlen(h), h);
	}
}

void opt_help(FILE *f, const struct opt_cmdline *c)
{
	for (size_t g = 0; g < c->ngroups; g++) {
		const char *section = NULL;   /* heading not printed yet */

		for (size_t i = 0; i < c->groups[g].n; i++) {
			const struct opt_spec *s = &c->groups[g].v[i];

			if (s->section)
				section = s->section;
			if (!takes(c, s) || (s->flags & OPT_HIDDEN))
				continue;
			if (section)
				fprintf(f, "%s:\n", section);
			section = NULL;
			help_line(f, s);
		}
	}
}

void opt_list(FILE *f, const struct opt_cmdline *c)
{
	static const char *const args[] = { "none", "required", "optional" };

	for (size_t g = 0; g < c->ngroups; g++)
		for (size_t i = 0; i < c->groups[g].n; i++) {
			const struct opt_spec *s = &c->groups[g].v[i];

			if (!takes(c, s))
				continue;
			fprintf(f, "%s%c %s%s %s %s\n", s->shrt ? "-" : "", s->shrt ? s->shrt : '-',
				s->lng ? "--" : "-", s->lng ? s->lng : "", args[s->arg],
				s->value ? s->value : "-");
		}
}

/* --usage: "[-abc] [-e GLOB] [--dry-run] ..." wrapped at 79 columns */
static void usage_item(FILE *f, int *col, int indent, const char *item)
{
	int len = (int)strlen(item);

	if (*col + 1 + len > 79) {
		fprintf(f, "\n%*s", indent, "");
		*col = indent;
	}
	fprintf(f, " %s", item);
	*col += 1 + len;
}

void opt_usage(FILE *f, const struct opt_cmdline *c, const char *words)
{
	char flags[64] = "[-", item[96];
	size_t nf = 2;
	int col, indent;

	col = indent = fprintf(f, "Usage: %s", c->prog);
	for (size_t g = 0; g < c->ngroups; g++)
		for (size_t i = 0; i < c->groups[g].n; i++) {
			const struct opt_spec *s = &c->groups[g].v[i];

			if (takes(c, s) && !(s->flags & OPT_HIDDEN) && s->shrt &&
			    s->arg == OPT_NOARG && nf < sizeof(flags) - 2 && !strchr(flags, s->shrt))
				flags[nf++] = s->shrt;
		}
	flags[nf++] = ']';
	flags[nf] = '\0';
	if (nf > 3)
		usage_item(f, &col, indent, flags);
	for (size_t g = 0; g < c->ngroups; g++)
		for (size_t i = 0; i < c->groups[g].n; i++) {
			const struct opt_spec *s = &c->groups[g].v[i];
			const char *v = s->value ? s->value : "VALUE";

			if (!takes(c, s) || (s->flags & OPT_HIDDEN) ||
			    (s->shrt && s->arg == OPT_NOARG))
				continue;
			if (s->arg == OPT_NOARG)
				snprintf(item, sizeof(item), "[--%s]", s->lng);
			else if (s->shrt)
				snprintf(item, sizeof(item), s->arg == OPT_REQUIRED ? "[-%c %s]" : "[-%c[%s]]",
					 s->shrt, v);
			else
				snprintf(item, sizeof(item), s->arg == OPT_REQUIRED ? "[--%s %s]" : "[--%s[=%s]]",
					 s->lng, v);
			usage_item(f, &col, indent, item);
		}
	if (words && *words)
		usage_item(f, &col, indent, words);
	fputc('\n', f);
}
