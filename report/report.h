/* report.h - the rendering engine shared by retsnoop-report and the live
 * retsnoop tool: records in, text out. One code path renders a session
 * whether it comes from a file or straight from the ring buffer. */
#ifndef RS_REPORT_H
#define RS_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "../format/rsfile.h"

enum symb_mode {
	SYMB_DEFAULT = -1,  /* inlines when a vmlinux with DWARF is found, else kallsyms */
	SYMB_NONE = 0,      /* -sn: kallsyms only */
	SYMB_LINES = 1,     /* -s: file:line */
	SYMB_INLINES = 2,   /* -ss: file:line plus inlined frames */
};

struct report_opts {
	enum symb_mode symb;
	const char *vmlinux;     /* -k PATH, or NULL for discovery */
	bool allow_build_id_mismatch; /* use a vmlinux whose build-id differs (warns) */
	bool emit_addrs;         /* -C stacks.emit-addrs */
	bool dec_offs;           /* -C stacks.dec-offs */
	bool unfiltered;         /* -C stacks.unfiltered */
	bool show_stack;         /* stack view */
	bool show_trace;         /* -T view */
	bool show_lbr;           /* -B view */
	int lbr_max_count;       /* 0 = all */
	int verbose;
};

struct report;

/* meta/ksyms/mods/funcs must stay valid for the report's lifetime */
struct report *report_new(const struct rsf_meta *meta,
			  const struct rsf_ksym *ksyms, size_t nksyms,
			  const struct rsf_module *mods, size_t nmods,
			  const struct rsf_func *funcs, size_t nfuncs,
			  const struct report_opts *opts, FILE *out,
			  char *err, size_t errlen);
/* consumes one record; a session is rendered when its final record arrives */
int report_feed(struct report *r, const struct rs_rec_hdr *rec);
/* end of input: statistics (NULL when the file has no trailer), drops */
void report_finish(struct report *r, const struct rsf_stats *stats);
void report_free(struct report *r);
/* the report's symbolizer (kallsyms, plus DWARF when attached), owned by R */
struct symbolizer *report_symbolizer(struct report *r);

#endif
