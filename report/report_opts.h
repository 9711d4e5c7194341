/* report_opts.h - the plain option structs a command's parser fills and
 * the report pipeline (pipeline.h) consumes: how sessions are rendered as
 * text and symbolized (report_opts), and which outputs are written
 * (rp_outsel). The report-time filters are struct filters (filters.h). */
#ifndef RS_REPORT_OPTS_H
#define RS_REPORT_OPTS_H

#include <stdbool.h>
#include "args_render.h"

enum symb_mode {
	SYMB_DEFAULT = -1,  /* inlines when a vmlinux with DWARF is found, else kallsyms */
	SYMB_NONE = 0,      /* -sn: kallsyms only */
	SYMB_LINES = 1,     /* -s: file:line */
	SYMB_INLINES = 2,   /* -ss: file:line plus inlined frames */
};

struct report_opts {
	enum symb_mode symb;
	const char *vmlinux;     /* -k PATH, or NULL for discovery */
	const char *symfs;       /* --symfs DIR: user binaries at DIR/<recorded path> */
	bool allow_build_id_mismatch; /* use a vmlinux whose build-id differs (warns) */
	bool emit_addrs;         /* -C stacks.emit-addrs */
	bool dec_offs;           /* -C stacks.dec-offs */
	bool unfiltered;         /* -C stacks.unfiltered */
	bool show_stack;         /* stack view */
	bool show_trace;         /* -T view */
	bool show_lbr;           /* -B view */
	int lbr_max_count;       /* 0 = all */
	struct args_fmt args;    /* -C args.fmt-mode / args.fmt-max-arg-width */
	bool no_src_output;      /* no output prints source lines: a missing vmlinux is not said */
	int verbose;
};

/* which outputs a report writes (besides the text views, which are on
 * when no other output takes stdout) */
struct rp_outsel {
	bool json;                  /* --format json: NDJSON on stdout */
	bool folded;                /* --folded */
	bool folded_lat;            /* --folded-weight=latency */
	bool summary;               /* summary / --summary */
	const char *perfetto_path;  /* --perfetto FILE */
};

#endif
