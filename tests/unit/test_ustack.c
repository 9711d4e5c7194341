/* test_ustack.c - the assembler side of -U user stacks (report/ustack_asm.h
 * through report/session_asm.c): a USTACK reaches its session's END with
 * the process's maps as of the session's end; malformed USTACK and UMAPS
 * records (sizes, flags, path offsets) are counted and never handed on;
 * the pending bound evicts and counts; the maps versions by time. */
#include <stdlib.h>
#include "report/session_asm.h"
#include "report/ustack_asm.h"
#include "testlib.h"

struct got {
	int n;
	bool had_ustack;
	uint32_t stack_len;
	uint64_t maps_ts;
	bool had_maps;
};

static int emit(void *ctx, const struct rp_session *s)
{
	struct got *g = ctx;

	g->n++;
	g->had_ustack = s->ustack != NULL;
	g->stack_len = s->ustack ? s->ustack->stack_len : 0;
	g->had_maps = s->umaps != NULL;
	g->maps_ts = s->umaps ? s->umaps->rec->ts : 0;
	return 0;
}

static void feed_end(struct rp_asm *a, uint64_t sess, uint64_t end_ts)
{
	struct rs_rec_session_end e;

	memset(&e, 0, sizeof(e));
	e.hdr = (struct rs_rec_hdr){ RS_REC_SESSION_END, sizeof(e) };
	e.sess_id = sess;
	e.tid = e.pid = 7;
	e.end_ts = end_ts;
	CHECK_INT(rp_asm_feed(a, &e.hdr), 0);
}

/* a USTACK of sess with len stack bytes; size_adj changes hdr.size */
static uint64_t next_ip;   /* regs' ip of the next USTACK fed */
static uint64_t next_map;  /* start of the next UMAPS' one map (0: 0x1000) */

static void feed_ustack(struct rp_asm *a, uint64_t sess, uint32_t len, int size_adj, uint32_t flags)
{
	size_t size = RS_REC_ALIGN(sizeof(struct rs_rec_ustack) + len);
	struct rs_rec_ustack *u = calloc(1, size);

	u->hdr = (struct rs_rec_hdr){ RS_REC_USTACK, (uint32_t)((int)size + size_adj) };
	u->sess_id = sess;
	u->tid = u->pid = 7;
	u->flags = flags;
	u->stack_len = len;
	u->regs[16] = next_ip;
	CHECK_INT(rp_asm_feed(a, &u->hdr), 0);
	free(u);
}

/* one map "/bin/x" read at ts; path_off as given (0 is right) */
static void feed_umaps(struct rp_asm *a, uint64_t ts, uint32_t path_off, bool terminated)
{
	size_t size = RS_REC_ALIGN(sizeof(struct rs_rec_umaps) + sizeof(struct rs_umap) + 8);
	struct rs_rec_umaps *u = calloc(1, size);
	char *str = (char *)&u->maps[1];

	u->hdr = (struct rs_rec_hdr){ RS_REC_UMAPS, (uint32_t)size };
	u->ts = ts;
	u->pid = 7;
	u->nmaps = 1;
	u->strings_len = 8;
	u->maps[0] = (struct rs_umap){ .start = next_map ? next_map : 0x1000,
				       .end = (next_map ? next_map : 0x1000) + 0x1000, .path_off = path_off };
	memcpy(str, terminated ? "/bin/x\0\0" : "/bin/xyz", 8);
	CHECK_INT(rp_asm_feed(a, &u->hdr), 0);
	free(u);
}

static void test_attach(void)
{
	struct got g = {0};
	struct rp_asm *a = rp_asm_new(false, false, emit, &g);

	feed_umaps(a, 100, 0, true);
	feed_umaps(a, 300, 0, true);
	feed_ustack(a, 7, 64, 0, 0);
	feed_end(a, 7, 200);
	CHECK_INT(g.n, 1);
	CHECK(g.had_ustack);
	CHECK_INT(g.stack_len, 64);
	CHECK(g.had_maps);
	CHECK_INT(g.maps_ts, 100);            /* the newest read before the end */
	feed_ustack(a, 7, 0, 0, 0);
	feed_end(a, 7, 50);                    /* before every read: the oldest */
	CHECK_INT(g.maps_ts, 100);
	feed_ustack(a, 7, 8, 0, 0);
	feed_end(a, 7, 400);
	CHECK_INT(g.maps_ts, 300);
	feed_end(a, 7, 500);                   /* consumed: no USTACK this time */
	CHECK(!g.had_ustack);
	CHECK_INT(rp_asm_stats(a)->bad_records, 0);
	rp_asm_free(a);
}

/* an exec: the maps read after the session (the recorder saw its IP
 * outside the ones it had) are the ones that cover its IP */
static void test_exec(void)
{
	struct got g = {0};
	struct rp_asm *a = rp_asm_new(false, false, emit, &g);

	next_map = 0x1000;
	feed_umaps(a, 100, 0, true);
	next_map = 0x5000;
	feed_umaps(a, 300, 0, true);
	next_ip = 0x5100;
	feed_ustack(a, 7, 8, 0, 0);
	feed_end(a, 7, 200);
	CHECK_INT(g.maps_ts, 300);
	next_ip = 0x1100;
	feed_ustack(a, 7, 8, 0, 0);
	feed_end(a, 7, 400);                   /* the older program's, though later */
	CHECK_INT(g.maps_ts, 100);
	next_ip = 0x9000;                      /* covered by none: by time */
	feed_ustack(a, 7, 8, 0, 0);
	feed_end(a, 7, 200);
	CHECK_INT(g.maps_ts, 100);
	next_ip = next_map = 0;
	rp_asm_free(a);
}

static void test_malformed(void)
{
	struct got g = {0};
	struct rp_asm *a = rp_asm_new(false, false, emit, &g);

	feed_ustack(a, 7, 64, -16, 0);         /* stack_len past hdr.size */
	feed_ustack(a, 7, 8, 0, 0x80);         /* unknown flag */
	feed_ustack(a, 7, 8, 0, RS_USTACKF_NO_USER);   /* a stack with no user part */
	feed_ustack(a, 7, 0, -8 - (int)sizeof(struct rs_rec_ustack) / 2, 0);   /* cut fixed part */
	feed_end(a, 7, 10);
	CHECK(!g.had_ustack);
	CHECK_INT(rp_asm_stats(a)->bad_records, 4);
	feed_umaps(a, 1, 8, true);             /* path_off past the strings */
	feed_umaps(a, 2, 0, false);            /* strings not terminated */
	CHECK_INT(rp_asm_stats(a)->bad_records, 6);
	feed_ustack(a, 7, 0, 0, RS_USTACKF_ERR);
	feed_end(a, 7, 20);
	CHECK(g.had_ustack);
	CHECK(!g.had_maps);                    /* the bad ones were not kept */
	rp_asm_free(a);
}

static void test_pending_bound(void)
{
	struct got g = {0};
	struct rp_asm *a = rp_asm_new(false, false, emit, &g);

	for (uint64_t s = 0; s < US_MAX_PENDING + 5; s++)
		feed_ustack(a, 1000 + s, 8, 0, 0);
	CHECK_INT(rp_asm_stats(a)->records_over_limit, 5);
	feed_end(a, 1000, 1);                  /* evicted */
	CHECK(!g.had_ustack);
	feed_end(a, 1000 + US_MAX_PENDING + 4, 1);
	CHECK(g.had_ustack);
	rp_asm_free(a);
}

int main(void)
{
	RUN(test_attach);
	RUN(test_exec);
	RUN(test_malformed);
	RUN(test_pending_bound);
	return TEST_REPORT("test_ustack");
}
