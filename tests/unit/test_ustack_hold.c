/* test_ustack_hold.c - record/ustack_hold.c: a USTACK is written right
 * before its kept session's END, dropped with a filtered one, replaced when
 * its END never came, and the oldest is written when every slot waits. */
#include "testlib.h"
#include "record/ustack_hold.h"
#include <stdlib.h>

static uint64_t written[256];
static int nwritten;

static int collect(void *ctx, const struct rs_rec_hdr *rec, uint32_t size)
{
	const struct rs_rec_ustack *u = (const void *)rec;

	(void)ctx;
	CHECK(size == sizeof(*u) + 8 && rec->type == RS_REC_USTACK);
	if (nwritten < 256)
		written[nwritten++] = u->sess_id * 1000 + u->stack[0];
	return 0;
}

static int put(struct ustack_hold *h, uint64_t sess, uint8_t tag)
{
	struct { struct rs_rec_ustack u; uint8_t b[8]; } r = {};

	r.u.hdr.type = RS_REC_USTACK;
	r.u.hdr.size = sizeof(r);
	r.u.sess_id = sess;
	r.u.stack_len = 8;
	r.u.stack[0] = tag;
	return ustack_hold_put(h, &r.u.hdr, sizeof(r), collect, NULL);
}

static void test_keep_drop(void)
{
	struct ustack_hold *h = ustack_hold_new();

	nwritten = 0;
	CHECK_INT(put(h, 1, 1), 0);
	CHECK_INT(put(h, 2, 1), 0);
	CHECK_INT(nwritten, 0);
	CHECK_INT(ustack_hold_end(h, 2, false, collect, NULL), 0);   /* filtered */
	CHECK_INT(ustack_hold_end(h, 1, true, collect, NULL), 0);
	CHECK_INT(nwritten, 1);
	CHECK_INT(written[0], 1001);
	CHECK_INT(ustack_hold_end(h, 3, true, collect, NULL), 0);    /* none waits */
	CHECK_INT(nwritten, 1);
	/* the END of session 4 was lost: its next stack replaces the old one */
	CHECK_INT(put(h, 4, 1), 0);
	CHECK_INT(put(h, 4, 2), 0);
	CHECK_INT(ustack_hold_end(h, 4, true, collect, NULL), 0);
	CHECK_INT(nwritten, 2);
	CHECK_INT(written[1], 4002);
	CHECK_INT(ustack_hold_dropped(h), 2);
	ustack_hold_free(h);
}

static void test_full(void)
{
	struct ustack_hold *h = ustack_hold_new();

	nwritten = 0;
	for (uint64_t s = 1; s <= 65; s++)
		CHECK_INT(put(h, s, 7), 0);
	CHECK_INT(nwritten, 1);          /* the oldest went out to make room */
	CHECK_INT(written[0], 1007);
	CHECK_INT(ustack_hold_end(h, 65, true, collect, NULL), 0);
	CHECK_INT(written[1], 65007);
	CHECK_INT(ustack_hold_dropped(h), 63);   /* left waiting */
	ustack_hold_free(h);
}

int main(void)
{
	RUN(test_keep_drop);
	RUN(test_full);
	return TEST_REPORT("test_ustack_hold");
}
