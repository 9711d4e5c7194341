/* probe_store.h - a session's injected-probe hits (-J, RS_REC_PROBE
 * records) as the session assembler keeps them: each validated (the fixed
 * part present, depth bounded, a context only when its length fits the
 * record and RP_PROBE_CTX_MAX) and copied whole, context included, in
 * arrival order (the session's sequence order). */
#ifndef RS_PROBE_STORE_H
#define RS_PROBE_STORE_H

#include <stddef.h>
#include <stdint.h>
#include "../bpf/retsnoop_abi.h"

#define RP_PROBE_CTX_MAX (64u << 10)   /* context bytes kept per hit at most */

struct rp_probe_store {
	struct rs_rec_probe **v;
	size_t n, cap;
	uint64_t bytes;           /* kept record bytes */
};

/* the bytes H takes once kept (for the assembler's bounds), 0 when it is
 * malformed */
size_t rp_probe_kept_size(const struct rs_rec_hdr *h);
/* keeps a copy of H: 0 kept, 1 malformed (not kept), -1 out of memory */
int rp_probe_store_add(struct rp_probe_store *s, const struct rs_rec_hdr *h);
void rp_probe_store_free(struct rp_probe_store *s);

#endif
