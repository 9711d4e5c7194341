/* trace_batch.h - expansion of the kernel side's TRACE_BATCH ring-buffer
 * records into the TRACE_ENTRY/EXIT records a file holds. */
#ifndef RS_RECORD_TRACE_BATCH_H
#define RS_RECORD_TRACE_BATCH_H

#include <stddef.h>
#include "bpf/retsnoop_abi.h"

typedef int (*trace_batch_emit_fn)(void *ctx, const struct rs_rec_hdr *rec, size_t size);

/* rec (size bytes from the ring buffer) is a TRACE_BATCH: each of its
 * entries is handed to emit as one struct rs_rec_trace, in order. Returns
 * 1 when the batch is malformed (wrong size or count, an entry of another
 * type: nothing is emitted), else 0 or the first negative value emit
 * returned (the rest are not emitted). */
int trace_batch_expand(const struct rs_rec_hdr *rec, size_t size, trace_batch_emit_fn emit, void *ctx);

#endif
