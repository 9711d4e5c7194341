/* session.h - one recording run (checks, selection, attach, capture,
 * detach), shared by retsnoop-record and the live retsnoop tool. Records go
 * to the file given by -o and/or to the hooks. */
#ifndef RS_RECORD_SESSION_H
#define RS_RECORD_SESSION_H

#include "format/rsfile.h"
#include "record/options.h"

struct record_hooks {
	/* the header and tables exactly as written to the file; non-zero aborts */
	int (*on_start)(void *ctx, const struct rsf_meta *meta,
			const struct rsf_ksym *ksyms, size_t nksyms,
			const struct rsf_module *mods, size_t nmods,
			const struct rsf_func *funcs, size_t nfuncs);
	/* tracing is live */
	void (*on_ready)(void *ctx);
	/* every record as written to the file (after -x/-X); <0 stops */
	int (*on_record)(void *ctx, const struct rs_rec_hdr *rec, size_t size);
	/* after detach: the trailer's statistics */
	void (*on_end)(void *ctx, const struct rsf_stats *stats);
	void *ctx;
};

/* Returns the process exit status (the command's with `-- CMD`). */
int record_run(struct record_opts *o, const char *prog, const struct record_hooks *hooks);

#endif
