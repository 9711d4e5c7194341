/* trace_batch.c - expands the kernel side's TRACE_BATCH ring-buffer records
 * (bpf/retsnoop_abi.h: a session's -T entries and exits sent together) into
 * the TRACE_ENTRY/EXIT records files hold, so that the file format and the
 * report pipeline see one record per call end as before. */
#include "record/trace_batch.h"
#include <string.h>

#define BATCH_FIXED offsetof(struct rs_rec_trace_batch, e)

/* entry i of a batch that starts at rec (unaligned-safe) */
static void entry_at(const struct rs_rec_hdr *rec, uint32_t i, struct rs_trace_ent *e)
{
	memcpy(e, (const char *)rec + BATCH_FIXED + (size_t)i * sizeof(*e), sizeof(*e));
}

int trace_batch_expand(const struct rs_rec_hdr *rec, size_t size, trace_batch_emit_fn emit, void *ctx)
{
	struct rs_trace_ent e;
	uint64_t sess_id;
	struct rs_rec_trace t;
	uint32_t n;

	if (size < BATCH_FIXED || rec->type != RS_REC_TRACE_BATCH || rec->size > size)
		return 1;
	memcpy(&sess_id, (const char *)rec + offsetof(struct rs_rec_trace_batch, sess_id), sizeof(sess_id));
	memcpy(&n, (const char *)rec + offsetof(struct rs_rec_trace_batch, n), sizeof(n));
	if (n == 0 || n > RS_TRACE_BATCH || rec->size != BATCH_FIXED + n * sizeof(struct rs_trace_ent))
		return 1;
	for (uint32_t i = 0; i < n; i++) {   /* all valid, or nothing emitted */
		entry_at(rec, i, &e);
		if (e.type != RS_REC_TRACE_ENTRY && e.type != RS_REC_TRACE_EXIT)
			return 1;
	}
	memset(&t, 0, sizeof(t));
	t.hdr.size = sizeof(t);
	t.sess_id = sess_id;
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
