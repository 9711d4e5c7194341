/* analysis.c - wires the report-time filters and the analysis outputs
 * (JSON, Perfetto, folded stacks, summary) into retsnoop-report and the
 * live retsnoop tool: option parsing, per-session buffering of trace/LBR records for the outputs that
 * need them, session normalization and the filter decision that also
 * applies to the text views. */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../common/array_grow.h"
#include "analysis.h"
#include "../common/same_file.h"
#include "filters.h"
#include "folded_out.h"
#include "json_out.h"
#include "perfetto_out.h"
#include "summary_view.h"

#define BUF_BUCKETS 1024

struct buf_sess {
	struct buf_sess *next;
	uint64_t sess_id;
	struct rs_rec_hdr **recs;
	size_t n, cap;
};

struct anl {
	const char *prog;                  /* for messages */
	struct filters filt;
	bool json, folded, folded_lat, summary;
	const char *perfetto_path;
	bool text;
	int verbose;
	struct anl_env env;
	bool sym_borrowed;                 /* env.sym belongs to the text report */
	struct json_out *jo;
	struct perfetto_out *po;
	struct folded_out *fo;
	struct summary_view *sv;
	bool buffer;                       /* keep trace/LBR records per session */
	struct buf_sess *buckets[BUF_BUCKETS];
	struct rs_rec_session_end e;       /* normalized copy of the current END */
	struct rs_rec_session_end ign;     /* IGNORED copy for the text report */
	uint64_t sessions_out;
};

/* ------------------------------------------------------------ environment */
struct symbolizer *anl_symbolizer(struct anl_env *env)
{
	if (!env->sym)
		env->sym = symbolizer_new(env->ksyms, env->nksyms, env->mods, env->nmods);
	return env->sym;
}

const char *anl_func_name(const struct anl_env *env, uint32_t id, char *buf, size_t len)
{
	if (id < env->nfuncs && env->funcs[id].name)
		return env->funcs[id].name;
	snprintf(buf, len, "<func#%u>", id);
	return buf;
}

uint32_t anl_func_flags(const struct anl_env *env, uint32_t id)
{
	return id < env->nfuncs ? env->funcs[id].flags : 0;
}

const char *anl_func_module(const struct anl_env *env, uint32_t id)
{
	return id < env->nfuncs ? env->funcs[id].module : NULL;
}

uint64_t anl_session_latency(const struct anl_session *s)
{
	const struct rs_rec_session_end *e = s->e;
	bool unfinished = (e->flags & RS_SESS_INTERIM) && e->depth > 0;

	if (e->nframes && !unfinished)
		return e->frames[0].lat_ns;
	return e->end_ts > e->start_ts ? e->end_ts - e->start_ts : 0;
}

/* ------------------------------------------------------------------ CLI */
struct anl *anl_new(const char *prog)
{
	struct anl *a = calloc(1, sizeof(*a));

	if (a) {
		a->prog = prog;
		filters_init(&a->filt);
		a->text = true;
	}
	return a;
}

/* --NAME=V or --NAME V where V is W1 or W2: sets *second to V == W2 and
 * returns the arguments used; 0 when argv[i] is not --NAME; -1 with a
 * message in err */
static int two_way(const char *name, const char *w1, const char *w2, int argc, char **argv,
		   int i, bool *second, char *err, size_t errlen)
{
	size_t n = strlen(name);
	const char *s = argv[i], *v;

	if (strncmp(s, name, n) || (s[n] && s[n] != '='))
		return 0;
	v = s[n] ? s + n + 1 : (i + 1 < argc ? argv[i + 1] : "");
	if (strcmp(v, w1) && strcmp(v, w2)) {
		snprintf(err, errlen, "%s: expected '%s' or '%s', got '%s'", name, w1, w2, v);
		return -1;
	}
	*second = !strcmp(v, w2);
	return s[n] ? 1 : 2;
}

int anl_parse_arg(struct anl *a, int argc, char **argv, int i, char *err, size_t errlen)
{
	const char *s = argv[i];
	int n;

	if (i == 1 && !strcmp(s, "summary")) {
		a->summary = true;
		return 1;
	}
	if (!strcmp(s, "--summary")) {
		a->summary = true;
		return 1;
	}
	if (!strcmp(s, "--folded")) {
		a->folded = true;
		return 1;
	}
	if ((n = two_way("--folded-weight", "count", "latency", argc, argv, i, &a->folded_lat,
			 err, errlen)) != 0) {
		a->folded |= n > 0;
		return n;
	}
	if ((n = two_way("--format", "text", "json", argc, argv, i, &a->json, err, errlen)) != 0)
		return n;
	if (!strncmp(s, "--perfetto", 10) && (s[10] == '=' || !s[10])) {
		const char *v = s[10] ? s + 11 : (i + 1 < argc ? argv[i + 1] : NULL);

		if (!v || !*v) {
			snprintf(err, errlen, "--perfetto needs an output file");
			return -1;
		}
		a->perfetto_path = v;
		return s[10] ? 1 : 2;
	}
	return filters_parse_arg(&a->filt, argc, argv, i, err, errlen);
}

void anl_usage(FILE *f)
{
	fprintf(f,
		"\nReport-time filters (combine with AND):\n"
		"  -p PID / -P PID          only / not this process (repeatable)\n"
		"  -n COMM / -N COMM        only / not this thread name (glob, repeatable)\n"
		"  -x ERR / -X ERR          only sessions with / without this error (ENOMEM, 12, NULL)\n"
		"  -L MS                    only sessions whose entry function took >= MS ms\n"
		"  -S, -Sy / -Sn            successful sessions too (as without -S) / failing\n"
		"                           sessions only: what they mean to the recorder\n"
		"  --success-only           successful sessions only\n"
		"  --stack-has GLOB         stack (logical, kernel, inlined with DWARF) has a matching\n"
		"                           function (all must match)\n"
		"  --entry GLOB             entry function matches (any of them)\n"
		"  --since T / --until T    session start within [T1, T2]: HH:MM:SS[.frac],\n"
		"                           'YYYY-MM-DD HH:MM:SS' (local time) or +N[ns|us|ms|s|m|h]\n"
		"Outputs:\n"
		"  --format text|json       text views (default) or NDJSON, one session per line\n"
		"  --perfetto FILE          Chrome trace-event JSON for ui.perfetto.dev\n"
		"  --folded                 folded stacks for flamegraph.pl / inferno\n"
		"  --folded-weight=count|latency   weight by sessions or by self latency (us)\n"
		"  summary FILE, --summary  failing functions, error codes, latency percentiles\n"
		"  info FILE                what the recording holds\n");
}

int anl_check_args(struct anl *a, char *err, size_t errlen)
{
	if (a->json + a->folded + a->summary > 1) {
		snprintf(err, errlen, "--format json, --folded and summary all write to stdout: "
			 "choose one");
		return -1;
	}
	if (a->perfetto_path) {   /* before anything slow: the file is written last */
		char *copy = strdup(a->perfetto_path);
		int r;

		if (!copy) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		r = access(dirname(copy), W_OK);
		free(copy);
		if (r) {
			snprintf(err, errlen, "--perfetto: cannot create '%s': %s", a->perfetto_path,
				 strerror(errno));
			return -1;
		}
	}
	return 0;
}

int anl_check_output_vs(const struct anl *a, const char *input, const char *what,
			char *err, size_t errlen)
{
	if (!same_file(a->perfetto_path, input))
		return 0;
	snprintf(err, errlen, "--perfetto '%s' is %s: refusing to overwrite it",
		 a->perfetto_path, what);
	return -1;
}

bool anl_text(const struct anl *a)
{
	return !a->json && !a->folded && !a->summary;
}

int anl_start_tables(struct anl *a, const struct rsf_meta *meta,
		     const struct rsf_ksym *ksyms, size_t nksyms,
		     const struct rsf_module *mods, size_t nmods,
		     const struct rsf_func *funcs, size_t nfuncs,
		     struct report_opts *opts, char *err, size_t errlen)
{
	if (anl_check_args(a, err, errlen))
		return -1;
	a->env.meta = meta;
	a->env.ksyms = ksyms;
	a->env.nksyms = nksyms;
	a->env.mods = mods;
	a->env.nmods = nmods;
	a->env.funcs = funcs;
	a->env.nfuncs = nfuncs;
	a->verbose = opts->verbose;
	if (filters_prepare(&a->filt, &a->env, err, errlen))
		return -1;
	if (a->filt.note[0])
		fprintf(stderr, "%s: note: %s\n", a->prog, a->filt.note);
	a->text = anl_text(a);
	if (!a->text)
		opts->show_stack = false;
	if (a->json && !(a->jo = json_out_new(&a->env, stdout)))
		goto oom;
	if (a->folded && !(a->fo = folded_out_new(&a->env, a->folded_lat)))
		goto oom;
	if (a->summary && !(a->sv = summary_view_new(&a->env)))
		goto oom;
	if (a->perfetto_path) {
		a->po = perfetto_out_new(&a->env, a->perfetto_path, err, errlen);
		if (!a->po)
			return -1;
	}
	a->buffer = a->jo || a->po;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int anl_start(struct anl *a, struct rsf_reader *rd, struct report_opts *opts,
	      char *err, size_t errlen)
{
	const struct rsf_ksym *ksyms;
	const struct rsf_module *mods;
	const struct rsf_func *funcs;
	size_t nksyms, nmods, nfuncs;

	ksyms = rsf_reader_ksyms(rd, &nksyms);
	mods = rsf_reader_modules(rd, &nmods);
	funcs = rsf_reader_funcs(rd, &nfuncs);
	return anl_start_tables(a, rsf_reader_meta(rd), ksyms, nksyms, mods, nmods, funcs, nfuncs,
				opts, err, errlen);
}

void anl_set_symbolizer(struct anl *a, struct symbolizer *sym)
{
	if (!a->sym_borrowed)
		symbolizer_free(a->env.sym);
	a->env.sym = sym;
	a->sym_borrowed = true;
}

/* ------------------------------------------------------- record buffering */
static struct buf_sess **buf_slot(struct anl *a, uint64_t id)
{
	struct buf_sess **pp = &a->buckets[(id ^ (id >> 32)) % BUF_BUCKETS];

	while (*pp && (*pp)->sess_id != id)
		pp = &(*pp)->next;
	return pp;
}

static void buf_drop(struct anl *a, uint64_t id)
{
	struct buf_sess **pp = buf_slot(a, id), *s = *pp;

	if (!s)
		return;
	*pp = s->next;
	for (size_t i = 0; i < s->n; i++)
		free(s->recs[i]);
	free(s->recs);
	free(s);
}

static int buf_keep(struct anl *a, uint64_t id, const struct rs_rec_hdr *h)
{
	struct buf_sess **pp = buf_slot(a, id), *s = *pp;
	void *copy;

	if (!s) {
		s = *pp = calloc(1, sizeof(*s));
		if (!s)
			return -1;
		s->sess_id = id;
	}
	if (array_grow((void **)&s->recs, s->n, &s->cap, sizeof(*s->recs), 16))
		return -1;
	copy = malloc(h->size);
	if (!copy)
		return -1;
	memcpy(copy, h, h->size);
	s->recs[s->n++] = copy;
	return 0;
}

/* --------------------------------------------------------------- feeding */
static void copy_comm(char *dst, const char *src)
{
	size_t n = strnlen(src, RS_TASK_COMM_LEN);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* validates and copies an END record into a->e; -1 when malformed */
static int normalize(struct anl *a, const struct rs_rec_hdr *h, struct anl_session *s)
{
	struct rs_rec_session_end *e = &a->e;
	size_t have = h->size < sizeof(*e) ? h->size : sizeof(*e);
	size_t kb, koff = offsetof(struct rs_rec_session_end, kstack);

	if (h->size < offsetof(struct rs_rec_session_end, frames))
		return -1;
	memcpy(e, h, have);
	if (have < sizeof(*e))
		memset((char *)e + have, 0, sizeof(*e) - have);
	if (e->nframes > RS_MAX_FSTACK_DEPTH ||
	    have < offsetof(struct rs_rec_session_end, frames) + e->nframes * sizeof(struct rs_frame))
		return -1;
	if (e->depth > e->nframes)
		e->depth = e->nframes;
	if (!(e->flags & RS_SESS_INTERIM))
		e->depth = 0;
	kb = e->kstack_sz > 0 ? (size_t)e->kstack_sz : 0;
	if (kb > sizeof(e->kstack))
		kb = sizeof(e->kstack);
	if (have < koff + kb)
		kb = have > koff ? have - koff : 0;
	memset(s, 0, sizeof(*s));
	s->e = e;
	s->nk = (int)(kb / sizeof(e->kstack[0]));
	copy_comm(s->task_comm, e->task_comm);
	copy_comm(s->proc_comm, e->proc_comm);
	return 0;
}

static int feed_outputs(struct anl *a, const struct anl_session *s)
{
	int ret = 0;
	bool final = !(s->e->flags & RS_SESS_INTERIM);

	a->sessions_out++;
	if (a->jo)
		ret |= json_out_session(a->jo, s);
	if (a->po && final)
		ret |= perfetto_out_session(a->po, s);
	if (a->fo && final)
		ret |= folded_out_session(a->fo, s);
	if (a->sv && final)
		ret |= summary_view_session(a->sv, s);
	return ret;
}

int anl_feed(struct anl *a, struct report *rep, const struct rs_rec_hdr *rec)
{
	const struct rs_rec_hdr *const *recs = NULL;
	struct anl_session s;
	struct buf_sess *b = NULL;
	uint64_t id;
	bool keep = true, filt = filters_active(&a->filt);
	int ret = 0;

	if (!filt && a->text && !a->jo && !a->po && !a->fo && !a->sv)
		return report_feed(rep, rec);   /* plain text report: nothing to add */

	if (rec->size < sizeof(*rec) + sizeof(uint64_t) ||
	    (rec->type == RS_REC_SESSION_END && normalize(a, rec, &s))) {
		/* malformed: the text report counts and skips it */
		return a->text ? report_feed(rep, rec) : 0;
	}
	memcpy(&id, rec + 1, sizeof(id));
	if (rec->type != RS_REC_SESSION_END) {
		if (a->buffer) {
			if (rec->type == RS_REC_SESSION_START)
				buf_drop(a, id);
			if (rec->type >= RS_REC_SESSION_START && rec->type <= RS_REC_LBR &&
			    buf_keep(a, id, rec))
				ret = -1;
		}
		return a->text ? (report_feed(rep, rec) | ret) : ret;
	}
	if (a->e.flags & RS_SESS_IGNORED) {
		if (a->buffer)
			buf_drop(a, id);
		return a->text ? report_feed(rep, rec) : 0;
	}
	if (filt)
		keep = filters_keep(&a->filt, &s, &a->env);
	if (a->text) {
		if (keep) {
			ret |= report_feed(rep, rec);
		} else if (!(a->e.flags & RS_SESS_INTERIM)) {
			/* let the text report free the session's state */
			size_t n = rec->size < sizeof(a->ign) ? rec->size : sizeof(a->ign);

			memcpy(&a->ign, rec, n);
			a->ign.flags |= RS_SESS_IGNORED;
			ret |= report_feed(rep, &a->ign.hdr);
		}
	}
	if (a->buffer && (b = *buf_slot(a, id))) {
		recs = (const struct rs_rec_hdr *const *)b->recs;
		s.recs = recs;
		s.nrecs = b->n;
	}
	if (keep)
		ret |= feed_outputs(a, &s);
	if (b && !(a->e.flags & RS_SESS_INTERIM))
		buf_drop(a, id);
	return ret;
}

int anl_finish(struct anl *a, struct report *rep, const struct rsf_stats *stats)
{
	char err[300];
	int ret = 0;

	if (a->text)
		report_finish(rep, stats);
	if (a->fo)
		ret |= folded_out_finish(a->fo, stdout);
	if (a->sv)
		summary_view_print(a->sv, stdout);
	if (a->po && perfetto_out_finish(a->po, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", a->prog, err);
		ret = -1;
	}
	if (filters_active(&a->filt) && a->verbose)
		fprintf(stderr, "Filters kept %llu of %llu session snapshot(s).\n",
			(unsigned long long)a->filt.kept,
			(unsigned long long)(a->filt.kept + a->filt.removed));
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: error writing the output\n", a->prog);
		ret = -1;
	}
	return ret;
}

void anl_free(struct anl *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < BUF_BUCKETS; i++)
		while (a->buckets[i])
			buf_drop(a, a->buckets[i]->sess_id);
	json_out_free(a->jo);
	perfetto_out_free(a->po);
	folded_out_free(a->fo);
	summary_view_free(a->sv);
	filters_free(&a->filt);
	if (!a->sym_borrowed)
		symbolizer_free(a->env.sym);
	free(a);
}
