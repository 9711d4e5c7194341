/* reclib.h - record building shared by the synthetic recording generators
 * of the golden tests and the benchmark (mkrec.c, mkrec_views.c,
 * mkrec_filters.c): writer open/add/close that exit with a message on
 * error, default metadata, one SESSION_END record under construction
 * (rb_e) and START, trace and LBR records. */
#ifndef RS_GOLDEN_RECLIB_H
#define RS_GOLDEN_RECLIB_H

#include <stdbool.h>
#include <stdint.h>
#include "format/rsfile.h"

/* an error in a long, and an int's error in eax (upper half zero) */
#define ERR(e) ((int64_t)-(e))
#define ERR32(e) ((int64_t)(uint32_t)-(e))

extern const char *rb_prog;                /* prefix of error messages */
extern struct rs_rec_session_end rb_e;     /* the END record being built */

/* zeroed metadata with the golden recorder version and these fields
 * (release_version and host may be NULL) */
void rb_meta(struct rsf_meta *m, const char *cmdline, const char *release,
	     const char *release_version, const char *host, uint64_t text_addr,
	     int64_t mono_to_real, const char *attach_mode, uint64_t features, uint64_t mode);
struct rsf_writer *rb_open(const char *path, const struct rsf_meta *m,
			   const struct rsf_ksym *ks, size_t nks,
			   const struct rsf_module *mods, size_t nmods,
			   const struct rsf_func *fn, size_t nfn);
void rb_add(struct rsf_writer *w, const void *rec, uint32_t size);
void rb_close(struct rsf_writer *w, const struct rsf_stats *st);

/* starts rb_e afresh; comms fill their field without a NUL when 16 long,
 * like the kernel's */
void rb_begin(uint64_t sess_id, uint32_t tid, uint32_t pid, const char *tcomm, const char *pcomm,
	      uint64_t start_ts, uint64_t end_ts, uint32_t flags);
void rb_frame(uint32_t func_id, int64_t res, uint64_t lat_ns);   /* next logical frame */
void rb_kframe(uint64_t addr);                                   /* kernel stack, innermost first */
void rb_emit(struct rsf_writer *w);                              /* writes rb_e */

void rb_start(struct rsf_writer *w, uint64_t sess, uint32_t tid, uint32_t pid,
	      const char *tcomm, const char *pcomm, uint64_t start_ts);
void rb_trace(struct rsf_writer *w, uint64_t sess, bool exit_rec, uint64_t ts, uint32_t seq,
	      uint32_t func_id, unsigned depth, int64_t res, uint64_t lat_ns);
/* n branch pairs, or lbrs_sz = err when err is non-zero */
void rb_lbr(struct rsf_writer *w, uint64_t sess, const uint64_t (*pairs)[2], int n, int err);

#endif
