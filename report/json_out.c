/* json_out.c - `--format json`: writes each session as one JSON object on
 * one line (NDJSON) with its logical frames, symbolized kernel stack and
 * any trace/LBR records; schema in docs/json-schema.md and
 * docs/report.schema.json. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../common/json_writer.h"
#include "json_out.h"
#include "result_fmt.h"
#include "stack_view.h"

struct json_out {
	struct rp_env *env;
	FILE *out;
	struct sv_kframe *kf;             /* RS_MAX_KSTACK_DEPTH, reused per session */
	int kpos[RS_MAX_KSTACK_DEPTH];    /* recorded kstack index -> kf index, -1 */
	int match[RS_MAX_FSTACK_DEPTH];   /* logical frame -> kf index, -1 */
	struct sv_frame lf[RS_MAX_FSTACK_DEPTH];
	char unk[RS_MAX_FSTACK_DEPTH][24];
};

static struct json_out *json_out_new(struct rp_env *env, FILE *out)
{
	struct json_out *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->kf = malloc(RS_MAX_KSTACK_DEPTH * sizeof(*j->kf));
	if (!j->kf) {
		free(j);
		return NULL;
	}
	j->env = env;
	j->out = out;
	return j;
}

static void json_out_free(struct json_out *j)
{
	if (!j)
		return;
	free(j->kf);
	free(j);
}

static void put_str_or_null(FILE *out, const char *s)
{
	if (s)
		json_put_str(out, s);
	else
		fputs("null", out);
}

/* ISO 8601 local time with nanoseconds and UTC offset */
static void put_iso(FILE *out, int64_t real_ns)
{
	time_t secs = (time_t)(real_ns >= 0 ? real_ns / 1000000000 : 0);
	long ns = (long)(real_ns >= 0 ? real_ns % 1000000000 : 0);
	struct tm tm;
	char date[40], zone[8];

	localtime_r(&secs, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);   /* +hhmm */
	fprintf(out, "\"%s.%09ld%.3s:%s\"", date, ns, zone, zone + 3);
}

static void put_result(FILE *out, int64_t raw, uint32_t flags)
{
	char buf[RESULT_FMT_MAX];
	size_t n;

	result_fmt(buf, sizeof(buf), raw, flags);
	n = strlen(buf);
	if (n >= 2 && buf[0] == '[' && buf[n - 1] == ']') {
		memmove(buf, buf + 1, n - 2);
		buf[n - 2] = '\0';
	}
	fprintf(out, "{\"raw\":%" PRId64 ",\"value\":%" PRId64 ",\"text\":", raw,
		result_normalize(raw, flags));
	json_put_str(out, buf);
	fprintf(out, ",\"is_error\":%s}", result_is_error(raw, flags) ? "true" : "false");
}

static void put_src(FILE *out, const struct symb_src *s)
{
	fputs("{\"func\":", out);
	put_str_or_null(out, s->func[0] ? s->func : NULL);
	fputs(",\"file\":", out);
	put_str_or_null(out, s->file[0] ? s->file : NULL);
	fprintf(out, ",\"line\":%d}", s->line);
}

/* "source":..,"inlines":[..] of a symbolized address */
static void put_src_inlines(FILE *out, const struct symb_info *si)
{
	fputs("\"source\":", out);
	if (si && si->has_src)
		put_src(out, &si->src);
	else
		fputs("null", out);
	fputs(",\"inlines\":[", out);
	for (int i = 0; si && i < si->ninlines && i < SYMB_MAX_INLINES; i++) {
		if (i)
			putc(',', out);
		put_src(out, &si->inlines[i]);
	}
	putc(']', out);
}

/* "symbol":..,"module":..,"offset":.. of a symbolized address (si NULL:
 * no symbol covers it) */
static void put_sym(FILE *out, const struct symb_info *si)
{
	if (!si) {
		fputs("\"symbol\":null,\"module\":null,\"offset\":null", out);
		return;
	}
	fputs("\"symbol\":", out);
	json_put_str(out, si->name);
	fputs(",\"module\":", out);
	put_str_or_null(out, si->module);
	fprintf(out, ",\"offset\":%" PRIu64, si->offset);
}

/* an LBR address: symbol only */
static void put_addr_sym(FILE *out, struct symbolizer *sym, uint64_t addr)
{
	struct symb_info si;

	put_sym(out, sym && symbolize(sym, addr, false, &si) == 0 ? &si : NULL);
}

static void put_trace(struct json_out *j, const struct rs_rec_trace *t)
{
	FILE *out = j->out;
	char buf[32];
	bool exit = t->hdr.type == RS_REC_TRACE_EXIT;
	uint32_t fl = rp_func_flags(j->env, t->func_id);

	fprintf(out, "{\"type\":\"%s\",\"ts_ns\":%" PRIu64 ",\"func\":", exit ? "exit" : "entry", t->ts);
	json_put_str(out, rp_func_name(j->env, t->func_id, buf, sizeof(buf)));
	fprintf(out, ",\"func_id\":%u,\"depth\":%u,\"seq_id\":%u", t->func_id, t->depth, t->seq_id);
	if (exit) {
		fputs(",\"result\":", out);
		put_result(out, t->res, fl);
		fprintf(out, ",\"latency_ns\":%" PRIu64, t->lat_ns);
	}
	putc('}', out);
}

static void put_lbrs(struct json_out *j, struct symbolizer *sym, const struct rs_rec_lbr *l, bool *first)
{
	int n = l->lbrs_sz > 0 ? l->lbrs_sz / (int)sizeof(l->lbrs[0]) : 0;
	size_t room = (l->hdr.size - offsetof(struct rs_rec_lbr, lbrs)) / sizeof(l->lbrs[0]);

	if (l->hdr.size < offsetof(struct rs_rec_lbr, lbrs))
		return;
	if (n > RS_MAX_LBR_ENTRIES)
		n = RS_MAX_LBR_ENTRIES;
	if ((size_t)n > room)
		n = (int)room;
	for (int i = 0; i < n; i++) {
		FILE *out = j->out;

		if (!*first)
			putc(',', out);
		*first = false;
		fprintf(out, "{\"from\":\"0x%" PRIx64 "\",\"to\":\"0x%" PRIx64 "\",\"flags\":%" PRIu64
			",\"from_sym\":{", l->lbrs[i].from, l->lbrs[i].to, l->lbrs[i].flags);
		put_addr_sym(out, sym, l->lbrs[i].from);
		fputs("},\"to_sym\":{", out);
		put_addr_sym(out, sym, l->lbrs[i].to);
		fputs("}}", out);
	}
}

/* symbolizes the kernel stack once and merges the logical frames into it
 * the way the text stack view does (kf, kpos, match) */
static void merge_stacks(struct json_out *j, const struct rp_session *s, struct symbolizer *sym)
{
	const struct rs_rec_session_end *e = s->e;
	int m;

	for (int i = 0; i < e->nframes; i++) {
		memset(&j->lf[i], 0, sizeof(j->lf[i]));
		j->lf[i].name = rp_func_name(j->env, e->frames[i].func_id, j->unk[i], sizeof(j->unk[i]));
	}
	m = stack_view_merge(sym, j->lf, e->nframes, e->kstack, s->nk, j->kf, j->match);
	for (int i = 0; i < s->nk; i++)
		j->kpos[i] = -1;
	for (int k = 0; k < m; k++)
		j->kpos[j->kf[k].kidx] = k;
}

static int json_out_session(struct json_out *j, const struct rp_session *s)
{
	const struct rs_rec_session_end *e = s->e;
	int64_t m2r = j->env->meta->mono_to_realtime_ns;
	struct symbolizer *sym = rp_symbolizer(j->env);
	bool interim = e->flags & RS_SESS_INTERIM, stitched = e->flags & RS_SESS_STITCHED;
	bool first = true;
	FILE *out = j->out;

	merge_stacks(j, s, sym);

	fputc('{', out);
	if (j->env->rec_file) {   /* several recordings: which one */
		fprintf(out, "\"recording\":{\"index\":%d,\"file\":", j->env->rec_index);
		json_put_str(out, j->env->rec_file);
		fputs(",\"hostname\":", out);
		json_put_str(out, j->env->rec_host);
		fputs("},", out);
	}
	fprintf(out, "\"session_id\":%" PRIu64 ",\"tid\":%u,\"pid\":%u,\"task_comm\":", e->sess_id,
		e->tid, e->pid);
	json_put_str(out, s->task_comm);
	fputs(",\"proc_comm\":", out);
	json_put_str(out, s->proc_comm);
	fprintf(out, ",\"start_ktime_ns\":%" PRIu64 ",\"end_ktime_ns\":%" PRIu64
		",\"start_ns\":%" PRId64 ",\"end_ns\":%" PRId64 ",\"start_time\":",
		e->start_ts, e->end_ts, (int64_t)e->start_ts + m2r, (int64_t)e->end_ts + m2r);
	put_iso(out, (int64_t)e->start_ts + m2r);
	fputs(",\"end_time\":", out);
	put_iso(out, (int64_t)e->end_ts + m2r);
	fprintf(out, ",\"latency_ns\":%" PRIu64 ",\"is_err\":%s,\"flags\":{\"raw\":%u,\"interim\":%s,"
		"\"stitched\":%s,\"overflow\":%s},\"depth\":%u,\"stitch_pos\":%u,"
		"\"dropped_records\":%u,\"overflow_calls\":%u,\"kstack_error\":",
		rp_session_latency(s), (e->flags & RS_SESS_IS_ERR) ? "true" : "false", e->flags,
		interim ? "true" : "false", stitched ? "true" : "false",
		(e->flags & RS_SESS_OVERFLOW) ? "true" : "false", e->depth,
		stitched ? e->stitch_pos : 0, e->dropped_records, e->overflow_calls);
	if (e->kstack_sz < 0)
		fprintf(out, "%d", e->kstack_sz);
	else
		fputs("null", out);

	fputs(",\"frames\":[", out);
	for (int i = 0; i < e->nframes; i++) {
		const struct rs_frame *f = &e->frames[i];
		uint32_t fl = rp_func_flags(j->env, f->func_id);
		bool unfinished = interim && i < e->depth;
		const struct sv_kframe *k = j->match[i] >= 0 ? &j->kf[j->match[i]] : NULL;

		if (i)
			putc(',', out);
		fprintf(out, "{\"depth\":%d,\"func\":", i);
		json_put_str(out, j->lf[i].name);
		fprintf(out, ",\"func_id\":%u,\"module\":", f->func_id);
		put_str_or_null(out, rp_func_module(j->env, f->func_id));
		if (f->func_id < j->env->nfuncs)
			fprintf(out, ",\"addr\":\"0x%" PRIx64 "\"", j->env->funcs[f->func_id].addr);
		else
			fputs(",\"addr\":null", out);
		fprintf(out, ",\"seq_id\":%u,\"result\":", f->seq_id);
		if (unfinished)
			fputs("null", out);
		else
			put_result(out, f->res, fl);
		fprintf(out, ",\"latency_ns\":%" PRIu64 ",\"stitched\":%s,\"unfinished\":%s,"
			"\"missing_from_kstack\":%s,\"kstack_index\":",
			unfinished ? (uint64_t)0 : f->lat_ns,
			stitched && i >= e->stitch_pos ? "true" : "false", unfinished ? "true" : "false",
			(s->nk && !k) ? "true" : "false");
		/* where the call is on the kernel stack: the return address inside
		 * this function, its offset, source line and inlined frames */
		if (k) {
			fprintf(out, "%d,\"ip\":\"0x%" PRIx64 "\",\"offset\":%" PRIu64 ",", k->kidx,
				k->addr, k->si.offset);
			put_src_inlines(out, &k->si);
		} else {
			fputs("null,\"ip\":null,\"offset\":null,", out);
			put_src_inlines(out, NULL);
		}
		putc('}', out);
	}
	fputs("],\"kstack\":[", out);
	for (int i = 0; i < s->nk; i++) {
		const struct sv_kframe *k = j->kpos[i] >= 0 ? &j->kf[j->kpos[i]] : NULL;
		bool ok = k && k->resolved;

		if (i)
			putc(',', out);
		fprintf(out, "{\"addr\":\"0x%" PRIx64 "\",", e->kstack[i]);
		put_sym(out, ok ? &k->si : NULL);
		putc(',', out);
		put_src_inlines(out, ok ? &k->si : NULL);
		fprintf(out, ",\"hidden\":%s}", k && k->filtered ? "true" : "false");
	}
	fputs("],\"trace\":[", out);
	for (size_t i = 0; i < s->ntrace; i++) {
		if (i)
			putc(',', out);
		put_trace(j, &s->trace[i]);
	}
	fputs("],\"lbr\":[", out);
	for (size_t i = 0; i < s->nlbrs; i++)
		put_lbrs(j, sym, s->lbrs[i], &first);
	fputs("]}\n", out);
	return ferror(out) ? -1 : 0;
}

/* ------------------------------------------------------ as an output */
static bool json_wanted(const struct rp_setup *su)
{
	return su->sel->json;
}

static unsigned json_needs(const struct rp_setup *su)
{
	(void)su;
	return RP_NEED_TRACE | RP_NEED_LBR;
}

static void *json_begin(const struct rp_setup *su, char *err, size_t errlen)
{
	struct json_out *j = json_out_new(su->env, su->out);

	if (!j)
		snprintf(err, errlen, "out of memory");
	return j;
}

static int json_session(void *o, const struct rp_session *s)
{
	return json_out_session(o, s);
}

static int json_finish(void *o, char *err, size_t errlen)
{
	(void)o;
	(void)err;
	(void)errlen;
	return 0;   /* stdout is flushed and checked by the pipeline */
}

static void json_free(void *o)
{
	json_out_free(o);
}

const struct rp_output rp_out_json = {
	.name = "json",
	.wanted = json_wanted,
	.needs = json_needs,
	.begin = json_begin,
	.session = json_session,
	.finish = json_finish,
	.free = json_free,
};
