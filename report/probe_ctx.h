/* probe_ctx.h - the context an injected probe's hit captured (-J with -A)
 * as named, typed values rendered from the recording's BTF (args_render.h):
 * a kprobe's or kretprobe's `regs` (struct pt_regs), a raw tracepoint's
 * arguments (names and types from its prototype), a tracepoint's event
 * fields (struct trace_event_raw_<class>, `__data_loc` strings resolved
 * inside the captured record). Without a type, the context's size. */
#ifndef RS_PROBE_CTX_H
#define RS_PROBE_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include "../bpf/retsnoop_abi.h"
#include "args_render.h"
#include "session.h"

/* P's context into L (appended); false when P has none (no -A) or out of
 * memory */
bool rp_probe_ctx(const struct rp_env *env, const struct rs_rec_probe *p,
		  const struct args_fmt *fmt, struct args_list *l);
/* the session's hit with sequence id SEQ_ID, or NULL */
const struct rs_rec_probe *rp_probe_find(const struct rp_session *s, uint32_t seq_id);

#endif
