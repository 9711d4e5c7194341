/* perfetto_out.c - `--perfetto FILE`: Chrome trace-event JSON. One track
 * per thread (thread_name/process_name metadata), one "X" (complete)
 * slice per session and, nested in it, one per traced call: from the -T
 * entry/exit records when the session has them, else from the logical
 * frames' latencies (each call placed so that it ends when its caller
 * ends: errors propagate straight up). Timestamps are bpf_ktime in
 * microseconds; slices of a session are sorted by start so every track is
 * monotonic. Failing calls carry args.error=true and a red "cname". */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "../common/array_grow.h"
#include "perfetto_out.h"
#include "../common/json_writer.h"
#include "args_render.h"
#include "probe_ctx.h"
#include "../format/probe_table.h"
#include "result_fmt.h"

struct slice {
	uint64_t ts, dur;
	int depth;
	uint32_t func_id;
	uint32_t seq_id;          /* the call's entry (-A arguments) */
	bool has_res;
	int64_t res;
};

struct perfetto_out {
	struct rp_env *env;
	FILE *f;
	struct json_writer w;
	char *path;
	uint64_t *seen;           /* open-addressing set of pid<<32|tid (0 = empty) */
	size_t nseen, capseen;
	struct slice *sl;
	size_t nsl, capsl;
};

static struct perfetto_out *perfetto_out_new(struct rp_env *env, const char *path, char *err,
					     size_t errlen)
{
	struct perfetto_out *p = calloc(1, sizeof(*p));

	if (!p || !(p->path = strdup(path))) {
		snprintf(err, errlen, "out of memory");
		free(p);
		return NULL;
	}
	p->env = env;
	p->f = fopen(path, "w");
	if (!p->f) {
		snprintf(err, errlen, "--perfetto: cannot create '%s': %m", path);
		free(p->path);
		free(p);
		return NULL;
	}
	p->capseen = 256;
	p->seen = calloc(p->capseen, sizeof(*p->seen));
	if (!p->seen) {
		snprintf(err, errlen, "out of memory");
		fclose(p->f);
		free(p->path);
		free(p);
		return NULL;
	}
	jw_init(&p->w, p->f);
	jw_obj_begin(&p->w);
	jw_key(&p->w, "displayTimeUnit");
	jw_str(&p->w, "ns");
	jw_key(&p->w, "otherData");
	jw_obj_begin(&p->w);
	jw_key(&p->w, "generator");
	jw_str(&p->w, "retsnoop-report");
	jw_obj_end(&p->w);
	jw_key(&p->w, "traceEvents");
	jw_arr_begin_lines(&p->w);   /* one event per line */
	return p;
}

/* microseconds with the nanoseconds as a fraction */
static void put_us(struct json_writer *w, const char *key, uint64_t ns)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
	jw_key(w, key);
	jw_num_text(w, buf);
}

static bool seen_insert(uint64_t *set, size_t cap, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);

	while (set[i]) {
		if (set[i] == key)
			return false;
		i = (i + 1) & (cap - 1);
	}
	set[i] = key;
	return true;
}

/* true when the track is new; grows the set at half load */
static int track_new(struct perfetto_out *p, uint64_t key)
{
	if ((p->nseen + 1) * 2 > p->capseen) {
		size_t cap = p->capseen * 2;
		uint64_t *n = calloc(cap, sizeof(*n));

		if (!n)
			return -1;
		for (size_t i = 0; i < p->capseen; i++)
			if (p->seen[i])
				seen_insert(n, cap, p->seen[i]);
		free(p->seen);
		p->seen = n;
		p->capseen = cap;
	}
	if (!seen_insert(p->seen, p->capseen, key))
		return 0;
	p->nseen++;
	return 1;
}

static int add_slice(struct perfetto_out *p, const struct slice *s)
{
	if (array_grow((void **)&p->sl, p->nsl, &p->capsl, sizeof(*p->sl), 64))
		return -1;
	p->sl[p->nsl++] = *s;
	return 0;
}

static int cmp_slice(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->depth - y->depth;
}

/* slices from -T records; returns how many were found. seq_id numbers
 * records, not calls: an exit closes the innermost open entry of the
 * same depth and function (entries whose exits were lost end with their
 * caller, or with the session; an exit whose entry was lost is skipped). */
static int slices_from_trace(struct perfetto_out *p, const struct rp_session *s)
{
	const struct rs_rec_session_end *e = s->e;
	size_t first = p->nsl, open[RS_MAX_FSTACK_DEPTH];
	int nopen = 0;

	for (size_t i = 0; i < s->ntrace; i++) {
		const struct rs_rec_trace *t = &s->trace[i];
		struct slice sl;

		if (t->hdr.type == RS_REC_TRACE_EXIT) {
			int k = nopen - 1;

			while (k >= 0 && (p->sl[open[k]].depth != t->depth ||
					  p->sl[open[k]].func_id != t->func_id))
				k--;
			if (k < 0 || t->hdr.size < sizeof(*t))
				continue;
			/* deeper entries whose exits were lost end with their caller */
			for (int d = k; d < nopen; d++) {
				struct slice *o = &p->sl[open[d]];

				o->dur = t->ts > o->ts ? t->ts - o->ts : 0;
			}
			p->sl[open[k]].has_res = true;
			p->sl[open[k]].res = t->res;
			nopen = k;
			continue;
		}
		memset(&sl, 0, sizeof(sl));
		sl.ts = t->ts;
		sl.depth = t->depth;
		sl.func_id = t->func_id;
		sl.seq_id = t->seq_id;
		sl.dur = e->end_ts > t->ts ? e->end_ts - t->ts : 0;   /* until its exit is seen */
		if (add_slice(p, &sl))
			return -1;
		if (nopen == RS_MAX_FSTACK_DEPTH)   /* deeper than tracked: no exit will match */
			memmove(open, open + 1, --nopen * sizeof(open[0]));
		open[nopen++] = p->nsl - 1;
	}
	return (int)(p->nsl - first);
}

static int slices_from_frames(struct perfetto_out *p, const struct rp_session *s)
{
	const struct rs_rec_session_end *e = s->e;
	uint64_t pstart = e->start_ts, pend = e->end_ts > e->start_ts ? e->end_ts : e->start_ts;

	for (int i = 0; i < e->nframes; i++) {
		struct slice sl = { .depth = i + 1, .func_id = e->frames[i].func_id, .has_res = true,
				    .res = e->frames[i].res, .seq_id = e->frames[i].seq_id };
		uint64_t lat = e->frames[i].lat_ns, start;

		if (i == 0) {
			start = pstart;
			pend = lat && pstart + lat < pend ? pstart + lat : pend;
		} else {
			start = pend - pstart > lat ? pend - lat : pstart;
		}
		sl.ts = start;
		sl.dur = pend - start;
		if (add_slice(p, &sl))
			return -1;
		pstart = start;
	}
	return 0;
}

/* a metadata event naming a thread or process track */
static void put_meta(struct perfetto_out *p, const char *what, uint32_t pid, uint32_t tid,
		     const char *name)
{
	struct json_writer *w = &p->w;

	jw_obj_begin(w);
	jw_key(w, "ph");
	jw_str(w, "M");
	jw_key(w, "name");
	jw_str(w, what);
	jw_key(w, "pid");
	jw_uint(w, pid);
	jw_key(w, "tid");
	jw_uint(w, tid);
	jw_key(w, "args");
	jw_obj_begin(w);
	jw_key(w, "name");
	jw_str(w, name);
	jw_obj_end(w);
	jw_obj_end(w);
}

static void put_track_meta(struct perfetto_out *p, const struct rp_session *s, uint32_t tid)
{
	const struct rs_rec_session_end *e = s->e;

	if (track_new(p, ((uint64_t)e->pid << 32) | tid | (1ULL << 63)) <= 0)
		return;
	put_meta(p, "thread_name", e->pid, tid, s->task_comm);
	if (track_new(p, (uint64_t)e->pid | (1ULL << 62)) > 0)
		put_meta(p, "process_name", e->pid, tid, s->proc_comm);
}

/* "ph":"X","cat":CAT,"name":NAME,"pid":..,"tid":..,"ts":..,"dur":.. and
 * the red colour of a failure */
static void put_slice_head(struct perfetto_out *p, const char *cat, const char *name,
			   uint32_t pid, uint32_t tid, uint64_t ts, uint64_t dur, bool err)
{
	struct json_writer *w = &p->w;

	jw_obj_begin(w);
	jw_key(w, "ph");
	jw_str(w, "X");
	jw_key(w, "cat");
	jw_str(w, cat);
	jw_key(w, "name");
	jw_str(w, name);
	jw_key(w, "pid");
	jw_uint(w, pid);
	jw_key(w, "tid");
	jw_uint(w, tid);
	put_us(w, "ts", ts);
	put_us(w, "dur", dur);
	if (err) {
		jw_key(w, "cname");
		jw_str(w, "terrible");
	}
}

/* the session span, with the kernel stack attached */
static void put_session_slice(struct perfetto_out *p, const struct rp_session *s, uint32_t tid)
{
	const struct rs_rec_session_end *e = s->e;
	struct symbolizer *sym = rp_symbolizer(p->env);
	struct json_writer *w = &p->w;
	bool err = e->flags & RS_SESS_IS_ERR;
	char nb[32], name[200], buf[300];

	snprintf(name, sizeof(name), "%s %s",
		 e->nframes ? rp_func_name(p->env, e->frames[0].func_id, nb, sizeof(nb)) : "session",
		 err ? "(error)" : "(ok)");
	put_slice_head(p, "session", name, e->pid, tid, e->start_ts,
		       e->end_ts > e->start_ts ? e->end_ts - e->start_ts : 0, err);
	jw_key(w, "args");
	jw_obj_begin(w);
	jw_key(w, "session_id");
	jw_uint(w, e->sess_id);
	jw_key(w, "error");
	jw_bool(w, err);
	jw_key(w, "stack");
	jw_arr_begin(w);
	for (int i = 0; i < s->nk; i++) {
		struct symb_info si;

		if (sym && symbolize(sym, e->kstack[i], true, &si) == 0)
			snprintf(buf, sizeof(buf), "%s+0x%" PRIx64 "%s%s%s", si.name, si.offset,
				 si.module ? " [" : "", si.module ? si.module : "", si.module ? "]" : "");
		else
			snprintf(buf, sizeof(buf), "0x%" PRIx64, e->kstack[i]);
		jw_str(w, buf);
	}
	jw_arr_end(w);
	jw_obj_end(w);
	jw_obj_end(w);
}

/* -A: the call's arguments as "arguments": {name: value text}; names are
 * BTF identifiers, anything else in them becomes '_' (a key is written
 * as given) */
/* KEY: {"name": "value", ...} of rendered arguments or probe context
 * fields, names made identifier-safe (other bytes become '_') */
static void put_args_object(struct json_writer *w, const char *key, const struct args_list *l)
{
	char name[64];

	jw_key(w, key);
	jw_obj_begin(w);
	for (size_t i = 0; i < l->n; i++) {
		size_t k;

		for (k = 0; l->items[i].name[k] && k + 1 < sizeof(name); k++) {
			char c = l->items[i].name[k];

			name[k] = isalnum((unsigned char)c) ? c : '_';
		}
		name[k] = '\0';
		jw_key(w, name);
		jw_str(w, l->items[i].value);
	}
	jw_obj_end(w);
}

static void put_call_args(struct perfetto_out *p, const struct rp_session *s,
			  const struct slice *sl)
{
	struct args_fmt fmt = { .mode = ARGS_FMT_COMPACT, .max_width = 0, .ascii = true };
	struct args_list l = {0};

	if (rp_call_args(p->env, s, sl->seq_id, sl->func_id, &fmt, &l) && l.n)
		put_args_object(&p->w, "arguments", &l);
	args_list_free(&l);
}

/* one traced call nested in the session span */
static void put_call_slice(struct perfetto_out *p, const struct rp_session *s, uint32_t tid,
			   const struct slice *sl)
{
	const struct rs_rec_session_end *e = s->e;
	struct json_writer *w = &p->w;
	uint32_t fl = rp_func_flags(p->env, sl->func_id);
	bool ferr = sl->has_res && result_is_error(sl->res, fl);
	char nb[32], res[RESULT_FMT_MAX];

	/* nested calls must not start before the session span (ties sort first) */
	put_slice_head(p, "call", rp_func_name(p->env, sl->func_id, nb, sizeof(nb)), e->pid, tid,
		       sl->ts < e->start_ts ? e->start_ts : sl->ts, sl->dur, ferr);
	jw_key(w, "args");
	jw_obj_begin(w);
	jw_key(w, "depth");
	jw_int(w, sl->depth);
	jw_key(w, "result");
	if (sl->has_res) {
		size_t k;

		result_fmt(res, sizeof(res), sl->res, fl);
		k = strlen(res);
		if (k >= 2) {
			memmove(res, res + 1, k - 2);
			res[k - 2] = '\0';
		}
		jw_str(w, res);
	} else {
		jw_null(w);
	}
	jw_key(w, "error");
	jw_bool(w, ferr);
	if (s->nargs)
		put_call_args(p, s, sl);
	jw_obj_end(w);
	jw_obj_end(w);
}

/* a -J hit: an instant event on the thread's track ("ph":"i"), its
 * probe's name, depth and (-A) context as args */
static void put_probe_instant(struct perfetto_out *p, const struct rp_session *s, uint32_t tid,
			      const struct rs_rec_probe *pr)
{
	struct args_fmt fmt = { .mode = ARGS_FMT_COMPACT, .max_width = 0, .ascii = true };
	struct args_list l = {0};
	struct json_writer *w = &p->w;
	char nb[32];

	jw_obj_begin(w);
	jw_key(w, "ph");
	jw_str(w, "i");
	jw_key(w, "s");
	jw_str(w, "t");
	jw_key(w, "cat");
	jw_str(w, "probe");
	jw_key(w, "name");
	jw_str(w, rsf_probe_name(p->env->probes_blob, p->env->probes_size, pr->probe_id, nb,
				 sizeof(nb)));
	jw_key(w, "pid");
	jw_uint(w, s->e->pid);
	jw_key(w, "tid");
	jw_uint(w, tid);
	put_us(w, "ts", pr->ts < s->e->start_ts ? s->e->start_ts : pr->ts);
	jw_key(w, "args");
	jw_obj_begin(w);
	jw_key(w, "depth");
	jw_uint(w, pr->depth + 1u);
	if (rp_probe_ctx(p->env, pr, &fmt, &l))
		put_args_object(w, "context", &l);
	args_list_free(&l);
	jw_obj_end(w);
	jw_obj_end(w);
}

static int perfetto_out_session(struct perfetto_out *p, const struct rp_session *s)
{
	const struct rs_rec_session_end *e = s->e;
	/* idle sessions (sess_id 1<<32|cpu) all have tid 0: one track per CPU */
	uint32_t tid = (e->tid == 0 && (e->sess_id >> 32)) ? 0x40000000u + (uint32_t)e->sess_id : e->tid;
	int n;

	put_track_meta(p, s, tid);
	p->nsl = 0;
	n = slices_from_trace(p, s);
	if (n < 0 || (n == 0 && slices_from_frames(p, s)))
		return -1;
	if (p->nsl)
		qsort(p->sl, p->nsl, sizeof(*p->sl), cmp_slice);
	put_session_slice(p, s, tid);
	for (size_t i = 0, pi = 0; i < p->nsl || pi < s->nprobes;) {
		/* both in time order: a track's events must not go back in time */
		if (pi < s->nprobes && (i == p->nsl || s->probes[pi]->ts < p->sl[i].ts))
			put_probe_instant(p, s, tid, s->probes[pi++]);
		else
			put_call_slice(p, s, tid, &p->sl[i++]);
	}
	return jw_error(&p->w);
}

static int perfetto_out_finish(struct perfetto_out *p, char *err, size_t errlen)
{
	int bad;

	jw_arr_end(&p->w);
	jw_obj_end(&p->w);
	jw_newline(&p->w);
	bad = ferror(p->f);
	bad |= fclose(p->f) != 0;
	p->f = NULL;
	if (bad) {
		snprintf(err, errlen, "--perfetto: error writing '%s'", p->path);
		return -1;
	}
	return 0;
}

static void perfetto_out_free(struct perfetto_out *p)
{
	if (!p)
		return;
	if (p->f)
		fclose(p->f);
	free(p->seen);
	free(p->sl);
	free(p->path);
	free(p);
}

/* ------------------------------------------------------ as an output */
static bool pf_wanted(const struct rp_setup *su)
{
	return su->sel->perfetto_path;
}

static unsigned pf_needs(const struct rp_setup *su)
{
	(void)su;
	return RP_NEED_TRACE;
}

static void *pf_begin(const struct rp_setup *su, char *err, size_t errlen)
{
	return perfetto_out_new(su->env, su->sel->perfetto_path, err, errlen);
}

static int pf_session(void *o, const struct rp_session *s)
{
	if (s->e->flags & RS_SESS_INTERIM)
		return 0;
	return perfetto_out_session(o, s);
}

static int pf_finish(void *o, char *err, size_t errlen)
{
	return perfetto_out_finish(o, err, errlen);
}

static void pf_free(void *o)
{
	perfetto_out_free(o);
}

const struct rp_output rp_out_perfetto = {
	.name = "perfetto",
	.wanted = pf_wanted,
	.needs = pf_needs,
	.begin = pf_begin,
	.session = pf_session,
	.finish = pf_finish,
	.free = pf_free,
};
