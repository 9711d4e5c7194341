/* folded_out.c - `--folded`: aggregates sessions into folded stacks
 * ("outer;inner;deepest N", logical frames outermost first) in a hash
 * table keyed by the stack string, and prints them sorted. Weight: one per
 * session on the full stack, or with --folded-weight=latency each frame's
 * self time (its latency minus its callee's) in microseconds, so a flame
 * graph's widths are latencies. Memory grows with distinct stacks only. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "folded_out.h"
#include "ustack_folded.h"

struct fold_ent {
	struct fold_ent *next;
	uint64_t hash;
	uint64_t weight;
	char key[];
};

struct folded_out {
	struct rp_env *env;
	bool by_latency;
	FILE *out;
	struct fold_ent **tab;
	size_t ntab, n;
	char *buf;
	size_t cap;
};

static struct folded_out *folded_out_new(struct rp_env *env, bool by_latency)
{
	struct folded_out *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->env = env;
	f->by_latency = by_latency;
	f->ntab = 1024;
	f->tab = calloc(f->ntab, sizeof(*f->tab));
	if (!f->tab) {
		free(f);
		return NULL;
	}
	return f;
}

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static int grow(struct folded_out *f)
{
	size_t nt = f->ntab * 2;
	struct fold_ent **t = calloc(nt, sizeof(*t));

	if (!t)
		return -1;
	for (size_t i = 0; i < f->ntab; i++)
		for (struct fold_ent *e = f->tab[i], *nx; e; e = nx) {
			nx = e->next;
			e->next = t[e->hash % nt];
			t[e->hash % nt] = e;
		}
	free(f->tab);
	f->tab = t;
	f->ntab = nt;
	return 0;
}

static int add(struct folded_out *f, const char *key, size_t len, uint64_t w)
{
	uint64_t h = fnv(key, len);
	struct fold_ent *e;

	for (e = f->tab[h % f->ntab]; e; e = e->next)
		if (e->hash == h && !strncmp(e->key, key, len) && !e->key[len]) {
			e->weight += w;
			return 0;
		}
	if (f->n >= f->ntab && grow(f))
		return -1;
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return -1;
	e->hash = h;
	e->weight = w;
	memcpy(e->key, key, len);
	e->key[len] = '\0';
	e->next = f->tab[h % f->ntab];
	f->tab[h % f->ntab] = e;
	f->n++;
	return 0;
}

static int folded_out_session(struct folded_out *f, const struct rp_session *s)
{
	const struct rs_rec_session_end *e = s->e;
	const struct us_stack *us = ustack_res_get(f->env->ures, s);
	size_t len = 0;
	char nb[32];

	if (!e->nframes)
		return 0;
	if (us && ustack_folded(us, &f->buf, &f->cap, &len))   /* -U: user frames at the root */
		return -1;
	for (int i = 0; i < e->nframes; i++) {
		const char *name = rp_func_name(f->env, e->frames[i].func_id, nb, sizeof(nb));
		size_t nl = strlen(name);

		if (len + nl + 2 > f->cap) {
			size_t cap = (len + nl + 2) * 2;
			char *b = realloc(f->buf, cap);

			if (!b)
				return -1;
			f->buf = b;
			f->cap = cap;
		}
		if (len)
			f->buf[len++] = ';';
		for (size_t k = 0; k < nl; k++)   /* ';' and ' ' would break the format */
			f->buf[len++] = (name[k] == ';' || name[k] == ' ') ? '_' : name[k];
		f->buf[len] = '\0';
		if (f->by_latency) {
			uint64_t lat = e->frames[i].lat_ns;
			uint64_t inner = i + 1 < e->nframes ? e->frames[i + 1].lat_ns : 0;
			uint64_t self = lat > inner ? lat - inner : 0;

			if (self / 1000 && add(f, f->buf, len, self / 1000))
				return -1;
		}
	}
	if (!f->by_latency)
		return add(f, f->buf, len, 1);
	return 0;
}

static int cmp_ent(const void *a, const void *b)
{
	return strcmp((*(struct fold_ent *const *)a)->key, (*(struct fold_ent *const *)b)->key);
}

static int folded_out_finish(struct folded_out *f, FILE *out)
{
	struct fold_ent **v = malloc((f->n ? f->n : 1) * sizeof(*v));
	size_t k = 0;

	if (!v)
		return -1;
	for (size_t i = 0; i < f->ntab; i++)
		for (struct fold_ent *e = f->tab[i]; e; e = e->next)
			v[k++] = e;
	if (k)
		qsort(v, k, sizeof(*v), cmp_ent);
	for (size_t i = 0; i < k; i++)
		fprintf(out, "%s %" PRIu64 "\n", v[i]->key, v[i]->weight);
	free(v);
	return ferror(out) ? -1 : 0;
}

static void folded_out_free(struct folded_out *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->ntab; i++)
		for (struct fold_ent *e = f->tab[i], *nx; e; e = nx) {
			nx = e->next;
			free(e);
		}
	free(f->tab);
	free(f->buf);
	free(f);
}

/* ------------------------------------------------------ as an output */
static bool fo_wanted(const struct rp_setup *su)
{
	return su->sel->folded;
}

static unsigned fo_needs(const struct rp_setup *su)
{
	(void)su;
	return 0;
}

static void *fo_begin(const struct rp_setup *su, char *err, size_t errlen)
{
	struct folded_out *f = folded_out_new(su->env, su->sel->folded_lat);

	if (!f)
		snprintf(err, errlen, "out of memory");
	else
		f->out = su->out;
	return f;
}

static int fo_session(void *o, const struct rp_session *s)
{
	if (s->e->flags & RS_SESS_INTERIM)
		return 0;
	return folded_out_session(o, s);
}

static int fo_finish(void *o, char *err, size_t errlen)
{
	struct folded_out *f = o;

	if (folded_out_finish(f, f->out)) {
		snprintf(err, errlen, "--folded: out of memory or a write error");
		return -1;
	}
	return 0;
}

static void fo_free(void *o)
{
	folded_out_free(o);
}

const struct rp_output rp_out_folded = {
	.name = "folded",
	.wanted = fo_wanted,
	.needs = fo_needs,
	.begin = fo_begin,
	.session = fo_session,
	.finish = fo_finish,
	.free = fo_free,
};
