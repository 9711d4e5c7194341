/* options.h - command-line options of retsnoop-record (also accepted by
 * the live retsnoop tool): selection globs, attach mode, record-time
 * filters, output, and the command to spawn. */
#ifndef RS_RECORD_OPTIONS_H
#define RS_RECORD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "common/glob.h"
#include "common/errfilter.h"

enum attach_mode {
	ATTACH_AUTO = 0,
	ATTACH_KPROBE_MULTI,
	ATTACH_KPROBE,
	ATTACH_FENTRY,
};

struct record_opts {
	struct glob_set entry, allow, deny;
	enum attach_mode mode;
	int pids[256], npids;
	int nopids[256], nnopids;
	char comms[64][16];
	int ncomms;
	char nocomms[64][16];
	int nnocomms;
	int success;             /* -1 auto, 0 error-only, 1 success stacks */
	bool trace, interim, stacks, stacks_set;
	bool lbr;
	uint64_t lbr_flags;
	uint64_t longer_ms;
	struct err_filter errs;
	const char *output;
	uint64_t max_size;       /* --max-size: flight recorder cap of the file (0: none) */
	uint64_t duration_ms;    /* --duration: stop after this long (0: no limit) */
	uint64_t stop_after;     /* --stop-after: stop after N emitted sessions (0: no limit) */
	const char *kernel;      /* -k vmlinux, for :path globs */
	char **cmd;              /* after "--" */
	int verbose;
	bool dry_run;
	bool show_version;       /* -V (with -v: feature detection too) */
	uint64_t ringbuf_size;
	uint32_t sessions_size;
	uint32_t max_depth;      /* nested calls tracked per session (1..RS_MAX_FSTACK_DEPTH) */
	char cmdline[4096];
	/* live tool only: rendering flags handed to the report */
	bool live;
	int symb;                /* -1 default, 0 -sn, 1 -s, 2 -ss */
	bool allow_build_id_mismatch;
	const char *report_cfg[32]; /* -C stacks.* / fmt.* values */
	int nreport_cfg;
	/* report outputs and filters (--format, --folded, --folded-weight,
	 * --perfetto, --summary, --stack-has) as retsnoop-report arguments,
	 * "--flag" then its value when it has one, for the report to parse */
	const char *report_args[128];
	int nreport_args;
};

#define RECORD_VERSION "0.1"

enum record_parse {
	RECORD_PARSE_ERROR = -1,     /* usage error, one-line message printed */
	RECORD_PARSE_RUN = 0,        /* options are complete: record */
	RECORD_PARSE_VERSION,        /* -V printed the version: exit 0 */
	RECORD_PARSE_FEATURES,       /* -Vv: print features_report() too, exit 0 */
	RECORD_PARSE_HELP,           /* -h: the caller prints its usage, exit 0 */
	RECORD_PARSE_CONFIG_HELP,    /* --config-help: the caller lists -C keys, exit 0 */
};

enum record_parse record_opts_parse(struct record_opts *o, int argc, char **argv, const char *prog);
/* the live tool: -o is optional and rendering flags (-s, -C stacks.*,
 * -C fmt.*, --lbr-max-count) and the report's outputs and --stack-has are
 * accepted */
enum record_parse record_opts_parse_live(struct record_opts *o, int argc, char **argv,
					  const char *prog);
void record_opts_free(struct record_opts *o);
/* --help text; live adds the rendering flags and makes -o optional */
void record_usage(FILE *f, const char *prog, bool live);
/* --config-help: the bpf.* keys with defaults */
void record_config_help(FILE *f);

#endif
