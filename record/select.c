/* select.c - function selection for retsnoop-record (select.h): traceable
 * list ∩ kallsyms ∩ BTF, globs with deny > entry > allow, enforced deny
 * list, per-address instances, and a diagnosis for -e globs that match
 * nothing. */
#include "record/path_globs.h"
#include "record/select.h"
#include "common/array_grow.h"
#include "common/fd_read_all.h"
#include "record/func_flags.h"
#include "record/presets.h"
#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const tracefs_lists[] = {
	"/sys/kernel/tracing/available_filter_functions",
	"/sys/kernel/debug/tracing/available_filter_functions",
};

const char *traceable_list_path(void)
{
	for (size_t i = 0; i < 2; i++)
		if (access(tracefs_lists[i], R_OK) == 0)
			return tracefs_lists[i];
	return NULL;
}

struct tentry {                 /* one traceable (name, module), counted */
	char *name;
	char *module;
	int count;
	bool entry;
};

int select_cmp_module(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	return strcmp(a, b);
}

static int cmp_tentry(const void *pa, const void *pb)
{
	const struct tentry *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c ? c : select_cmp_module(a->module, b->module);
}

/* kallsyms by (name, module): ksyms' name index */
struct kidx {
	const struct ksyms *ks;
	size_t n;
};

static const struct ksym *kidx_at(const struct kidx *k, size_t i)
{
	return ksyms_at(k->ks, i);   /* any order: only counted */
}

static void kidx_init(struct kidx *k, const struct ksyms *ks)
{
	k->ks = ks;
	k->n = ksyms_count(ks);
}

/* BTF function name -> id: the first few lookups scan the BTF (libbpf);
 * past them, an index of the function names sorted for binary search is
 * built once, which costs as much as about a dozen scans: a small
 * selection never pays for it */
#define BIDX_SCANS 8

struct bidx {
	const struct btf *btf;
	struct { const char *name; int id; } *v;
	size_t n, scans;
	bool built;
};

static int cmp_bentry(const void *pa, const void *pb)
{
	return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

static int bidx_build(struct bidx *b)
{
	unsigned n = b->btf ? btf__type_cnt(b->btf) : 0;

	b->n = 0;
	b->v = malloc((n ? n : 1) * sizeof(*b->v));
	if (!b->v)
		return -1;
	for (unsigned id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);

		if (!btf_is_func(t))
			continue;
		b->v[b->n].name = btf__name_by_offset(b->btf, t->name_off);
		b->v[b->n].id = (int)id;
		b->n++;
	}
	qsort(b->v, b->n, sizeof(*b->v), cmp_bentry);
	b->built = true;
	return 0;
}

/* the BTF id of function NAME, 0 when none (or out of memory) */
static int bidx_find(struct bidx *b, const char *name)
{
	size_t lo = 0, hi;

	if (!b->btf)
		return 0;
	if (!b->built && b->scans < BIDX_SCANS) {
		int id = btf__find_by_name_kind(b->btf, name, BTF_KIND_FUNC);

		b->scans++;
		return id > 0 ? id : 0;
	}
	if (!b->built && bidx_build(b))
		return 0;
	hi = b->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(b->v[mid].name, name);

		if (!c)
			return b->v[mid].id;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* diagnosis of an -e glob that selected nothing */
static void explain_unmatched(const char *kind, const struct glob_spec *g, const struct kidx *k,
			      const struct tentry *all, size_t nall, struct bidx *b,
			      bool need_btf, const struct glob_set *deny,
			      const struct glob_set *enforced, char *err, size_t errlen,
			      const char *text)
{
	size_t in_kallsyms = 0, traceable = 0, denied = 0, with_btf = 0;

	for (size_t i = 0; i < k->n; i++)
		if (glob_spec_match(g, kidx_at(k, i)->name, kidx_at(k, i)->module))
			in_kallsyms++;
	for (size_t i = 0; i < nall; i++) {
		if (!glob_spec_match(g, all[i].name, all[i].module))
			continue;
		traceable++;
		if (glob_set_find(deny, all[i].name, all[i].module) >= 0 ||
		    glob_set_find(enforced, all[i].name, all[i].module) >= 0)
			denied++;
		if (bidx_find(b, all[i].name))
			with_btf++;
	}
	if (!in_kallsyms && !traceable)
		snprintf(err, errlen, "%s ""glob '%s' matches no kernel function: not in kallsyms "
			 "(misspelled, inlined or compiled out; names with suffixes like .isra.0 need a trailing *)", kind, text);
	else if (!traceable)
		snprintf(err, errlen, "%s ""glob '%s' matches %zu kallsyms function(s) but none is traceable "
			 "(not in available_filter_functions: notrace, inlined or blacklisted)", kind, text, in_kallsyms);
	else if (denied == traceable)
		snprintf(err, errlen, "%s ""glob '%s' matches %zu traceable function(s), all denied "
			 "(by -d or the enforced deny list of functions unsafe to trace)", kind, text, traceable);
	else if (need_btf && !with_btf)
		snprintf(err, errlen, "%s ""glob '%s' matches %zu traceable function(s) but none is in BTF, "
			 "which fentry/fexit (-F) needs: use -K or -M", kind, text, traceable);
	else
		snprintf(err, errlen, "%s ""glob '%s' matches %zu traceable function(s) but none could be "
			 "used (ambiguous same-name instances differing between kallsyms and ftrace)", kind, text, traceable);
}

/* the whole file in one buffer, read in large pieces: ftrace's seq_file
 * walks the function list from its start at every read() (t_start), so
 * stdio's 4 KiB reads make reading available_filter_functions quadratic */
static char *read_whole(const char *path, size_t *len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;

	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	buf = fd_read_all(fd, 4 << 20, len);
	if (!buf)
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
	close(fd);
	return buf;
}

static uint32_t tentry_hash(const struct tentry *t)
{
	uint32_t h = 2166136261u;   /* FNV-1a over name, then module */

	for (const char *p = t->name; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	if (t->module)
		for (const char *p = t->module; *p; p++)
			h = (h ^ (uint8_t)*p) * 16777619u;
	return h;
}

/* same-named static functions listed more than once: one entry each,
 * counted, in the order of their first listing (a hash table instead of
 * sorting ~55k names); returns the entries left. Out of memory: a sort */
static size_t merge_duplicates(struct tentry *v, size_t n)
{
	size_t nb = 64, w = 0;
	uint32_t *slot;

	while (nb < 2 * n)
		nb <<= 1;
	slot = calloc(nb, sizeof(*slot));   /* entry index + 1; 0: free */
	if (!slot) {
		qsort(v, n, sizeof(*v), cmp_tentry);
		for (size_t i = 0; i < n; i++) {
			if (w && !cmp_tentry(&v[w - 1], &v[i]))
				v[w - 1].count++;
			else
				v[w++] = v[i];
		}
		return w;
	}
	for (size_t i = 0; i < n; i++) {
		size_t j = tentry_hash(&v[i]) & (nb - 1);

		while (slot[j] && cmp_tentry(&v[slot[j] - 1], &v[i]))
			j = (j + 1) & (nb - 1);
		if (slot[j]) {
			v[slot[j] - 1].count++;
			continue;
		}
		v[w] = v[i];
		slot[j] = (uint32_t)++w;
	}
	free(slot);
	return w;
}

/* the selection in (name, module, address) order, the order function ids
 * had when the traceable list was sorted */
int select_cmp_func(const void *pa, const void *pb)
{
	const struct traced_func *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (!c)
		c = select_cmp_module(a->module, b->module);
	if (!c && a->addr != b->addr)
		c = a->addr < b->addr ? -1 : 1;
	return c;
}

/* *TEXT: the file's contents, which the entries' names point into */
static int read_traceable(struct tentry **out, size_t *nout, char **textp, char *err,
			  size_t errlen)
{
	const char *path = traceable_list_path();
	char *text, *line, *next;
	struct tentry *v = NULL;
	size_t n = 0, cap = 0, len;

	if (!path) {
		snprintf(err, errlen, "cannot read available_filter_functions (tried %s and %s): %s; "
			 "mount tracefs (mount -t tracefs none /sys/kernel/tracing) and run as root, "
			 "or the kernel lacks CONFIG_FUNCTION_TRACER",
			 tracefs_lists[0], tracefs_lists[1], strerror(errno));
		return -1;
	}
	text = read_whole(path, &len, err, errlen);
	if (!text)
		return -1;
	for (line = text; line < text + len; line = next) {
		char *name = line, *mod = NULL, *p;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (!line[0] || !strncmp(line, "__ftrace_invalid_address__", 26))
			continue;
		p = strchr(line, ' ');
		if (p) {
			*p = '\0';
			mod = strchr(p + 1, '[');
			if (mod) {
				mod++;
				mod[strcspn(mod, "]")] = '\0';
			}
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			struct tentry *nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n].name = name;
		v[n].module = mod;
		v[n].count = 1;
		v[n].entry = false;
		n++;
	}
	if (!n) {
		snprintf(err, errlen, "%s is empty: this kernel has no traceable functions", path);
		free(text);
		free(v);
		return -1;
	}
	*textp = text;
	*out = v;
	*nout = merge_duplicates(v, n);
	return 0;
}

static int add_func(struct selection *s, size_t *cap, const struct ksym *k, uint32_t flags, int btf_id,
		    int ret_slot, int arg_regs)
{
	if (array_grow((void **)&s->v, s->n, cap, sizeof(*s->v), 256))
		return -1;
	s->v[s->n].name = strdup(k->name);
	s->v[s->n].module = k->module ? strdup(k->module) : NULL;
	s->v[s->n].addr = k->addr;
	s->v[s->n].flags = flags;
	s->v[s->n].btf_id = btf_id;
	s->v[s->n].ret_slot = ret_slot;
	s->v[s->n].arg_regs = arg_regs;
	s->n++;
	return 0;
}

/* one selection pass's inputs and indexes */
struct select_ctx {
	const struct record_opts *o;
	struct btf *btf;
	bool need_btf;
	struct glob_set enforced;   /* presets.c's deny list */
	struct tentry *all;         /* the traceable list */
	char *all_text;             /* the file its names point into */
	size_t nall, cap;
	struct kidx k;
	struct bidx b;
	size_t *entry_hits;         /* per -e glob: functions it selected */
	size_t *allow_hits;         /* per -a glob: functions it selected */
	size_t *allow_entries;      /* per -a glob: entry functions it matched (-e's) */
	size_t *deny_hits;          /* per -d glob: traceable functions it matched */
};

/* same-named static functions of one module attached at once, at most */
#define MAX_INSTANCES 64

/* selects traceable function t (every kallsyms address of it) if the globs
 * want it and it can be attached; -1 only when out of memory */
static int consider(struct select_ctx *c, const struct tentry *t, struct selection *out)
{
	const struct record_opts *o = c->o;
	const struct ksym *hits[MAX_INSTANCES];
	int e, a, btf_id = 0;
	size_t cnt, *allow_counts;
	uint32_t flags;

	for (size_t g = 0; g < o->deny.n; g++)
		if (glob_spec_match(&o->deny.v[g], t->name, t->module))
			c->deny_hits[g]++;
	/* the deny lists only for functions the globs want: the enforced list
	 * is long and most traceable functions are wanted by no glob */
	e = glob_set_find(&o->entry, t->name, t->module);
	a = e >= 0 ? e : glob_set_find(&o->allow, t->name, t->module);
	if (a < 0)
		return 0;
	if (glob_set_find(&o->deny, t->name, t->module) >= 0 ||
	    glob_set_find(&c->enforced, t->name, t->module) >= 0) {
		out->skipped_denied++;
		return 0;
	}
	cnt = ksyms_find_exact(c->k.ks, t->name, t->module, hits, MAX_INSTANCES);
	if (cnt == 0 || (int)cnt != t->count || cnt > MAX_INSTANCES) {
		out->skipped_ambiguous++;
		return 0;
	}
	if (!t->module)
		btf_id = bidx_find(&c->b, t->name);
	if (!btf_id && c->need_btf) {
		out->skipped_no_btf++;
		return 0;
	}
	if (c->need_btf && cnt > 1) {   /* fentry attaches by BTF id: must be unique */
		out->skipped_ambiguous++;
		return 0;
	}
	flags = btf_id ? btf_func_flags(c->btf, btf_id) : FUNC_FLAGS_NO_BTF;
	if (e >= 0) {
		flags |= RS_FUNC_IS_ENTRY;
		/* count the hit for every entry glob that matches */
		for (size_t g = 0; g < o->entry.n; g++)
			if (glob_spec_match(&o->entry.v[g], t->name, t->module))
				c->entry_hits[g]++;
	}
	/* and for every -a glob: as an entry function or one it selected */
	allow_counts = e >= 0 ? c->allow_entries : c->allow_hits;
	for (size_t g = 0; g < o->allow.n; g++)
		if (glob_spec_match(&o->allow.v[g], t->name, t->module))
			allow_counts[g]++;
	for (size_t j = 0; j < cnt; j++)
		if (add_func(out, &c->cap, hits[j], flags, btf_id,
			     btf_id ? btf_func_ret_slot(c->btf, btf_id) : -1,
			     btf_id ? btf_func_arg_regs(c->btf, btf_id) : -1))
			return -1;
	return 0;
}

/* every -e glob selected something; else -1 with why the first did not */
static int check_entry_hits(struct select_ctx *c, char *err, size_t errlen)
{
	const struct glob_set *entry = &c->o->entry;
	char text[300];

	for (size_t g = 0; g < entry->n; g++) {
		const struct glob_spec *gs = &entry->v[g];
		size_t h = 0;

		if (c->entry_hits[g])
			continue;
		if (gs->path) {   /* from a ':path' glob: one hit for the glob is enough */
			for (size_t g2 = 0; g2 < entry->n; g2++)
				if (entry->v[g2].path && !strcmp(entry->v[g2].path, gs->path))
					h += c->entry_hits[g2];
			if (h)
				continue;
			snprintf(err, errlen, "entry glob ':%s': none of the functions of its compile "
				 "units is traceable (or all are denied)", gs->path);
			return -1;
		}
		snprintf(text, sizeof(text), "%s%s%s%s", gs->name, gs->module ? " [" : "",
			 gs->module ? gs->module : "", gs->module ? "]" : "");
		explain_unmatched("entry", gs, &c->k, c->all, c->nall, &c->b, c->need_btf, &c->o->deny,
				  &c->enforced, err, errlen, text);
		return -1;
	}
	return 0;
}

static int add_note(struct selection *out, bool verbose_only, const char *text)
{
	struct sel_note *v = realloc(out->notes, (out->nnotes + 1) * sizeof(*v));

	if (!v)
		return -1;
	out->notes = v;
	v[out->nnotes].text = strdup(text);
	v[out->nnotes].verbose_only = verbose_only;
	if (!v[out->nnotes].text)
		return -1;
	out->nnotes++;
	return 0;
}

static void glob_text(const struct glob_spec *gs, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", gs->name, gs->module ? " [" : "",
		 gs->module ? gs->module : "", gs->module ? "]" : "");
}

/* per glob: how many functions it selected (-v), and why an -a glob or a
 * -d glob did nothing (always); ':path' globs are counted per path by
 * check_entry_hits and not here. -1 when out of memory */
static int note_globs(struct select_ctx *c, struct selection *out)
{
	const struct record_opts *o = c->o;
	char text[300], msg[700];

	for (size_t g = 0; g < o->entry.n; g++) {
		if (o->entry.v[g].path)
			continue;
		glob_text(&o->entry.v[g], text, sizeof(text));
		snprintf(msg, sizeof(msg), "entry glob '%s' selected %zu function(s)", text,
			 c->entry_hits[g]);
		if (add_note(out, true, msg))
			return -1;
	}
	for (size_t g = 0; g < o->allow.n; g++) {
		if (o->allow.v[g].path)
			continue;
		glob_text(&o->allow.v[g], text, sizeof(text));
		if (c->allow_hits[g]) {
			snprintf(msg, sizeof(msg), "allow glob '%s' selected %zu function(s)", text,
				 c->allow_hits[g]);
		} else if (c->allow_entries[g]) {   /* traced as entry functions: not a problem */
			snprintf(msg, sizeof(msg), "allow glob '%s' selected no function besides the "
				 "%zu entry function(s) it matches", text, c->allow_entries[g]);
		} else {
			explain_unmatched("allow", &o->allow.v[g], &c->k, c->all, c->nall, &c->b,
					  c->need_btf, &o->deny, &c->enforced, msg, sizeof(msg), text);
			strncat(msg, "; ignored", sizeof(msg) - strlen(msg) - 1);
		}
		if (add_note(out, c->allow_hits[g] || c->allow_entries[g], msg))
			return -1;
	}
	for (size_t g = 0; g < o->deny.n; g++) {
		glob_text(&o->deny.v[g], text, sizeof(text));
		if (c->deny_hits[g])
			snprintf(msg, sizeof(msg), "deny glob '%s' matched %zu traceable function(s)",
				 text, c->deny_hits[g]);
		else
			snprintf(msg, sizeof(msg), "deny glob '%s' matches no traceable function: "
				 "it denies nothing", text);
		if (add_note(out, c->deny_hits[g] != 0, msg))
			return -1;
	}
	return 0;
}

static void select_ctx_free(struct select_ctx *c)
{
	free(c->all);
	free(c->all_text);
	free(c->b.v);
	free(c->entry_hits);
	free(c->allow_hits);
	free(c->allow_entries);
	free(c->deny_hits);
	glob_set_free(&c->enforced);
}

static int select_names(struct select_ctx *c, const struct ksyms *ks, struct selection *out,
			char *err, size_t errlen)
{
	for (int i = 0; enforced_deny[i]; i++)
		glob_set_add(&c->enforced, enforced_deny[i], err, errlen);
	if (read_traceable(&c->all, &c->nall, &c->all_text, err, errlen))
		return -1;
	out->traceable_total = c->nall;
	kidx_init(&c->k, ks);
	c->entry_hits = calloc(c->o->entry.n + 1, sizeof(*c->entry_hits));
	c->allow_hits = calloc(c->o->allow.n + 1, sizeof(*c->allow_hits));
	c->allow_entries = calloc(c->o->allow.n + 1, sizeof(*c->allow_entries));
	c->deny_hits = calloc(c->o->deny.n + 1, sizeof(*c->deny_hits));
	c->b.btf = c->btf;
	if (!c->entry_hits || !c->allow_hits || !c->allow_entries || !c->deny_hits) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < c->nall; i++)
		if (consider(c, &c->all[i], out)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	if (check_entry_hits(c, err, errlen) || note_globs(c, out)) {
		if (!err[0])
			snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!out->n) {
		snprintf(err, errlen, "no traceable function matched the globs");
		return -1;
	}
	qsort(out->v, out->n, sizeof(*out->v), select_cmp_func);
	return 0;
}

int select_functions(const struct record_opts *o, const struct ksyms *ks,
		     struct btf *vmlinux_btf, bool need_btf,
		     struct selection *out, char *err, size_t errlen)
{
	struct select_ctx c = { .o = o, .btf = vmlinux_btf, .need_btf = need_btf };
	int ret;

	memset(out, 0, sizeof(*out));
	if (path_globs_present(o)) {   /* ':path' -> the names of its DWARF CUs */
		struct record_opts exp;

		if (path_globs_expand(o, &exp, err, errlen))
			return -1;
		ret = select_functions(&exp, ks, vmlinux_btf, need_btf, out, err, errlen);
		path_globs_free(&exp);
		return ret;
	}
	ret = select_names(&c, ks, out, err, errlen);
	select_ctx_free(&c);
	if (ret)
		selection_free(out);
	return ret;
}

void selection_free(struct selection *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].module);
	}
	free(s->v);
	s->v = NULL;
	s->n = 0;
	for (size_t i = 0; i < s->nnotes; i++)
		free(s->notes[i].text);
	free(s->notes);
	s->notes = NULL;
	s->nnotes = 0;
}
