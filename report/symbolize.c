/* symbolize.c - kallsyms-snapshot symbolization of runtime addresses with
 * module-range sanity checks, plus the hook for a DWARF backend (see
 * symbolize.h). */
#include <stdlib.h>
#include <string.h>
#include "../symbols/ksyms.h"
#include "symbolize.h"

/* a vmlinux symbol followed by nothing or by a module symbol has no real
 * size: accept only addresses this close to it */
#define BOUNDARY_SYM_MAX 0x10000

struct symbolizer {
	struct ksyms *ks;
	struct rsf_module *mods;
	size_t nmods;
	struct symb_backend be;
	bool have_be;
	int64_t slide;
};

struct symbolizer *symbolizer_new(const struct rsf_ksym *ksyms, size_t nksyms,
				  const struct rsf_module *mods, size_t nmods)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	struct ksym *v;

	if (!s)
		return NULL;
	v = calloc(nksyms ? nksyms : 1, sizeof(*v));
	if (!v) {
		free(s);
		return NULL;
	}
	for (size_t i = 0; i < nksyms; i++) {
		v[i].addr = ksyms[i].addr;
		v[i].type = ksyms[i].type;
		v[i].name = ksyms[i].name;
		v[i].module = ksyms[i].module;
	}
	s->ks = ksyms_from_array(v, nksyms);
	free(v);
	if (!s->ks) {
		free(s);
		return NULL;
	}
	if (nmods) {
		s->mods = calloc(nmods, sizeof(*s->mods));
		if (!s->mods) {
			symbolizer_free(s);
			return NULL;
		}
		s->nmods = nmods;
		for (size_t i = 0; i < nmods; i++) {
			s->mods[i].base = mods[i].base;
			s->mods[i].size = mods[i].size;
			s->mods[i].name = mods[i].name ? strdup(mods[i].name) : NULL;
		}
	}
	return s;
}

void symbolizer_set_backend(struct symbolizer *s, const struct symb_backend *b, int64_t slide)
{
	if (s->have_be && s->be.free)
		s->be.free(s->be.ctx);
	s->have_be = b != NULL;
	if (b)
		s->be = *b;
	s->slide = slide;
}

int64_t symbolizer_slide(uint64_t runtime_text, uint64_t link_text)
{
	if (!runtime_text || !link_text)
		return 0;
	return (int64_t)(runtime_text - link_text);
}

static bool in_any_module(const struct symbolizer *s, uint64_t addr)
{
	for (size_t i = 0; i < s->nmods; i++)
		if (s->mods[i].size && addr >= s->mods[i].base && addr - s->mods[i].base < s->mods[i].size)
			return true;
	return false;
}

static const struct rsf_module *find_module(const struct symbolizer *s, const char *name)
{
	for (size_t i = 0; i < s->nmods; i++)
		if (s->mods[i].name && strcmp(s->mods[i].name, name) == 0)
			return &s->mods[i];
	return NULL;
}

static bool same_object(const struct ksym *a, const struct ksym *b)
{
	if (!a->module || !b->module)
		return a->module == b->module;
	return strcmp(a->module, b->module) == 0;
}

/* kallsyms sizes are distances to the next symbol, so the last symbol of
 * vmlinux or of a module would otherwise swallow every address above it
 * (BPF programs, other modules' gaps) */
static bool plausible(const struct symbolizer *s, const struct ksym *k, uint64_t addr)
{
	size_t idx = (size_t)(k - ksyms_at(s->ks, 0));
	const struct ksym *next;

	while ((next = ksyms_at(s->ks, idx + 1)) && next->addr == k->addr)
		idx++;
	if (next && same_object(k, next))
		return true;
	if (k->module) {
		const struct rsf_module *m = find_module(s, k->module);

		if (m && m->size)
			return addr >= m->base && addr - m->base < m->size;
	} else if (in_any_module(s, addr)) {
		return false;
	}
	return addr - k->addr < BOUNDARY_SYM_MAX;
}

int symbolize(struct symbolizer *s, uint64_t addr, bool is_ret, struct symb_info *out)
{
	const struct ksym *k;
	uint64_t look = is_ret && addr ? addr - 1 : addr;

	/* only the header fields: src and inlines (3 KiB) are valid only
	 * through has_src and ninlines, and clearing them per frame showed up
	 * in the report's profile */
	out->name = NULL;
	out->module = NULL;
	out->sym_addr = 0;
	out->offset = 0;
	out->has_src = false;
	out->ninlines = 0;
	k = ksyms_lookup(s->ks, look);
	if (!k || !plausible(s, k, look))
		return -1;
	out->name = k->name;
	out->module = k->module;
	out->sym_addr = k->addr;
	out->offset = addr - k->addr;
	if (s->have_be && s->be.lookup)
		s->be.lookup(s->be.ctx, addr, (uint64_t)((int64_t)addr - s->slide), is_ret, out);
	return 0;
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	if (s->have_be && s->be.free)
		s->be.free(s->be.ctx);
	ksyms_free(s->ks);
	for (size_t i = 0; i < s->nmods; i++)
		free((char *)s->mods[i].name);
	free(s->mods);
	free(s);
}
