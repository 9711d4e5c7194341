/* trace_batch.c - expands the kernel side's TRACE_BATCH ring-buffer records
 * (bpf/retsnoop_abi.h: a session's -T entries and exits sent together) into
 * the TRACE_ENTRY/EXIT records files hold, so that the file format and the
 * report pipeline see one record per call end as before. */
#include "record/trace_batch.h"
#include <string.h>

#define BATCH_FIXED offsetof(struct rs_rec_trace_batch, e)

int trace_batch_expand(const struct rs_rec_hdr *rec, size_t size, trace_batch_emit_fn emit, void *ctx)
{
	struct rs_rec_trace_batch b;
	struct rs_rec_trace t;
	uint32_t n;

	if (size < BATCH_FIXED || rec->type != RS_REC_TRACE_BATCH || rec->size > size)
		return 1;
	memcpy(&b, rec, BATCH_FIXED);
	n = b.n;
	if (n == 0 || n > RS_TRACE_BATCH || rec->size != BATCH_FIXED + n * sizeof(struct rs_trace_ent))
		return 1;
	memcpy(b.e, (const char *)rec + BATCH_FIXED, n * sizeof(struct rs_trace_ent));
	for (uint32_t i = 0; i < n; i++)
		if (b.e[i].type != RS_REC_TRACE_ENTRY && b.e[i].type != RS_REC_TRACE_EXIT)
			return 1;
	memset(&t, 0, sizeof(t));
	t.hdr.size = sizeof(t);
	t.sess_id = b.sess_id;
	for (uint32_t i = 0; i < n; i++) {
		const struct rs_trace_ent *e = &b.e[i];
		int r;

		t.hdr.type = e->type;
		t.ts = e->ts;
		t.seq_id = e->seq_id;
		t.func_id = e->func_id;
		t.depth = e->depth;
		t.res = e->res;
		t.lat_ns = e->lat_ns;
		r = emit(ctx, &t.hdr, sizeof(t));
		if (r < 0)
			return r;
	}
	return 0;
}
