/* test_args_store.c - unit tests of report/args_store.c and its use by
 * the session assembler: FUNC_ARGS validation (hdr.size, data_len, nargs,
 * each argument inside data[]), malformed records counted and never kept,
 * records kept without a START, handed on with the END in seq_id order
 * and found by seq_id and function, freed with the session. */
#include <stdlib.h>
#include "bpf/retsnoop_abi.h"
#include "report/args_store.h"
#include "report/session_asm.h"
#include "testlib.h"

struct rec {
	struct rs_rec_func_args r;
	uint8_t data[64];
};

static void mk(struct rec *x, uint64_t sess, uint32_t seq, uint32_t func_id)
{
	memset(x, 0, sizeof(*x));
	x->r.hdr.type = RS_REC_FUNC_ARGS;
	x->r.sess_id = sess;
	x->r.seq_id = seq;
	x->r.func_id = func_id;
	x->r.nargs = 2;
	x->r.args[0] = (struct rs_arg_desc){ .kind = RS_ARG_VALUE, .len = 4, .off = 0 };
	x->r.args[1] = (struct rs_arg_desc){ .kind = RS_ARG_STR, .len = 5, .off = 8 };
	memcpy(x->data + 8, "hello", 5);
	x->r.data_len = 16;
	x->r.hdr.size = sizeof(x->r) + 16;
}

static void test_check(void)
{
	struct rec x;

	mk(&x, 1, 0, 0);
	CHECK(args_rec_check(&x.r.hdr) == 0);
	x.r.hdr.size = sizeof(x.r) - 1;            /* cut fixed part */
	CHECK(args_rec_check(&x.r.hdr) == -1);
	mk(&x, 1, 0, 0);
	x.r.hdr.size = sizeof(x.r) + 8;            /* data_len past the record */
	CHECK(args_rec_check(&x.r.hdr) == -1);
	mk(&x, 1, 0, 0);
	x.r.nargs = RS_MAX_FUNC_ARGS + 1;
	CHECK(args_rec_check(&x.r.hdr) == -1);
	mk(&x, 1, 0, 0);
	x.r.args[1].off = 12;                      /* 12 + 5 > 16 */
	CHECK(args_rec_check(&x.r.hdr) == -1);
	mk(&x, 1, 0, 0);
	x.r.args[1].len = 0xffff;
	CHECK(args_rec_check(&x.r.hdr) == -1);
	mk(&x, 1, 0, 0);
	x.r.nargs = 0;
	x.r.data_len = 0;
	x.r.hdr.size = sizeof(x.r);
	CHECK(args_rec_check(&x.r.hdr) == 0);
	CHECK_INT(args_rec_bytes(&x.r.hdr), sizeof(x.r));
}

static const struct rp_session *got;
static size_t got_nargs;
static uint32_t got_seq[4];
static const struct rs_rec_func_args *found;

static int emit(void *ctx, const struct rp_session *s)
{
	(void)ctx;
	got = s;
	got_nargs = s->nargs;
	for (size_t i = 0; i < s->nargs && i < 4; i++)
		got_seq[i] = s->args[i]->seq_id;
	if (!s->nargs)
		return 0;
	found = args_find(s->args, s->nargs, 2, 7);
	if (found)
		CHECK_INT(found->func_id, 7);
	CHECK(args_find(s->args, s->nargs, 2, 8) == NULL);
	CHECK(args_find(s->args, s->nargs, 1, UINT32_MAX) != NULL);
	CHECK(args_find(s->args, s->nargs, 9, UINT32_MAX) == NULL);
	return 0;
}

static void end_rec(struct rs_rec_session_end *e, uint64_t sess)
{
	memset(e, 0, sizeof(*e));
	e->hdr.type = RS_REC_SESSION_END;
	e->hdr.size = sizeof(*e);
	e->sess_id = sess;
	e->nframes = 1;
}

static void test_assembler(void)
{
	struct rp_asm *a = rp_asm_new(false, false, emit, NULL);
	struct rs_rec_session_end e;
	struct rec x;

	/* out of order, no START; one malformed */
	mk(&x, 5, 2, 7);
	CHECK(rp_asm_feed(a, &x.r.hdr) == 0);
	mk(&x, 5, 1, 3);
	CHECK(rp_asm_feed(a, &x.r.hdr) == 0);
	mk(&x, 5, 3, 3);
	x.r.args[0].off = 60;
	CHECK(rp_asm_feed(a, &x.r.hdr) == 0);
	CHECK_INT(rp_asm_stats(a)->bad_records, 1);
	end_rec(&e, 5);
	CHECK(rp_asm_feed(a, &e.hdr) == 0);
	CHECK(got != NULL);
	CHECK_INT(got_nargs, 2);
	CHECK_INT(got_seq[0], 1);
	CHECK_INT(got_seq[1], 2);
	CHECK(found != NULL);
	/* the final END freed them: a new session starts empty */
	got = NULL;
	end_rec(&e, 5);
	CHECK(rp_asm_feed(a, &e.hdr) == 0);
	CHECK(got != NULL && got_nargs == 0);
	rp_asm_free(a);
}

int main(void)
{
	RUN(test_check);
	RUN(test_assembler);
	return TEST_REPORT("test_args_store");
}
