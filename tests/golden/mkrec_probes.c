/* mkrec_probes.c - writes the synthetic recordings of the injected-probe
 * (-J) golden tests: `mkrec_probes OUTDIR`. probes.rsrec: a failing
 * openat traced with -T whose probe hits (every kind, one of an id the
 * probe table lacks, one after a lost record, one malformed) sit between
 * its calls, plus an interim snapshot cut before the last hits;
 * probes-noblob.rsrec: the same records without the "probes" blob;
 * probes-ctx.rsrec: hits recorded with -A, their contexts typed by a
 * "btf" blob built here (pt_regs, a raw tracepoint's prototype, a trace
 * event record with a __data_loc string), one cut short, one whose read
 * failed, one of a probe without a type. */
#include <bpf/btf.h>
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

/* ------------------------------------------------------------ -A contexts */
struct ctx_ids {
	int regs, rawtp, tp;
};

static void *ctx_btf(struct ctx_ids *ids, uint32_t *size)
{
	struct btf *b = btf__new_empty();
	int u64, i32, u16, u8, u32, chr, vp, cvp, ent, dat;
	const void *raw;
	void *copy;

	u64 = btf__add_int(b, "long unsigned int", 8, 0);
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	u16 = btf__add_int(b, "short unsigned int", 2, 0);
	u8 = btf__add_int(b, "unsigned char", 1, 0);
	u32 = btf__add_int(b, "unsigned int", 4, 0);
	chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED | BTF_INT_CHAR);
	vp = btf__add_ptr(b, 0);
	cvp = btf__add_ptr(b, btf__add_const(b, 0));
	ids->regs = btf__add_struct(b, "pt_regs", 24);
	btf__add_field(b, "di", u64, 0, 0);
	btf__add_field(b, "si", u64, 64, 0);
	btf__add_field(b, "ip", u64, 128, 0);
	ids->rawtp = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "__data", vp);
	btf__add_func_param(b, "call_site", u64);
	btf__add_func_param(b, "ptr", cvp);
	btf__add_func_param(b, "node", i32);
	ent = btf__add_struct(b, "trace_entry", 8);
	btf__add_field(b, "type", u16, 0, 0);
	btf__add_field(b, "flags", u8, 16, 0);
	btf__add_field(b, "preempt_count", u8, 24, 0);
	btf__add_field(b, "pid", i32, 32, 0);
	dat = btf__add_array(b, u32, chr, 0);
	ids->tp = btf__add_struct(b, "trace_event_raw_kmem_cache_free", 32);
	btf__add_field(b, "ent", ent, 0, 0);
	btf__add_field(b, "call_site", u64, 64, 0);
	btf__add_field(b, "ptr", cvp, 128, 0);
	btf__add_field(b, "__data_loc_name", u32, 192, 0);
	btf__add_field(b, "__data", dat, 224, 0);
	raw = btf__raw_data(b, size);
	copy = raw ? malloc(*size) : NULL;
	if (!copy) {
		fprintf(stderr, "mkrec_probes: building the BTF failed\n");
		exit(1);
	}
	memcpy(copy, raw, *size);
	btf__free(b);
	return copy;
}

static void ctx_probe(struct rsf_writer *w, uint32_t seq, uint32_t id, unsigned depth,
		      const void *ctx, int len, uint16_t flags)
{
	struct { struct rs_rec_probe p; uint8_t data[64]; } r;

	memset(&r, 0, sizeof(r));
	r.p.hdr.type = RS_REC_PROBE;
	r.p.hdr.size = RS_REC_ALIGN((uint32_t)sizeof(r.p) + (len > 0 ? (uint32_t)len : 0));
	r.p.sess_id = 78;
	r.p.ts = T0 + 1000 * seq;
	r.p.seq_id = seq;
	r.p.probe_id = id;
	r.p.depth = (uint16_t)depth;
	r.p.flags = flags;
	r.p.ctx_len = len;
	if (len > 0)
		memcpy(r.data, ctx, (size_t)len);
	rb_add(w, &r, r.p.hdr.size);
}

static void ctx_session(struct rsf_writer *w)
{
	const uint64_t regs[3] = { 42, 0, 0xffffffff81234567ULL };
	const uint64_t rawtp[3] = { 0xffffffff8145c0c0ULL, 0xffff888012345678ULL, (uint64_t)-1 };
	uint8_t tp[48] = { 0 };
	uint32_t dl = 28 | (12u << 16);
	uint16_t type = 624;
	int32_t pid = 78;
	uint64_t cs = 0xffffffff8145c0c0ULL, ptr = 0xffff888012345000ULL;

	memcpy(tp, &type, 2);
	memcpy(tp + 4, &pid, 4);
	memcpy(tp + 8, &cs, 8);
	memcpy(tp + 16, &ptr, 8);
	memcpy(tp + 24, &dl, 4);
	memcpy(tp + 28, "names_cache", 12);
	rb_start(w, 78, 78, 78, "simfail", "simfail", T0);
	rb_trace(w, 78, false, T0 + 100, 0, F_OPENAT, 1, 0, 0);
	ctx_probe(w, 1, 0, 1, regs, sizeof(regs), RS_PROBEF_CTX);
	ctx_probe(w, 2, 1, 1, rawtp, sizeof(rawtp), RS_PROBEF_CTX);
	ctx_probe(w, 3, 2, 1, tp, 40, RS_PROBEF_CTX);
	ctx_probe(w, 4, 2, 1, tp, 32, RS_PROBEF_CTX | RS_PROBEF_TRUNC);   /* the string cut */
	ctx_probe(w, 5, 0, 1, NULL, -14, RS_PROBEF_CTX_ERR);                /* -EFAULT */
	ctx_probe(w, 6, 3, 1, regs, 16, RS_PROBEF_CTX);                     /* no type */
	rb_trace(w, 78, true, T0 + 9000, 7, F_OPENAT, 1, ERR(2), 8900);
	rb_begin(78, 78, 78, "simfail", "simfail", T0, T0 + 9000, RS_SESS_IS_ERR);
	rb_frame(F_OPENAT, ERR(2), 8900);
	rb_e.last_seq_id = 7;
	rb_emit(w);
}

static void write_ctx_rec(const char *path)
{
	struct ctx_ids ids;
	uint32_t bsize;
	void *btf = ctx_btf(&ids, &bsize);
	struct rsf_probe probes[] = {
		{ RSF_PROBE_KPROBE, (uint32_t)ids.regs, 24, "kprobe:walk_component", "kprobe:walk_component+0x0" },
		{ RSF_PROBE_RAWTP, (uint32_t)ids.rawtp, 24, "rawtp:kmem_cache_alloc", "rawtp:kmem_cache_alloc" },
		{ RSF_PROBE_TP, (uint32_t)ids.tp, 28, "tp:kmem:kmem_cache_free", "tp:kmem:kmem_cache_free" },
		{ RSF_PROBE_KRETPROBE, 0, 168, "kretprobe:getname", "kretprobe:getname" },
	};
	struct rsf_func fn = { .name = "__x64_sys_openat", .addr = TEXT_BASE + 0x1000,
			       .flags = RS_FUNC_IS_ENTRY };
	struct rsf_ksym ks[2] = {
		{ .addr = TEXT_BASE, .name = "_stext", .type = 'T' },
		{ .addr = TEXT_BASE + 0x1000, .name = "__x64_sys_openat", .type = 'T' },
	};
	struct rsf_blob b[2] = { { "btf", btf, bsize }, { "probes", NULL, 0 } };
	struct rsf_stats st;
	struct rsf_meta m;
	struct rsf_writer *w;
	char err[256];

	rb_meta(&m, "retsnoop-record -T -A -J ... -o probes-ctx.rsrec", "6.12.0-golden", NULL,
		"golden", TEXT_BASE, MONO_TO_REAL, "kprobe-multi", 0, RSF_MODE_TRACE);
	if (rsf_probes_encode(probes, 4, (void **)&b[1].data, &b[1].size)) {
		fprintf(stderr, "mkrec_probes: out of memory\n");
		exit(1);
	}
	w = rsf_writer_open_blobs(path, &m, ks, 2, NULL, 0, &fn, 1, b, 2, err, sizeof(err));
	free((void *)b[1].data);
	free(btf);
	if (!w) {
		fprintf(stderr, "mkrec_probes: %s\n", err);
		exit(1);
	}
	ctx_session(w);
	memset(&st, 0, sizeof(st));
	st.bpf.sessions_emitted = 1;
	rb_close(w, &st);
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
	snprintf(path, sizeof(path), "%s/probes-ctx.rsrec", argv[1]);
	write_ctx_rec(path);
	return 0;
}
