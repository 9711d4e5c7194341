/* writer_feed.c - benchmark helper for bench/writer_profile.sh: feeds the
 * file writer (format/) N synthetic failing openat() sessions shaped like
 * bench/record_overhead.sh's (13 traced calls, an 18-entry kernel stack),
 * as the recorder's consumer hands them over: with -T, SESSION_START, one
 * TRACE_BATCH of 26 entries and SESSION_END; without, SESSION_END alone.
 * Usage: writer_feed OUT.rsr N [T] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/rsfile.h"
#include "tests/golden/reclib.h"

#define CALLS 13
#define KFRAMES 18

static void put_start(struct rsf_writer *w, uint64_t sess, uint64_t ts)
{
	struct rs_rec_session_start st;

	memset(&st, 0, sizeof(st));
	st.hdr.type = RS_REC_SESSION_START;
	st.hdr.size = sizeof(st);
	st.sess_id = sess;
	st.tid = st.pid = 4242;
	st.start_ts = ts;
	strcpy(st.task_comm, "bench_tool");
	strcpy(st.proc_comm, "bench_tool");
	rb_add(w, &st, sizeof(st));
}

/* the calls' entries then their exits, each failing, latencies growing
 * outwards, a few hundred ns apart (pseudo-random, fixed seed) */
static uint64_t put_batch(struct rsf_writer *w, uint64_t sess, uint64_t ts)
{
	static struct rs_rec_trace_batch b;

	memset(&b, 0, sizeof(b));
	b.hdr.type = RS_REC_TRACE_BATCH;
	b.sess_id = sess;
	b.n = 2 * CALLS;
	b.hdr.size = (uint32_t)(offsetof(struct rs_rec_trace_batch, e) + b.n * sizeof(b.e[0]));
	for (uint32_t i = 0; i < b.n; i++) {
		struct rs_trace_ent *e = &b.e[i];
		int ex = i >= CALLS;

		ts += 300 + (uint64_t)(rand() % 500);
		e->type = ex ? RS_REC_TRACE_EXIT : RS_REC_TRACE_ENTRY;
		e->ts = ts;
		e->seq_id = i;
		e->func_id = 1 + (ex ? 2 * CALLS - 1 - i : i);
		e->depth = (uint16_t)(ex ? 2 * CALLS - i : i + 1);
		e->res = ex ? -2 : 0;
		e->lat_ns = ex ? 1000 + (i - CALLS) * 700 + (uint64_t)(rand() % 100) : 0;
	}
	rb_add(w, &b, b.hdr.size);
	return ts;
}

int main(int argc, char **argv)
{
	static struct rsf_func fn[CALLS + 1];
	static char names[CALLS + 1][16];
	struct rsf_meta m;
	struct rsf_writer *w;
	uint64_t ts = 1000000000;
	long n;
	int trace;

	if (argc < 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: writer_feed OUT.rsr N [T]\n");
		return 2;
	}
	trace = argc > 3 && !strcmp(argv[3], "T");
	setenv("RB_COMPACT", "1", 1);   /* SESSION_END as the BPF side sends it */
	srand(1);
	for (int i = 0; i <= CALLS; i++) {
		snprintf(names[i], sizeof(names[i]), "func_%d", i);
		fn[i].name = names[i];
		fn[i].addr = 0xffffffff81000000ULL + (uint64_t)i * 0x400;
	}
	rb_meta(&m, "writer_feed", "6.12.0", NULL, "bench", 0xffffffff81000000ULL, 0,
		"kprobe-multi", 0, 0);
	w = rb_open(argv[1], &m, NULL, 0, NULL, 0, fn, CALLS + 1);
	for (long s = 0; s < n; s++) {
		uint64_t sess = 1000 + (uint64_t)s, start = ts;

		if (trace) {
			put_start(w, sess, ts);
			ts = put_batch(w, sess, ts);
		} else {
			ts += 13 * 600;
		}
		rb_begin(sess, 4242, 4242, "bench_tool", "bench_tool", start, ts,
			 RS_SESS_IS_ERR);
		for (int i = 0; i < CALLS; i++)
			rb_frame(1 + i, -2, 1000 + (uint64_t)(CALLS - i) * 700);
		for (int k = 0; k < KFRAMES; k++)
			rb_kframe(0xffffffff81000000ULL + (uint64_t)k * 0x1234);
		rb_emit(w);
		ts += 5000;
	}
	rb_close(w, NULL);
	return 0;
}
