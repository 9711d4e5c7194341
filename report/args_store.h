/* args_store.h - a session's FUNC_ARGS records (-A) as the session
 * assembler keeps them: each validated on arrival (args_rec_check), copied
 * whole, in seq_id order when handed on, and found by the call's entry
 * seq_id (args_find) by the views. */
#ifndef RS_ARGS_STORE_H
#define RS_ARGS_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../bpf/retsnoop_abi.h"

#define RP_ASM_MAX_ARGS (1u << 20)   /* FUNC_ARGS records kept per session */

struct rp_args_store {
	struct rs_rec_func_args **recs;
	size_t n, cap;
	bool unsorted;             /* a record arrived out of seq_id order */
	uint64_t bytes;
};

/* a FUNC_ARGS record is well-formed: hdr.size covers the fixed part and
 * data_len bytes, nargs <= RS_MAX_FUNC_ARGS, each argument's bytes inside
 * data[]. 0, or -1 when malformed. */
int args_rec_check(const struct rs_rec_hdr *h);
/* bytes a checked record takes when kept */
size_t args_rec_bytes(const struct rs_rec_hdr *h);
/* keeps a copy of checked record H; 0, or -1 when out of memory */
int args_store_add(struct rp_args_store *s, const struct rs_rec_hdr *h);
/* puts the records in seq_id order (before they are handed on) */
void args_store_sort(struct rp_args_store *s);
void args_store_free(struct rp_args_store *s);

/* the record of the call whose entry has SEQ_ID (and, unless FUNC_ID is
 * UINT32_MAX, whose function is FUNC_ID) among RECS sorted by seq_id, or
 * NULL */
const struct rs_rec_func_args *args_find(const struct rs_rec_func_args *const *recs, size_t n,
					 uint32_t seq_id, uint32_t func_id);

#endif
