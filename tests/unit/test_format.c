/* test_format.c - unit tests of the recording file library (format/):
 * round trips of metadata, tables, records and trailer; files cut at every
 * byte offset; flipped bytes; bad, foreign and hand-crafted files; writer
 * argument checks, file mode and write errors; a throughput measurement. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "format/rsfile.h"
#include "format/rsf_internal.h"
#include "testlib.h"
#include "test_tmpdir.h"

static char errbuf[512];

/* ---------------------------------------------------------------- inputs */
static void make_meta(struct rsf_meta *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->recorder_version, sizeof(m->recorder_version), "0.9-test");
	memset(m->cmdline, 'c', sizeof(m->cmdline) - 1);        /* longest possible */
	memcpy(m->cmdline, "retsnoop-record -e 'bpf_*' ", 27);
	snprintf(m->uts_release, sizeof(m->uts_release), "6.1.0-18-amd64");
	snprintf(m->uts_version, sizeof(m->uts_version), "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1");
	snprintf(m->uts_machine, sizeof(m->uts_machine), "x86_64");
	snprintf(m->hostname, sizeof(m->hostname), "tracer-host.example");
	for (int i = 0; i < 20; i++)
		m->build_id[i] = (uint8_t)(0xa0 + i);
	m->build_id_len = 20;
	m->stext_addr = 0xffffffff81000000ull;
	m->text_addr = 0xffffffff80ff0000ull;
	m->mono_to_realtime_ns = -1234567890123ll;
	m->start_realtime_ns = 1700000000123456789ull;
	snprintf(m->attach_mode, sizeof(m->attach_mode), "kprobe-multi");
	m->features = RSF_FEAT_BTF | RSF_FEAT_KPROBE_MULTI | RSF_FEAT_LBR;
	m->mode = RSF_MODE_STACKS | RSF_MODE_LBR | RSF_MODE_INTERIM;
	m->lbr_flags = 0x8000000000000123ull;
	snprintf(m->lbr_status, sizeof(m->lbr_status), "perf_event_open: No such device");
}

static const char *mod_names[] = { "ext4", "xfs", "nf_tables", "kvm_intel" };

struct tables {
	struct rsf_ksym *ksyms;
	size_t nksyms;
	struct rsf_module mods[4];
	struct rsf_func *funcs;
	size_t nfuncs;
	char *names;            /* arena for generated names */
};

static void make_tables(struct tables *t, size_t nksyms, size_t nfuncs)
{
	t->nksyms = nksyms;
	t->nfuncs = nfuncs;
	t->ksyms = calloc(nksyms + 1, sizeof(*t->ksyms));
	t->funcs = calloc(nfuncs + 1, sizeof(*t->funcs));
	t->names = malloc((nksyms + nfuncs + 1) * 32);
	for (size_t i = 0; i < nksyms; i++) {
		char *n = t->names + i * 32;
		/* every 7th name repeats an earlier one: duplicates must survive */
		snprintf(n, 32, "func_%zu", i % 7 == 6 ? i - 3 : i);
		t->ksyms[i].addr = 0xffffffff81000000ull + i * 0x40;
		t->ksyms[i].type = "tTwW"[i % 4];
		t->ksyms[i].name = n;
		t->ksyms[i].module = i % 5 == 0 ? mod_names[i % 4] : NULL;
	}
	for (size_t i = 0; i < 4; i++) {
		t->mods[i] = (struct rsf_module){ .name = mod_names[i], .base = 0xffffffffc0000000ull + i * 0x100000,
						  .size = 0x8000 + i, .build_id_len = i == 2 ? 0 : 20 };
		for (int j = 0; j < 20 && i != 2; j++)
			t->mods[i].build_id[j] = (uint8_t)(i * 16 + j);
	}
	t->mods[3].build_id_len = 64;
	memset(t->mods[3].build_id, 0x5a, 64);
	/* section lists: none, one, three (one name the encoder must drop) */
	static const struct rsf_modsect s1[] = { { ".text", 0xffffffffc0100000ull } };
	static const struct rsf_modsect s3[] = {
		{ ".text", 0xffffffffc0300000ull }, { "bad\nname", 1 },
		{ ".init.text", 0xffffffffc0ff0000ull }, { ".text.unlikely", 0xffffffffc0301234ull },
	};
	t->mods[1].sects = s1;
	t->mods[1].nsects = 1;
	t->mods[3].sects = s3;
	t->mods[3].nsects = 4;
	for (size_t i = 0; i < nfuncs; i++) {
		char *n = t->names + (nksyms + i) * 32;
		snprintf(n, 32, "traced_%zu", i);
		t->funcs[i].addr = 0xffffffff81100000ull + i * 0x10;
		t->funcs[i].flags = (uint32_t)(i % 64);
		t->funcs[i].name = n;
		t->funcs[i].module = i % 3 == 1 ? mod_names[i % 4] : NULL;
	}
}

static void free_tables(struct tables *t)
{
	free(t->ksyms);
	free(t->funcs);
	free(t->names);
}

/* ------------------------------------------------------------- records */
#define REC_BUF_SIZE sizeof(struct rs_rec_session_end)

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void fill(uint8_t *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		if (i % 8 == 0)
			seed = mix(seed);
		p[i] = (uint8_t)(seed >> (i % 8 * 8));
	}
}

/* Record I of a test stream: all record types of the ABI plus records whose
 * size is not a multiple of 8. SMALL: only small ones. Returns its size. */
static uint32_t gen_rec(uint64_t i, uint8_t *buf, bool small)
{
	uint64_t x = mix(i * 31 + 7);
	uint32_t type, size;

	switch (x % (small ? 3 : 6)) {
	case 0: type = RS_REC_TRACE_ENTRY; size = sizeof(struct rs_rec_trace); break;
	case 1: type = 100; size = 8 + (uint32_t)(x >> 16) % 61; break;   /* odd sizes */
	case 2: type = RS_REC_TRACE_EXIT; size = sizeof(struct rs_rec_trace); break;
	case 3: type = RS_REC_SESSION_START; size = sizeof(struct rs_rec_session_start); break;
	case 4: type = RS_REC_SESSION_END; size = sizeof(struct rs_rec_session_end); break;
	default: type = RS_REC_LBR; size = sizeof(struct rs_rec_lbr); break;
	}
	memset(buf, 0, size);
	fill(buf, size, x);
	struct rs_rec_hdr *h = (struct rs_rec_hdr *)buf;
	h->type = type;
	h->size = size;
	if (type == RS_REC_SESSION_END) {      /* half-compressible like real stacks */
		struct rs_rec_session_end *e = (void *)buf;
		e->nframes = (rs_u16)(x % RS_MAX_FSTACK_DEPTH);
		memset(e->frames + e->nframes, 0, sizeof(e->frames) - e->nframes * sizeof(e->frames[0]));
		e->sess_id = i;
	} else if (type == RS_REC_TRACE_ENTRY || type == RS_REC_TRACE_EXIT) {
		((struct rs_rec_trace *)buf)->sess_id = i;
	}
	return size;
}

/* checks the next records of R against gen_rec(FIRST...); returns how many
 * came back before a status other than RSF_OK, which goes to *st */
static uint64_t read_check(struct rsf_reader *r, uint64_t first, bool small,
			   enum rsf_status *st, int *bad)
{
	uint8_t buf[REC_BUF_SIZE];
	const struct rs_rec_hdr *h;
	uint64_t n = 0;

	while ((*st = rsf_reader_next(r, &h)) == RSF_OK) {
		uint32_t size = gen_rec(first + n, buf, small);
		if (((uintptr_t)h & 7) || h->size != size || memcmp(h, buf, size))
			(*bad)++;
		n++;
	}
	return n;
}

/* ------------------------------------------------------------- writing */
struct layout {
	uint64_t header_end;            /* end of header blocks */
	uint64_t bounds[64];            /* file size after chunk k was written */
	uint64_t recs[64];              /* records in chunks [0, k] */
	int nchunks;
	uint64_t size;                  /* whole file */
	uint64_t nrecs;
};

static uint64_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

static struct rsf_stats test_stats(void)
{
	struct rsf_stats s = {
		.bpf = { 11, 12, 13, 14, 15, 16, 17, 18 },
		.ringbuf_lost = 21, .attach_ns = 22, .detach_ns = 23,
		.funcs_attached = 24, .funcs_failed = 25, .end_realtime_ns = 1700000001000000000ull,
		.prog_misses = 26, .prog_misses_known = 1, .prog_misses_entry = 20, .prog_misses_exit = 6,
		.prog_misses_probes = 4,
		.link_misses_known = 1, .link_misses_entry = 9, .link_misses_exit = 3,
		.link_misses_nfuncs = 3, .link_misses_funcs = "vfs_read=7,ksys_read=3",
	};
	return s;
}

/* writes CHUNKS chunks of PER records each (small records), with a trailer
 * when TRAILER; fills L */
static int write_small(const char *path, int chunks, int per, bool trailer, struct layout *l)
{
	struct rsf_meta meta;
	struct tables t;
	uint8_t buf[REC_BUF_SIZE];
	uint64_t i = 0;
	int fails = 0;

	make_meta(&meta);
	snprintf(meta.cmdline, sizeof(meta.cmdline), "retsnoop-record -e foo");
	make_tables(&t, 12, 5);
	memset(l, 0, sizeof(*l));
	struct rsf_writer *w = rsf_writer_open(path, &meta, t.ksyms, t.nksyms, t.mods, 4,
					       t.funcs, t.nfuncs, errbuf, sizeof(errbuf));
	free_tables(&t);
	if (!w)
		return 1;
	l->header_end = file_size(path);
	for (int c = 0; c < chunks; c++) {
		for (int k = 0; k < per; k++, i++)
			fails += rsf_writer_add(w, buf, gen_rec(i, buf, true)) != 0;
		fails += rsf_writer_flush(w) != 0;
		l->bounds[c] = file_size(path);
		l->recs[c] = i;
	}
	l->nchunks = chunks;
	l->nrecs = i;
	struct rsf_stats s = test_stats();
	fails += rsf_writer_close(w, trailer ? &s : NULL) != 0;
	l->size = file_size(path);
	return fails;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc((size_t)sz + 1);
	*n = fread(p, 1, (size_t)sz, f);
	fclose(f);
	return p;
}

static void spit(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return;
	if (n)
		fwrite(p, 1, n, f);
	fclose(f);
}

static bool one_line(const char *s)
{
	return s && *s && !strchr(s, '\n');
}

/* ---------------------------------------------------------------- tests */
static void test_meta_roundtrip(void)
{
	struct rsf_meta m;
	struct tables t;
	const char *p = tpath("meta.rsr");

	make_meta(&m);
	make_tables(&t, 3, 2);
	struct rsf_writer *w = rsf_writer_open(p, &m, t.ksyms, t.nksyms, t.mods, 4, t.funcs,
					       t.nfuncs, errbuf, sizeof(errbuf));
	CHECK(w);
	if (!w)
		return;
	CHECK_INT(rsf_writer_close(w, NULL), 0);
	free_tables(&t);

	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (!r) {
		fprintf(stderr, "  %s\n", errbuf);
		return;
	}
	const struct rsf_meta *g = rsf_reader_meta(r);
	CHECK_INT(g->format_version, RSF_FORMAT_V1);
	CHECK_STR(g->recorder_version, m.recorder_version);
	CHECK_STR(g->cmdline, m.cmdline);
	CHECK_INT(strlen(g->cmdline), sizeof(m.cmdline) - 1);
	CHECK_STR(g->uts_release, m.uts_release);
	CHECK_STR(g->uts_version, m.uts_version);
	CHECK_STR(g->uts_machine, m.uts_machine);
	CHECK_STR(g->hostname, m.hostname);
	CHECK_INT(g->build_id_len, 20);
	CHECK(memcmp(g->build_id, m.build_id, sizeof(m.build_id)) == 0);
	CHECK_INT(g->stext_addr, m.stext_addr);
	CHECK_INT(g->text_addr, m.text_addr);
	CHECK_INT(g->mono_to_realtime_ns, m.mono_to_realtime_ns);
	CHECK_INT(g->start_realtime_ns, m.start_realtime_ns);
	CHECK_STR(g->attach_mode, m.attach_mode);
	CHECK_INT(g->features, m.features);
	CHECK_INT(g->mode, m.mode);
	CHECK_INT(g->lbr_flags, m.lbr_flags);
	CHECK_STR(g->lbr_status, m.lbr_status);
	CHECK_INT(g->endian_word, 0x01020304);
	CHECK_INT(g->word_size, sizeof(long));

	/* no records, no trailer: clean but incomplete */
	const struct rs_rec_hdr *h;
	CHECK_INT(rsf_reader_next(r, &h), RSF_END);
	CHECK(rsf_reader_stats(r) == NULL);
	CHECK(!rsf_reader_complete(r));
	CHECK_INT(rsf_reader_chunks(r), 0);
	rsf_reader_close(r);
}

static void check_tables(struct rsf_reader *r, const struct tables *t)
{
	size_t n;
	const struct rsf_ksym *k = rsf_reader_ksyms(r, &n);
	CHECK_INT(n, t->nksyms);
	for (size_t i = 0; i < n && i < t->nksyms; i++) {
		if (k[i].addr != t->ksyms[i].addr || k[i].type != t->ksyms[i].type ||
		    strcmp(k[i].name, t->ksyms[i].name) ||
		    !k[i].module != !t->ksyms[i].module ||
		    (k[i].module && strcmp(k[i].module, t->ksyms[i].module))) {
			CHECK(!"ksym differs");
			fprintf(stderr, "  ksym %zu: %s\n", i, k[i].name);
			break;
		}
	}
	const struct rsf_module *m = rsf_reader_modules(r, &n);
	CHECK_INT(n, 4);
	for (size_t i = 0; i < n && i < 4; i++) {
		CHECK_STR(m[i].name, t->mods[i].name);
		CHECK_INT(m[i].base, t->mods[i].base);
		CHECK_INT(m[i].size, t->mods[i].size);
		CHECK_INT(m[i].build_id_len, t->mods[i].build_id_len);
		CHECK(memcmp(m[i].build_id, t->mods[i].build_id, t->mods[i].build_id_len) == 0);
	}
	if (n == 4) {
		CHECK_INT(m[0].nsects, 0);
		CHECK(m[0].sects == NULL);
		CHECK_INT(m[1].nsects, 1);
		CHECK_INT(m[3].nsects, 3);
		if (m[1].nsects == 1) {
			CHECK_STR(m[1].sects[0].name, ".text");
			CHECK_INT(m[1].sects[0].addr, 0xffffffffc0100000ull);
		}
		if (m[3].nsects == 3) {
			CHECK_STR(m[3].sects[1].name, ".init.text");
			CHECK_INT(m[3].sects[1].addr, 0xffffffffc0ff0000ull);
			CHECK_STR(m[3].sects[2].name, ".text.unlikely");
			CHECK_INT(m[3].sects[2].addr, 0xffffffffc0301234ull);
		}
	}
	const struct rsf_func *f = rsf_reader_funcs(r, &n);
	CHECK_INT(n, t->nfuncs);
	for (size_t i = 0; i < n && i < t->nfuncs; i++) {
		if (f[i].addr != t->funcs[i].addr || f[i].flags != t->funcs[i].flags ||
		    strcmp(f[i].name, t->funcs[i].name) ||
		    !f[i].module != !t->funcs[i].module ||
		    (f[i].module && strcmp(f[i].module, t->funcs[i].module))) {
			CHECK(!"func differs");
			break;
		}
	}
}

static void test_tables_roundtrip(void)
{
	struct rsf_meta m;
	struct tables t;
	const char *p = tpath("tables.rsr");
	struct timespec t0, t1, t2;

	make_meta(&m);
	make_tables(&t, 150000, 3000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct rsf_writer *w = rsf_writer_open(p, &m, t.ksyms, t.nksyms, t.mods, 4, t.funcs,
					       t.nfuncs, errbuf, sizeof(errbuf));
	CHECK(w);
	CHECK_INT(rsf_writer_close(w, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	clock_gettime(CLOCK_MONOTONIC, &t2);
	CHECK(r);
	if (r) {
		check_tables(r, &t);
		rsf_reader_close(r);
	}
	printf("perf: 150000 ksyms + 3000 funcs: write %.1f ms, open %.1f ms, %llu bytes\n",
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6,
	       (t2.tv_sec - t1.tv_sec) * 1e3 + (t2.tv_nsec - t1.tv_nsec) / 1e6,
	       (unsigned long long)file_size(p));
	free_tables(&t);

	/* empty tables */
	w = rsf_writer_open(p, &m, NULL, 0, NULL, 0, NULL, 0, errbuf, sizeof(errbuf));
	CHECK(w);
	CHECK_INT(rsf_writer_close(w, NULL), 0);
	r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (r) {
		size_t n = 99;
		rsf_reader_ksyms(r, &n);
		CHECK_INT(n, 0);
		rsf_reader_modules(r, &n);
		CHECK_INT(n, 0);
		rsf_reader_funcs(r, &n);
		CHECK_INT(n, 0);
		rsf_reader_close(r);
	}

	/* a symbol without a name is refused and leaves no file behind */
	struct rsf_ksym bad = { .addr = 1, .type = 't' };
	unlink(p);
	w = rsf_writer_open(p, &m, &bad, 1, NULL, 0, NULL, 0, errbuf, sizeof(errbuf));
	CHECK(!w);
	CHECK(one_line(errbuf));
	CHECK(access(p, F_OK) != 0);
}

static void test_records_roundtrip(void)
{
	struct rsf_meta m;
	struct tables t;
	const char *p = tpath("records.rsr");
	uint8_t buf[REC_BUF_SIZE];
	const uint64_t N = 20000;
	int fails = 0;

	make_meta(&m);
	make_tables(&t, 50, 10);
	struct rsf_writer *w = rsf_writer_open(p, &m, t.ksyms, t.nksyms, t.mods, 4, t.funcs,
					       t.nfuncs, errbuf, sizeof(errbuf));
	CHECK(w);
	if (!w)
		return;
	for (uint64_t i = 0; i < N; i++) {
		fails += rsf_writer_add(w, buf, gen_rec(i, buf, false)) != 0;
		if (i == 100)
			fails += rsf_writer_flush(w) != 0;      /* a short chunk */
	}
	CHECK_INT(fails, 0);
	struct rsf_stats s = test_stats();
	s.records_written = 5;          /* the library counts these itself */
	CHECK_INT(rsf_writer_close(w, &s), 0);

	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (!r)
		return;
	check_tables(r, &t);
	enum rsf_status st;
	int bad = 0;
	CHECK(rsf_reader_stats(r) == NULL);
	uint64_t n = read_check(r, 0, false, &st, &bad);
	CHECK_INT(n, N);
	CHECK_INT(bad, 0);
	CHECK_INT(st, RSF_END);
	CHECK(rsf_reader_complete(r));
	CHECK(rsf_reader_chunks(r) >= 4);
	const struct rsf_stats *g = rsf_reader_stats(r);
	CHECK(g);
	if (g) {
		struct rsf_stats want = test_stats();
		want.records_written = N;
		want.chunks_written = rsf_reader_chunks(r);
		CHECK(memcmp(g, &want, sizeof(want)) == 0);
		CHECK_INT(g->records_written, N);
		CHECK_INT(g->bpf.exit_mismatches, 18);
		CHECK_INT(g->end_realtime_ns, want.end_realtime_ns);
		CHECK_INT(g->prog_misses, 26);
		CHECK_INT(g->prog_misses_known, 1);
		CHECK_INT(g->prog_misses_entry, 20);
		CHECK_INT(g->prog_misses_exit, 6);
		CHECK_INT(g->prog_misses_probes, 4);
		CHECK_INT(g->link_misses_known, 1);
		CHECK_INT(g->link_misses_entry, 9);
		CHECK_INT(g->link_misses_exit, 3);
		CHECK_INT(g->link_misses_nfuncs, 3);
		CHECK_STR(g->link_misses_funcs, "vfs_read=7,ksys_read=3");
	}
	/* after the end it stays at the end */
	const struct rs_rec_hdr *h;
	CHECK_INT(rsf_reader_next(r, &h), RSF_END);
	rsf_reader_close(r);
	free_tables(&t);
}

/* header blobs: round trip in a plain and a flight recording, records still
 * read after them, names looked up exactly, bad blob lists refused */
static void blobs_roundtrip(uint64_t max_size)
{
	struct rsf_meta m;
	const char *p = tpath("blobs.rsr");
	uint8_t big[100000], buf[REC_BUF_SIZE];
	const struct rsf_blob blobs[] = {
		{ "btf", big, sizeof(big) },
		{ "empty", NULL, 0 },
		{ "a-name-of-exactly-sixty-three-bytes-xxxxxxxxxxxxxxxxxxxxxxxxxxx", "xyz", 3 },
	};
	size_t sz;
	int fails = 0;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + i / 251);
	make_meta(&m);
	m.max_size = max_size;
	struct rsf_writer *w = rsf_writer_open_blobs(p, &m, NULL, 0, NULL, 0, NULL, 0, blobs, 3,
						     errbuf, sizeof(errbuf));
	CHECK(w);
	if (!w)
		return;
	for (uint64_t i = 0; i < 1000; i++)
		fails += rsf_writer_add(w, buf, gen_rec(i, buf, false)) != 0;
	CHECK_INT(fails, 0);
	CHECK_INT(rsf_writer_close(w, NULL), 0);

	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (!r)
		return;
	const uint8_t *b = rsf_reader_blob(r, "btf", &sz);
	CHECK(b && sz == sizeof(big) && memcmp(b, big, sz) == 0);
	CHECK(b && ((uintptr_t)b & 7) == 0);
	CHECK(rsf_reader_blob(r, "empty", &sz) && sz == 0);
	b = rsf_reader_blob(r, blobs[2].name, &sz);
	CHECK(b && sz == 3 && memcmp(b, "xyz", 3) == 0);
	CHECK(rsf_reader_blob(r, "bt", &sz) == NULL && sz == 0);
	CHECK(rsf_reader_blob(r, "probes", NULL) == NULL);
	enum rsf_status st;
	int bad = 0;
	CHECK_INT(read_check(r, 0, false, &st, &bad), 1000);
	CHECK_INT(bad, 0);
	CHECK_INT(st, RSF_END);
	rsf_reader_close(r);
}

static void test_blobs(void)
{
	struct rsf_meta m;
	const char *p = tpath("badblobs.rsr");
	const struct rsf_blob dup[] = { { "x", "1", 1 }, { "x", "2", 1 } };
	const struct rsf_blob noname[] = { { "", "1", 1 } };
	const struct rsf_blob nodata[] = { { "x", NULL, 4 } };
	const struct rsf_blob longname[] = {
		{ "a-name-of-exactly-sixty-four-bytes-xxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "1", 1 } };

	blobs_roundtrip(0);
	blobs_roundtrip(4u << 20);
	make_meta(&m);
	CHECK(!rsf_writer_open_blobs(p, &m, NULL, 0, NULL, 0, NULL, 0, dup, 2, errbuf, sizeof(errbuf)));
	CHECK(!rsf_writer_open_blobs(p, &m, NULL, 0, NULL, 0, NULL, 0, noname, 1, errbuf,
				     sizeof(errbuf)));
	CHECK(!rsf_writer_open_blobs(p, &m, NULL, 0, NULL, 0, NULL, 0, nodata, 1, errbuf,
				     sizeof(errbuf)));
	CHECK(!rsf_writer_open_blobs(p, &m, NULL, 0, NULL, 0, NULL, 0, longname, 1, errbuf,
				     sizeof(errbuf)));
	CHECK(!rsf_writer_open_blobs(p, &m, NULL, 0, NULL, 0, NULL, 0, NULL, 1, errbuf,
				     sizeof(errbuf)));
}

static void test_no_trailer(void)
{
	struct layout l;
	const char *p = tpath("notrailer.rsr");

	CHECK_INT(write_small(p, 3, 5, false, &l), 0);
	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (!r)
		return;
	enum rsf_status st;
	int bad = 0;
	CHECK_INT(read_check(r, 0, true, &st, &bad), 15);
	CHECK_INT(bad, 0);
	CHECK_INT(st, RSF_END);
	CHECK(rsf_reader_stats(r) == NULL);
	CHECK(!rsf_reader_complete(r));
	CHECK_INT(rsf_reader_chunks(r), 3);
	rsf_reader_close(r);

	/* a live writer: flushed records are readable, pending ones are not */
	struct rsf_meta m;
	uint8_t buf[REC_BUF_SIZE];
	make_meta(&m);
	const char *q = tpath("live.rsr");
	struct rsf_writer *w = rsf_writer_open(q, &m, NULL, 0, NULL, 0, NULL, 0, errbuf, sizeof(errbuf));
	CHECK(w);
	if (!w)
		return;
	for (int i = 0; i < 7; i++)
		rsf_writer_add(w, buf, gen_rec((uint64_t)i, buf, true));
	CHECK_INT(rsf_writer_flush(w), 0);
	CHECK_INT(rsf_writer_flush(w), 0);     /* nothing pending: no empty chunk */
	rsf_writer_add(w, buf, gen_rec(7, buf, true));
	r = rsf_reader_open(q, errbuf, sizeof(errbuf));
	CHECK(r);
	if (r) {
		bad = 0;
		CHECK_INT(read_check(r, 0, true, &st, &bad), 7);
		CHECK_INT(bad, 0);
		CHECK_INT(st, RSF_END);
		CHECK_INT(rsf_reader_chunks(r), 1);
		CHECK(!rsf_reader_complete(r));
		rsf_reader_close(r);
	}
	CHECK_INT(rsf_writer_close(w, NULL), 0);
}

static void test_truncate_every_offset(void)
{
	struct layout l;
	const char *p = tpath("full.rsr"), *q = tpath("cut.rsr");
	size_t size;
	int open_fail_early = 0, open_ok_late = 0, wrong = 0, too_few = 0, bad_status = 0,
	    bad_msg = 0, bad_data = 0;

	CHECK_INT(write_small(p, 5, 6, true, &l), 0);
	uint8_t *data = slurp(p, &size);
	CHECK(data && size == l.size);
	if (!data)
		return;
	for (size_t cut = 0; cut <= size; cut++) {
		spit(q, data, cut);
		struct rsf_reader *r = rsf_reader_open(q, errbuf, sizeof(errbuf));
		if (cut < l.header_end) {
			open_ok_late += r != NULL;        /* must fail... */
			bad_msg += !one_line(errbuf);     /* ...with one line */
			rsf_reader_close(r);
			continue;
		}
		if (!r) {
			open_fail_early++;
			fprintf(stderr, "  cut %zu: %s\n", cut, errbuf);
			continue;
		}
		/* records of the chunks complete before the cut, exactly */
		uint64_t want = 0;
		bool boundary = cut == l.header_end;
		for (int c = 0; c < l.nchunks; c++) {
			if (l.bounds[c] <= cut)
				want = l.recs[c];
			if (l.bounds[c] == cut)
				boundary = true;
		}
		enum rsf_status st;
		int bad = 0;
		uint64_t n = read_check(r, 0, true, &st, &bad);
		bad_data += bad;
		too_few += n < want;
		wrong += n > want;
		if (cut == size)
			bad_status += st != RSF_END || !rsf_reader_complete(r) || !rsf_reader_stats(r);
		else if (boundary)
			bad_status += st != RSF_END || rsf_reader_complete(r) || rsf_reader_stats(r);
		else {
			bad_status += st != RSF_DAMAGED || rsf_reader_complete(r);
			bad_msg += !one_line(rsf_reader_error(r)) ||
				   !strstr(rsf_reader_error(r), "offset");
		}
		rsf_reader_close(r);
	}
	CHECK_INT(open_ok_late, 0);
	CHECK_INT(open_fail_early, 0);
	CHECK_INT(wrong, 0);
	CHECK_INT(too_few, 0);
	CHECK_INT(bad_status, 0);
	CHECK_INT(bad_msg, 0);
	CHECK_INT(bad_data, 0);
	printf("truncation: %zu cuts of a %d-chunk file checked\n", size + 1, l.nchunks);
	free(data);
}

static void test_flip_bytes(void)
{
	struct layout l;
	const char *p = tpath("flip.rsr"), *q = tpath("flipped.rsr");
	size_t size;
	int opened = 0, wrong = 0, bad_status = 0, bad_msg = 0, bad_data = 0;

	CHECK_INT(write_small(p, 4, 6, true, &l), 0);
	uint8_t *data = slurp(p, &size);
	if (!data)
		return;
	/* every byte of the header section: open must fail */
	for (size_t i = 0; i < l.header_end; i++) {
		data[i] ^= 0xff;
		spit(q, data, size);
		data[i] ^= 0xff;
		struct rsf_reader *r = rsf_reader_open(q, errbuf, sizeof(errbuf));
		opened += r != NULL;
		bad_msg += !one_line(errbuf);
		rsf_reader_close(r);
	}
	CHECK_INT(opened, 0);
	/* every byte of chunk 2: chunks 0 and 1 come back, then damage */
	for (size_t i = l.bounds[1]; i < l.bounds[2]; i++) {
		data[i] ^= 0x10;
		spit(q, data, size);
		data[i] ^= 0x10;
		struct rsf_reader *r = rsf_reader_open(q, errbuf, sizeof(errbuf));
		if (!r) {
			opened++;
			continue;
		}
		enum rsf_status st;
		int bad = 0;
		uint64_t n = read_check(r, 0, true, &st, &bad);
		bad_data += bad;
		wrong += n != l.recs[1];
		bad_status += st != RSF_DAMAGED || rsf_reader_complete(r) || rsf_reader_stats(r);
		const char *e = rsf_reader_error(r);
		char want[64];
		snprintf(want, sizeof(want), "chunk 2 at offset %llu", (unsigned long long)l.bounds[1]);
		if (!one_line(e) || !strstr(e, want)) {
			bad_msg++;
			fprintf(stderr, "  flip at %zu: '%s'\n", i, e);
		}
		const struct rs_rec_hdr *h;
		bad_status += rsf_reader_next(r, &h) != RSF_DAMAGED;  /* stays damaged */
		rsf_reader_close(r);
	}
	/* every byte of the trailer: all records, then damage */
	for (size_t i = l.bounds[3]; i < size; i++) {
		data[i] ^= 0x01;
		spit(q, data, size);
		data[i] ^= 0x01;
		struct rsf_reader *r = rsf_reader_open(q, errbuf, sizeof(errbuf));
		if (!r) {
			opened++;
			continue;
		}
		enum rsf_status st;
		int bad = 0;
		uint64_t n = read_check(r, 0, true, &st, &bad);
		bad_data += bad;
		wrong += n != l.nrecs;
		bad_status += st != RSF_DAMAGED || rsf_reader_complete(r) || rsf_reader_stats(r);
		bad_msg += !one_line(rsf_reader_error(r));
		rsf_reader_close(r);
	}
	CHECK_INT(opened, 0);
	CHECK_INT(wrong, 0);
	CHECK_INT(bad_status, 0);
	CHECK_INT(bad_msg, 0);
	CHECK_INT(bad_data, 0);
	free(data);
}

/* random mutations: must never crash, and whatever comes back is a correct
 * prefix of the stream */
static void test_random_mutations(void)
{
	struct layout l;
	const char *p = tpath("mut.rsr"), *q = tpath("mutated.rsr");
	size_t size;
	int wrong = 0, bad_data = 0, bad_msg = 0;

	CHECK_INT(write_small(p, 4, 8, true, &l), 0);
	uint8_t *data = slurp(p, &size);
	if (!data)
		return;
	uint8_t *copy = malloc(size);
	for (uint64_t it = 0; it < 3000; it++) {
		uint64_t x = mix(it + 1000);
		memcpy(copy, data, size);
		int nflips = 1 + (int)(x % 4);
		for (int k = 0; k < nflips; k++) {
			x = mix(x);
			copy[x % size] = (uint8_t)(x >> 32);
		}
		size_t len = (x >> 40) % 3 == 0 ? (size_t)((x >> 20) % size) : size;
		spit(q, copy, len);
		struct rsf_reader *r = rsf_reader_open(q, errbuf, sizeof(errbuf));
		if (!r) {
			bad_msg += !one_line(errbuf);
			continue;
		}
		enum rsf_status st;
		int bad = 0;
		uint64_t n = read_check(r, 0, true, &st, &bad);
		bad_data += bad;
		wrong += n > l.nrecs;
		if (st == RSF_DAMAGED)
			bad_msg += !one_line(rsf_reader_error(r));
		rsf_reader_close(r);
	}
	CHECK_INT(wrong, 0);
	CHECK_INT(bad_data, 0);
	CHECK_INT(bad_msg, 0);
	free(copy);
	free(data);
}

static void expect_open_fail(const char *path, const char *needle)
{
	struct rsf_reader *r = rsf_reader_open(path, errbuf, sizeof(errbuf));
	CHECK(r == NULL);
	rsf_reader_close(r);
	CHECK(one_line(errbuf));
	if (!strstr(errbuf, needle)) {
		CHECK(!"unexpected message");
		fprintf(stderr, "  '%s' lacks '%s'\n", errbuf, needle);
	}
}

static void patch_hdr(uint8_t *data, size_t field_off, uint32_t v, bool fix_crc)
{
	struct rsf_file_hdr fh;
	memcpy(&fh, data, sizeof(fh));
	memcpy((uint8_t *)&fh + field_off, &v, 4);
	if (fix_crc)
		fh.crc = rsf_hdr_crc(&fh, sizeof(fh));
	memcpy(data, &fh, sizeof(fh));
}

static void test_bad_files(void)
{
	struct layout l;
	const char *p = tpath("good.rsr"), *q = tpath("bad.rsr");
	size_t size;

	spit(q, "", 0);
	expect_open_fail(q, "empty");
	spit(q, "hello world, this is not a recording at all......", 48);
	expect_open_fail(q, "not a retsnoop recording");
	spit(q, "RETS", 4);
	expect_open_fail(q, "not a retsnoop recording");
	expect_open_fail(tpath("does-not-exist.rsr"), "No such file");
	expect_open_fail(tmpdir, "directory");

	CHECK_INT(write_small(p, 1, 3, true, &l), 0);
	uint8_t *data = slurp(p, &size);
	if (!data)
		return;
	spit(q, data, 20);
	expect_open_fail(q, "truncated");
	patch_hdr(data, offsetof(struct rsf_file_hdr, version), RSF_FORMAT_VERSION + 1, true);
	spit(q, data, size);
	expect_open_fail(q, "unsupported format version 5");
	patch_hdr(data, offsetof(struct rsf_file_hdr, version), RSF_FORMAT_V1, true);
	patch_hdr(data, offsetof(struct rsf_file_hdr, endian), 0x04030201, true);
	spit(q, data, size);
	expect_open_fail(q, "other byte order");
	patch_hdr(data, offsetof(struct rsf_file_hdr, endian), 0x01020304, true);
	patch_hdr(data, offsetof(struct rsf_file_hdr, word_size), 4, true);
	spit(q, data, size);
	expect_open_fail(q, "4-byte words");
	patch_hdr(data, offsetof(struct rsf_file_hdr, word_size), sizeof(long), true);
	spit(q, data, size);
	struct rsf_reader *r = rsf_reader_open(q, errbuf, sizeof(errbuf));
	CHECK(r);      /* patched back: valid again */
	rsf_reader_close(r);
	patch_hdr(data, offsetof(struct rsf_file_hdr, flags), 1, false);
	spit(q, data, size);
	expect_open_fail(q, "checksum mismatch");
	free(data);
}

/* appends a framed block to BUF */
static void add_block(struct rsf_buf *file, uint32_t type, uint32_t count,
		      const void *raw, size_t len)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	struct rsf_buf b = {};
	CHECK(rsf_block_build(c, type, count, raw, len, &b) == NULL);
	rsf_buf_append(file, b.data, b.len);
	rsf_buf_free(&b);
	ZSTD_freeCCtx(c);
}

/* a file by hand: newer-writer metadata keys and block types are skipped,
 * missing keys read as zero */
static void test_forward_compat(void)
{
	struct rsf_buf f = {}, kv = {};
	struct rsf_file_hdr fh = { .version = RSF_FORMAT_V1, .endian = RSF_ENDIAN_WORD,
				   .word_size = sizeof(long), .hdr_size = RSF_FILE_HDR_SIZE };
	memcpy(fh.magic, RSF_MAGIC, RSF_MAGIC_LEN);
	fh.crc = rsf_hdr_crc(&fh, sizeof(fh));
	rsf_buf_append(&f, &fh, sizeof(fh));

	/* metadata: an unknown key, hostname, a known key with a foreign type */
	const struct { const char *k; uint8_t type; const char *v; uint32_t len; } ents[] = {
		{ "future.thing", RSF_KV_BYTES, "\1\2\3", 3 },
		{ "hostname", RSF_KV_STR, "box", 3 },
		{ "features", RSF_KV_STR, "lots", 4 },
	};
	for (size_t i = 0; i < 3; i++) {
		uint16_t kl = (uint16_t)strlen(ents[i].k);
		uint8_t h[8] = { 0 };
		memcpy(h, &kl, 2);
		h[2] = ents[i].type;
		memcpy(h + 4, &ents[i].len, 4);
		rsf_buf_append(&kv, h, 8);
		rsf_buf_append(&kv, ents[i].k, kl);
		rsf_buf_append(&kv, ents[i].v, ents[i].len);
	}
	add_block(&f, RSF_BLK_META, 3, kv.data, kv.len);
	add_block(&f, 77, 0, "future", 6);                       /* unknown block */
	struct rsf_buf tab = {};
	struct rsf_ksym ks = { .addr = 0x1000, .type = 'T', .name = "start_kernel" };
	CHECK(rsf_table_encode_ksyms(&ks, 1, &tab) == NULL);
	add_block(&f, RSF_BLK_KSYMS, 1, tab.data, tab.len);
	CHECK(rsf_table_encode_modules(NULL, 0, &tab) == NULL);
	add_block(&f, RSF_BLK_MODULES, 0, tab.data, tab.len);
	CHECK(rsf_table_encode_funcs(NULL, 0, &tab) == NULL);
	add_block(&f, RSF_BLK_FUNCS, 0, tab.data, tab.len);
	size_t header_end = f.len;

	uint8_t rec[REC_BUF_SIZE];
	uint32_t sz = gen_rec(0, rec, true);
	add_block(&f, RSF_BLK_CHUNK, 1, rec, (sz + 7) & ~7u);
	add_block(&f, 78, 0, "more future", 11);                 /* unknown block */
	sz = gen_rec(1, rec, true);
	add_block(&f, RSF_BLK_CHUNK, 1, rec, (sz + 7) & ~7u);
	const char *p = tpath("compat.rsr");
	spit(p, f.data, f.len);

	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (r) {
		const struct rsf_meta *m = rsf_reader_meta(r);
		CHECK_STR(m->hostname, "box");
		CHECK_INT(m->features, 0);
		CHECK_STR(m->cmdline, "");
		CHECK_INT(m->stext_addr, 0);
		size_t n;
		const struct rsf_ksym *k = rsf_reader_ksyms(r, &n);
		CHECK_INT(n, 1);
		CHECK(n == 1 && k[0].module == NULL && strcmp(k[0].name, "start_kernel") == 0);
		enum rsf_status st;
		int bad = 0;
		CHECK_INT(read_check(r, 0, true, &st, &bad), 2);
		CHECK_INT(bad, 0);
		CHECK_INT(st, RSF_END);
		CHECK_INT(rsf_reader_chunks(r), 2);
		rsf_reader_close(r);
	}

	/* chunks whose contents lie, with valid checksums */
	struct {
		uint32_t count;
		uint32_t sizes[3];
		size_t raw;
		const char *needle;
	} lies[] = {
		{ 2, { 16, 4000 }, 32, "record 1 size 4000 overflows" },
		{ 1, { 4 }, 16, "smaller than its header" },
		{ 1, { 16 }, 32, "bytes after the last record" },
		{ 3, { 16, 16 }, 32, "record 2 header overflows" },
		{ 5, { 16, 16 }, 32, "bad lengths" },                 /* count > raw/8 fails early */
		{ 2, { 8, 8 }, 24, "after the last" },
	};
	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		uint8_t raw[64] = { 0 };
		size_t pos = 0;
		for (uint32_t k = 0; k < lies[i].count && pos + 8 <= lies[i].raw; k++) {
			struct rs_rec_hdr h = { .type = 100, .size = lies[i].sizes[k] };
			memcpy(raw + pos, &h, sizeof(h));
			pos += (h.size + 7) & ~7u;
		}
		f.len = header_end;
		add_block(&f, RSF_BLK_CHUNK, 1, rec, (sz + 7) & ~7u);
		add_block(&f, RSF_BLK_CHUNK, lies[i].count, raw, lies[i].raw);
		spit(p, f.data, f.len);
		r = rsf_reader_open(p, errbuf, sizeof(errbuf));
		CHECK(r);
		if (!r)
			continue;
		const struct rs_rec_hdr *h;
		CHECK_INT(rsf_reader_next(r, &h), RSF_OK);
		CHECK_INT(rsf_reader_next(r, &h), RSF_DAMAGED);
		if (!strstr(rsf_reader_error(r), lies[i].needle) || !strstr(rsf_reader_error(r), "chunk 1")) {
			CHECK(!"unexpected message");
			fprintf(stderr, "  '%s' lacks '%s'\n", rsf_reader_error(r), lies[i].needle);
		}
		rsf_reader_close(r);
	}

	/* huge lengths with valid header checksums: refused before allocating */
	struct rsf_block_hdr bh = { .magic = RSF_BLOCK_MAGIC, .type = RSF_BLK_CHUNK,
				    .comp_size = 0xfffffff0u, .raw_size = 0xfffffff0u, .count = 5 };
	bh.hdr_crc = rsf_hdr_crc(&bh, sizeof(bh));
	f.len = header_end;
	rsf_buf_append(&f, &bh, sizeof(bh));
	spit(p, f.data, f.len);
	r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (r) {
		const struct rs_rec_hdr *h;
		CHECK_INT(rsf_reader_next(r, &h), RSF_DAMAGED);
		CHECK(strstr(rsf_reader_error(r), "bad lengths") != NULL);
		rsf_reader_close(r);
	}
	bh.type = RSF_BLK_KSYMS;
	bh.hdr_crc = rsf_hdr_crc(&bh, sizeof(bh));
	f.len = 0;
	rsf_buf_append(&f, &fh, sizeof(fh));
	add_block(&f, RSF_BLK_META, 0, "", 0);
	rsf_buf_append(&f, &bh, sizeof(bh));
	spit(p, f.data, f.len);
	expect_open_fail(p, "bad lengths");

	rsf_buf_free(&f);
	rsf_buf_free(&kv);
	rsf_buf_free(&tab);
}

/* a module table as version-1 writers made it before the sections field
 * (88-byte entries) still reads, without sections; a malformed section
 * list is refused */
static void test_module_table_v0(void)
{
	uint8_t raw[16 + 2 * 88 + 16];
	memset(raw, 0, sizeof(raw));
	rsf_put32(raw, 2);
	rsf_put32(raw + 4, 88);
	rsf_put32(raw + 8, 16);
	memcpy(raw + 16 + 2 * 88, "kvm\0kvm_intel\0\0\0", 16);
	for (int i = 0; i < 2; i++) {
		uint8_t *e = raw + 16 + i * 88;
		rsf_put64(e, 0xffffffffc0000000ull + (uint64_t)i * 0x100000);
		rsf_put64(e + 8, 0x1000);
		rsf_put32(e + 16, i ? 4 : 0);
		rsf_put32(e + 20, 2);
		e[24] = 0xab;
	}
	struct rsf_module *m = NULL;
	size_t n = 0;
	CHECK(rsf_table_decode_modules(raw, sizeof(raw), 2, &m, &n) == NULL);
	CHECK_INT(n, 2);
	if (m && n == 2) {
		CHECK_STR(m[1].name, "kvm_intel");
		CHECK_INT(m[1].base, 0xffffffffc0100000ull);
		CHECK_INT(m[1].build_id_len, 2);
		CHECK_INT(m[1].build_id[0], 0xab);
		CHECK_INT(m[0].nsects, 0);
		CHECK(m[1].sects == NULL);
	}
	free(m);

	struct rsf_modsect bad_sects[] = { { ".text", 0x1000 } };
	struct rsf_module mod = { .name = "x", .sects = bad_sects, .nsects = 1 };
	struct rsf_buf tab = {};
	CHECK(rsf_table_encode_modules(&mod, 1, &tab) == NULL);
	/* corrupt the list: "1000 .text\n" -> "1000_.text\n" */
	char *hit = memmem(tab.data, tab.len, "1000 .text", 10);
	CHECK(hit != NULL);
	if (hit) {
		hit[4] = '_';
		m = NULL;
		const char *e = rsf_table_decode_modules(tab.data, tab.len, 1, &m, &n);
		CHECK(e && strstr(e, "section list"));
		free(m);
	}
	rsf_buf_free(&tab);
}

static void test_mode_0600(void)
{
	struct rsf_meta m;
	struct stat st;
	const char *p = tpath("mode.rsr");

	make_meta(&m);
	mode_t old = umask(0);
	int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0666);   /* an existing, wider file */
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	chmod(p, 0666);
	struct rsf_writer *w = rsf_writer_open(p, &m, NULL, 0, NULL, 0, NULL, 0, errbuf, sizeof(errbuf));
	CHECK(w);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600);
	CHECK_INT(rsf_writer_close(w, NULL), 0);
	unlink(p);
	w = rsf_writer_open(p, &m, NULL, 0, NULL, 0, NULL, 0, errbuf, sizeof(errbuf));
	CHECK(w);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600);
	CHECK_INT(rsf_writer_close(w, NULL), 0);
	umask(old);

	w = rsf_writer_open(tpath("no/such/dir.rsr"), &m, NULL, 0, NULL, 0, NULL, 0, errbuf, sizeof(errbuf));
	CHECK(!w);
	CHECK(one_line(errbuf) && strstr(errbuf, "No such file"));
}

static void make_batch(struct rs_rec_trace_batch *b, uint64_t sess_id, uint32_t n, uint32_t seq0)
{
	memset(b, 0, sizeof(*b));
	b->hdr.type = RS_REC_TRACE_BATCH;
	b->hdr.size = (uint32_t)(offsetof(struct rs_rec_trace_batch, e) + n * sizeof(b->e[0]));
	b->sess_id = sess_id;
	b->n = n;
	for (uint32_t i = 0; i < n; i++) {
		b->e[i].type = i % 2 ? RS_REC_TRACE_EXIT : RS_REC_TRACE_ENTRY;
		b->e[i].seq_id = seq0 + i;
		b->e[i].func_id = 10 + i;
		b->e[i].depth = 1;
		b->e[i].ts = 1000 + i;
		b->e[i].res = i % 2 ? -22 : 0;
		b->e[i].lat_ns = i % 2 ? 77 : 0;
	}
}

/* a writer for a -T recording at p (no tables), or NULL (a failed check) */
static struct rsf_writer *open_trace_writer(const char *p)
{
	struct rsf_meta m;
	struct rsf_writer *w;

	make_meta(&m);
	m.mode = RSF_MODE_STACKS | RSF_MODE_TRACE;
	w = rsf_writer_open(p, &m, NULL, 0, NULL, 0, NULL, 0, errbuf, sizeof(errbuf));
	CHECK(w);
	return w;
}

/* -T (format version 4): TRACE_BATCH records are stored packed and read
 * back as one TRACE_ENTRY/EXIT record per entry, in order, where the batch
 * was; a malformed one (stored as given) is damage, named, after the
 * chunks before it */
static void test_trace_batches(void)
{
	static struct rs_rec_trace_batch b;
	struct rs_rec_session_start st = { .hdr = { .type = RS_REC_SESSION_START, .size = sizeof(st) } };
	const struct rs_rec_hdr *h;
	const char *p = tpath("batches.rsr");
	struct rsf_writer *w = open_trace_writer(p);

	if (!w)
		return;
	st.sess_id = 7;
	CHECK_INT(rsf_writer_add(w, &st, sizeof(st)), 0);
	make_batch(&b, 7, 3, 1);
	CHECK_INT(rsf_writer_add(w, &b, b.hdr.size), 0);
	make_batch(&b, 7, RS_TRACE_BATCH, 4);                   /* a full one */
	CHECK_INT(rsf_writer_add(w, &b, b.hdr.size), 0);
	st.sess_id = 8;
	CHECK_INT(rsf_writer_add(w, &st, sizeof(st)), 0);
	CHECK_INT(rsf_writer_flush(w), 0);
	make_batch(&b, 8, 2, 1);
	b.e[1].type = RS_REC_SESSION_END;                       /* not an entry or exit */
	CHECK_INT(rsf_writer_add(w, &b, b.hdr.size), 0);
	CHECK_INT(rsf_writer_close(w, NULL), 0);

	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (!r)
		return;
	CHECK_INT(rsf_reader_meta(r)->format_version, RSF_FORMAT_V4_PACKED);
	CHECK_INT(rsf_reader_next(r, &h), RSF_OK);
	CHECK_INT(h->type, RS_REC_SESSION_START);
	for (uint32_t i = 0; i < 3 + RS_TRACE_BATCH; i++) {
		const struct rs_rec_trace *tr;
		uint32_t k = i < 3 ? i : i - 3;

		CHECK_INT(rsf_reader_next(r, &h), RSF_OK);
		tr = (const void *)h;
		if (h->size != sizeof(*tr)) {
			CHECK_INT(h->size, sizeof(*tr));
			break;
		}
		CHECK_INT(h->type, k % 2 ? RS_REC_TRACE_EXIT : RS_REC_TRACE_ENTRY);
		CHECK_INT(tr->sess_id, 7);
		CHECK_INT(tr->seq_id, i + 1);
		CHECK_INT(tr->func_id, 10 + k);
		CHECK_INT(tr->ts, 1000 + k);
		CHECK_INT(tr->res, k % 2 ? -22 : 0);
		CHECK_INT(tr->lat_ns, k % 2 ? 77 : 0);
	}
	CHECK_INT(rsf_reader_next(r, &h), RSF_OK);
	CHECK_INT(h->type, RS_REC_SESSION_START);
	CHECK_INT(rsf_reader_next(r, &h), RSF_DAMAGED);
	CHECK(strstr(rsf_reader_error(r), "malformed TRACE_BATCH") != NULL);
	CHECK(one_line(rsf_reader_error(r)));
	rsf_reader_close(r);

	/* a clean stop: the trailer counts records as stored (a batch is
	 * one), so a file with batches reads complete */
	struct rsf_stats s = {};
	uint64_t n = 0;
	enum rsf_status rs;

	p = tpath("batches-ok.rsr");
	w = open_trace_writer(p);
	if (!w)
		return;
	CHECK_INT(rsf_writer_add(w, &st, sizeof(st)), 0);
	make_batch(&b, 8, RS_TRACE_BATCH, 1);
	CHECK_INT(rsf_writer_add(w, &b, b.hdr.size), 0);
	CHECK_INT(rsf_writer_flush(w), 0);
	make_batch(&b, 8, 5, RS_TRACE_BATCH + 1);
	CHECK_INT(rsf_writer_add(w, &b, b.hdr.size), 0);
	CHECK_INT(rsf_writer_close(w, &s), 0);
	r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (!r)
		return;
	while ((rs = rsf_reader_next(r, &h)) == RSF_OK)
		n++;
	CHECK_INT(rs, RSF_END);
	CHECK_INT(n, 1 + RS_TRACE_BATCH + 5);
	CHECK(rsf_reader_complete(r));
	CHECK(rsf_reader_stats(r) && rsf_reader_stats(r)->records_written == 3);
	rsf_reader_close(r);
}

/* packed batches are small (a few bytes an entry) but expand to 56 bytes
 * an entry: the writer starts a new chunk before one would expand past
 * what a reader holds, so thousands of them, more than a 1 MiB chunk's
 * worth expanded, read back whole */
static void test_packed_chunks_expand(void)
{
	static struct rs_rec_trace_batch b;
	const struct rs_rec_hdr *h;
	struct rsf_stats s = {};
	const char *p = tpath("packed-many.rsr");
	const uint32_t nb = 6000;
	uint64_t n = 0, last_seq = 0;
	bool in_order = true;
	enum rsf_status rs;
	struct rsf_writer *w = open_trace_writer(p);

	if (!w)
		return;
	for (uint32_t i = 0; i < nb; i++) {
		make_batch(&b, 9, RS_TRACE_BATCH, 1 + i * RS_TRACE_BATCH);
		if (rsf_writer_add(w, &b, b.hdr.size)) {
			CHECK(!"writer refused a batch");
			break;
		}
	}
	CHECK_INT(rsf_writer_close(w, &s), 0);
	struct stat st;
	CHECK(stat(p, &st) == 0);
	/* packed and compressed: far below the expanded 56 bytes an entry */
	CHECK(st.st_size < (off_t)nb * RS_TRACE_BATCH * 56 / 20);
	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (!r)
		return;
	while ((rs = rsf_reader_next(r, &h)) == RSF_OK) {
		const struct rs_rec_trace *tr = (const void *)h;

		if (h->size != sizeof(*tr) || tr->seq_id != last_seq + 1)
			in_order = false;
		last_seq = tr->seq_id;
		n++;
	}
	CHECK_INT(rs, RSF_END);
	CHECK(in_order);
	CHECK_INT(n, (uint64_t)nb * RS_TRACE_BATCH);
	CHECK(rsf_reader_complete(r));
	/* more than one chunk: one would have expanded past the reader's bound */
	CHECK(rsf_reader_stats(r) && rsf_reader_stats(r)->chunks_written >
	      (uint64_t)nb * RS_TRACE_BATCH * 56 / (RSF_CHUNK_MAX + RSF_CHUNK_MAX / 2));
	rsf_reader_close(r);
}

static void test_add_rejects(void)
{
	struct rsf_meta m;
	const char *p = tpath("rejects.rsr");
	uint8_t buf[REC_BUF_SIZE];

	make_meta(&m);
	struct rsf_writer *w = rsf_writer_open(p, &m, NULL, 0, NULL, 0, NULL, 0, errbuf, sizeof(errbuf));
	CHECK(w);
	if (!w)
		return;
	uint32_t sz = gen_rec(0, buf, true);
	CHECK_INT(rsf_writer_add(w, buf, sz + 8), -1);          /* hdr.size != size */
	CHECK(one_line(rsf_writer_error(w)));
	CHECK_INT(rsf_writer_add(w, buf, sz - 1), -1);
	CHECK_INT(rsf_writer_add(w, buf, 4), -1);               /* shorter than a header */
	CHECK_INT(rsf_writer_add(w, NULL, 16), -1);
	struct rs_rec_hdr tiny = { .type = 1, .size = 4 };
	CHECK_INT(rsf_writer_add(w, &tiny, 4), -1);
	uint8_t *big = calloc(1, RSF_CHUNK_MAX + 8);
	struct rs_rec_hdr hh = { .type = 100, .size = RSF_CHUNK_MAX + 8 };
	memcpy(big, &hh, sizeof(hh));
	CHECK_INT(rsf_writer_add(w, big, RSF_CHUNK_MAX + 8), -1);
	hh.size = RSF_CHUNK_MAX;                                /* the largest allowed */
	memcpy(big, &hh, sizeof(hh));
	CHECK_INT(rsf_writer_add(w, buf, sz), 0);
	CHECK_INT(rsf_writer_add(w, big, RSF_CHUNK_MAX), 0);
	sz = gen_rec(1, buf, true);
	CHECK_INT(rsf_writer_add(w, buf, sz), 0);
	CHECK_INT(rsf_writer_close(w, NULL), 0);

	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (r) {
		const struct rs_rec_hdr *h;
		CHECK_INT(rsf_reader_next(r, &h), RSF_OK);
		CHECK_INT(rsf_reader_next(r, &h), RSF_OK);
		CHECK(h->size == RSF_CHUNK_MAX && memcmp(h, big, RSF_CHUNK_MAX) == 0);
		CHECK_INT(rsf_reader_next(r, &h), RSF_OK);
		CHECK(h->size == sz && memcmp(h, buf, sz) == 0);
		CHECK_INT(rsf_reader_next(r, &h), RSF_END);
		CHECK_INT(rsf_reader_chunks(r), 3);
		rsf_reader_close(r);
	}
	free(big);
}

/* a write error (here EFBIG from RLIMIT_FSIZE, in a child) is reported */
static void test_write_error(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct rsf_meta m;
		struct rlimit rl = { 64 << 10, 64 << 10 };
		uint8_t buf[REC_BUF_SIZE];
		int fails = 0, rc = 0;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		make_meta(&m);
		struct rsf_writer *w = rsf_writer_open(tpath("full.rsr"), &m, NULL, 0, NULL, 0,
						       NULL, 0, errbuf, sizeof(errbuf));
		if (!w)
			_exit(100);
		for (uint64_t i = 0; i < 4000 && !rc; i++) {
			rc = rsf_writer_add(w, buf, gen_rec(i, buf, false));
			if (!rc && i % 100 == 99)
				rc = rsf_writer_flush(w);
		}
		fails += rc != -1;
		fails += !strstr(rsf_writer_error(w), "File too large");
		fails += !one_line(rsf_writer_error(w));
		fails += rsf_writer_add(w, buf, gen_rec(0, buf, false)) != -1;  /* stays failed */
		struct rsf_stats s = {};
		fails += rsf_writer_close(w, &s) != -1;
		fails += !strstr(rsf_writer_error(NULL), "File too large");

		/* not even room for the header */
		rl.rlim_cur = rl.rlim_max = 100;
		setrlimit(RLIMIT_FSIZE, &rl);
		w = rsf_writer_open(tpath("full2.rsr"), &m, NULL, 0, NULL, 0, NULL, 0, errbuf, sizeof(errbuf));
		fails += w != NULL;
		fails += !strstr(errbuf, "File too large");
		_exit(fails);
	}
	int status = -1;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 0);
}

static double secs(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void test_throughput(void)
{
	struct rsf_meta m;
	const char *p = tpath("perf.rsr");
	const uint64_t N = 1000000;
	struct rs_rec_trace t = { .hdr = { RS_REC_TRACE_ENTRY, sizeof(t) } };
	struct timespec t0, t1, t2;
	int fails = 0;

	make_meta(&m);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct rsf_writer *w = rsf_writer_open(p, &m, NULL, 0, NULL, 0, NULL, 0, errbuf, sizeof(errbuf));
	CHECK(w);
	if (!w)
		return;
	for (uint64_t i = 0; i < N; i++) {
		t.hdr.type = i & 1 ? RS_REC_TRACE_EXIT : RS_REC_TRACE_ENTRY;
		t.sess_id = 1000 + i / 64;
		t.ts = 5000000000ull + i * 377;
		t.seq_id = (rs_u32)(i % 64);
		t.func_id = (rs_u32)(mix(i / 2) % 500);
		t.depth = (rs_u16)(i % 64 / 2 + 1);
		t.res = i & 1 ? -(rs_s64)(i % 3) : 0;
		t.lat_ns = i & 1 ? i % 10000 : 0;
		fails += rsf_writer_add(w, &t, sizeof(t)) != 0;
	}
	struct rsf_stats s = {};
	fails += rsf_writer_close(w, &s) != 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK_INT(fails, 0);

	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (!r)
		return;
	const struct rs_rec_hdr *h;
	uint64_t n = 0, sum = 0;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	while (rsf_reader_next(r, &h) == RSF_OK) {
		sum += ((const struct rs_rec_trace *)h)->ts;
		n++;
		lo = (uintptr_t)h < lo ? (uintptr_t)h : lo;
		hi = (uintptr_t)h > hi ? (uintptr_t)h : hi;
	}
	/* streamed: every record of every chunk lives in the same one buffer */
	CHECK(hi - lo < RSF_CHUNK_MAX);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	CHECK_INT(n, N);
	CHECK(rsf_reader_complete(r));
	CHECK_INT(sum, N * 5000000000ull + 377 * (N * (N - 1) / 2));
	printf("perf: %llu records of %zu bytes, %llu chunks, file %.1f MB (%.1fx): "
	       "write %.2f M rec/s, read %.2f M rec/s\n",
	       (unsigned long long)N, sizeof(t), (unsigned long long)rsf_reader_chunks(r),
	       file_size(p) / 1e6, (double)(N * sizeof(t)) / (double)file_size(p),
	       N / secs(&t0, &t1) / 1e6, N / secs(&t1, &t2) / 1e6);
	rsf_reader_close(r);
	unlink(p);
}

/* the drop table of ST as text (caller frees) */
static char *drops_text(const struct rsf_stats *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	rsf_print_drops(f, st);
	fclose(f);
	return buf;
}

#define MISSED_EXPLAINED "(traced calls the kernel ran without retsnoop's BPF program"

/* MISSED PROBES names the attach links that missed, when the kernel said */
static void test_drops_link_misses(void)
{
	struct rsf_stats st = { .prog_misses = 48, .prog_misses_known = 1,
				.prog_misses_entry = 40, .prog_misses_exit = 8 };
	char *t;

	/* -K: the functions by count, the rest summed */
	st.link_misses_known = 1;
	st.link_misses_entry = 9;
	st.link_misses_exit = 3;
	st.link_misses_nfuncs = 3;
	snprintf(st.link_misses_funcs, sizeof(st.link_misses_funcs), "vfs_read=7,ksys_read=3");
	t = drops_text(&st);
	CHECK(strstr(t, "MISSED PROBES:      60 (entry programs 40, exit programs 8; kprobe links: "
		  "vfs_read 7, ksys_read 3, 1 other function 2)\n"));
	CHECK(strstr(t, MISSED_EXPLAINED));
	CHECK(strstr(t, "another BPF program or probe runs"));
	free(t);
	/* -M: the entry and the exit link */
	st.link_misses_nfuncs = 0;
	st.link_misses_funcs[0] = '\0';
	t = drops_text(&st);
	CHECK(strstr(t, "MISSED PROBES:      60 (entry programs 40, exit programs 8; "
		  "kprobe.multi links: entry 9, exit 3)\n"));
	free(t);
	/* kprobe links without their list (several recordings summed) */
	st.link_misses_nfuncs = 5;
	t = drops_text(&st);
	CHECK(strstr(t, "; kprobe links: entry 9, exit 3)\n"));
	free(t);
	st.link_misses_nfuncs = 0;
	/* only the links missed */
	struct rsf_stats links_only = st;
	links_only.prog_misses = links_only.prog_misses_entry = links_only.prog_misses_exit = 0;
	t = drops_text(&links_only);
	CHECK(strstr(t, "WARNING!"));
	CHECK(strstr(t, "MISSED PROBES:      12 (kprobe.multi links: entry 9, exit 3)\n"));
	free(t);
	/* links that missed nothing, or a kernel that does not report them
	 * (counts ignored): the line of before */
	const char *before = "MISSED PROBES:      48 (entry programs 40, exit programs 8)\n";
	for (int k = 0; k < 2; k++) {
		st.link_misses_known = (uint64_t)k;
		st.link_misses_entry = st.link_misses_exit = k ? 0 : 5;
		t = drops_text(&st);
		CHECK(strstr(t, before));
		CHECK(strstr(t, MISSED_EXPLAINED));
		CHECK(!strstr(t, "links"));
		CHECK(!strstr(t, "or probe"));
		free(t);
	}
	/* a malformed list (no "=count") prints no entry, only the sum */
	st.link_misses_known = 1;
	st.link_misses_entry = 4;
	st.link_misses_nfuncs = 2;
	snprintf(st.link_misses_funcs, sizeof(st.link_misses_funcs), "garbage");
	t = drops_text(&st);
	CHECK(strstr(t, "kprobe links: 2 other functions 4)"));
	free(t);
	CHECK(!rsf_print_link_misses(stderr, &(struct rsf_stats){ .link_misses_entry = 1 }));
	/* misses of other programs (-J probes): counted apart and explained */
	struct rsf_stats other = { .prog_misses = 53, .prog_misses_known = 1,
				   .prog_misses_entry = 40, .prog_misses_exit = 8,
				   .prog_misses_probes = 5 };
	t = drops_text(&other);
	CHECK(strstr(t, "MISSED PROBES:      53 (entry programs 40, exit programs 8, "
		  "-J probe programs 5)\n"));
	CHECK(strstr(t, MISSED_EXPLAINED));
	CHECK(strstr(t, "-J probe hits skipped the same way lose only their trace rows"));
	free(t);
	other.prog_misses = 5;
	other.prog_misses_entry = other.prog_misses_exit = 0;
	t = drops_text(&other);
	CHECK(strstr(t, "MISSED PROBES:      5 (-J probe programs 5)\n"));
	CHECK(!strstr(t, MISSED_EXPLAINED));
	free(t);
}

/* the KSYMS string table: a name after its __pfx_ padding symbol is that
 * name's tail, module names are stored once, everything decodes as written */
static void test_ksyms_strings(void)
{
	static const struct rsf_ksym k[] = {
		{ 0x1000, 't', "__pfx_foo", NULL }, { 0x1010, 'T', "foo", NULL },
		{ 0x1100, 't', "__pfx_bar", NULL }, { 0x1110, 't', "baz", NULL },
		{ 0x1200, 't', "__pfx_", NULL }, { 0x1210, 't', "x", NULL },
		{ 0x2000, 't', "__pfx_m", "m1" }, { 0x2010, 't', "m", "m1" },
		{ 0x3000, 'T', "bar", "m2" }, { 0x4000, 'W', "dup", "m1" }, { 0x4010, 'w', "dup", NULL },
	};
	size_t n = sizeof(k) / sizeof(k[0]), got = 0;
	/* __pfx_foo __pfx_bar baz __pfx_ x __pfx_m m1 bar m2 dup dup */
	uint32_t want = 10 + 10 + 4 + 7 + 2 + 8 + 3 + 4 + 3 + 4 + 4;
	struct rsf_buf tab = {};
	struct rsf_ksym *d = NULL;

	CHECK(rsf_table_encode_ksyms(k, n, &tab) == NULL);
	CHECK_INT(rsf_get32(tab.data + 8), want);
	CHECK(rsf_table_decode_ksyms(tab.data, tab.len, (uint32_t)n, &d, &got) == NULL);
	CHECK_INT(got, n);
	for (size_t i = 0; d && i < n && i < got; i++) {
		CHECK(d[i].addr == k[i].addr && d[i].type == k[i].type);
		CHECK(!strcmp(d[i].name, k[i].name));
		CHECK(!d[i].module == !k[i].module);
		CHECK(!k[i].module || (d[i].module && !strcmp(d[i].module, k[i].module)));
	}
	CHECK(d && d[1].name == d[0].name + 6);   /* foo: the tail of __pfx_foo */
	CHECK(d && d[7].module == d[6].module && d[9].module == d[6].module);
	free(d);
	rsf_buf_free(&tab);
}

int main(void)
{
	if (tmpdir_make("test_format"))
		return 1;
	RUN(test_meta_roundtrip);
	RUN(test_tables_roundtrip);
	RUN(test_ksyms_strings);
	RUN(test_records_roundtrip);
	RUN(test_blobs);
	RUN(test_no_trailer);
	RUN(test_truncate_every_offset);
	RUN(test_flip_bytes);
	RUN(test_random_mutations);
	RUN(test_bad_files);
	RUN(test_forward_compat);
	RUN(test_module_table_v0);
	RUN(test_mode_0600);
	RUN(test_add_rejects);
	RUN(test_trace_batches);
	RUN(test_packed_chunks_expand);
	RUN(test_write_error);
	RUN(test_throughput);
	RUN(test_drops_link_misses);
	tmpdir_remove();
	return TEST_REPORT("test_format");
}
