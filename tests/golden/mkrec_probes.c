/* mkrec_probes.c - writes the synthetic recordings of the injected-probe
 * (-J) golden tests: `mkrec_probes OUTDIR`. probes.rsrec: a failing
 * openat traced with -T whose probe hits (every kind, one of an id the
 * probe table lacks, one after a lost record, one malformed) sit between
 * its calls, plus an interim snapshot cut before the last hits;
 * probes-noblob.rsrec: the same records without the "probes" blob. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/probe_table.h"
#include "format/rsfile.h"
#include "reclib.h"

#define TEXT_BASE 0xffffffff81000000ULL
#define MONO_TO_REAL 1700000000000000000LL
#define T0 5000000000ULL

enum { F_OPENAT, F_FILP, F_PATH };

static void probe(struct rsf_writer *w, uint64_t sess, uint64_t ts, uint32_t seq, uint32_t id,
		  unsigned depth)
{
	struct rs_rec_probe p;

	memset(&p, 0, sizeof(p));
	p.hdr.type = RS_REC_PROBE;
	p.hdr.size = sizeof(p);
	p.sess_id = sess;
	p.ts = ts;
	p.seq_id = seq;
	p.probe_id = id;
	p.depth = (uint16_t)depth;
	rb_add(w, &p, sizeof(p));
}

/* a context longer than its record says it holds: malformed */
static void bad_probe(struct rsf_writer *w, uint64_t sess, uint32_t seq)
{
	struct { struct rs_rec_probe p; uint8_t data[8]; } r;

	memset(&r, 0, sizeof(r));
	r.p.hdr.type = RS_REC_PROBE;
	r.p.hdr.size = sizeof(r);
	r.p.sess_id = sess;
	r.p.seq_id = seq;
	r.p.flags = RS_PROBEF_CTX;
	r.p.ctx_len = 4096;
	rb_add(w, &r, sizeof(r));
}

static void session(struct rsf_writer *w)
{
	const uint64_t S = 77;

	rb_start(w, S, 77, 77, "simfail", "simfail", T0);
	rb_trace(w, S, false, T0 + 1000, 0, F_OPENAT, 1, 0, 0);
	rb_trace(w, S, false, T0 + 2000, 1, F_FILP, 2, 0, 0);
	rb_trace(w, S, false, T0 + 3000, 2, F_PATH, 3, 0, 0);
	probe(w, S, T0 + 4000, 3, 0, 3);              /* kprobe:walk_component */
	probe(w, S, T0 + 5000, 4, 1, 3);              /* kretprobe:alloc_empty_file */
	/* interim snapshot (-I) at seq 4: the rows after it are not its own */
	rb_begin(S, 77, 77, "simfail", "simfail", T0, T0 + 5000, RS_SESS_INTERIM);
	rb_frame(F_OPENAT, 0, T0 + 1000);
	rb_frame(F_FILP, 0, T0 + 2000);
	rb_frame(F_PATH, 0, T0 + 3000);
	rb_e.depth = 3;
	rb_e.last_seq_id = 4;
	rb_emit(w);
	rb_trace(w, S, true, T0 + 9000, 5, F_PATH, 3, ERR(2), 6000);
	rb_trace(w, S, true, T0 + 9500, 6, F_FILP, 2, ERR(2), 7500);
	probe(w, S, T0 + 9600, 7, 3, 1);              /* tp:kmem:kmem_cache_free */
	/* seq 8 lost */
	probe(w, S, T0 + 9700, 9, 2, 1);              /* rawtp:kmem_cache_alloc */
	probe(w, S, T0 + 9800, 10, 9, 1);             /* no such probe id */
	bad_probe(w, S, 11);
	rb_trace(w, S, true, T0 + 10000, 11, F_OPENAT, 1, ERR(2), 9000);
	rb_begin(S, 77, 77, "simfail", "simfail", T0, T0 + 10000, RS_SESS_IS_ERR);
	rb_frame(F_OPENAT, ERR(2), 9000);
	rb_frame(F_FILP, ERR(2), 7500);
	rb_frame(F_PATH, ERR(2), 6000);
	rb_e.last_seq_id = 11;
	rb_e.dropped_records = 1;
	rb_emit(w);
}

static void write_rec(const char *path, bool blob)
{
	static const struct rsf_probe probes[] = {
		{ RSF_PROBE_KPROBE, 0, 168, "kprobe:walk_component", "kprobe:walk_component+0x0" },
		{ RSF_PROBE_KRETPROBE, 0, 168, "kretprobe:alloc_empty_file", "kretprobe:alloc_empty_file" },
		{ RSF_PROBE_RAWTP, 0, 24, "rawtp:kmem_cache_alloc", "rawtp:kmem_cache_alloc" },
		{ RSF_PROBE_TP, 0, 28, "tp:kmem:kmem_cache_*", "tp:kmem:kmem_cache_free" },
	};
	static const char *const names[] = { "__x64_sys_openat", "do_filp_open", "path_openat" };
	struct rsf_func fn[3];
	struct rsf_ksym ks[4];
	struct rsf_meta m;
	struct rsf_blob b = { "probes", NULL, 0 };
	struct rsf_writer *w;
	char err[256];

	memset(fn, 0, sizeof(fn));
	memset(ks, 0, sizeof(ks));
	ks[0] = (struct rsf_ksym){ .addr = TEXT_BASE, .name = "_stext", .type = 'T' };
	for (int i = 0; i < 3; i++) {
		fn[i].name = names[i];
		fn[i].addr = TEXT_BASE + 0x1000 * (i + 1);
		fn[i].flags = i == F_OPENAT ? RS_FUNC_IS_ENTRY : i == F_FILP ? RS_FUNC_RET_PTR :
			      RS_FUNC_RET_PTR;
		ks[i + 1] = (struct rsf_ksym){ .addr = fn[i].addr, .name = names[i], .type = 'T' };
	}
	rb_meta(&m, "retsnoop-record -T -J ... -o probes.rsrec", "6.12.0-golden", NULL, "golden",
		TEXT_BASE, MONO_TO_REAL, "kprobe-multi", 0, RSF_MODE_TRACE | RSF_MODE_INTERIM);
	if (blob && rsf_probes_encode(probes, 4, (void **)&b.data, &b.size)) {
		fprintf(stderr, "mkrec_probes: out of memory\n");
		exit(1);
	}
	w = rsf_writer_open_blobs(path, &m, ks, 4, NULL, 0, fn, 3, &b, blob ? 1 : 0, err,
				  sizeof(err));
	free((void *)b.data);
	if (!w) {
		fprintf(stderr, "mkrec_probes: %s\n", err);
		exit(1);
	}
	session(w);
	{
		struct rsf_stats st;

		memset(&st, 0, sizeof(st));
		st.bpf.sessions_emitted = 2;
		st.bpf.sessions_incomplete = 1;
		st.bpf.records_dropped = 1;
		rb_close(w, &st);
	}
}

int main(int argc, char **argv)
{
	char path[4096];

	rb_prog = "mkrec_probes";
	if (argc != 2) {
		fprintf(stderr, "usage: mkrec_probes OUTDIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/probes.rsrec", argv[1]);
	write_rec(path, true);
	snprintf(path, sizeof(path), "%s/probes-noblob.rsrec", argv[1]);
	write_rec(path, false);
	return 0;
}
