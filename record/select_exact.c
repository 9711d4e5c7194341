/* select_exact.c - the exact-name fast path of function selection
 * (select.h): when every -e/-a selector is an exact name, the functions are
 * found in the kallsyms already read instead of in
 * available_filter_functions (reading it is a third of a small recording's
 * start-up). The kprobe.multi attach by address then confirms that every
 * address is traceable; when it refuses, or anything here is uncertain,
 * the recorder runs the full selection (select_functions), which says
 * what is wrong in its usual words. */
#include "record/func_flags.h"
#include "record/presets.h"
#include "record/select.h"
#include "common/array_grow.h"
#include <bpf/btf.h>
#include <stdlib.h>
#include <string.h>

/* past this many selectors, the full path's BTF index pays off; up to it,
 * the full path too looks each name up by a scan (select.c BIDX_SCANS), so
 * both take the same BTF id when BTF has two functions of one name */
#define EXACT_MAX_GLOBS 8
/* same-named functions of one module, at most (as select.c) */
#define EXACT_MAX_INSTANCES 64

static bool is_exact(const struct glob_spec *g)
{
	return g->name && !g->path && !strpbrk(g->name, "*?") &&
	       (!g->module || !strpbrk(g->module, "*?"));
}

bool select_exact_applies(const struct record_opts *o)
{
	if (!o->entry.n || o->deny.n || o->entry.n + o->allow.n > EXACT_MAX_GLOBS)
		return false;
	for (size_t i = 0; i < o->entry.n; i++)
		if (!is_exact(&o->entry.v[i]))
			return false;
	for (size_t i = 0; i < o->allow.n; i++)
		if (!is_exact(&o->allow.v[i]))
			return false;
	return true;
}

/* another function symbol at K's address: ftrace names the address by one
 * of them only, so which one is traceable is for the full path to say */
static bool has_alias(const struct ksyms *ks, const struct ksym *k)
{
	size_t i = (size_t)(k - ksyms_at(ks, 0)), n = ksyms_count(ks);

	return (i > 0 && ksyms_at(ks, i - 1)->addr == k->addr) ||
	       (i + 1 < n && ksyms_at(ks, i + 1)->addr == k->addr);
}

struct exact_ctx {
	const struct record_opts *o;
	const struct ksyms *ks;
	struct btf *btf;
	struct glob_set enforced;
	size_t cap;
	size_t hits[2 * EXACT_MAX_GLOBS];   /* per -e glob, then per -a glob */
};

/* already selected: (name, module) seen through an earlier selector */
static bool have_group(const struct selection *out, const char *name, const char *module)
{
	for (size_t i = 0; i < out->n; i++)
		if (!strcmp(out->v[i].name, name) && !select_cmp_module(out->v[i].module, module))
			return true;
	return false;
}

static int add_instance(struct exact_ctx *c, struct selection *out, const struct ksym *k,
			uint32_t flags, int btf_id, int ret_slot, int arg_regs)
{
	struct traced_func *f;

	if (array_grow((void **)&out->v, out->n, &c->cap, sizeof(*out->v), 16))
		return -1;
	f = &out->v[out->n];
	f->name = strdup(k->name);
	f->module = k->module ? strdup(k->module) : NULL;
	f->addr = k->addr;
	f->flags = flags;
	f->btf_id = btf_id;
	f->ret_slot = ret_slot;
	f->arg_regs = arg_regs;
	out->n++;
	return f->name && (!k->module || f->module) ? 0 : -1;
}

/* the (name, module) group of K, as select.c's consider() would take it
 * if ftrace lists it once per kallsyms instance; -1: leave it to the full
 * path */
static int take_group(struct exact_ctx *c, const struct ksym *k, struct selection *out)
{
	const struct record_opts *o = c->o;
	const struct ksym *inst[EXACT_MAX_INSTANCES];
	size_t cnt = ksyms_find_exact(c->ks, k->name, k->module, inst, EXACT_MAX_INSTANCES);
	int e = glob_set_find(&o->entry, k->name, k->module), btf_id = 0;
	uint32_t flags;

	if (glob_set_find(&c->enforced, k->name, k->module) >= 0 || !cnt ||
	    cnt > EXACT_MAX_INSTANCES)
		return -1;
	for (size_t j = 0; j < cnt; j++)
		if (has_alias(c->ks, inst[j]))
			return -1;
	if (!k->module && c->btf) {
		btf_id = btf__find_by_name_kind(c->btf, k->name, BTF_KIND_FUNC);
		if (btf_id < 0)
			btf_id = 0;
	}
	flags = btf_id ? btf_func_flags(c->btf, btf_id) : FUNC_FLAGS_NO_BTF;
	if (e >= 0)
		flags |= RS_FUNC_IS_ENTRY;
	/* hits as select.c counts them: per group, for every matching glob
	 * of the kind that selected it */
	for (size_t g = 0; g < o->entry.n && e >= 0; g++)
		if (glob_spec_match(&o->entry.v[g], k->name, k->module))
			c->hits[g]++;
	for (size_t g = 0; g < o->allow.n && e < 0; g++)
		if (glob_spec_match(&o->allow.v[g], k->name, k->module))
			c->hits[EXACT_MAX_GLOBS + g]++;
	for (size_t j = 0; j < cnt; j++)
		if (add_instance(c, out, inst[j], flags, btf_id,
				 btf_id ? btf_func_ret_slot(c->btf, btf_id) : -1,
				 btf_id ? btf_func_arg_regs(c->btf, btf_id) : -1))
			return -1;
	return 0;
}

/* every function of kallsyms that selector G names, grouped by module */
static int take_glob(struct exact_ctx *c, const struct glob_spec *g, struct selection *out)
{
	const struct ksym *all[EXACT_MAX_INSTANCES];
	size_t n = ksyms_find_all(c->ks, g->name, all, EXACT_MAX_INSTANCES);

	if (n > EXACT_MAX_INSTANCES)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!glob_spec_match(g, all[i]->name, all[i]->module) ||
		    have_group(out, all[i]->name, all[i]->module))
			continue;
		if (take_group(c, all[i], out))
			return -1;
	}
	return 0;
}

static int add_note(struct selection *out, const char *kind, const struct glob_spec *g,
		    size_t hits)
{
	struct sel_note *v = realloc(out->notes, (out->nnotes + 1) * sizeof(*v));
	char text[700];

	if (!v)
		return -1;
	out->notes = v;
	snprintf(text, sizeof(text), "%s glob '%s%s%s%s' selected %zu function(s)", kind, g->name,
		 g->module ? " [" : "", g->module ? g->module : "", g->module ? "]" : "", hits);
	v[out->nnotes].text = strdup(text);
	v[out->nnotes].verbose_only = true;
	if (!v[out->nnotes].text)
		return -1;
	out->nnotes++;
	return 0;
}

/* every selector selected something: the -v notes select.c writes */
static int take_notes(struct exact_ctx *c, struct selection *out)
{
	const struct record_opts *o = c->o;

	for (size_t g = 0; g < o->entry.n; g++)
		if (!c->hits[g])
			return -1;
	for (size_t g = 0; g < o->allow.n; g++)
		if (!c->hits[EXACT_MAX_GLOBS + g])
			return -1;
	for (size_t g = 0; g < o->entry.n; g++)
		if (add_note(out, "entry", &o->entry.v[g], c->hits[g]))
			return -1;
	for (size_t g = 0; g < o->allow.n; g++)
		if (add_note(out, "allow", &o->allow.v[g], c->hits[EXACT_MAX_GLOBS + g]))
			return -1;
	return 0;
}

bool select_exact(const struct record_opts *o, const struct ksyms *ks, struct btf *vmlinux_btf,
		  struct selection *out)
{
	struct exact_ctx c = { .o = o, .ks = ks, .btf = vmlinux_btf };
	int ret = select_exact_applies(o) ? 0 : -1;
	char err[256];

	memset(out, 0, sizeof(*out));
	for (int i = 0; !ret && enforced_deny[i]; i++)
		ret = glob_set_add(&c.enforced, enforced_deny[i], err, sizeof(err));
	for (size_t g = 0; !ret && g < o->entry.n; g++)
		ret = take_glob(&c, &o->entry.v[g], out);
	for (size_t g = 0; !ret && g < o->allow.n; g++)
		ret = take_glob(&c, &o->allow.v[g], out);
	if (!ret)
		ret = take_notes(&c, out);
	glob_set_free(&c.enforced);
	if (ret || !out->n) {
		selection_free(out);
		return false;
	}
	qsort(out->v, out->n, sizeof(*out->v), select_cmp_func);
	out->from_kallsyms = true;
	return true;
}
