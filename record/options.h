/* options.h - the recorder's options (also the live retsnoop tool's
 * recording half): selection globs, attach mode, capture, output, the
 * command to spawn, and the session filters shared with the report
 * (common/shared_opts.h). Their table is record_opt_table; the commands
 * compose it with the shared table and parse with common/opts.h. */
#ifndef RS_RECORD_OPTIONS_H
#define RS_RECORD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "common/glob.h"
#include "common/opts.h"
#include "common/shared_opts.h"

enum attach_mode {
	ATTACH_AUTO = 0,
	ATTACH_KPROBE_MULTI,
	ATTACH_KPROBE,
	ATTACH_FENTRY,
};

struct record_opts {
	struct glob_set entry, allow, deny;
	enum attach_mode mode;
	struct filter_opts f;    /* -p/-P/-n/-N/-x/-X/-L/-S, as the report has them */
	int success;             /* -1 auto, 0 error-only, 1 success stacks */
	bool trace, interim, stacks, stacks_set;
	bool defer_stacks;       /* -C bpf.defer-stacks (default true) */
	bool kprobe_session;     /* -C bpf.kprobe-session (default true): -M as one kprobe.session link where the kernel has it */
	bool rdonly_cast;        /* -C bpf.rdonly-cast (default true): -F's fexit template reads stack words through bpf_rdonly_cast where the kernel has it */
	bool lean;               /* -C bpf.lean (default true): the lean BPF object where it fits (record/bpf_objects.h) */
	bool lbr;
	uint64_t lbr_flags;
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
	char **probes;           /* -J specs (record/probe_spec.h), checked when parsed */
	size_t nprobes, probes_cap;
	bool probe_ctx;          /* -A: copy each probe hit's context */
	bool user_stacks;        /* -U: user registers and stack per session */
	uint32_t ustack_size;    /* -C user.stack-size: stack bytes copied with -U */
	bool capture_args;       /* -A */
	uint32_t args_max_total, args_max_sized, args_max_str;   /* -C args.max-* */
	bool args_raw_ptrs;      /* -C args.capture-raw-ptrs */
	char cmdline[4096];
};

#define RECORD_VERSION "0.1"

/* the recorder's table (ctx: struct record_opts) */
extern const struct opt_spec record_opt_table[];
extern const size_t record_opt_count;

/* defaults; ARGV is kept as the recorded command line */
void record_opts_init(struct record_opts *o, int argc, char **argv);
/* -C bpf.* (a shared_config_fn; ctx: struct record_opts) */
int record_config_apply(void *ctx, const struct cfg_key *k, uint64_t v, struct opt_error *e);
/* after parsing: takes the shared values and the command after "--",
 * checks what only makes sense together, applies the defaults. LIVE: -o
 * is optional. OPT_OK or OPT_EUSAGE with the reason in e. */
int record_opts_finish(struct record_opts *o, const struct shared_opts *s, char **command,
		       bool live, struct opt_error *e);
void record_opts_free(struct record_opts *o);
/* the first help lines and the "-- CMD" line after the table */
void record_help_head(FILE *f, const char *prog, bool live);
void record_help_tail(FILE *f);

#endif
