/* session_asm.h - the session assembler: the report pipeline's only
 * per-session buffer. Records come in as read (file or ring buffer); START
 * opens a session's state, -T and LBR records are kept in it when an
 * output needs them, and each SESSION_END (interim or final) is validated
 * (frames, depth, kernel stack bounded; comms terminated) and handed on as
 * one struct rp_session. A final END frees the state.
 *
 * Bounds (what exceeds them is dropped and counted in rp_asm_stats):
 *  - RP_ASM_MAX_OPEN sessions with state at once: the oldest open one is
 *    evicted (its records counted in records_over_limit);
 *  - RP_ASM_MAX_TRACE -T records and RP_ASM_MAX_LBRS LBR records per
 *    session (past it, a new LBR record replaces the last one kept, so
 *    every snapshot still has its own);
 *  - RP_ASM_MAX_ARGS FUNC_ARGS (-A) records per session (args_store.h);
 *  - RP_ASM_MAX_BYTES bytes of buffered records over all sessions. */
#ifndef RS_SESSION_ASM_H
#define RS_SESSION_ASM_H

#include <stdbool.h>
#include <stdint.h>
#include "session.h"

#define RP_ASM_MAX_OPEN   65536u
#define RP_ASM_MAX_TRACE  (1u << 20)
#define RP_ASM_MAX_LBRS   64u
#define RP_ASM_MAX_BYTES  (512ull << 20)

struct rp_asm_stats {
	uint64_t finals;              /* final snapshots handed on */
	uint64_t interims;            /* interim snapshots handed on */
	uint64_t ignored;             /* ENDs flagged IGNORED by the recorder */
	uint64_t bad_records;         /* malformed or of unknown type: skipped */
	uint64_t orphan_records;      /* -T records of sessions whose START was not seen */
	uint64_t records_over_limit;  /* -T/LBR/-A records not kept: the bounds above */
	uint64_t sessions_evicted;    /* open sessions evicted at RP_ASM_MAX_OPEN */
	uint64_t sessions_with_drops; /* snapshots whose recorder dropped records */
};

/* receives each validated snapshot; non-zero is returned by rp_asm_feed */
typedef int (*rp_asm_emit_fn)(void *ctx, const struct rp_session *s);

struct rp_asm;

/* keep_trace / keep_lbr: buffer those records (some output needs them).
 * NULL when out of memory. */
struct rp_asm *rp_asm_new(bool keep_trace, bool keep_lbr, rp_asm_emit_fn emit, void *ctx);
/* one record; 0, or -1 when out of memory, or what emit returned */
int rp_asm_feed(struct rp_asm *a, const struct rs_rec_hdr *rec);
const struct rp_asm_stats *rp_asm_stats(const struct rp_asm *a);
void rp_asm_free(struct rp_asm *a);

#endif
