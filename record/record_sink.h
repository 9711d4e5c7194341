/* record_sink.h - where captured records go: -x/-X applied to each
 * SESSION_END, then the file writer and the command's hooks; sessions
 * counted for the TTY status line, the file flushed once a second; the
 * stop conditions (--duration, --stop-after) request the stop. */
#ifndef RS_RECORD_SINK_H
#define RS_RECORD_SINK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "common/errfilter.h"
#include "format/rsfile.h"
#include "record/attach.h"
#include "record/capture.h"
#include "record/record_hooks.h"
#include "record/select.h"
#include "record/tty_status.h"
#include "record/umaps.h"
#include "record/ustack_hold.h"

struct record_sink {
	struct rsf_writer *w;             /* NULL: no file (live tool without -o) */
	const struct selection *sel;      /* function flags for -x/-X */
	const struct err_filter *errs;
	const struct record_hooks *hooks; /* may be NULL */
	const struct tracer *tr;          /* drop counters for the status line */
	struct umaps *umaps;              /* -U: processes' mappings (record/umaps.h); else NULL */
	struct ustack_hold *hold;         /* -U: USTACKs waiting for their END; else NULL */
	const char *prog;                 /* prefix of the flush-failure warning */
	struct tty_status status;         /* TTY-only live status line */
	double start_s;
	double stop_at_s;                 /* --duration: stop at this tty_status_now() (0: never) */
	uint64_t stop_after;              /* --stop-after: stop after this many final sessions */
	uint64_t records, filtered, sessions, finals;
	double flushed_s;                 /* when the file was last flushed */
	bool write_failed;                /* a flush failed: the exit status says so */
};

/* status line on log (when a terminal); counters zero */
void record_sink_init(struct record_sink *s, FILE *log);
/* the callbacks capture_run calls, bound to s */
struct capture_sink record_sink_callbacks(struct record_sink *s);

#endif
