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
	const char *report_cfg[32]; /* -C stacks.* / fmt.* values */
	int nreport_cfg;
};

/* Parses argv. Returns 0 on success, 1 when help/version was printed
 * (exit 0), 2 for -Vv (print features_report() too, then exit 0), -1 on a
 * usage error (message already printed). */
int record_opts_parse(struct record_opts *o, int argc, char **argv, const char *prog);
/* the live tool: -o is optional and rendering flags (-s, -C stacks.*,
 * -C fmt.*, --lbr-max-count) are accepted */
int record_opts_parse_live(struct record_opts *o, int argc, char **argv, const char *prog);
void record_opts_free(struct record_opts *o);
void record_usage(FILE *f, const char *prog);

#endif
