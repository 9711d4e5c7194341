/* record_hooks.h - how a command follows a recording as it happens (the
 * live tool renders sessions through them): the file's header and tables,
 * tracing is live, every record, the final statistics. */
#ifndef RS_RECORD_HOOKS_H
#define RS_RECORD_HOOKS_H

#include <stddef.h>
#include "format/rsfile.h"

struct record_hooks {
	/* the header and tables exactly as written to the file; non-zero
	 * aborts (the hook has said why) */
	int (*on_start)(void *ctx, const struct rsf_meta *meta,
			const struct rsf_ksym *ksyms, size_t nksyms,
			const struct rsf_module *mods, size_t nmods,
			const struct rsf_func *funcs, size_t nfuncs);
	/* the header blobs exactly as written ("btf", "func_btf", "probes";
	 * may be none), right before on_start (may be NULL); non-zero aborts */
	int (*on_blobs)(void *ctx, const struct rsf_blob *blobs, size_t nblobs);
	/* tracing is live */
	void (*on_ready)(void *ctx);
	/* every record as written to the file (after -x/-X); <0 stops */
	int (*on_record)(void *ctx, const struct rs_rec_hdr *rec, size_t size);
	/* after detach: the trailer's statistics */
	void (*on_end)(void *ctx, const struct rsf_stats *stats);
	void *ctx;
};

#endif
