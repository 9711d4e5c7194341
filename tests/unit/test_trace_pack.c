/* test_trace_pack.c - unit tests of format/rsf_trace_pack.c: a TRACE_BATCH
 * packs into a TRACE_PACKED record and unpacks into the same entries,
 * whatever their values (times and sequence ids going backwards, every
 * field at its extremes, zero and non-zero results); a typical -T batch
 * packs to well under a third of its size; malformed packed records
 * (counts, lengths, truncated or overlong varints, unknown flags, values
 * out of range, non-canonical forms, dirty padding) are refused. */
#include <stdlib.h>
#include <string.h>
#include "format/rsf_trace_pack.h"
#include "format/rsf_trace_batch.h"
#include "testlib.h"

#define BFIXED offsetof(struct rs_rec_trace_batch, e)
#define PFIXED offsetof(struct rs_rec_trace_packed, data)

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void batch_init(struct rs_rec_trace_batch *b, uint32_t n)
{
	memset(b, 0, sizeof(*b));
	b->hdr.type = RS_REC_TRACE_BATCH;
	b->hdr.size = (uint32_t)(BFIXED + n * sizeof(struct rs_trace_ent));
	b->sess_id = 0xabcdef0123456789ULL;
	b->n = n;
}

/* what a session's -T batch looks like: nested calls, small time steps */
static void typical(struct rs_rec_trace_batch *b, uint32_t n)
{
	uint64_t ts = 5000000000123ULL;
	uint16_t depth = 0;

	batch_init(b, n);
	for (uint32_t i = 0; i < n; i++) {
		struct rs_trace_ent *e = &b->e[i];
		int exit = depth > 3 || (depth > 0 && i % 3 == 2);

		ts += 150 + rnd() % 900;
		e->ts = ts;
		e->seq_id = 17 + i;
		e->func_id = (uint32_t)(rnd() % 40);
		e->type = exit ? RS_REC_TRACE_EXIT : RS_REC_TRACE_ENTRY;
		e->depth = exit ? depth-- : ++depth;
		e->res = exit ? (i % 5 ? 0 : -2) : 0;
		e->lat_ns = exit ? 300 + rnd() % 5000 : 0;
	}
}

static bool same_entries(const struct rs_rec_trace_batch *a, const struct rs_rec_trace_batch *b)
{
	if (a->hdr.type != b->hdr.type || a->hdr.size != b->hdr.size || a->sess_id != b->sess_id ||
	    a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++) {
		const struct rs_trace_ent *x = &a->e[i], *y = &b->e[i];

		if (x->ts != y->ts || x->seq_id != y->seq_id || x->func_id != y->func_id ||
		    x->depth != y->depth || x->type != y->type || x->res != y->res ||
		    x->lat_ns != y->lat_ns)
			return false;
	}
	return true;
}

static uint8_t buf[RSF_TRACE_PACKED_MAX + 64];

static void test_round_trip_typical(void)
{
	static struct rs_rec_trace_batch b, out;

	for (uint32_t n = 1; n <= RS_TRACE_BATCH; n++) {
		typical(&b, n);
		CHECK(rsf_trace_batch_valid(&b.hdr, b.hdr.size));
		uint32_t sz = rsf_trace_pack(&b.hdr, buf);
		const struct rs_rec_hdr *h = (const void *)buf;

		CHECK_INT(h->type, RS_REC_TRACE_PACKED);
		CHECK_INT(h->size, sz);
		CHECK(sz <= RSF_TRACE_PACKED_MAX);
		CHECK_INT(rsf_trace_unpack(h, RS_REC_ALIGN(sz), &out), 0);
		CHECK(same_entries(&b, &out));
		if (n == RS_TRACE_BATCH) {
			printf("  a typical full batch: %u bytes packed, %u raw\n", sz, b.hdr.size);
			CHECK(sz * 3 < b.hdr.size);
		}
	}
}

static void test_round_trip_extremes(void)
{
	static struct rs_rec_trace_batch b, out;
	static const uint64_t u64s[] = { 0, 1, 127, 128, 16383, 16384, UINT32_MAX, 1ULL << 63,
					 UINT64_MAX, UINT64_MAX - 1 };
	static const int64_t s64s[] = { 0, 1, -1, 63, -64, 64, INT32_MIN, INT32_MAX, INT64_MIN,
					INT64_MAX };
	static const uint32_t u32s[] = { 0, 1, 127, 128, UINT32_MAX, UINT32_MAX - 1, 1u << 31 };
	static const uint16_t u16s[] = { 0, 1, UINT16_MAX, 255, 256, 2 };

	for (int round = 0; round < 2000; round++) {
		uint32_t n = 1 + (uint32_t)(rnd() % RS_TRACE_BATCH);

		batch_init(&b, n);
		b.sess_id = rnd();
		for (uint32_t i = 0; i < n; i++) {
			struct rs_trace_ent *e = &b.e[i];
			int pick = (int)(rnd() % 3);   /* an extreme, a random value, or a small step */

			e->ts = pick == 0 ? u64s[rnd() % 10] : pick == 1 ? rnd() :
				(i ? b.e[i - 1].ts : 0) + rnd() % 100;
			e->seq_id = pick == 0 ? u32s[rnd() % 7] : (uint32_t)rnd();
			e->func_id = pick == 0 ? u32s[rnd() % 7] : (uint32_t)rnd();
			e->depth = pick == 0 ? u16s[rnd() % 6] : (uint16_t)rnd();
			e->type = rnd() % 2 ? RS_REC_TRACE_EXIT : RS_REC_TRACE_ENTRY;
			e->res = pick == 0 ? s64s[rnd() % 10] : (int64_t)rnd();
			e->lat_ns = pick == 0 ? u64s[rnd() % 10] : rnd();
		}
		uint32_t sz = rsf_trace_pack(&b.hdr, buf);

		CHECK(sz <= RSF_TRACE_PACKED_MAX);
		CHECK_INT(rsf_trace_unpack((const void *)buf, RS_REC_ALIGN(sz), &out), 0);
		if (!same_entries(&b, &out)) {
			CHECK(!"round trip changed an entry");
			break;
		}
	}
}

/* a packed record built by hand: n entries of the given bytes */
static size_t hand(uint32_t n, const uint8_t *data, uint32_t len)
{
	struct rs_rec_trace_packed p;

	memset(buf, 0, sizeof(buf));
	memset(&p, 0, sizeof(p));
	p.hdr.type = RS_REC_TRACE_PACKED;
	p.hdr.size = (uint32_t)(PFIXED + len);
	p.sess_id = 9;
	p.n = n;
	p.nbytes = len;
	memcpy(buf, &p, PFIXED);
	memcpy(buf + PFIXED, data, len);
	return RS_REC_ALIGN(PFIXED + len);
}

static int unpack_hand(uint32_t n, const uint8_t *data, uint32_t len)
{
	static struct rs_rec_trace_batch out;
	size_t sz = hand(n, data, len);

	return rsf_trace_unpack((const void *)buf, sz, &out);
}

static void test_malformed(void)
{
	static struct rs_rec_trace_batch b, out;
	/* flags, ts, seq, func, depth: one entry at depth 1 */
	static const uint8_t ok1[] = { 0, 10, 0, 3, 2 };
	static const uint8_t ok_exit[] = { 7, 10, 0, 3, 2, 3, 5 };   /* res -2, lat 5 */
	uint8_t d[64];

	CHECK_INT(unpack_hand(1, ok1, sizeof(ok1)), 0);
	CHECK_INT(unpack_hand(1, ok_exit, sizeof(ok_exit)), 0);
	CHECK_INT(unpack_hand(0, ok1, sizeof(ok1)), 1);                  /* no entries */
	CHECK_INT(unpack_hand(RS_TRACE_BATCH + 1, ok1, sizeof(ok1)), 1); /* too many */
	CHECK_INT(unpack_hand(2, ok1, sizeof(ok1)), 1);                  /* data ends early */
	for (uint32_t len = 0; len < sizeof(ok_exit); len++)             /* every truncation */
		CHECK_INT(unpack_hand(1, ok_exit, len), 1);
	memcpy(d, ok1, sizeof(ok1));
	d[sizeof(ok1)] = 0;
	CHECK_INT(unpack_hand(1, d, sizeof(ok1) + 1), 1);                /* a byte left over */
	memcpy(d, ok1, sizeof(ok1));
	d[0] = 8;
	CHECK_INT(unpack_hand(1, d, sizeof(ok1)), 1);                    /* unknown flag */
	/* a ts varint of 11 bytes, and one whose 10th byte overflows 64 bits */
	d[0] = 0;
	memset(d + 1, 0x80, 10);
	d[11] = 0;
	memcpy(d + 12, ok1 + 2, 3);
	CHECK_INT(unpack_hand(1, d, 15), 1);
	memset(d + 1, 0xff, 9);
	d[10] = 2;
	memcpy(d + 11, ok1 + 2, 3);
	CHECK_INT(unpack_hand(1, d, 14), 1);
	d[10] = 1;                                                       /* 2^64 - 1: fine */
	CHECK_INT(unpack_hand(1, d, 14), 0);
	/* func id past 32 bits; depth past 16 bits; seq delta past 32 bits */
	static const uint8_t big_func[] = { 0, 10, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 2 };
	CHECK_INT(unpack_hand(1, big_func, sizeof(big_func)), 1);
	static const uint8_t big_depth[] = { 0, 10, 0, 3, 0x80, 0x80, 0x08 };   /* +65536 */
	CHECK_INT(unpack_hand(1, big_depth, sizeof(big_depth)), 1);
	static const uint8_t big_seq[] = { 0, 10, 0x80, 0x80, 0x80, 0x80, 0x20, 3, 2 };
	CHECK_INT(unpack_hand(1, big_seq, sizeof(big_seq)), 1);
	/* a flagged result or latency of 0 is not how the writer packs */
	static const uint8_t zero_res[] = { 3, 10, 0, 3, 2, 0 };
	CHECK_INT(unpack_hand(1, zero_res, sizeof(zero_res)), 1);
	static const uint8_t zero_lat[] = { 5, 10, 0, 3, 2, 0 };
	CHECK_INT(unpack_hand(1, zero_lat, sizeof(zero_lat)), 1);
	/* sizes: nbytes disagreeing with the record, a record longer than given,
	 * another type, dirty padding */
	size_t sz = hand(1, ok1, sizeof(ok1));
	struct rs_rec_trace_packed *p = (void *)buf;
	p->nbytes++;
	CHECK_INT(rsf_trace_unpack((const void *)buf, sz, &out), 1);
	sz = hand(1, ok1, sizeof(ok1));
	CHECK_INT(rsf_trace_unpack((const void *)buf, PFIXED + 2, &out), 1);
	p->hdr.type = RS_REC_TRACE_BATCH;
	CHECK_INT(rsf_trace_unpack((const void *)buf, sz, &out), 1);
	sz = hand(1, ok1, sizeof(ok1));
	buf[PFIXED + sizeof(ok1)] = 1;
	CHECK_INT(rsf_trace_unpack((const void *)buf, sz, &out), 1);
	/* a packed record that unpacks is then a valid batch */
	typical(&b, 9);
	sz = rsf_trace_pack(&b.hdr, buf);
	CHECK_INT(rsf_trace_unpack((const void *)buf, RS_REC_ALIGN(sz), &out), 0);
	CHECK(rsf_trace_batch_valid(&out.hdr, sizeof(out)));
}

/* a batch of the right shape whose entry i is neither an entry nor an
 * exit: not valid, and the writer's pack refuses it (stored as it is) */
static void test_bad_type(void)
{
	static struct rs_rec_trace_batch b;

	for (uint32_t i = 0; i < 12; i += 11) {
		typical(&b, 12);
		b.e[i].type = RS_REC_TRACE_EXIT + 7;
		CHECK(rsf_trace_batch_shape_ok(&b.hdr, b.hdr.size));
		CHECK(!rsf_trace_batch_valid(&b.hdr, b.hdr.size));
		CHECK_INT(rsf_trace_pack(&b.hdr, buf), 0);
	}
	typical(&b, 12);
	CHECK(rsf_trace_pack(&b.hdr, buf) > 0);
	b.n = 13;   /* size and count disagree */
	CHECK(!rsf_trace_batch_shape_ok(&b.hdr, b.hdr.size));
}

int main(void)
{
	RUN(test_round_trip_typical);
	RUN(test_round_trip_extremes);
	RUN(test_malformed);
	RUN(test_bad_type);
	return TEST_REPORT("test_trace_pack");
}
