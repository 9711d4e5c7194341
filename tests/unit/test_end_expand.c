/* test_end_expand.c - unit tests of rsf_end_expand (format/rsf_end.c): a
 * full-layout SESSION_END comes back as it is; a compact one (frames[nframes]
 * then kstack_sz bytes) expands into the same struct as its full twin; the
 * size it reports bounds what the record holds, so cut records are seen. */
#include <stdlib.h>
#include <string.h>
#include "format/rsfile.h"
#include "testlib.h"

#define FIXED offsetof(struct rs_rec_session_end, frames)

static void full_rec(struct rs_rec_session_end *e, unsigned n, unsigned nk)
{
	memset(e, 0, sizeof(*e));
	e->hdr.type = RS_REC_SESSION_END;
	e->hdr.size = sizeof(*e);
	e->sess_id = 77;
	e->tid = e->pid = 42;
	e->start_ts = 1000;
	e->end_ts = 2000;
	memcpy(e->task_comm, "task", 4);
	e->flags = RS_SESS_IS_ERR;
	e->nframes = (uint16_t)n;
	for (unsigned i = 0; i < n; i++) {
		e->frames[i].func_id = i + 1;
		e->frames[i].seq_id = i;
		e->frames[i].res = -2;
		e->frames[i].lat_ns = 10 * i;
	}
	for (unsigned i = 0; i < nk; i++)
		e->kstack[i] = 0xffffffff81000000ull + i;
	e->kstack_sz = (int32_t)(nk * 8);
}

/* the compact twin of E in BUF; its size */
static size_t compact_of(const struct rs_rec_session_end *e, uint8_t *buf)
{
	size_t fb = e->nframes * sizeof(struct rs_frame);
	size_t kb = e->kstack_sz > 0 ? (size_t)e->kstack_sz : 0;

	memcpy(buf, e, FIXED);
	memcpy(buf + FIXED, e->frames, fb);
	memcpy(buf + FIXED + fb, e->kstack, kb);
	((struct rs_rec_hdr *)buf)->size = (uint32_t)(FIXED + fb + kb);
	return FIXED + fb + kb;
}

static void test_full_unchanged(void)
{
	struct rs_rec_session_end e, out;

	full_rec(&e, 64, 96);
	CHECK_INT(rsf_end_expand(&e.hdr, &out), sizeof(e));
	CHECK(!memcmp(&e, &out, sizeof(e)));
}

static void test_compact_equals_full(void)
{
	static const unsigned cases[][2] = { { 1, 0 }, { 5, 12 }, { 13, 40 }, { 63, 96 }, { 64, 95 }, { 0, 3 } };
	uint8_t buf[sizeof(struct rs_rec_session_end)];

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct rs_rec_session_end e, out;
		size_t sz;

		full_rec(&e, cases[c][0], cases[c][1]);
		sz = compact_of(&e, buf);
		CHECK(sz < sizeof(e));
		size_t have = rsf_end_expand((const struct rs_rec_hdr *)buf, &out);
		CHECK_INT(have, cases[c][1] ? offsetof(struct rs_rec_session_end, kstack) + cases[c][1] * 8
					    : FIXED + cases[c][0] * sizeof(struct rs_frame));
		out.hdr.size = e.hdr.size;   /* the one field that differs */
		CHECK(!memcmp(&e, &out, sizeof(e)));
	}
}

static void test_negative_kstack(void)
{
	uint8_t buf[sizeof(struct rs_rec_session_end)];
	struct rs_rec_session_end e, out;

	full_rec(&e, 4, 0);
	e.kstack_sz = -14;   /* -EFAULT: no stack bytes follow */
	CHECK_INT(compact_of(&e, buf), FIXED + 4 * sizeof(struct rs_frame));
	CHECK_INT(rsf_end_expand((const struct rs_rec_hdr *)buf, &out), FIXED + 4 * sizeof(struct rs_frame));
	CHECK_INT(out.kstack_sz, -14);
	CHECK_INT(out.kstack[0], 0);
}

static void test_cut_records(void)
{
	uint8_t buf[sizeof(struct rs_rec_session_end)];
	struct rs_rec_session_end e, out;

	/* nframes says 10, only 2 frames are there: the size tells */
	full_rec(&e, 10, 0);
	compact_of(&e, buf);
	((struct rs_rec_hdr *)buf)->size = (uint32_t)(FIXED + 2 * sizeof(struct rs_frame) + 5);
	size_t have = rsf_end_expand((const struct rs_rec_hdr *)buf, &out);
	CHECK(have < FIXED + 10 * sizeof(struct rs_frame));
	CHECK_INT(out.frames[1].func_id, 2);
	CHECK_INT(out.frames[2].func_id, 0);
	/* shorter than the fixed part: only what is there */
	((struct rs_rec_hdr *)buf)->size = 40;
	CHECK_INT(rsf_end_expand((const struct rs_rec_hdr *)buf, &out), 40);
	CHECK_INT(out.nframes, 0);
	CHECK_INT(out.sess_id, 77);
}

int main(void)
{
	RUN(test_full_unchanged);
	RUN(test_compact_equals_full);
	RUN(test_negative_kstack);
	RUN(test_cut_records);
	return TEST_REPORT("test_end_expand");
}
