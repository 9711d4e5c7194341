/* filters.h - report-time session filters with the record-time flags
 * (-p/-P, -n/-N, -x/-X, -L, -S/-Sy/-Sn, meaning what they mean to the
 * recorder) plus --success-only, --stack-has, --entry and --since/--until. Different filters combine with AND; repeats of -p, -n
 * and --entry are alternatives (OR), repeats of --stack-has must all match
 * (AND). Impossible combinations are rejected by filters_prepare(); the
 * contradictions among the flags themselves at parse time
 * (filter_opts_check). */
#ifndef RS_FILTERS_H
#define RS_FILTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../common/errfilter.h"
#include "../common/glob.h"
#include "../common/shared_opts.h"
#include "session.h"


enum filt_outcome { FILT_ANY = 0, FILT_SUCCESS_ONLY, FILT_ERROR_ONLY };

struct filters {
	uint32_t pids[FILTER_MAX_PIDS], npids;     /* -p */
	uint32_t nopids[FILTER_MAX_PIDS], nnopids; /* -P */
	char comms[FILTER_MAX_COMMS][FILTER_COMM_LEN];   /* -n (globs) */
	uint32_t ncomms;
	char nocomms[FILTER_MAX_COMMS][FILTER_COMM_LEN]; /* -N */
	uint32_t nnocomms;
	struct err_filter errs;                    /* -x/-X */
	bool has_x, has_X;
	uint64_t min_lat_ns;                       /* -L */
	enum filt_outcome outcome;                 /* resolved by prepare */
	bool success_too;                          /* -S, -Sy: failing and successful */
	bool errors_only;                          /* -Sn */
	bool success_only;                         /* --success-only */
	struct glob_set stack_has;                 /* --stack-has (AND) */
	struct glob_set entries;                   /* --entry (OR) */
	const char *since_txt, *until_txt;
	bool has_since, has_until;
	int64_t since_ns, until_ns;                /* wall clock, resolved by prepare */
	char note[200];                            /* set by prepare: say it, don't fail */
	uint64_t kept, removed;
};

void filters_init(struct filters *f);
/* the fields are filled by the option layer (report/report_args.c) */
/* resolves times against the recording's header and rejects impossible
 * combinations, among the filters themselves and with what the recording
 * can hold (env->meta, env->funcs): --success-only on a recording of
 * failing sessions only, --entry matching none of its entry functions,
 * --until before it started. 0, or -1 with the reason in err. On 0, a
 * non-empty f->note is worth one line on stderr (-S on a recording made
 * without -S). */
int filters_prepare(struct filters *f, const struct rp_env *env, char *err, size_t errlen);
bool filters_active(const struct filters *f);
bool filters_keep(struct filters *f, const struct rp_session *s, struct rp_env *env);
void filters_free(struct filters *f);

/* time parsing, exposed for tests: "HH:MM:SS[.frac]", "YYYY-MM-DD
 * HH:MM:SS[.frac]" (local time) or "+N[ns|us|ms|s|m|h]" relative to
 * start_real_ns. Returns 0 and *out (wall-clock ns) or -1. */
int filters_parse_time(const char *txt, uint64_t start_real_ns, int64_t *out);

#endif
