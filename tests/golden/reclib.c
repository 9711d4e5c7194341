/* reclib.c - record building for the synthetic recording generators
 * (reclib.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reclib.h"

const char *rb_prog = "mkrec";
struct rs_rec_session_end rb_e;

void rb_meta(struct rsf_meta *m, const char *cmdline, const char *release,
	     const char *release_version, const char *host, uint64_t text_addr,
	     int64_t mono_to_real, const char *attach_mode, uint64_t features, uint64_t mode)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->recorder_version, sizeof(m->recorder_version), "0.1-golden");
	snprintf(m->cmdline, sizeof(m->cmdline), "%s", cmdline);
	snprintf(m->uts_release, sizeof(m->uts_release), "%s", release);
	if (release_version)
		snprintf(m->uts_version, sizeof(m->uts_version), "%s", release_version);
	snprintf(m->uts_machine, sizeof(m->uts_machine), "x86_64");
	if (host)
		snprintf(m->hostname, sizeof(m->hostname), "%s", host);
	m->text_addr = m->stext_addr = text_addr;
	m->mono_to_realtime_ns = mono_to_real;
	snprintf(m->attach_mode, sizeof(m->attach_mode), "%s", attach_mode);
	m->features = features;
	m->mode = mode;
}

struct rsf_writer *rb_open(const char *path, const struct rsf_meta *m,
			   const struct rsf_ksym *ks, size_t nks,
			   const struct rsf_module *mods, size_t nmods,
			   const struct rsf_func *fn, size_t nfn)
{
	char err[256];
	struct rsf_writer *w = rsf_writer_open(path, m, ks, nks, mods, nmods, fn, nfn, err, sizeof(err));

	if (!w) {
		fprintf(stderr, "%s: %s\n", rb_prog, err);
		exit(1);
	}
	return w;
}

/* -T records as the recorder stores them: a run of one session's entries
 * and exits is one TRACE_BATCH (up to RS_TRACE_BATCH), written before the
 * next other record, at a session change and at close; readers hand out
 * the same records as before */
static struct rs_rec_trace_batch pending;

static void add_rec(struct rsf_writer *w, const void *rec, uint32_t size)
{
	if (rsf_writer_add(w, rec, size)) {
		fprintf(stderr, "%s: add failed: %s\n", rb_prog, rsf_writer_error(w));
		exit(1);
	}
}

static void flush_batch(struct rsf_writer *w)
{
	if (!pending.n)
		return;
	pending.hdr.type = RS_REC_TRACE_BATCH;
	pending.hdr.size = (uint32_t)(offsetof(struct rs_rec_trace_batch, e) +
				      pending.n * sizeof(pending.e[0]));
	add_rec(w, &pending, pending.hdr.size);
	pending.n = 0;
}

void rb_add(struct rsf_writer *w, const void *rec, uint32_t size)
{
	flush_batch(w);
	add_rec(w, rec, size);
}

void rb_close(struct rsf_writer *w, const struct rsf_stats *st)
{
	flush_batch(w);
	if (rsf_writer_close(w, st)) {
		fprintf(stderr, "%s: close failed: %s\n", rb_prog, rsf_writer_error(NULL));
		exit(1);
	}
}

static void put_comm(char *dst, const char *src)
{
	memcpy(dst, src, strnlen(src, RS_TASK_COMM_LEN));
}

void rb_begin(uint64_t sess_id, uint32_t tid, uint32_t pid, const char *tcomm, const char *pcomm,
	      uint64_t start_ts, uint64_t end_ts, uint32_t flags)
{
	memset(&rb_e, 0, sizeof(rb_e));
	rb_e.hdr.type = RS_REC_SESSION_END;
	rb_e.hdr.size = sizeof(rb_e);
	rb_e.sess_id = sess_id;
	rb_e.tid = tid;
	rb_e.pid = pid;
	put_comm(rb_e.task_comm, tcomm);
	put_comm(rb_e.proc_comm, pcomm);
	rb_e.start_ts = start_ts;
	rb_e.end_ts = end_ts;
	rb_e.flags = flags;
}

void rb_frame(uint32_t func_id, int64_t res, uint64_t lat_ns)
{
	struct rs_frame *f = &rb_e.frames[rb_e.nframes];

	f->func_id = func_id;
	f->seq_id = rb_e.nframes;
	f->res = res;
	f->lat_ns = lat_ns;
	rb_e.nframes++;
}

void rb_kframe(uint64_t addr)
{
	rb_e.kstack[rb_e.kstack_sz / 8] = addr;
	rb_e.kstack_sz += 8;
}

/* RB_COMPACT=1: the compact SESSION_END layout the BPF side writes
 * (frames[nframes] then kstack_sz bytes), else the full struct */
void rb_emit(struct rsf_writer *w)
{
	static uint8_t buf[sizeof(rb_e)];
	size_t fixed = offsetof(struct rs_rec_session_end, frames);
	size_t fb = rb_e.nframes * sizeof(rb_e.frames[0]);
	size_t kb = rb_e.kstack_sz > 0 ? (size_t)rb_e.kstack_sz : 0;
	const char *c = getenv("RB_COMPACT");
	struct rs_rec_hdr h = rb_e.hdr;

	if (!c || strcmp(c, "1") || fixed + fb + kb >= sizeof(rb_e)) {
		rb_add(w, &rb_e, rb_e.hdr.size);
		return;
	}
	h.size = (uint32_t)(fixed + fb + kb);
	memcpy(buf, &rb_e, fixed);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + fixed, rb_e.frames, fb);
	memcpy(buf + fixed + fb, rb_e.kstack, kb);
	rb_add(w, buf, h.size);
}

void rb_start(struct rsf_writer *w, uint64_t sess, uint32_t tid, uint32_t pid,
	      const char *tcomm, const char *pcomm, uint64_t start_ts)
{
	struct rs_rec_session_start s;

	memset(&s, 0, sizeof(s));
	s.hdr.type = RS_REC_SESSION_START;
	s.hdr.size = sizeof(s);
	s.sess_id = sess;
	s.tid = tid;
	s.pid = pid;
	s.start_ts = start_ts;
	put_comm(s.task_comm, tcomm);
	put_comm(s.proc_comm, pcomm);
	rb_add(w, &s, sizeof(s));
}

void rb_trace(struct rsf_writer *w, uint64_t sess, bool exit_rec, uint64_t ts, uint32_t seq,
	      uint32_t func_id, unsigned depth, int64_t res, uint64_t lat_ns)
{
	struct rs_trace_ent *e;

	if (pending.n && (pending.sess_id != sess || pending.n == RS_TRACE_BATCH))
		flush_batch(w);
	e = &pending.e[pending.n++];
	memset(e, 0, sizeof(*e));
	pending.sess_id = sess;
	e->type = exit_rec ? RS_REC_TRACE_EXIT : RS_REC_TRACE_ENTRY;
	e->ts = ts;
	e->seq_id = seq;
	e->func_id = func_id;
	e->depth = (uint16_t)depth;
	e->res = exit_rec ? res : 0;
	e->lat_ns = exit_rec ? lat_ns : 0;
}

void rb_lbr(struct rsf_writer *w, uint64_t sess, const uint64_t (*pairs)[2], int n, int err)
{
	struct rs_rec_lbr l;

	memset(&l, 0, sizeof(l));
	l.hdr.type = RS_REC_LBR;
	l.hdr.size = sizeof(l);
	l.sess_id = sess;
	l.lbrs_sz = err ? err : n * (int)sizeof(l.lbrs[0]);
	for (int i = 0; i < n; i++) {
		l.lbrs[i].from = pairs[i][0];
		l.lbrs[i].to = pairs[i][1];
	}
	rb_add(w, &l, sizeof(l));
}
