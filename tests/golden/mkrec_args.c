/* mkrec_args.c - writes the synthetic recordings of the argument (-A)
 * rendering golden tests: `mkrec_args OUTDIR`. args.rsrec carries a BTF
 * blob built here with btf__add_* (prototypes of the traced functions
 * and the types they reach) and the func_btf table, like a -A recording,
 * and FUNC_ARGS records: structs by pointer, strings, NULL, a read fault,
 * a stack argument fentry could not read, a budget cut, varargs, a
 * function without BTF (raw registers), a malformed record. args-nobtf
 * has the same records without the blobs; args-badbtf a broken blob.
 * `mkrec_args OUTDIR NSESS` writes args-many.rsrec instead: NSESS sessions
 * like those (malformed record left out), and args-many-bare.rsrec, the
 * same sessions without FUNC_ARGS records or blobs (bench/args_render.sh).
 * `mkrec_args OUTDIR seeds` writes the seeds of tests/fuzz/fuzz_args.c:
 * the BTF blob, the func_btf table and one FUNC_ARGS record per file. */
#include <bpf/btf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "format/rsfile.h"
#include "reclib.h"

#define TEXT_BASE 0xffffffff81000000ULL
#define MONO_TO_REAL 1700000000000000000LL

/* traced functions: id = index */
static const struct { const char *name; uint32_t flags; } traced[] = {
	{"__x64_sys_openat", RS_FUNC_IS_ENTRY},        /* 0 long (struct pt_regs *regs) */
	{"do_sys_openat2", 0},                         /* 1 long (int, const char *, struct open_how *) */
	{"do_filp_open", RS_FUNC_RET_PTR},             /* 2 struct file *(int, struct filename *, const struct open_flags *) */
	{"path_openat", RS_FUNC_RET_PTR},              /* 3 no BTF: raw registers */
	{"dev_printk_emit", RS_FUNC_NEEDS_SIGN_EXT},   /* 4 int (int level, const struct device *, const char *fmt, ...) */
	{"many_args", RS_FUNC_NEEDS_SIGN_EXT},         /* 5 int (long a1 .. long a8) */
};
#define NTRACED (sizeof(traced) / sizeof(traced[0]))
enum { F_SYS, F_OPENAT2, F_FILP, F_PATH, F_PRINTK, F_MANY };

static const char *ksyms[] = {
	"_stext", "entry_SYSCALL_64_after_hwframe", "do_syscall_64", "__x64_sys_openat",
	"do_sys_openat2", "do_filp_open", "path_openat", "dev_printk_emit", "many_args", "last_fn",
};
#define NKS (sizeof(ksyms) / sizeof(ksyms[0]))

static uint64_t FA(const char *name, uint64_t off)
{
	for (size_t i = 0; i < NKS; i++)
		if (!strcmp(ksyms[i], name))
			return TEXT_BASE + 0x100000 + i * 0x1000 + off;
	fprintf(stderr, "mkrec_args: no symbol %s\n", name);
	exit(1);
}

/* ------------------------------------------------------------------ BTF */
static uint32_t protos[NTRACED];
_Static_assert(NTRACED == 6, "write_seed writes 6 prototype ids");

static void add_btf_types(struct btf *b)
{
	int i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	int u16 = btf__add_int(b, "short unsigned int", 2, 0);
	int i64 = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	int u64 = btf__add_int(b, "long long unsigned int", 8, 0);
	int chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED | BTF_INT_CHAR);
	int cstr = btf__add_ptr(b, btf__add_const(b, chr));
	int umode = btf__add_typedef(b, "umode_t", u16);
	int how, filename, oflags, regs, dev, fwd_file, p_regs, p_how, p_file, p_fname, p_of, p_dev;

	int iname = btf__add_array(b, i32, chr, 4);

	how = btf__add_struct(b, "open_how", 24);
	btf__add_field(b, "flags", u64, 0, 0);
	btf__add_field(b, "mode", u64, 64, 0);
	btf__add_field(b, "resolve", u64, 128, 0);
	filename = btf__add_struct(b, "filename", 24);
	btf__add_field(b, "name", cstr, 0, 0);
	btf__add_field(b, "uptr", cstr, 64, 0);
	btf__add_field(b, "refcnt", i32, 128, 0);
	btf__add_field(b, "iname", iname, 160, 0);
	oflags = btf__add_struct(b, "open_flags", 20);
	btf__add_field(b, "open_flag", i32, 0, 0);
	btf__add_field(b, "mode", umode, 32, 0);
	btf__add_field(b, "acc_mode", i32, 64, 0);
	btf__add_field(b, "intent", i32, 96, 0);
	btf__add_field(b, "lookup_flags", i32, 128, 0);
	regs = btf__add_struct(b, "pt_regs", 16);
	btf__add_field(b, "di", u64, 0, 0);
	btf__add_field(b, "si", u64, 64, 0);
	dev = btf__add_fwd(b, "device", BTF_FWD_STRUCT);
	fwd_file = btf__add_fwd(b, "file", BTF_FWD_STRUCT);
	/* parameters' types first: a FUNC_PROTO takes its params right after it */
	p_regs = btf__add_ptr(b, btf__add_const(b, regs));
	p_how = btf__add_ptr(b, how);
	p_file = btf__add_ptr(b, fwd_file);
	p_fname = btf__add_ptr(b, filename);
	p_of = btf__add_ptr(b, btf__add_const(b, oflags));
	p_dev = btf__add_ptr(b, btf__add_const(b, dev));

	protos[F_SYS] = (uint32_t)btf__add_func_proto(b, i64);
	btf__add_func_param(b, "regs", p_regs);
	protos[F_OPENAT2] = (uint32_t)btf__add_func_proto(b, i64);
	btf__add_func_param(b, "dfd", i32);
	btf__add_func_param(b, "filename", cstr);
	btf__add_func_param(b, "how", p_how);
	protos[F_FILP] = (uint32_t)btf__add_func_proto(b, p_file);
	btf__add_func_param(b, "dfd", i32);
	btf__add_func_param(b, "pathname", p_fname);
	btf__add_func_param(b, "op", p_of);
	protos[F_PRINTK] = (uint32_t)btf__add_func_proto(b, i32);
	btf__add_func_param(b, "level", i32);
	btf__add_func_param(b, "dev", p_dev);
	btf__add_func_param(b, "fmt", cstr);
	btf__add_func_param(b, NULL, 0);
	protos[F_MANY] = (uint32_t)btf__add_func_proto(b, i32);
	for (int k = 1; k <= 8; k++) {
		char n[8];

		snprintf(n, sizeof(n), "a%d", k);
		btf__add_func_param(b, n, i64);
	}
}

/* ------------------------------------------------------------ records */
struct argrec {
	struct rs_rec_func_args r;
	uint8_t data[512];
};

static struct argrec A;
static bool with_args = true;      /* write FUNC_ARGS records */
static bool malformed = true;      /* and the malformed one */
static uint64_t sess_off, ts_off;  /* per repeated session pair */
static const char *seed_dir;       /* fuzz seeds: each record to a file */
static const void *seed_btf;
static uint32_t seed_btf_len;

/* u32 btf_len, u32 nfuncs, the BTF, the func_btf table, the record */
static void write_seed(const void *rec, size_t len)
{
	static int n;
	uint32_t hdr[2] = { seed_btf_len, 6 };
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/args-seed%d", seed_dir, n++);
	f = fopen(path, "wb");
	if (!f || fwrite(hdr, sizeof(hdr), 1, f) != 1 ||
	    fwrite(seed_btf, 1, seed_btf_len, f) != seed_btf_len ||
	    fwrite(protos, 4, 6, f) != 6 || fwrite(rec, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "mkrec_args: cannot write %s\n", path);
		exit(1);
	}
}

static void a_begin(uint64_t sess, uint32_t seq, uint32_t func_id)
{
	memset(&A, 0, sizeof(A));
	A.r.hdr.type = RS_REC_FUNC_ARGS;
	A.r.sess_id = sess;
	A.r.seq_id = seq;
	A.r.func_id = func_id;
}

static void a_add(uint8_t kind, uint8_t flags, int16_t err, const void *p, size_t len)
{
	struct rs_arg_desc *d = &A.r.args[A.r.nargs++];

	d->kind = kind;
	d->flags = flags;
	d->err = err;
	d->len = (uint16_t)len;
	d->off = A.r.data_len;
	if (len)
		memcpy(A.data + d->off, p, len);
	A.r.data_len = (uint16_t)RS_REC_ALIGN(d->off + len);
}

static void a_emit(struct rsf_writer *w)
{
	if (!with_args)
		return;
	A.r.hdr.size = (uint32_t)(sizeof(A.r) + A.r.data_len);
	if (seed_dir)
		write_seed(&A, A.r.hdr.size);
	rb_add(w, &A, A.r.hdr.size);
}

static void u64s(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* an openat that fails in do_filp_open: -T records and arguments */
static void session_openat(struct rsf_writer *w)
{
	uint64_t sess = 101 + sess_off, t0 = 5000000000ULL + ts_off;
	uint8_t regs[16], how[24] = {0}, fname[24] = {0}, of[20] = {0};
	int32_t dfd = -100, flags = 0x241, acc = 0x24, intent = 0x300;
	uint16_t mode = 0644;

	rb_start(w, sess, 4242, 4242, "cat", "cat", t0);
	rb_trace(w, sess, false, t0 + 1000, 0, F_SYS, 1, 0, 0);
	u64s(regs, 0xffffc90000a3bf58ULL);
	u64s(regs + 8, 0);
	a_begin(sess, 0, F_SYS);
	a_add(RS_ARG_PTR_DATA, 0, 0, regs, 16);
	a_emit(w);
	rb_trace(w, sess, false, t0 + 2000, 1, F_OPENAT2, 2, 0, 0);
	u64s(how, 0x8241);
	u64s(how + 8, 0644);
	a_begin(sess, 1, F_OPENAT2);
	a_add(RS_ARG_VALUE, 0, 0, &dfd, 4);
	a_add(RS_ARG_STR, RS_ARGF_USER, 0, "/etc/shadow", 11);
	a_add(RS_ARG_PTR_DATA, 0, 0, how, 24);
	a_emit(w);
	rb_trace(w, sess, false, t0 + 3000, 2, F_FILP, 3, 0, 0);
	u64s(fname, 0xffff888004a6c020ULL);
	u64s(fname + 8, 0x00007ffd2a1b3f60ULL);
	memcpy(fname + 16, (int32_t[]){ 1 }, 4);
	memcpy(fname + 20, "/etc", 4);
	memcpy(of, &flags, 4);
	memcpy(of + 4, &mode, 2);
	memcpy(of + 8, &acc, 4);
	memcpy(of + 12, &intent, 4);
	a_begin(sess, 2, F_FILP);
	a_add(RS_ARG_VALUE, 0, 0, &dfd, 4);
	a_add(RS_ARG_PTR_DATA, 0, 0, fname, 24);
	a_add(RS_ARG_PTR_DATA, 0, 0, of, 20);
	a_emit(w);
	rb_trace(w, sess, false, t0 + 4000, 3, F_PATH, 4, 0, 0);
	a_begin(sess, 3, F_PATH);
	A.r.flags = RS_ARGS_NO_BTF;
	for (uint64_t r = 0; r < 3; r++) {
		uint64_t v = r == 0 ? 0xffffc90000a3bd40ULL : r == 1 ? 0xffffc90000a3be98ULL : 0x41;

		a_add(RS_ARG_RAW, 0, 0, &v, 8);
	}
	a_emit(w);
	/* a malformed record: its argument's bytes end past data[] */
	a_begin(sess, 3, F_PATH);
	a_add(RS_ARG_RAW, 0, 0, &dfd, 8);
	A.r.args[0].len = 200;
	if (malformed)
		a_emit(w);
	rb_trace(w, sess, true, t0 + 9000, 4, F_PATH, 4, ERR(13), 5000);
	rb_trace(w, sess, true, t0 + 9500, 5, F_FILP, 3, ERR(13), 6500);
	rb_trace(w, sess, true, t0 + 9800, 6, F_OPENAT2, 2, ERR(13), 7800);
	rb_trace(w, sess, true, t0 + 9900, 7, F_SYS, 1, ERR(13), 8900);
	rb_begin(sess, 4242, 4242, "cat", "cat", t0, t0 + 10000, RS_SESS_IS_ERR);
	rb_frame(F_SYS, ERR(13), 8900);
	rb_frame(F_OPENAT2, ERR(13), 7800);
	rb_frame(F_FILP, ERR(13), 6500);
	rb_frame(F_PATH, ERR(13), 5000);
	rb_e.last_seq_id = 7;
	rb_kframe(FA("do_filp_open", 0x9a));
	rb_kframe(FA("do_sys_openat2", 0x71));
	rb_kframe(FA("__x64_sys_openat", 0x1e));
	rb_kframe(FA("do_syscall_64", 0x44));
	rb_kframe(FA("entry_SYSCALL_64_after_hwframe", 0x76));
	rb_emit(w);
}

/* no -T: printf-like varargs, NULL, a read fault, fentry's unreadable
 * stack arguments and a budget cut */
static void session_misc(struct rsf_writer *w)
{
	uint64_t sess = 102 + sess_off, t0 = 6000000000ULL + ts_off, a[8];
	int32_t level = 3;
	uint8_t slot[8 + 5];

	rb_start(w, sess, 4343, 4300, "modprobe", "modprobe", t0);
	rb_trace(w, sess, false, t0 + 1000, 0, F_PRINTK, 1, 0, 0);
	rb_trace(w, sess, false, t0 + 2000, 1, F_MANY, 2, 0, 0);
	rb_trace(w, sess, false, t0 + 3000, 2, F_OPENAT2, 3, 0, 0);
	rb_trace(w, sess, true, t0 + 6000, 3, F_OPENAT2, 3, ERR(14), 3000);
	rb_trace(w, sess, true, t0 + 11000, 4, F_MANY, 2, ERR(22), 9000);
	rb_trace(w, sess, true, t0 + 16000, 5, F_PRINTK, 1, ERR(22), 15000);
	a_begin(sess, 0, F_PRINTK);
	a_add(RS_ARG_VALUE, 0, 0, &level, 4);
	a_add(RS_ARG_PTR_DATA, RS_ARGF_NULL, 0, NULL, 0);
	a_add(RS_ARG_STR, 0, 0, "%s: bad size %lu", 16);
	u64s(slot, 0xffff888003c1a000ULL);
	memcpy(slot + 8, "eth0", 5);
	a_add(RS_ARG_VARARG, RS_ARGF_STRISH, 0, slot, 12);
	u64s(slot, 1ULL << 33);
	a_add(RS_ARG_VARARG, 0, 0, slot, 8);
	a_emit(w);
	a_begin(sess, 1, F_MANY);
	for (int k = 0; k < 6; k++) {
		a[k] = k == 4 ? (uint64_t)-5 : (uint64_t)k * 1000;
		a_add(RS_ARG_VALUE, 0, 0, &a[k], 8);
	}
	a_add(RS_ARG_VALUE, RS_ARGF_UNAVAIL, 0, NULL, 0);
	A.r.flags = RS_ARGS_BUDGET;
	a_emit(w);
	a_begin(sess, 2, F_OPENAT2);
	a_add(RS_ARG_VALUE, 0, 0, &level, 4);
	a_add(RS_ARG_STR, RS_ARGF_ERR | RS_ARGF_USER, -14, NULL, 0);
	a_add(RS_ARG_PTR_DATA, RS_ARGF_TRUNC, 0, (uint64_t[]){ 0x8000 }, 8);
	a_emit(w);
	rb_begin(sess, 4343, 4300, "modprobe", "modprobe", t0, t0 + 20000, RS_SESS_IS_ERR);
	rb_frame(F_PRINTK, ERR(22), 15000);
	rb_frame(F_MANY, ERR(22), 9000);
	rb_frame(F_OPENAT2, ERR(14), 3000);
	rb_e.last_seq_id = 5;
	rb_kframe(FA("many_args", 0x30));
	rb_kframe(FA("dev_printk_emit", 0x5c));
	rb_kframe(FA("do_syscall_64", 0x44));
	rb_emit(w);
}

/* ------------------------------------------------------------------ file */
enum blobs { WITH_BTF, NO_BLOBS, BAD_BTF };

static void write_rec(const char *dir, const char *name, enum blobs which, unsigned nsess)
{
	static const uint8_t junk[40] = { 0x9f, 0xeb, 1, 0, 24, 0, 0, 0, 0xff, 0xff };
	struct rsf_ksym ks[NKS];
	struct rsf_func fn[NTRACED];
	struct rsf_blob blobs[2];
	struct rsf_stats st = {0};
	struct rsf_meta meta;
	struct btf *b = btf__new_empty();
	char path[4096], err[256];
	struct rsf_writer *w;
	uint32_t size = 0;
	const void *raw;

	add_btf_types(b);
	raw = btf__raw_data(b, &size);
	seed_btf = raw;
	seed_btf_len = size;
	for (size_t i = 0; i < NKS; i++)
		ks[i] = (struct rsf_ksym){ FA(ksyms[i], 0), 'T', ksyms[i], NULL };
	for (size_t i = 0; i < NTRACED; i++)
		fn[i] = (struct rsf_func){ FA(traced[i].name, 0), traced[i].flags, traced[i].name, NULL };
	protos[F_PATH] = 0;
	rb_meta(&meta, "", "6.12.117+deb12-cloud-amd64", NULL, "golden", TEXT_BASE, MONO_TO_REAL,
		"kprobe-multi", RSF_FEAT_BTF | RSF_FEAT_KPROBES | RSF_FEAT_KPROBE_MULTI | RSF_FEAT_RINGBUF,
		RSF_MODE_STACKS | RSF_MODE_TRACE);
	snprintf(meta.cmdline, sizeof(meta.cmdline), "retsnoop-record -A -T -o %s", name);
	blobs[0] = (struct rsf_blob){ "btf", which == BAD_BTF ? (const void *)junk : raw,
				      which == BAD_BTF ? sizeof(junk) : size };
	blobs[1] = (struct rsf_blob){ "func_btf", protos, sizeof(protos) };
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	w = rsf_writer_open_blobs(path, &meta, ks, NKS, NULL, 0, fn, NTRACED,
				  which == NO_BLOBS ? NULL : blobs, which == NO_BLOBS ? 0 : 2,
				  err, sizeof(err));
	if (!w) {
		fprintf(stderr, "mkrec_args: %s\n", err);
		exit(1);
	}
	for (unsigned k = 0; k < nsess; k++) {
		sess_off = 2 * (uint64_t)k;
		ts_off = 2000000000ULL * k;
		session_openat(w);
		session_misc(w);
	}
	st.bpf.sessions_emitted = 2 * nsess;
	st.chunks_written = 1;
	st.funcs_attached = NTRACED;
	rb_close(w, &st);
	btf__free(b);
}

int main(int argc, char **argv)
{
	rb_prog = "mkrec_args";
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: mkrec_args OUTDIR [NSESS]\n");
		return 2;
	}
	if (argc == 3 && !strcmp(argv[2], "seeds")) {
		char path[4096];

		seed_dir = argv[1];
		write_rec(argv[1], ".seed.rsrec", WITH_BTF, 1);
		snprintf(path, sizeof(path), "%s/.seed.rsrec", argv[1]);
		unlink(path);
		return 0;
	}
	if (argc == 3) {
		unsigned n = (unsigned)strtoul(argv[2], NULL, 10);

		malformed = false;
		write_rec(argv[1], "args-many.rsrec", WITH_BTF, n);
		with_args = false;
		write_rec(argv[1], "args-many-bare.rsrec", NO_BLOBS, n);
		return 0;
	}
	write_rec(argv[1], "args.rsrec", WITH_BTF, 1);
	write_rec(argv[1], "args-nobtf.rsrec", NO_BLOBS, 1);
	write_rec(argv[1], "args-badbtf.rsrec", BAD_BTF, 1);
	return 0;
}
