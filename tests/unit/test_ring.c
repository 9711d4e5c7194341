/* test_ring.c - unit tests of flight recordings (format version 2, a ring
 * of chunks capped at rsf_meta.max_size): round trip without a wrap, many
 * wraps (file size never above the cap, the newest records kept in order,
 * what was overwritten counted), traced sessions and -B sessions whose LBR
 * record was overwritten cut by the wrap dropped whole and counted, SIGKILL of a writer at random moments (every flushed
 * chunk still read, no damage), files cut at many offsets or with bytes
 * flipped (in order, never a crash), too-small caps
 * and unknown file flags refused. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "format/rsfile.h"
#include "format/rsf_internal.h"
#include "testlib.h"
#include "test_tmpdir.h"

static char errbuf[512];

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* record I: type 100 with I and incompressible bytes, every 10th a final
 * SESSION_END (sess_id I) so that overwritten sessions can be counted */
#define TYPE_PLAIN 100
static uint32_t gen(uint64_t i, uint8_t *buf)
{
	if (i % 10 == 9) {
		struct rs_rec_session_end *e = (void *)buf;

		memset(e, 0, sizeof(*e));
		e->hdr = (struct rs_rec_hdr){ RS_REC_SESSION_END, sizeof(*e) };
		e->sess_id = i;
		e->start_ts = i;
		return sizeof(*e);
	}
	uint32_t size = 16 + (uint32_t)(mix(i) % 200);
	uint64_t x = i;

	for (uint32_t k = 16; k < size; k++) {
		if (k % 8 == 0)
			x = mix(x);
		buf[k] = (uint8_t)(x >> (k % 8 * 8));
	}
	((struct rs_rec_hdr *)buf)->type = TYPE_PLAIN;
	((struct rs_rec_hdr *)buf)->size = size;
	memcpy(buf + 8, &i, 8);
	return size;
}

static uint64_t rec_index(const struct rs_rec_hdr *h)
{
	uint64_t i;

	memcpy(&i, (const uint8_t *)h + 8, 8);
	return i;
}

static struct rsf_writer *open_ring(const char *path, uint64_t max_size, uint32_t mode)
{
	struct rsf_meta m = { .max_size = max_size, .mode = mode };

	snprintf(m.hostname, sizeof(m.hostname), "ring-host");
	return rsf_writer_open(path, &m, NULL, 0, NULL, 0, NULL, 0, errbuf, sizeof(errbuf));
}

/* reads every record, checks they are I, I+1, ... ; returns the count,
 * *first the first index, *st the final status */
static uint64_t read_seq(struct rsf_reader *r, uint64_t *first, enum rsf_status *st, int *bad)
{
	const struct rs_rec_hdr *h;
	uint64_t n = 0, next = 0;

	while ((*st = rsf_reader_next(r, &h)) == RSF_OK) {
		uint64_t i = rec_index(h);

		if (n == 0)
			*first = i;
		else if (i != next)
			(*bad)++;
		next = i + 1;
		n++;
	}
	return n;
}

static void test_ring_no_wrap(void)
{
	const char *p = tpath("nowrap.rsr");
	uint8_t buf[sizeof(struct rs_rec_session_end)];
	struct rsf_writer *w = open_ring(p, 4 << 20, 0);
	int fails = 0;

	CHECK(w);
	if (!w)
		return;
	for (uint64_t i = 0; i < 500; i++) {
		fails += rsf_writer_add(w, buf, gen(i, buf)) != 0;
		if (i % 50 == 49)
			fails += rsf_writer_flush(w) != 0;
	}
	struct rsf_stats s = { .bpf.sessions_emitted = 50 };
	fails += rsf_writer_close(w, &s) != 0;
	CHECK_INT(fails, 0);

	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (!r)
		return;
	const struct rsf_ring_info *ri = rsf_reader_ring(r);
	uint64_t first = 99;
	enum rsf_status st;
	int bad = 0;

	CHECK_INT(rsf_reader_meta(r)->format_version, 2);
	CHECK_INT(rsf_reader_meta(r)->max_size, 4 << 20);
	CHECK_STR(rsf_reader_meta(r)->hostname, "ring-host");
	CHECK_INT(read_seq(r, &first, &st, &bad), 500);
	CHECK_INT(first, 0);
	CHECK_INT(bad, 0);
	CHECK_INT(st, RSF_END);
	CHECK(rsf_reader_complete(r));
	CHECK_INT(ri->max_size, 4 << 20);
	CHECK_INT(ri->chunks_lost + ri->bytes_lost + ri->records_lost + ri->sessions_lost, 0);
	CHECK(rsf_reader_stats(r) && rsf_reader_stats(r)->records_written == 500);
	CHECK(rsf_reader_stats(r) && rsf_reader_stats(r)->bpf.sessions_emitted == 50);
	rsf_reader_close(r);
}

/* writes N records into a ring of MAX bytes, flushing every PER records;
 * the file size is checked after every flush */
static int write_wrapped(const char *p, uint64_t max, uint64_t n, int per, uint64_t *biggest)
{
	uint8_t buf[sizeof(struct rs_rec_session_end)];
	struct rsf_writer *w = open_ring(p, max, 0);
	int fails = 0;

	if (!w)
		return 1;
	*biggest = 0;
	for (uint64_t i = 0; i < n; i++) {
		fails += rsf_writer_add(w, buf, gen(i, buf)) != 0;
		if (i % (uint64_t)per == (uint64_t)per - 1) {
			fails += rsf_writer_flush(w) != 0;
			if (file_size(p) > *biggest)
				*biggest = file_size(p);
		}
	}
	struct rsf_stats s = {};
	fails += rsf_writer_close(w, &s) != 0;
	if (file_size(p) > *biggest)
		*biggest = file_size(p);
	return fails;
}

static void test_ring_wrap(void)
{
	const char *p = tpath("wrap.rsr");
	const uint64_t N = 40000, MAX = 200 << 10;
	uint64_t biggest;

	CHECK_INT(write_wrapped(p, MAX, N, 37, &biggest), 0);
	CHECK(biggest <= MAX);
	CHECK(biggest + MAX / 4 > MAX);       /* it did fill the ring */

	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (!r)
		return;
	const struct rsf_ring_info *ri = rsf_reader_ring(r);
	uint64_t first = 0;
	enum rsf_status st;
	int bad = 0;
	uint64_t n = read_seq(r, &first, &st, &bad);

	CHECK_INT(bad, 0);
	CHECK_INT(st, RSF_END);
	CHECK(rsf_reader_complete(r));
	CHECK(n > 100 && n < N / 4);
	CHECK_INT(first + n, N);                /* the newest are kept, up to the last */
	CHECK_INT(ri->records_lost, first);
	CHECK_INT(ri->sessions_lost, (first + 0) / 10);   /* indices 9, 19, ... < first */
	CHECK(ri->chunks_lost > 100);
	CHECK(ri->bytes_lost > 4 * MAX);
	CHECK_INT(ri->chunks_missing, 0);
	CHECK_INT(ri->sessions_cut, 0);         /* not a -T recording */
	const struct rsf_stats *s = rsf_reader_stats(r);
	CHECK(s && s->records_written == N);
	CHECK(s && s->chunks_written == ri->chunks_lost + rsf_reader_chunks(r));
	rsf_reader_close(r);
}

/* -T sessions of 4 interleaved threads; the wrap cuts some of them */
static void test_ring_cut_sessions(void)
{
	const char *p = tpath("cut.rsr");
	struct rsf_writer *w = open_ring(p, 160 << 10, RSF_MODE_TRACE | RSF_MODE_STACKS);
	uint64_t finals = 0, k = 0;
	int fails = 0;

	CHECK(w);
	if (!w)
		return;
	for (int round = 0; round < 3000; round++) {
		uint64_t tid = 1000 + round % 4;
		int phase = round / 4 % 8;      /* each thread: start, 6 traces, end */
		union { struct rs_rec_session_start s; struct rs_rec_trace t;
			struct rs_rec_session_end e; } u;

		memset(&u, 0, sizeof(u));
		if (phase == 0) {
			u.s.hdr = (struct rs_rec_hdr){ RS_REC_SESSION_START, sizeof(u.s) };
			u.s.sess_id = tid;
		} else if (phase < 7) {
			u.t.hdr = (struct rs_rec_hdr){ RS_REC_TRACE_ENTRY, sizeof(u.t) };
			u.t.sess_id = tid;
			u.t.ts = mix(k);
			u.t.lat_ns = mix(k + 1);
		} else {
			u.e.hdr = (struct rs_rec_hdr){ RS_REC_SESSION_END, sizeof(u.e) };
			u.e.sess_id = tid;
			for (int f = 0; f < RS_MAX_FSTACK_DEPTH; f++)
				u.e.frames[f].lat_ns = mix(k + (uint64_t)f);
			finals++;
		}
		fails += rsf_writer_add(w, &u, u.s.hdr.size) != 0;
		if (++k % 7 == 0)
			fails += rsf_writer_flush(w) != 0;
	}
	fails += rsf_writer_close(w, &(struct rsf_stats){}) != 0;
	CHECK_INT(fails, 0);

	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (!r)
		return;
	const struct rs_rec_hdr *h;
	bool open[4] = {};
	uint64_t got_finals = 0, orphans = 0;
	enum rsf_status st;

	while ((st = rsf_reader_next(r, &h)) == RSF_OK) {
		uint64_t id;

		memcpy(&id, (const uint8_t *)h + 8, 8);
		int t = (int)(id - 1000);
		if (t < 0 || t > 3)
			continue;
		if (h->type == RS_REC_SESSION_START)
			open[t] = true;
		else if (!open[t])
			orphans++;              /* a record of a session never started */
		if (h->type == RS_REC_SESSION_END) {
			got_finals++;
			open[t] = false;
		}
	}
	const struct rsf_ring_info *ri = rsf_reader_ring(r);
	CHECK_INT(st, RSF_END);
	CHECK(rsf_reader_complete(r));
	CHECK_INT(orphans, 0);
	CHECK(ri->chunks_lost > 0);
	CHECK(ri->sessions_cut > 0);
	CHECK(ri->sessions_cut <= 4);
	CHECK_INT(ri->sessions_lost + ri->sessions_cut + got_finals, finals);
	rsf_reader_close(r);
}

/* -B without -T: each END follows its LBR record; a wrap between them
 * cuts the session, which is dropped and counted */
static void test_ring_cut_lbr(void)
{
	const char *p = tpath("cut-lbr.rsr");
	struct rsf_writer *w = open_ring(p, 96 << 10, RSF_MODE_LBR | RSF_MODE_STACKS);
	uint64_t finals = 0, k = 0;
	int fails = 0;

	CHECK(w);
	if (!w)
		return;
	for (uint64_t i = 0; i < 1200; i++) {
		/* two threads: LBR a, LBR b, END a, END b */
		for (int half = 0; half < 2; half++)
			for (uint64_t t = 0; t < 2; t++) {
				union { struct rs_rec_lbr l; struct rs_rec_session_end e; } u;

				memset(&u, 0, sizeof(u));
				if (!half) {
					u.l.hdr = (struct rs_rec_hdr){ RS_REC_LBR, sizeof(u.l) };
					u.l.sess_id = 500 + t;
					u.l.lbrs[0].from = mix(k);
				} else {
					u.e.hdr = (struct rs_rec_hdr){ RS_REC_SESSION_END, sizeof(u.e) };
					u.e.sess_id = 500 + t;
					u.e.frames[0].lat_ns = mix(k);
					finals++;
				}
				fails += rsf_writer_add(w, &u, u.l.hdr.size) != 0;
				/* every chunk is LBR b, END a, END b, LBR a: the first
				 * chunk kept starts with an END a whose LBR is lost */
				if (++k % 4 == 1)
					fails += rsf_writer_flush(w) != 0;
			}
	}
	fails += rsf_writer_close(w, &(struct rsf_stats){}) != 0;
	CHECK_INT(fails, 0);

	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (!r)
		return;
	const struct rs_rec_hdr *h;
	bool have_lbr[2] = {};
	uint64_t got = 0, without_lbr = 0;
	enum rsf_status st;

	while ((st = rsf_reader_next(r, &h)) == RSF_OK) {
		uint64_t id;

		memcpy(&id, (const uint8_t *)h + 8, 8);
		if (id < 500 || id > 501)
			continue;
		if (h->type == RS_REC_LBR) {
			have_lbr[id - 500] = true;
		} else if (h->type == RS_REC_SESSION_END) {
			without_lbr += !have_lbr[id - 500];
			have_lbr[id - 500] = false;
			got++;
		}
	}
	const struct rsf_ring_info *ri = rsf_reader_ring(r);
	CHECK_INT(st, RSF_END);
	CHECK(rsf_reader_complete(r));
	CHECK(ri->chunks_lost > 0);
	CHECK_INT(without_lbr, 0);
	CHECK_INT(ri->sessions_cut, 1);
	CHECK_INT(ri->sessions_lost + ri->sessions_cut + got, finals);
	rsf_reader_close(r);
}

/* a writer that never stops, killed at a random moment; says on READY
 * once it has wrapped the ring many times */
static void writer_forever(const char *p, int ready)
{
	uint8_t buf[sizeof(struct rs_rec_session_end)];
	struct rsf_writer *w = open_ring(p, 96 << 10, 0);

	if (!w)
		_exit(3);
	for (uint64_t i = 0;; i++) {
		if (rsf_writer_add(w, buf, gen(i, buf)))
			_exit(4);
		if (i % 13 == 12 && rsf_writer_flush(w))
			_exit(5);
		if (i == 6000 && write(ready, "r", 1) != 1)
			_exit(6);
	}
}

static void test_ring_sigkill(void)
{
	int bad_runs = 0, wrapped = 0;

	for (int run = 0; run < 24; run++) {
		const char *p = tpath("killed.rsr");
		int pfd[2];
		char c;

		CHECK(pipe(pfd) == 0);
		pid_t pid = fork();
		if (pid == 0)
			writer_forever(p, pfd[1]);
		close(pfd[1]);
		CHECK(read(pfd[0], &c, 1) == 1);
		close(pfd[0]);
		struct timespec ts = { 0, (long)(mix((uint64_t)run) % 40000) * 1000L };
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		int status;
		waitpid(pid, &status, 0);
		CHECK(WIFSIGNALED(status));
		CHECK(file_size(p) <= 96 << 10);

		struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
		CHECK(r);
		if (!r) {
			fprintf(stderr, "  %s\n", errbuf);
			continue;
		}
		uint64_t first = 0;
		enum rsf_status st;
		int bad = 0;
		uint64_t n = read_seq(r, &first, &st, &bad);
		const struct rsf_ring_info *ri = rsf_reader_ring(r);

		if (bad || st != RSF_END || n == 0 || first != ri->records_lost) {
			fprintf(stderr, "  run %d: %llu records from %llu, status %d, %d out of order, "
				"lost %llu: %s\n", run, (unsigned long long)n,
				(unsigned long long)first, st, bad,
				(unsigned long long)ri->records_lost, rsf_reader_error(r));
			bad_runs++;
		}
		wrapped += ri->chunks_lost > 0;
		CHECK(!rsf_reader_complete(r));
		rsf_reader_close(r);
		unlink(p);
	}
	CHECK_INT(bad_runs, 0);
	CHECK_INT(wrapped, 24);                 /* every kill came after wraps */
}

/* a wrapped file cut anywhere: opens or fails with one line; what it reads
 * is in order; never a crash */
static void test_ring_truncated(void)
{
	const char *p = tpath("trunc-src.rsr"), *q = tpath("trunc.rsr");
	uint64_t biggest;

	CHECK_INT(write_wrapped(p, 100 << 10, 8000, 29, &biggest), 0);
	uint64_t size = file_size(p);
	int fd = open(p, O_RDONLY);
	uint8_t *data = malloc(size);
	CHECK(fd >= 0 && data && read(fd, data, size) == (ssize_t)size);
	close(fd);
	int opened = 0, bad_total = 0;
	uint64_t full_first = 0, full_n = 0;
	struct rsf_reader *whole = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(whole);
	if (whole) {
		enum rsf_status st;
		int bad = 0;
		full_n = read_seq(whole, &full_first, &st, &bad);
		CHECK(rsf_reader_complete(whole));
		rsf_reader_close(whole);
	}

	for (uint64_t cut = 0; cut < size; cut += 211) {
		int out = open(q, O_CREAT | O_TRUNC | O_WRONLY, 0600);
		CHECK(out >= 0 && write(out, data, cut) == (ssize_t)cut);
		close(out);
		struct rsf_reader *r = rsf_reader_open(q, errbuf, sizeof(errbuf));
		if (!r) {
			CHECK(strchr(errbuf, '\n') == NULL && errbuf[0]);
			continue;
		}
		opened++;
		uint64_t first = 0;
		enum rsf_status st;
		int bad = 0;
		uint64_t n = read_seq(r, &first, &st, &bad);
		bad_total += bad;
		CHECK(st == RSF_END || st == RSF_DAMAGED);
		/* complete only when the cut took nothing but stale bytes */
		if (rsf_reader_complete(r)) {
			CHECK_INT(n, full_n);
			CHECK_INT(first, full_first);
		}
		rsf_reader_close(r);
	}
	free(data);
	CHECK(opened > 100);
	CHECK_INT(bad_total, 0);
}

/* a wrapped file with bytes flipped anywhere after its header: it opens
 * (or fails with one line), what it reads is in order, never a crash */
static void test_ring_flipped(void)
{
	const char *p = tpath("flip-src.rsr"), *q = tpath("flip.rsr");
	uint64_t biggest;

	CHECK_INT(write_wrapped(p, 100 << 10, 6000, 23, &biggest), 0);
	uint64_t size = file_size(p);
	int fd = open(p, O_RDONLY);
	uint8_t *data = malloc(size), *copy = malloc(size);
	CHECK(fd >= 0 && data && copy && read(fd, data, size) == (ssize_t)size);
	close(fd);
	int bad_total = 0, opened = 0;

	for (uint64_t it = 0; it < 400; it++) {
		memcpy(copy, data, size);
		for (int k = 0; k < 1 + (int)(it % 4); k++) {
			uint64_t x = mix(it * 7 + (uint64_t)k);
			uint64_t pos = size / 3 + x % (size - size / 3);   /* the ring, mostly */
			copy[pos] ^= (uint8_t)(1u << (x >> 32) % 8);
		}
		int out = open(q, O_CREAT | O_TRUNC | O_WRONLY, 0600);
		CHECK(out >= 0 && write(out, copy, size) == (ssize_t)size);
		close(out);
		struct rsf_reader *r = rsf_reader_open(q, errbuf, sizeof(errbuf));
		if (!r) {
			CHECK(strchr(errbuf, '\n') == NULL && errbuf[0]);
			continue;
		}
		opened++;
		uint64_t first = 0;
		enum rsf_status st;
		int bad = 0;
		read_seq(r, &first, &st, &bad);
		bad_total += bad;
		CHECK(st == RSF_END || st == RSF_DAMAGED);
		rsf_reader_close(r);
	}
	free(data);
	free(copy);
	CHECK(opened > 300);
	CHECK_INT(bad_total, 0);
}

static void test_ring_refusals(void)
{
	const char *p = tpath("small.rsr");
	struct rsf_writer *w = open_ring(p, 32 << 10, 0);

	CHECK(w == NULL);
	CHECK(strstr(errbuf, "too small") != NULL);
	CHECK(access(p, F_OK) != 0);            /* nothing left behind */

	/* unknown file flags in a version-2 header */
	w = open_ring(p, 1 << 20, 0);
	CHECK(w);
	if (!w)
		return;
	rsf_writer_close(w, NULL);
	int fd = open(p, O_RDWR);
	struct rsf_file_hdr fh;
	CHECK(fd >= 0 && pread(fd, &fh, sizeof(fh), 0) == sizeof(fh));
	CHECK_INT(fh.version, 2);
	CHECK_INT(fh.flags, RSF_FILE_RING);
	fh.flags |= 0x10;
	fh.crc = rsf_hdr_crc(&fh, sizeof(fh));
	CHECK(pwrite(fd, &fh, sizeof(fh), 0) == sizeof(fh));
	close(fd);
	CHECK(rsf_reader_open(p, errbuf, sizeof(errbuf)) == NULL);
	CHECK(strstr(errbuf, "unsupported file flags 0x11") != NULL);
}

/* an unbounded recording is still written as version 1 */
static void test_plain_stays_v1(void)
{
	const char *p = tpath("plain.rsr");
	struct rsf_writer *w = open_ring(p, 0, 0);

	CHECK(w);
	if (!w)
		return;
	CHECK_INT(rsf_writer_close(w, &(struct rsf_stats){}), 0);
	struct rsf_reader *r = rsf_reader_open(p, errbuf, sizeof(errbuf));
	CHECK(r);
	if (!r)
		return;
	CHECK_INT(rsf_reader_meta(r)->format_version, 1);
	CHECK_INT(rsf_reader_ring(r)->max_size, 0);
	rsf_reader_close(r);
}

int main(void)
{
	if (tmpdir_make("test_ring"))
		return 1;
	RUN(test_ring_no_wrap);
	RUN(test_ring_wrap);
	RUN(test_ring_cut_sessions);
	RUN(test_ring_cut_lbr);
	RUN(test_ring_sigkill);
	RUN(test_ring_truncated);
	RUN(test_ring_flipped);
	RUN(test_ring_refusals);
	RUN(test_plain_stays_v1);
	tmpdir_remove();
	return TEST_REPORT("test_ring");
}
