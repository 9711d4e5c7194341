/* rsf_trace_pack.h - the packed form a TRACE_BATCH takes in a file
 * (TRACE_PACKED, format version 4): each entry's fields as varints, most
 * of them deltas from the entry before, about a quarter of the 40 bytes a
 * raw entry takes. The writer packs (fewer bytes for zstd, the recorder's
 * main cost under -T), the reader unpacks back into the batch. */
#ifndef RS_FORMAT_TRACE_PACK_H
#define RS_FORMAT_TRACE_PACK_H

#include <stddef.h>
#include <stdint.h>
#include "../bpf/retsnoop_abi.h"

/* the largest TRACE_PACKED record a batch packs into */
#define RSF_TRACE_PACKED_MAX                                                      \
	RS_REC_ALIGN(offsetof(struct rs_rec_trace_packed, data) + RS_TRACE_BATCH * 46)

/* batch (a TRACE_BATCH whose size and count are checked,
 * rsf_trace_batch_shape_ok) packed into out (RSF_TRACE_PACKED_MAX bytes),
 * padding included: the record's size; 0 when an entry's type is neither
 * TRACE_ENTRY nor TRACE_EXIT (not a valid batch, rsf_trace_batch_valid) */
uint32_t rsf_trace_pack(const struct rs_rec_hdr *batch, void *out);

/* rec (size bytes available) is a TRACE_PACKED record: its entries into
 * batch (a whole struct rs_rec_trace_batch) as the TRACE_BATCH it was.
 * Returns 0, or 1 when rec is malformed (a count out of range, a varint
 * running past the data or longer than 10 bytes, a field out of range,
 * bytes left over, non-zero padding). */
int rsf_trace_unpack(const struct rs_rec_hdr *rec, size_t size, struct rs_rec_trace_batch *batch);

#endif
