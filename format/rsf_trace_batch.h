/* rsf_trace_batch.h - TRACE_BATCH records (bpf/retsnoop_abi.h: a session's
 * -T entries and exits sent, and since format version 3 stored, together)
 * checked and expanded into the TRACE_ENTRY/EXIT records readers hand out. */
#ifndef RS_FORMAT_TRACE_BATCH_H
#define RS_FORMAT_TRACE_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include "../bpf/retsnoop_abi.h"

typedef int (*rsf_trace_batch_emit_fn)(void *ctx, const struct rs_rec_hdr *rec, size_t size);

/* whether rec (size bytes available) is a TRACE_BATCH whose size matches
 * its count (1..RS_TRACE_BATCH), its entries not looked at */
bool rsf_trace_batch_shape_ok(const struct rs_rec_hdr *rec, size_t size);

/* whether rec (size bytes available) is a well-formed TRACE_BATCH: its
 * shape is (rsf_trace_batch_shape_ok), and every entry is an entry or an
 * exit */
bool rsf_trace_batch_valid(const struct rs_rec_hdr *rec, size_t size);

/* the number of entries of a valid batch */
uint32_t rsf_trace_batch_count(const struct rs_rec_hdr *rec);

/* rec (size bytes) is a TRACE_BATCH: each of its entries is handed to emit
 * as one struct rs_rec_trace, in order. Returns 1 when the batch is
 * malformed (nothing is emitted), else 0 or the first negative value emit
 * returned (the rest are not emitted). */
int rsf_trace_batch_expand(const struct rs_rec_hdr *rec, size_t size, rsf_trace_batch_emit_fn emit,
			   void *ctx);

#endif
