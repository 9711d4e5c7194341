/* glob.h - function-name globs (`*`, `?`), the `GLOB [MODGLOB]` module
 * form, and glob sets with upstream's precedence (deny > entry > allow).
 * Used by retsnoop-record for selection and by retsnoop-report filters. */
#ifndef RS_GLOB_H
#define RS_GLOB_H

#include <stdbool.h>
#include <stddef.h>

/* whole-string match; `*` any run (possibly empty), `?` one char */
bool glob_match(const char *glob, const char *str);

/* A parsed selector: "name_glob", "name_glob [mod_glob]", or ":path_glob"
 * (source-file glob, resolved through DWARF). */
struct glob_spec {
	char *name;      /* NULL for a path glob */
	char *module;    /* NULL: matches vmlinux and modules alike */
	char *path;      /* source path glob (":mm/slab*.c"), else NULL */
	size_t matches;  /* filled by users: how many functions matched */
};

/* Parses one selector. Returns 0, or -1 with a one-line reason in err
 * (empty glob, "**" alone, unbalanced '[', characters outside the
 * symbol alphabet and * ? . : / [ ] space). */
int glob_spec_parse(const char *text, struct glob_spec *out, char *err, size_t errlen);
void glob_spec_free(struct glob_spec *g);
/* name+module match (module NULL = vmlinux) */
bool glob_spec_match(const struct glob_spec *g, const char *name, const char *module);

struct glob_set {
	struct glob_spec *v;
	size_t n, cap;
};
int glob_set_add(struct glob_set *s, const char *text, char *err, size_t errlen);
/* index of the first matching spec, or -1 */
int glob_set_find(const struct glob_set *s, const char *name, const char *module);
void glob_set_free(struct glob_set *s);

#endif
