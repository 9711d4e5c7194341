/* record_sink.c - the capture loop's consumer (record_sink.h): -x/-X,
 * file writer, hooks, status line. */
#include "record/record_sink.h"
#include "record/stop_signal.h"
#include "format/rsf_trace_batch.h"
#include <string.h>

void record_sink_init(struct record_sink *s, FILE *log)
{
	s->records = s->filtered = s->sessions = s->finals = 0;
	s->stop_at_s = 0;
	s->stop_after = 0;
	s->write_failed = false;
	s->umaps = NULL;
	s->hold = NULL;
	tty_status_init(&s->status, log);
	s->start_s = tty_status_now();
	s->flushed_s = s->start_s;
}


/* the writer failed (e.g. the disk is full): one line naming the file and
 * the cause, then capturing stops and the probes are detached */
static void write_failed(struct record_sink *s)
{
	if (s->write_failed)
		return;
	s->write_failed = true;
	tty_status_clear(&s->status);
	fprintf(s->status.f, "%s: %s; recording stopped\n", s->prog, rsf_writer_error(s->w));
	stop_request();
}

/* the file is flushed at least once a second (at most that much is lost
 * to a SIGKILL): on the capture loop's tick, and from here while one poll
 * keeps draining a flood (a slow consumer, the live tool rendering, may
 * stay in one poll for long) */
#define FLUSH_EVERY_S 1.0
#define FLUSH_CHECK_RECORDS 256

static void flush_file(struct record_sink *s)
{
	s->flushed_s = tty_status_now();
	if (s->w && rsf_writer_flush(s->w))
		write_failed(s);
}

static int emit(struct record_sink *s, const void *rec, uint32_t size)
{
	s->records++;
	if (s->w && rsf_writer_add(s->w, rec, size)) {
		write_failed(s);
		return -1;
	}
	if (s->w && s->records % FLUSH_CHECK_RECORDS == 0 &&
	    tty_status_now() - s->flushed_s >= FLUSH_EVERY_S)
		flush_file(s);
	if (s->hooks && s->hooks->on_record) {
		/* the hook may print a session: never mix it with the status line */
		tty_status_clear(&s->status);
		/* -T batches reach the renderer as a file's reader hands them out */
		if (((const struct rs_rec_hdr *)rec)->type == RS_REC_TRACE_BATCH) {
			int r = rsf_trace_batch_expand(rec, size, s->hooks->on_record, s->hooks->ctx);

			return r > 0 ? -1 : r;   /* malformed: capture.c let none through */
		}
		return s->hooks->on_record(s->hooks->ctx, rec, size);
	}
	return 0;
}

/* a stop condition was met: said once on the log, then the capture stops */
static void stop_for(struct record_sink *s, const char *why)
{
	if (stop_requested())
		return;
	tty_status_clear(&s->status);
	fprintf(s->status.f, "%s: %s; stopping\n", s->prog, why);
	stop_request();
}

static void on_status(void *ctx)
{
	struct record_sink *s = ctx;
	struct rs_bpf_stats bs;
	char line[160];
	double now = tty_status_now();

	if (s->stop_at_s && now >= s->stop_at_s)
		stop_for(s, "the --duration time is up");
	if (!s->status.enabled)
		return;
	tracer_stats(s->tr, &bs);
	tty_status_format(line, sizeof(line), s->sessions,
			  bs.sessions_dropped + bs.sessions_table_full, bs.sessions_incomplete,
			  now - s->start_s);
	tty_status_show(&s->status, line, now, false);
}

static uint32_t sel_flags(void *ctx, uint32_t id)
{
	const struct selection *sel = ctx;

	return id < sel->n ? sel->v[id].flags : 0;
}

static int emit_rec(void *ctx, const struct rs_rec_hdr *rec, uint32_t size)
{
	return emit(ctx, rec, size);
}

/* -U: a process's mappings go into the file before its first USTACK (and
 * with -T before its first session starts), again when they changed */
static int note_process(struct record_sink *s, const struct rs_rec_hdr *rec, size_t size)
{
	const struct rs_rec_ustack *us = (const void *)rec;
	const struct rs_rec_session_start *st = (const void *)rec;

	if (rec->type == RS_REC_USTACK && size >= sizeof(*us) &&
	    us->stack_len <= size - sizeof(*us))
		return umaps_on_ustack(s->umaps, us, emit_rec, s);
	if (rec->type == RS_REC_SESSION_START && size >= sizeof(*st))
		return umaps_on_pid(s->umaps, st->pid, emit_rec, s);
	return 0;
}

static int on_record(void *ctx, const struct rs_rec_hdr *rec, size_t size)
{
	struct record_sink *s = ctx;
	const struct rs_rec_session_end *end = (const void *)rec;
	struct rs_rec_session_end full, copy;

	if (s->umaps && note_process(s, rec, size) < 0)
		return -1;
	if (s->hold && rec->type == RS_REC_USTACK && size >= sizeof(struct rs_rec_ustack))
		return ustack_hold_put(s->hold, rec, (uint32_t)size, emit_rec, s);

	if (rec->type != RS_REC_SESSION_END || size < offsetof(struct rs_rec_session_end, frames) ||
	    size > sizeof(copy) || (end->flags & RS_SESS_IGNORED))
		return emit(s, rec, (uint32_t)size);
	/* past --stop-after N, sessions still draining from the ring buffer
	 * are kept as ignored: the recording holds exactly N */
	bool over = s->stop_after && s->finals >= s->stop_after;
	if (!over && err_filter_active(s->errs))
		rsf_end_expand(rec, &full);   /* compact records too */
	if (over || (err_filter_active(s->errs) &&
		     !err_filter_keep(s->errs, &full, sel_flags, (void *)s->sel))) {
		/* keep the record so trace data is freed, but mark it filtered */
		memcpy(&copy, end, size);
		copy.flags |= RS_SESS_IGNORED;
		s->filtered += !over;
		if (s->hold && ustack_hold_end(s->hold, end->sess_id, false, emit_rec, s) < 0)
			return -1;
		return emit(s, &copy, (uint32_t)size);
	}
	s->sessions++;
	if (s->hold && ustack_hold_end(s->hold, end->sess_id, true, emit_rec, s) < 0)
		return -1;
	int ret = emit(s, rec, (uint32_t)size);
	if (!(end->flags & RS_SESS_INTERIM) && ++s->finals == s->stop_after) {
		char why[96];

		snprintf(why, sizeof(why), "%llu session%s recorded (--stop-after)",
			 (unsigned long long)s->finals, s->finals == 1 ? "" : "s");
		stop_for(s, why);
	}
	return ret;
}

static void on_tick(void *ctx)
{
	flush_file(ctx);
}

struct capture_sink record_sink_callbacks(struct record_sink *s)
{
	return (struct capture_sink){ .on_record = on_record, .on_tick = on_tick,
				      .on_status = on_status, .ctx = s };
}
