/* test_trace_batch.c - unit tests of format/rsf_trace_batch.c: a TRACE_BATCH
 * ring-buffer record expands into one TRACE_ENTRY/EXIT record per entry,
 * in order, with every field carried over; malformed batches (no entries,
 * too many, a size that disagrees with the count, an entry of another
 * type, a record longer than the buffer) emit nothing; an emit error stops
 * the expansion and is returned. */
#include <stdlib.h>
#include <string.h>
#include "format/rsf_trace_batch.h"
#include "testlib.h"

#define FIXED offsetof(struct rs_rec_trace_batch, e)

struct got {
	struct rs_rec_trace recs[RS_TRACE_BATCH + 1];
	size_t sizes[RS_TRACE_BATCH + 1];
	int n, fail_at;
};

static int collect(void *ctx, const struct rs_rec_hdr *rec, size_t size)
{
	struct got *g = ctx;

	if (g->n == g->fail_at)
		return -5;
	if (g->n <= RS_TRACE_BATCH && size == sizeof(struct rs_rec_trace)) {
		memcpy(&g->recs[g->n], rec, size);
		g->sizes[g->n] = size;
	}
	g->n++;
	return 0;
}

static void make_batch(struct rs_rec_trace_batch *b, uint32_t n)
{
	memset(b, 0, sizeof(*b));
	b->hdr.type = RS_REC_TRACE_BATCH;
	b->hdr.size = (uint32_t)(FIXED + n * sizeof(struct rs_trace_ent));
	b->sess_id = 0x100000007ULL;
	b->n = n;
	for (uint32_t i = 0; i < n && i < RS_TRACE_BATCH; i++) {
		struct rs_trace_ent *e = &b->e[i];

		e->ts = 1000 + i;
		e->seq_id = i;
		e->func_id = 40 + i;
		e->depth = (uint16_t)(1 + i / 2);
		e->type = i % 2 ? RS_REC_TRACE_EXIT : RS_REC_TRACE_ENTRY;
		e->res = i % 2 ? -22 : 0;
		e->lat_ns = i % 2 ? 77 * i : 0;
	}
}

static void test_expands_in_order(void)
{
	struct rs_rec_trace_batch b;
	struct got g = { .fail_at = -1 };

	make_batch(&b, 3);
	CHECK_INT(rsf_trace_batch_expand(&b.hdr, b.hdr.size, collect, &g), 0);
	CHECK_INT(g.n, 3);
	for (int i = 0; i < 3 && i < g.n; i++) {
		const struct rs_rec_trace *t = &g.recs[i];

		CHECK_INT(g.sizes[i], sizeof(struct rs_rec_trace));
		CHECK_INT(t->hdr.size, sizeof(struct rs_rec_trace));
		CHECK_INT(t->hdr.type, i % 2 ? RS_REC_TRACE_EXIT : RS_REC_TRACE_ENTRY);
		CHECK(t->sess_id == 0x100000007ULL);
		CHECK_INT(t->ts, 1000 + i);
		CHECK_INT(t->seq_id, i);
		CHECK_INT(t->func_id, 40 + i);
		CHECK_INT(t->depth, 1 + i / 2);
		CHECK_INT(t->res, i % 2 ? -22 : 0);
		CHECK_INT(t->lat_ns, i % 2 ? 77 * i : 0);
		CHECK(!t->_pad[0] && !t->_pad[1] && !t->_pad[2]);
	}
}

static void test_full_batch(void)
{
	struct rs_rec_trace_batch b;
	struct got g = { .fail_at = -1 };

	make_batch(&b, RS_TRACE_BATCH);
	CHECK_INT(b.hdr.size, sizeof(b));
	CHECK_INT(rsf_trace_batch_expand(&b.hdr, sizeof(b), collect, &g), 0);
	CHECK_INT(g.n, RS_TRACE_BATCH);
	CHECK_INT(g.recs[RS_TRACE_BATCH - 1].seq_id, RS_TRACE_BATCH - 1);
}

static void test_malformed(void)
{
	struct rs_rec_trace_batch b;
	struct got g = { .fail_at = -1 };

	make_batch(&b, 0);                       /* no entries */
	CHECK_INT(rsf_trace_batch_expand(&b.hdr, b.hdr.size, collect, &g), 1);
	make_batch(&b, 2);
	b.n = RS_TRACE_BATCH + 1;                /* more than a batch holds */
	CHECK_INT(rsf_trace_batch_expand(&b.hdr, sizeof(b), collect, &g), 1);
	make_batch(&b, 2);
	b.hdr.size += 8;                         /* size disagrees with n */
	CHECK_INT(rsf_trace_batch_expand(&b.hdr, sizeof(b), collect, &g), 1);
	make_batch(&b, 2);
	CHECK_INT(rsf_trace_batch_expand(&b.hdr, b.hdr.size - 1, collect, &g), 1);   /* longer than given */
	make_batch(&b, 4);
	b.e[3].type = RS_REC_PROBE;              /* not an entry or exit */
	CHECK_INT(rsf_trace_batch_expand(&b.hdr, b.hdr.size, collect, &g), 1);
	make_batch(&b, 2);
	b.hdr.type = RS_REC_TRACE_ENTRY;         /* not a batch */
	CHECK_INT(rsf_trace_batch_expand(&b.hdr, b.hdr.size, collect, &g), 1);
	CHECK_INT(rsf_trace_batch_expand(&b.hdr, FIXED - 1, collect, &g), 1);   /* shorter than its header */
	CHECK_INT(g.n, 0);                       /* nothing emitted by any of them */
}

static void test_emit_error_stops(void)
{
	struct rs_rec_trace_batch b;
	struct got g = { .fail_at = 2 };

	make_batch(&b, 5);
	CHECK_INT(rsf_trace_batch_expand(&b.hdr, b.hdr.size, collect, &g), -5);
	CHECK_INT(g.n, 2);
}

int main(void)
{
	RUN(test_expands_in_order);
	RUN(test_full_batch);
	RUN(test_malformed);
	RUN(test_emit_error_stops);
	return TEST_REPORT("test_trace_batch");
}
