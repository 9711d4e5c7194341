/* capture.c - the ring-buffer polling loop (capture.h). */
#include "record/capture.h"
#include "record/stop_signal.h"
#include "format/rsf_trace_batch.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned long bad_records;

unsigned long capture_bad_records(void)
{
	return bad_records;
}

struct rb_ctx {
	const struct capture_sink *sink;
	int err;
	unsigned int burst;   /* records handled since the loop last had control */
	bool yielded;         /* the last consume ended early on RB_BURST */
};

/* records one consume handles before it gives the loop control back (a
 * stop, the child's exit, the status line): libbpf's consume goes on while
 * records keep coming, and a producer that keeps pace with the reader
 * (sessions of what the reader's own output makes another process do)
 * would keep it going, Ctrl-C unanswered. The callback's error return
 * ends it, the record already taken */
#define RB_BURST 4096
#define RB_YIELD (-EAGAIN)

static int on_rb(void *ctx, void *data, size_t size)
{
	struct rb_ctx *c = ctx;
	const struct rs_rec_hdr *h = data;

	if (size < sizeof(*h) || h->size > size || h->size < sizeof(*h)) {
		bad_records++;
		return 0;
	}
	if (h->type == RS_REC_TRACE_BATCH && !rsf_trace_batch_valid(h, size)) {
		bad_records++;   /* -T: stored as sent, readers expand it */
		return 0;
	}
	c->err = c->sink->on_record(c->sink->ctx, h, h->size);
	if (c->err < 0)
		return c->err;
	if (++c->burst >= RB_BURST) {
		c->burst = 0;
		c->yielded = true;
		return RB_YIELD;
	}
	return 0;
}

/* a consume's or poll's result, with an early end on RB_BURST counted as
 * progress (the rest is taken at the loop's next turn) */
static int consumed(struct rb_ctx *c, int n)
{
	if (n < 0 && c->yielded) {
		c->yielded = false;
		return 1;
	}
	c->burst = 0;
	return n;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* what the loop waits on, with a -- CMD child: the ring buffer's epoll fd
 * and a pidfd of the child (Linux 5.3+), so that its exit ends the wait at
 * once instead of at the 100 ms poll timeout (a short command's recording
 * ended up to 100 ms late); efd -1: the ring buffer alone */
struct waiter {
	int efd, pidfd;
};

static struct waiter waiter_open(struct ring_buffer *rb, const struct spawned *child)
{
	struct waiter w = { -1, -1 };
	struct epoll_event ev = { .events = EPOLLIN };

#ifdef SYS_pidfd_open
	if (child && child->pid > 0 && !child->exited)
		w.pidfd = (int)syscall(SYS_pidfd_open, child->pid, 0);
#endif
	if (w.pidfd < 0)
		return w;
	w.efd = epoll_create1(EPOLL_CLOEXEC);
	if (w.efd >= 0 && !epoll_ctl(w.efd, EPOLL_CTL_ADD, w.pidfd, &ev) &&
	    !epoll_ctl(w.efd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(rb), &ev))
		return w;
	if (w.efd >= 0)
		close(w.efd);
	close(w.pidfd);
	return (struct waiter){ -1, -1 };
}

static void waiter_close(struct waiter *w)
{
	if (w->efd >= 0) {
		close(w->efd);
		close(w->pidfd);
	}
}

/* up to 100 ms for records or the child's exit; the records consumed, or
 * a negative errno (-EINTR on a signal) */
static int wait_and_consume(struct waiter *w, struct ring_buffer *rb)
{
	struct epoll_event ev[2];

	if (w->efd < 0)
		return ring_buffer__poll(rb, 100);
	if (epoll_wait(w->efd, ev, 2, 100) < 0)
		return -errno;
	return ring_buffer__consume(rb);
}

int capture_run(struct tracer *t, struct spawned *child, const struct capture_sink *sink,
		char *err, size_t errlen)
{
	struct rb_ctx c = { .sink = sink };
	struct ring_buffer *rb;
	double last_tick = mono_s(), last_status = last_tick;
	struct waiter w;
	int ret = 0;

	rb = ring_buffer__new(tracer_ringbuf_fd(t), on_rb, &c, NULL);
	if (!rb) {
		snprintf(err, errlen, "ring buffer setup failed: %s", strerror(errno));
		return -1;
	}
	w = waiter_open(rb, child);
	while (!stop_requested()) {
		int n = consumed(&c, wait_and_consume(&w, rb));

		/* a session end wakes us only when much is waiting (bpf/retsnoop.bpf.c
		 * wakeup_flag): on the timeout, take what came in meanwhile */
		if (n == 0)
			n = consumed(&c, ring_buffer__consume(rb));

		if (n < 0 && n != -EINTR) {
			if (c.err < 0) {
				/* the sink has said why */
				snprintf(err, errlen, "%s", "");
				ret = -1;
			} else {
				snprintf(err, errlen, "ring buffer poll failed: %s", strerror(-n));
				ret = -1;
			}
			break;
		}
		if (child && spawn_poll(child))
			break;
		if (sink->on_status && mono_s() - last_status >= 0.25) {
			last_status = mono_s();
			sink->on_status(sink->ctx);
		}
		if (mono_s() - last_tick >= 1.0) {
			last_tick = mono_s();
			if (sink->on_tick)
				sink->on_tick(sink->ctx);
		}
	}
	/* stop new sessions, then drain what is already in the buffer (in
	 * bursts: what the sessions still open send ends with them) */
	tracer_stop(t);
	if (ret == 0) {
		int n;

		while ((n = ring_buffer__consume(rb)) < 0 && c.yielded && c.err >= 0)
			c.yielded = false;
		if (n < 0 && c.err < 0) {
			snprintf(err, errlen, "%s", "");   /* the sink has said why */
			ret = -1;
		}
	}
	waiter_close(&w);
	ring_buffer__free(rb);
	return ret;
}
