/* shared_opts.h - the options the three commands share, described once:
 * the session filters (-p/-P, -n/-N, -x/-X, -L, -S), -k, -s, -C and
 * --lbr-max-count, --allow-build-id-mismatch, -v, -V, --help, --usage and
 * --config-help. One table (shared_opt_table), one parser per flag, one
 * meaning and one range in every command that takes it; the values land
 * in struct shared_opts, which each command hands to its engine. */
#ifndef RS_SHARED_OPTS_H
#define RS_SHARED_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/config_keys.h"
#include "common/errfilter.h"
#include "common/opts.h"

#define FILTER_MAX_PIDS 256
#define FILTER_MAX_COMMS 64
#define FILTER_COMM_LEN 16     /* a thread name: 15 characters and NUL */

/* the session filters of -p/-P/-n/-N/-x/-X/-L/-S, the same when recording
 * (applied in the kernel and the capture) and reporting */
struct filter_opts {
	uint32_t pids[FILTER_MAX_PIDS], npids;          /* -p */
	uint32_t nopids[FILTER_MAX_PIDS], nnopids;      /* -P */
	char comms[FILTER_MAX_COMMS][FILTER_COMM_LEN];  /* -n: globs (* and ?) */
	uint32_t ncomms;
	char nocomms[FILTER_MAX_COMMS][FILTER_COMM_LEN];/* -N */
	uint32_t nnocomms;
	struct err_filter errs;                         /* -x/-X */
	bool has_x, has_X;
	uint64_t min_lat_ns;                            /* -L, fractional ms */
	bool success_yes;                               /* -S, -Sy */
	bool success_no;                                /* -Sn (report: --errors-only) */
};

/* -C values: applied by the command (its own options struct) */
typedef int (*shared_config_fn)(void *ctx, const struct cfg_key *k, uint64_t v,
				struct opt_error *e);

struct shared_opts {
	unsigned cmd;                  /* enum opt_cmd */
	struct filter_opts f;
	const char *kernel;            /* -k */
	int symb;                      /* -s: -1 default, 0 -sn, 1 -s, 2 -ss */
	bool allow_build_id_mismatch;
	int verbose;                   /* -v, repeatable */
	bool help, usage, config_help, version, list;
	shared_config_fn config;
	void *config_ctx;
};

void shared_opts_init(struct shared_opts *s, unsigned cmd, shared_config_fn config,
		      void *config_ctx);
/* the table; compose it with OPT_GROUP(shared_opt_table, &shared) */
extern const struct opt_spec shared_opt_table[];
extern const size_t shared_opt_count;
/* after parsing: contradictions among the filters (-Sy with -Sn, -S with
 * -x). OPT_OK or OPT_EUSAGE. */
int filter_opts_check(const struct filter_opts *f, struct opt_error *e);
/* does the glob have a wildcard (else it is an exact thread name)? */
bool comm_is_glob(const char *glob);

#endif
