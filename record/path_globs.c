/* path_globs.c - expands record-time ':path' globs into function-name specs
 * through the vmlinux DWARF compile units (see path_globs.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "record/kernel_info.h"
#include "record/path_globs.h"
#include "symbols/dwarf_sym.h"

static const struct glob_set *sets_of(const struct record_opts *o, int i)
{
	return i == 0 ? &o->entry : i == 1 ? &o->allow : &o->deny;
}

bool path_globs_present(const struct record_opts *o)
{
	for (int i = 0; i < 3; i++) {
		const struct glob_set *s = sets_of(o, i);

		for (size_t j = 0; j < s->n; j++)
			if (s->v[j].path && !s->v[j].name)
				return true;
	}
	return false;
}

static int push(struct glob_set *s, const char *name, const char *module, const char *path)
{
	struct glob_spec *g;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct glob_spec *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	g = &s->v[s->n];
	memset(g, 0, sizeof(*g));
	g->name = name ? strdup(name) : NULL;
	g->module = module ? strdup(module) : NULL;
	g->path = path ? strdup(path) : NULL;
	if ((name && !g->name) || (module && !g->module) || (path && !g->path)) {
		glob_spec_free(g);
		return -1;
	}
	s->n++;
	return 0;
}

struct expand_ctx {
	struct glob_set *set;
	const char *path;
	size_t nfuncs;
	int oom;
};

static int on_func(const char *func, uint64_t addr, const char *cu_path, void *ctx)
{
	struct expand_ctx *x = ctx;

	(void)addr;
	(void)cu_path;
	if (!func || !*func)
		return 0;
	if (push(x->set, func, NULL, x->path)) {
		x->oom = 1;
		return 1;
	}
	x->nfuncs++;
	return 0;
}

/* the vmlinux: -k, or discovery for the running kernel */
static struct dwarf_sym *open_vmlinux(const struct record_opts *o, char *err, size_t errlen)
{
	char why[1024], *path, *mm = NULL;
	struct dwarf_sym *ds;
	uint8_t id[64];
	size_t idlen;
	struct utsname u;

	if (o->kernel) {
		path = strdup(o->kernel);
	} else {
		if (uname(&u)) {
			snprintf(err, errlen, "':path' globs: cannot read the kernel release (uname)");
			return NULL;
		}
		idlen = read_build_id_file("/sys/kernel/notes", id, sizeof(id));
		path = dwarf_find_vmlinux(u.release, id, idlen, &mm, why, sizeof(why));
		free(mm);
		if (!path) {
			snprintf(err, errlen, "':path' globs need the running kernel's vmlinux with DWARF: "
				 "%s", why);
			return NULL;
		}
	}
	if (!path) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* read the cache, never write it: the recorder runs as root */
	ds = dwarf_sym_open(path, DWARF_SYM_NO_WRITE, why, sizeof(why));
	if (!ds)
		snprintf(err, errlen, "':path' globs: %s", why);
	free(path);
	return ds;
}

int path_globs_expand(const struct record_opts *o, struct record_opts *exp,
		      char *err, size_t errlen)
{
	struct dwarf_sym *ds = NULL;
	int ret = -1;

	*exp = *o;
	memset(&exp->entry, 0, sizeof(exp->entry));
	memset(&exp->allow, 0, sizeof(exp->allow));
	memset(&exp->deny, 0, sizeof(exp->deny));
	struct glob_set *dsts[3] = { &exp->entry, &exp->allow, &exp->deny };

	for (int i = 0; i < 3; i++) {
		const struct glob_set *src = sets_of(o, i);
		struct glob_set *dst = dsts[i];

		for (size_t j = 0; j < src->n; j++) {
			const struct glob_spec *g = &src->v[j];
			struct expand_ctx x = { .set = dst, .path = g->path };
			int ncu;

			if (g->name || !g->path) {
				if (push(dst, g->name, g->module, g->path))
					goto oom;
				continue;
			}
			if (!ds && !(ds = open_vmlinux(o, err, errlen)))
				goto out;
			ncu = dwarf_sym_cu_glob(ds, g->path, on_func, &x);
			if (x.oom)
				goto oom;
			if (ncu < 0) {
				snprintf(err, errlen, "':%s': cannot read the vmlinux DWARF", g->path);
				goto out;
			}
			if (ncu == 0 || x.nfuncs == 0) {
				snprintf(err, errlen, "':%s' matches no compile unit with functions in the "
					 "vmlinux DWARF (paths are relative to the kernel tree, e.g. "
					 "':kernel/bpf/*.c')", g->path);
				goto out;
			}
		}
	}
	ret = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	dwarf_sym_close(ds);
	if (ret)
		path_globs_free(exp);
	return ret;
}

void path_globs_free(struct record_opts *exp)
{
	glob_set_free(&exp->entry);
	glob_set_free(&exp->allow);
	glob_set_free(&exp->deny);
}
