/* capture.h - the ring-buffer loop: hands every BPF record to a sink
 * (the file writer, and in the live tool also the renderer) until
 * SIGINT/SIGTERM or the spawned command exits; periodic tick for flushes
 * and status lines. */
#ifndef RS_CAPTURE_H
#define RS_CAPTURE_H

#include <stdbool.h>
#include "bpf/retsnoop_abi.h"
#include "record/attach.h"
#include "record/spawn.h"

struct capture_sink {
	/* returns 0, or <0 to stop capturing (e.g. a write error; the sink
	 * reports it: capture_run then leaves its err message empty) */
	int (*on_record)(void *ctx, const struct rs_rec_hdr *rec, size_t size);
	/* about once a second */
	void (*on_tick)(void *ctx);
	/* about four times a second (status line); may be NULL */
	void (*on_status)(void *ctx);
	void *ctx;
};

/* runs until a stop is requested (stop_signal.h) or
 * the spawned child exits; child may be NULL */
int capture_run(struct tracer *t, struct spawned *child, const struct capture_sink *sink,
		char *err, size_t errlen);
/* records the ring buffer consumer saw with an impossible size */
unsigned long capture_bad_records(void);

#endif
