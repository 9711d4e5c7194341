/* summary_view.c - the `summary` view: aggregates sessions as they stream
 * by (counts keyed by function and error, one log-linear latency histogram
 * per entry function) and prints three tables: deepest failing function x
 * error code, deepest failing functions per entry function, and entry
 * latency percentiles. No session is kept. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "../common/array_grow.h"
#include "summary_view.h"
#include "result_fmt.h"

struct fail_key {             /* deepest failing function and its result */
	uint32_t func_id;
	int64_t value;            /* normalized result */
	uint64_t count;
};

struct deep_cnt {
	uint32_t func_id;
	uint64_t count;
};

struct entry_stat {
	uint32_t func_id;
	uint64_t sessions, failed, min, max;
	uint32_t *hist;           /* LATH_BUCKETS */
	struct deep_cnt *deep;
	size_t ndeep, capdeep;
};

struct summary_view {
	struct rp_env *env;
	FILE *out;
	uint64_t sessions, failed, no_frames;
	struct fail_key *fails;
	size_t nfails, capfails;
	struct entry_stat *entries;  /* index by entry func id via lookup */
	size_t nentries, capentries;
	int32_t *entry_of;           /* func id -> index in entries, -1 (size nfuncs+1) */
	struct entry_stat all;
};

int lath_index(uint64_t v)
{
	int e;

	if (v < 128)
		return (int)v;
	e = 63 - __builtin_clzll(v);
	return 128 + (e - 7) * 64 + (int)((v >> (e - 6)) & 63);
}

uint64_t lath_value(int idx)
{
	int e, sub;

	if (idx < 128)
		return (uint64_t)idx;
	e = (idx - 128) / 64 + 7;
	sub = (idx - 128) % 64;
	return (1ULL << e) | ((uint64_t)sub << (e - 6));
}

static void summary_view_free(struct summary_view *v);

static struct summary_view *summary_view_new(struct rp_env *env)
{
	struct summary_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->env = env;
	v->entry_of = malloc((env->nfuncs + 1) * sizeof(*v->entry_of));
	v->all.hist = calloc(LATH_BUCKETS, sizeof(uint32_t));
	if (!v->entry_of || !v->all.hist) {
		summary_view_free(v);
		return NULL;
	}
	for (size_t i = 0; i <= env->nfuncs; i++)
		v->entry_of[i] = -1;
	return v;
}

static void entry_add_lat(struct entry_stat *es, uint64_t lat)
{
	if (!es->sessions || lat < es->min)
		es->min = lat;
	if (lat > es->max)
		es->max = lat;
	es->sessions++;
	es->hist[lath_index(lat)]++;
}

static struct entry_stat *entry_get(struct summary_view *v, uint32_t id)
{
	uint32_t slot = id < v->env->nfuncs ? id : (uint32_t)v->env->nfuncs; /* unknown ids share */
	struct entry_stat *es;

	if (v->entry_of[slot] >= 0)
		return &v->entries[v->entry_of[slot]];
	if (array_grow((void **)&v->entries, v->nentries, &v->capentries, sizeof(*v->entries), 16))
		return NULL;
	es = &v->entries[v->nentries];
	memset(es, 0, sizeof(*es));
	es->func_id = slot;
	es->hist = calloc(LATH_BUCKETS, sizeof(uint32_t));
	if (!es->hist)
		return NULL;
	v->entry_of[slot] = (int32_t)v->nentries++;
	return es;
}

static int deep_add(struct entry_stat *es, uint32_t id)
{
	for (size_t i = 0; i < es->ndeep; i++)
		if (es->deep[i].func_id == id) {
			es->deep[i].count++;
			return 0;
		}
	if (array_grow((void **)&es->deep, es->ndeep, &es->capdeep, sizeof(*es->deep), 4))
		return -1;
	es->deep[es->ndeep++] = (struct deep_cnt){ id, 1 };
	return 0;
}

static int fail_add(struct summary_view *v, uint32_t id, int64_t value)
{
	/* distinct (function, error) pairs are few: a linear scan from the
	 * most recent end is cheap and keeps the code obvious */
	for (size_t i = v->nfails; i-- > 0;)
		if (v->fails[i].func_id == id && v->fails[i].value == value) {
			v->fails[i].count++;
			return 0;
		}
	if (array_grow((void **)&v->fails, v->nfails, &v->capfails, sizeof(*v->fails), 16))
		return -1;
	v->fails[v->nfails++] = (struct fail_key){ id, value, 1 };
	return 0;
}

static int summary_view_session(struct summary_view *v, const struct rp_session *s)
{
	const struct rs_rec_session_end *e = s->e;
	uint64_t lat = rp_session_latency(s);
	struct entry_stat *es;
	int deepest = -1;

	v->sessions++;
	if (e->flags & RS_SESS_IS_ERR)
		v->failed++;
	if (!e->nframes) {
		v->no_frames++;
		return 0;
	}
	es = entry_get(v, e->frames[0].func_id);
	if (!es)
		return -1;
	entry_add_lat(es, lat);
	entry_add_lat(&v->all, lat);
	if (e->flags & RS_SESS_IS_ERR)
		es->failed++;
	for (int i = e->nframes - 1; i >= 0 && deepest < 0; i--)
		if (result_is_error(e->frames[i].res, rp_func_flags(v->env, e->frames[i].func_id)))
			deepest = i;
	if (deepest < 0)
		return 0;
	{
		uint32_t id = e->frames[deepest].func_id;
		int64_t val = result_normalize(e->frames[deepest].res, rp_func_flags(v->env, id));

		if (fail_add(v, id, val) || deep_add(es, id))
			return -1;
	}
	return 0;
}

static uint64_t percentile(const struct entry_stat *es, double p)
{
	uint64_t rank = (uint64_t)(p * (double)es->sessions + 0.999999), cum = 0;

	if (rank < 1)
		rank = 1;
	for (int i = 0; i < LATH_BUCKETS; i++) {
		cum += es->hist[i];
		if (cum >= rank) {
			/* the bucket's largest value: never under-reports */
			uint64_t val = i + 1 < LATH_BUCKETS ? lath_value(i + 1) - 1 : es->max;

			if (val < es->min)
				val = es->min;
			if (val > es->max)
				val = es->max;
			return val;
		}
	}
	return es->max;
}

static int cmp_fail(const void *a, const void *b)
{
	const struct fail_key *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->func_id != y->func_id)
		return x->func_id < y->func_id ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

static int cmp_deep(const void *a, const void *b)
{
	const struct deep_cnt *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->func_id < y->func_id ? -1 : x->func_id > y->func_id;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry_stat *x = a, *y = b;

	if (x->sessions != y->sessions)
		return x->sessions < y->sessions ? 1 : -1;
	return x->func_id < y->func_id ? -1 : x->func_id > y->func_id;
}

static void print_lat_row(FILE *out, const char *name, const struct entry_stat *es)
{
	fprintf(out, "  %-32s %9" PRIu64 " %12.3f %12.3f %12.3f %12.3f\n", name, es->sessions,
		percentile(es, 0.50) / 1000.0, percentile(es, 0.90) / 1000.0,
		percentile(es, 0.99) / 1000.0, es->max / 1000.0);
}

static void summary_view_print(struct summary_view *v, FILE *out)
{
	char nb[32], nb2[32], res[RESULT_FMT_MAX];

	fprintf(out, "SESSIONS: %" PRIu64 " (%" PRIu64 " failed, %" PRIu64 " succeeded)\n\n",
		v->sessions, v->failed, v->sessions - v->failed);

	if (v->nfails)
		qsort(v->fails, v->nfails, sizeof(*v->fails), cmp_fail);
	fprintf(out, "DEEPEST FAILING FUNCTION x ERROR:\n");
	fprintf(out, "  %9s  %-40s %s\n", "COUNT", "FUNCTION", "ERROR");
	for (size_t i = 0; i < v->nfails; i++) {
		const struct fail_key *f = &v->fails[i];

		size_t k;

		result_fmt(res, sizeof(res), f->value, rp_func_flags(v->env, f->func_id) &
			   ~(uint32_t)RS_FUNC_NEEDS_SIGN_EXT);
		k = strlen(res);
		if (k >= 2 && res[0] == '[') {   /* the table needs no brackets */
			memmove(res, res + 1, k - 2);
			res[k - 2] = '\0';
		}
		fprintf(out, "  %9" PRIu64 "  %-40s %s\n", f->count,
			rp_func_name(v->env, f->func_id, nb, sizeof(nb)), res);
	}
	if (!v->nfails)
		fprintf(out, "  (no failing function)\n");

	if (v->nentries)
		qsort(v->entries, v->nentries, sizeof(*v->entries), cmp_entry);
	fprintf(out, "\nDEEPEST FAILING FUNCTION PER ENTRY FUNCTION:\n");
	fprintf(out, "  %-32s %9s %9s  %-32s %9s\n", "ENTRY", "SESSIONS", "FAILED", "DEEPEST FAILING",
		"COUNT");
	for (size_t i = 0; i < v->nentries; i++) {
		struct entry_stat *es = &v->entries[i];
		const char *name = rp_func_name(v->env, es->func_id, nb, sizeof(nb));

		if (es->ndeep)
			qsort(es->deep, es->ndeep, sizeof(*es->deep), cmp_deep);
		if (!es->ndeep)
			fprintf(out, "  %-32s %9" PRIu64 " %9" PRIu64 "  %-32s %9s\n", name,
				es->sessions, es->failed, "-", "-");
		for (size_t k = 0; k < es->ndeep; k++) {
			const char *dn = rp_func_name(v->env, es->deep[k].func_id, nb2, sizeof(nb2));

			if (k == 0)
				fprintf(out, "  %-32s %9" PRIu64 " %9" PRIu64 "  %-32s %9" PRIu64 "\n",
					name, es->sessions, es->failed, dn, es->deep[k].count);
			else
				fprintf(out, "  %-32s %9s %9s  %-32s %9" PRIu64 "\n", "", "", "", dn,
					es->deep[k].count);
		}
	}

	fprintf(out, "\nENTRY LATENCY (us):\n");
	fprintf(out, "  %-32s %9s %12s %12s %12s %12s\n", "ENTRY", "SESSIONS", "P50", "P90", "P99", "MAX");
	for (size_t i = 0; i < v->nentries; i++)
		print_lat_row(out, rp_func_name(v->env, v->entries[i].func_id, nb, sizeof(nb)),
			      &v->entries[i]);
	if (v->all.sessions)
		print_lat_row(out, "(all)", &v->all);
	if (v->no_frames)
		fprintf(out, "\n%" PRIu64 " session(s) without frames.\n", v->no_frames);
}

static void summary_view_free(struct summary_view *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nentries; i++) {
		free(v->entries[i].hist);
		free(v->entries[i].deep);
	}
	free(v->entries);
	free(v->fails);
	free(v->entry_of);
	free(v->all.hist);
	free(v);
}

/* ------------------------------------------------------ as an output */
static bool sv_wanted(const struct rp_setup *su)
{
	return su->sel->summary;
}

static unsigned sv_needs(const struct rp_setup *su)
{
	(void)su;
	return 0;
}

static void *sv_begin(const struct rp_setup *su, char *err, size_t errlen)
{
	struct summary_view *v = summary_view_new(su->env);

	if (!v)
		snprintf(err, errlen, "out of memory");
	else
		v->out = su->out;
	return v;
}

static int sv_session(void *o, const struct rp_session *s)
{
	if (s->e->flags & RS_SESS_INTERIM)
		return 0;
	return summary_view_session(o, s);
}

static int sv_finish(void *o, char *err, size_t errlen)
{
	struct summary_view *v = o;

	(void)err;
	(void)errlen;
	summary_view_print(v, v->out);
	return 0;   /* stdout is flushed and checked by the pipeline */
}

static void sv_free(void *o)
{
	summary_view_free(o);
}

const struct rp_output rp_out_summary = {
	.name = "summary",
	.wanted = sv_wanted,
	.needs = sv_needs,
	.begin = sv_begin,
	.session = sv_session,
	.finish = sv_finish,
	.free = sv_free,
};
