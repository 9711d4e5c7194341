/* rsf_trace_batch.c - checks and expands TRACE_BATCH records (see
 * rsf_trace_batch.h): the reader expands those of a file's chunks, the
 * live tool those its renderer gets from the ring buffer, so that the
 * report pipeline sees one record per call end. */
#include "rsf_trace_batch.h"
#include <string.h>

#define BATCH_FIXED offsetof(struct rs_rec_trace_batch, e)

/* entry i of a batch that starts at rec (unaligned-safe) */
static void entry_at(const struct rs_rec_hdr *rec, uint32_t i, struct rs_trace_ent *e)
{
	memcpy(e, (const char *)rec + BATCH_FIXED + (size_t)i * sizeof(*e), sizeof(*e));
}

uint32_t rsf_trace_batch_count(const struct rs_rec_hdr *rec)
{
	uint32_t n;

	memcpy(&n, (const char *)rec + offsetof(struct rs_rec_trace_batch, n), sizeof(n));
	return n;
}

bool rsf_trace_batch_shape_ok(const struct rs_rec_hdr *rec, size_t size)
{
	uint32_t n;

	if (size < BATCH_FIXED || rec->type != RS_REC_TRACE_BATCH || rec->size > size)
		return false;
	n = rsf_trace_batch_count(rec);
	return n > 0 && n <= RS_TRACE_BATCH && rec->size == BATCH_FIXED + n * sizeof(struct rs_trace_ent);
}

bool rsf_trace_batch_valid(const struct rs_rec_hdr *rec, size_t size)
{
	const char *types = (const char *)rec + BATCH_FIXED + offsetof(struct rs_trace_ent, type);
	uint32_t n;

	if (!rsf_trace_batch_shape_ok(rec, size))
		return false;
	n = rsf_trace_batch_count(rec);
	/* the recorder checks every batch it reads: only the type fields */
	for (uint32_t i = 0; i < n; i++) {
		uint16_t type;

		memcpy(&type, types + (size_t)i * sizeof(struct rs_trace_ent), sizeof(type));
		if (type != RS_REC_TRACE_ENTRY && type != RS_REC_TRACE_EXIT)
			return false;
	}
	return true;
}

int rsf_trace_batch_expand(const struct rs_rec_hdr *rec, size_t size, rsf_trace_batch_emit_fn emit,
			   void *ctx)
{
	struct rs_trace_ent e;
	struct rs_rec_trace t;
	uint32_t n;

	if (!rsf_trace_batch_valid(rec, size))   /* all valid, or nothing emitted */
		return 1;
	n = rsf_trace_batch_count(rec);
	memset(&t, 0, sizeof(t));
	t.hdr.size = sizeof(t);
	memcpy(&t.sess_id, (const char *)rec + offsetof(struct rs_rec_trace_batch, sess_id),
	       sizeof(t.sess_id));
	for (uint32_t i = 0; i < n; i++) {
		int r;

		entry_at(rec, i, &e);
		t.hdr.type = e.type;
		t.ts = e.ts;
		t.seq_id = e.seq_id;
		t.func_id = e.func_id;
		t.depth = e.depth;
		t.res = e.res;
		t.lat_ns = e.lat_ns;
		r = emit(ctx, &t.hdr, sizeof(t));
		if (r < 0)
			return r;
	}
	return 0;
}
