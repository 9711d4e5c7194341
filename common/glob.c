/* glob.c - function-name globs (`*`, `?`), `GLOB [MODGLOB]` selectors,
 * `:PATHGLOB` source selectors and ordered glob sets (see glob.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "glob.h"

bool glob_match(const char *glob, const char *str)
{
	const char *star_g = NULL, *star_s = NULL;

	/* greedy match with a single backtrack point: the last `*` seen */
	while (*str) {
		if (*glob == '*') {
			while (*glob == '*')
				glob++;
			if (!*glob)
				return true;
			star_g = glob;
			star_s = str;
		} else if (*glob == '?' || *glob == *str) {
			glob++;
			str++;
		} else if (star_g) {
			glob = star_g;
			str = ++star_s;
		} else {
			return false;
		}
	}
	while (*glob == '*')
		glob++;
	return *glob == '\0';
}

static bool sym_char_ok(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '*' || c == '?' || c == '.' ||
	       c == ':' || c == '/' || c == '[' || c == ']' || c == ' ';
}

static char *dup_range(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static bool only_stars(const char *s)
{
	for (; *s; s++)
		if (*s != '*')
			return false;
	return true;
}

static int spec_fail(struct glob_spec *g, char *err, size_t errlen, const char *text, const char *why)
{
	glob_spec_free(g);
	if (err && errlen)
		snprintf(err, errlen, "invalid glob '%s': %s", text, why);
	return -1;
}

int glob_spec_parse(const char *text, struct glob_spec *out, char *err, size_t errlen)
{
	const char *s, *e, *lb, *rb;

	memset(out, 0, sizeof(*out));
	if (!text)
		text = "";
	for (s = text; *s; s++) {
		if (!sym_char_ok(*s))
			return spec_fail(out, err, errlen, text, "unexpected character");
	}
	/* trim surrounding blanks */
	s = text;
	while (*s == ' ')
		s++;
	e = s + strlen(s);
	while (e > s && e[-1] == ' ')
		e--;
	if (s == e)
		return spec_fail(out, err, errlen, text, "empty glob");

	if (*s == ':') {
		s++;
		if (s == e)
			return spec_fail(out, err, errlen, text, "empty source path glob");
		if (memchr(s, '[', e - s) || memchr(s, ']', e - s) || memchr(s, ' ', e - s))
			return spec_fail(out, err, errlen, text, "unexpected character in source path glob");
		out->path = dup_range(s, e - s);
		if (!out->path)
			return spec_fail(out, err, errlen, text, "out of memory");
		return 0;
	}

	lb = memchr(s, '[', e - s);
	rb = memchr(s, ']', e - s);
	if (lb || rb) {
		const char *ne = lb;

		if (!lb || !rb || rb < lb)
			return spec_fail(out, err, errlen, text, "unbalanced '['");
		if (rb + 1 != e)
			return spec_fail(out, err, errlen, text, "text after ']'");
		if (memchr(lb + 1, '[', rb - lb - 1))
			return spec_fail(out, err, errlen, text, "unbalanced '['");
		while (ne > s && ne[-1] == ' ')
			ne--;
		if (ne == s)
			return spec_fail(out, err, errlen, text, "empty function name glob");
		const char *ms = lb + 1, *me = rb;
		while (ms < me && *ms == ' ')
			ms++;
		while (me > ms && me[-1] == ' ')
			me--;
		if (ms == me)
			return spec_fail(out, err, errlen, text, "empty module glob");
		if (memchr(ms, ' ', me - ms) || memchr(s, ' ', ne - s))
			return spec_fail(out, err, errlen, text, "unexpected space");
		out->name = dup_range(s, ne - s);
		out->module = dup_range(ms, me - ms);
		if (!out->name || !out->module)
			return spec_fail(out, err, errlen, text, "out of memory");
	} else {
		if (memchr(s, ' ', e - s))
			return spec_fail(out, err, errlen, text, "unexpected space (module form is 'GLOB [MODGLOB]')");
		out->name = dup_range(s, e - s);
		if (!out->name)
			return spec_fail(out, err, errlen, text, "out of memory");
	}
	if (strlen(out->name) >= 2 && only_stars(out->name))
		return spec_fail(out, err, errlen, text, "'**' would match everything");
	if (strchr(out->name, ':') || strchr(out->name, '/'))
		return spec_fail(out, err, errlen, text, "':' and '/' are only allowed in ':PATHGLOB'");
	return 0;
}

void glob_spec_free(struct glob_spec *g)
{
	if (!g)
		return;
	free(g->name);
	free(g->module);
	free(g->path);
	g->name = g->module = g->path = NULL;
}

bool glob_spec_match(const struct glob_spec *g, const char *name, const char *module)
{
	if (!g->name || !name)
		return false;   /* path globs are resolved through DWARF, not here */
	if (g->module) {
		if (!module || !glob_match(g->module, module))
			return false;
	}
	return glob_match(g->name, name);
}

int glob_set_add(struct glob_set *s, const char *text, char *err, size_t errlen)
{
	struct glob_spec g;

	if (glob_spec_parse(text, &g, err, errlen))
		return -1;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		struct glob_spec *v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			glob_spec_free(&g);
			if (err && errlen)
				snprintf(err, errlen, "out of memory");
			return -1;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = g;
	return 0;
}

int glob_set_find(const struct glob_set *s, const char *name, const char *module)
{
	for (size_t i = 0; i < s->n; i++) {
		if (glob_spec_match(&s->v[i], name, module))
			return (int)i;
	}
	return -1;
}

void glob_set_free(struct glob_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		glob_spec_free(&s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}
