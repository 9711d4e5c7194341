/* filters.c - report-time session filters (see filters.h): time
 * resolution, impossible-combination checks and the
 * per-session keep decision. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "filters.h"
#include "result_fmt.h"

void filters_init(struct filters *f)
{
	memset(f, 0, sizeof(*f));
}

/* fractional seconds ".123" -> ns; returns chars consumed or -1 */
static int parse_frac(const char *s, int64_t *ns)
{
	int n = 0;
	int64_t mul = 100000000;

	*ns = 0;
	if (*s != '.')
		return 0;
	s++;
	n = 1;
	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s)) {
		if (mul) {
			*ns += (*s - '0') * mul;
			mul /= 10;
		}
		s++;
		n++;
	}
	return n;
}

int filters_parse_time(const char *txt, uint64_t start_real_ns, int64_t *out)
{
	struct tm tm;
	int64_t frac;
	int n, yy, mo, dd, hh, mi, ss, k;
	time_t t;

	if (!txt || !*txt)
		return -1;
	if (txt[0] == '+') {
		char *end;
		double v;
		double mul = 1e9;

		errno = 0;
		v = strtod(txt + 1, &end);
		if (end == txt + 1 || errno || !(v >= 0) || !isdigit((unsigned char)txt[1]))
			return -1;
		if (!*end || !strcmp(end, "s"))
			mul = 1e9;
		else if (!strcmp(end, "ms"))
			mul = 1e6;
		else if (!strcmp(end, "us"))
			mul = 1e3;
		else if (!strcmp(end, "ns"))
			mul = 1;
		else if (!strcmp(end, "m") || !strcmp(end, "min"))
			mul = 60e9;
		else if (!strcmp(end, "h"))
			mul = 3600e9;
		else
			return -1;
		if (v * mul > 9e18)
			return -1;
		*out = (int64_t)start_real_ns + (int64_t)llround(v * mul);
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	if (sscanf(txt, "%4d-%2d-%2d %2d:%2d:%2d%n", &yy, &mo, &dd, &hh, &mi, &ss, &n) == 6 &&
	    txt[4] == '-') {
		tm.tm_year = yy - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = dd;
	} else if (sscanf(txt, "%2d:%2d:%2d%n", &hh, &mi, &ss, &n) == 3 && txt[2] == ':') {
		time_t st = (time_t)(start_real_ns / 1000000000ULL);
		struct tm stm;

		localtime_r(&st, &stm);
		tm.tm_year = stm.tm_year;
		tm.tm_mon = stm.tm_mon;
		tm.tm_mday = stm.tm_mday;
		yy = 0;
		mo = 1;
		dd = 1;
	} else {
		return -1;
	}
	if (mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh > 23 || mi > 59 || ss > 60 ||
	    hh < 0 || mi < 0 || ss < 0)
		return -1;
	k = parse_frac(txt + n, &frac);
	if (k < 0 || txt[n + k])
		return -1;
	tm.tm_hour = hh;
	tm.tm_min = mi;
	tm.tm_sec = ss;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1)
		return -1;
	*out = (int64_t)t * 1000000000LL + frac;
	/* a bare time of day before the recording started by more than 12h
	 * means the next day (a recording across midnight) */
	if (yy == 0 && *out < (int64_t)start_real_ns - 12LL * 3600 * 1000000000LL)
		*out += 24LL * 3600 * 1000000000LL;
	return 0;
}

/* checks against the recording itself: filters that cannot match anything
 * it can hold */
static int check_recording(const struct filters *f, const struct rp_env *env, char *err,
			   size_t errlen)
{
	const struct rsf_meta *meta = env->meta;

	if (f->success_only && !(meta->mode & RSF_MODE_SUCCESS)) {
		snprintf(err, errlen, "impossible filter combination: --success-only keeps successful "
			 "sessions only, and this recording was made without -S (failing sessions only)");
		return -1;
	}
	if (f->entries.n) {
		size_t nentry = 0, hit = 0, len = 0;
		char names[200] = "";

		for (size_t i = 0; i < env->nfuncs; i++) {
			const char *name = env->funcs[i].name;

			if (!(env->funcs[i].flags & RS_FUNC_IS_ENTRY) || !name)
				continue;
			hit += glob_set_find(&f->entries, name, env->funcs[i].module) >= 0;
			if (nentry++ < 4 && len < sizeof(names))
				len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
							nentry > 1 ? ", " : "", name);
		}
		if (nentry && !hit) {
			snprintf(err, errlen, "impossible filter combination: --entry matches none of "
				 "the recording's %zu entry function(s): %s%s", nentry, names,
				 nentry > 4 ? ", ..." : "");
			return -1;
		}
	}
	if (f->has_until && f->until_ns < (int64_t)meta->start_realtime_ns) {
		snprintf(err, errlen, "impossible filter combination: --until %s is before the "
			 "recording started", f->until_txt);
		return -1;
	}
	return 0;
}

int filters_prepare(struct filters *f, const struct rp_env *env, char *err, size_t errlen)
{
	const struct rsf_meta *meta = env->meta;

	f->note[0] = '\0';
	if (f->success_only && f->errors_only) {
		snprintf(err, errlen, "impossible filter combination: --success-only and -Sn "
			 "(failing sessions only) exclude each other");
		return -1;
	}
	if (f->npids) {
		uint32_t left = 0;

		for (uint32_t i = 0; i < f->npids; i++) {
			bool denied = false;

			for (uint32_t j = 0; j < f->nnopids; j++)
				denied |= f->pids[i] == f->nopids[j];
			left += !denied;
		}
		if (!left) {
			snprintf(err, errlen, "impossible filter combination: every PID given to -p is "
				 "excluded by -P");
			return -1;
		}
	}
	if (f->ncomms) {
		uint32_t left = 0;

		for (uint32_t i = 0; i < f->ncomms; i++) {
			bool denied = false;

			for (uint32_t j = 0; j < f->nnocomms; j++)
				denied |= glob_match(f->nocomms[j], f->comms[i]);
			left += !denied;
		}
		if (!left) {
			snprintf(err, errlen, "impossible filter combination: every name given to -n is "
				 "excluded by -N");
			return -1;
		}
	}
	if (f->errs.has_allow) {
		bool left = false;

		for (size_t w = 0; w < ERRFILTER_MAX / 64; w++)
			left |= (f->errs.allow[w] & ~f->errs.deny[w]) != 0;
		if (!left) {
			snprintf(err, errlen, "impossible filter combination: every error given to -x is "
				 "excluded by -X");
			return -1;
		}
		if (f->success_only) {
			snprintf(err, errlen, "impossible filter combination: --success-only keeps "
				 "successful sessions only, -x asks for failing ones");
			return -1;
		}
	}
	if (f->has_since && filters_parse_time(f->since_txt, meta->start_realtime_ns, &f->since_ns)) {
		snprintf(err, errlen, "--since: bad time '%s'", f->since_txt);
		return -1;
	}
	if (f->has_until && filters_parse_time(f->until_txt, meta->start_realtime_ns, &f->until_ns)) {
		snprintf(err, errlen, "--until: bad time '%s'", f->until_txt);
		return -1;
	}
	if (f->has_since && f->has_until && f->since_ns > f->until_ns) {
		snprintf(err, errlen, "impossible filter combination: --since %s is after --until %s",
			 f->since_txt, f->until_txt);
		return -1;
	}
	if (check_recording(f, env, err, errlen))
		return -1;
	if (f->success_too && !f->success_only && !(meta->mode & RSF_MODE_SUCCESS))
		snprintf(f->note, sizeof(f->note), "-S: this recording holds no successful sessions "
			 "(it was recorded without -S); showing its failing sessions");
	return 0;
}

bool filters_active(const struct filters *f)
{
	return f->npids || f->nnopids || f->ncomms || f->nnocomms || err_filter_active(&f->errs) ||
	       f->min_lat_ns || f->outcome != FILT_ANY || f->stack_has.n || f->entries.n ||
	       f->has_since || f->has_until;
}

static uint32_t flags_cb(void *ctx, uint32_t id)
{
	return rp_func_flags(ctx, id);
}

/* does the session's logical or kernel stack hold a function matching G
 * (inlined ones included when a DWARF symbolizer is attached)? */
static bool stack_has(const struct glob_spec *g, const struct rp_session *s, struct rp_env *env)
{
	const struct rs_rec_session_end *e = s->e;
	struct symbolizer *sym;
	char buf[32];

	for (int i = 0; i < e->nframes; i++)
		if (glob_spec_match(g, rp_func_name(env, e->frames[i].func_id, buf, sizeof(buf)),
				    rp_func_module(env, e->frames[i].func_id)))
			return true;
	sym = s->nk ? rp_symbolizer(env) : NULL;
	for (int i = 0; sym && i < s->nk; i++) {
		struct symb_info si;

		if (symbolize(sym, e->kstack[i], true, &si))
			continue;
		if (glob_spec_match(g, si.name, si.module))
			return true;
		/* with DWARF, the functions inlined at that address too */
		for (int k = 0; k < si.ninlines && k < SYMB_MAX_INLINES; k++)
			if (glob_spec_match(g, si.inlines[k].func, si.module))
				return true;
	}
	return false;
}

static bool keep(const struct filters *f, const struct rp_session *s, struct rp_env *env)
{
	const struct rs_rec_session_end *e = s->e;
	int64_t start_real = (int64_t)e->start_ts + env->meta->mono_to_realtime_ns;

	if (f->npids) {
		bool hit = false;

		for (uint32_t i = 0; i < f->npids && !hit; i++)
			hit = f->pids[i] == e->pid;
		if (!hit)
			return false;
	}
	for (uint32_t i = 0; i < f->nnopids; i++)
		if (f->nopids[i] == e->pid)
			return false;
	if (f->ncomms) {
		bool hit = false;

		for (uint32_t i = 0; i < f->ncomms && !hit; i++)
			hit = glob_match(f->comms[i], s->task_comm);
		if (!hit)
			return false;
	}
	for (uint32_t i = 0; i < f->nnocomms; i++)
		if (glob_match(f->nocomms[i], s->task_comm))
			return false;
	if (f->outcome == FILT_SUCCESS_ONLY && (e->flags & RS_SESS_IS_ERR))
		return false;
	if (f->outcome == FILT_ERROR_ONLY && !(e->flags & RS_SESS_IS_ERR))
		return false;
	if (f->min_lat_ns && rp_session_latency(s) < f->min_lat_ns)
		return false;
	if (f->has_since && start_real < f->since_ns)
		return false;
	if (f->has_until && start_real > f->until_ns)
		return false;
	if (f->entries.n) {
		char buf[32];

		if (!e->nframes ||
		    glob_set_find(&f->entries, rp_func_name(env, e->frames[0].func_id, buf, sizeof(buf)),
				  rp_func_module(env, e->frames[0].func_id)) < 0)
			return false;
	}
	if (err_filter_active(&f->errs) && !err_filter_keep(&f->errs, e, flags_cb, env))
		return false;
	for (size_t i = 0; i < f->stack_has.n; i++)
		if (!stack_has(&f->stack_has.v[i], s, env))
			return false;
	return true;
}

bool filters_keep(struct filters *f, const struct rp_session *s, struct rp_env *env)
{
	bool k = keep(f, s, env);

	if (k)
		f->kept++;
	else
		f->removed++;
	return k;
}

void filters_free(struct filters *f)
{
	glob_set_free(&f->stack_has);
	glob_set_free(&f->entries);
}
