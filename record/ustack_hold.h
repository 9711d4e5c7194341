/* ustack_hold.h - -U: a USTACK record waits in the capture loop for its
 * session's SESSION_END (the BPF side sends it right before), so that the
 * stacks of sessions -x/-X or --stop-after leave out are not written. */
#ifndef RS_USTACK_HOLD_H
#define RS_USTACK_HOLD_H

#include <stdbool.h>
#include <stdint.h>
#include "bpf/retsnoop_abi.h"

struct ustack_hold;

/* writes one record; <0 stops the capture */
typedef int (*ustack_emit_fn)(void *ctx, const struct rs_rec_hdr *rec, uint32_t size);

struct ustack_hold *ustack_hold_new(void);
/* frees what still waits: stacks whose session end never came */
void ustack_hold_free(struct ustack_hold *h);
/* keeps a copy of REC (a USTACK) until its session ends; when all slots
 * wait, the oldest is written first. <0: emit failed or no memory */
int ustack_hold_put(struct ustack_hold *h, const struct rs_rec_hdr *rec, uint32_t size,
		    ustack_emit_fn emit, void *ctx);
/* the session SESS_ID ended: its waiting USTACK is written when KEEP,
 * else dropped (counted). <0: emit failed */
int ustack_hold_end(struct ustack_hold *h, uint64_t sess_id, bool keep, ustack_emit_fn emit,
		    void *ctx);
/* USTACK records dropped with their filtered session, and left waiting */
uint64_t ustack_hold_dropped(const struct ustack_hold *h);

#endif
