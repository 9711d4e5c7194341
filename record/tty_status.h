/* tty_status.h - the transient lines on stderr that only a terminal gets:
 * the attach progress bar for large function sets and the one-line live
 * status (sessions captured, dropped, elapsed). When the stream is not a
 * TTY nothing at all is written. A shown line is erased (never left
 * behind) before other output and at exit. errno is preserved. */
#ifndef RS_TTY_STATUS_H
#define RS_TTY_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* redraws closer together than this are skipped (unless forced) */
#define TTY_STATUS_MIN_INTERVAL_S 0.25
/* per-function attach modes show a progress bar from this many functions */
#define TTY_PROGRESS_MIN_FUNCS 50

struct tty_status {
	FILE *f;
	bool enabled;      /* f is a terminal */
	bool shown;        /* a line is on screen */
	double last_draw;  /* monotonic seconds of the last draw, < 0: never */
	char text[256];    /* what is on screen while shown */
};

/* enabled iff fileno(f) is a terminal */
void tty_status_init(struct tty_status *s, FILE *f);
/* "12 sessions captured, 0 dropped, 00:01:05 elapsed" (+ ", N incomplete") */
size_t tty_status_format(char *buf, size_t len, uint64_t sessions, uint64_t dropped,
			 uint64_t incomplete, double elapsed_s);
/* "Attaching [#####.....] 120/1764 functions" with a bar of width cells */
size_t tty_progress_format(char *buf, size_t len, size_t done, size_t total, int width);
/* replaces the line on screen with text; returns whether it drew (only when
 * enabled, when text differs from the line on screen, and at most every
 * TTY_STATUS_MIN_INTERVAL_S unless force) */
bool tty_status_show(struct tty_status *s, const char *text, double now_s, bool force);
/* erases the line if one is shown */
void tty_status_clear(struct tty_status *s);
/* monotonic clock in seconds */
double tty_status_now(void);

#endif
