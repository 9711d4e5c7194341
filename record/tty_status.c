/* tty_status.c - TTY-only progress and status lines on stderr
 * (tty_status.h). */
#include "record/tty_status.h"
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ERASE_LINE "\r\033[K"

void tty_status_init(struct tty_status *s, FILE *f)
{
	s->f = f;
	s->enabled = f && isatty(fileno(f));
	s->shown = false;
	s->last_draw = -1;
	s->text[0] = '\0';
}

double tty_status_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t clamp(int n, size_t len)
{
	if (n < 0)
		return 0;
	return (size_t)n < len ? (size_t)n : (len ? len - 1 : 0);
}

size_t tty_status_format(char *buf, size_t len, uint64_t sessions, uint64_t dropped,
			 uint64_t incomplete, double elapsed_s)
{
	uint64_t t = elapsed_s > 0 ? (uint64_t)elapsed_s : 0;
	int n;

	n = snprintf(buf, len, "%llu session%s captured, %llu dropped, %02llu:%02llu:%02llu elapsed",
		     (unsigned long long)sessions, sessions == 1 ? "" : "s",
		     (unsigned long long)dropped, (unsigned long long)(t / 3600),
		     (unsigned long long)(t / 60 % 60), (unsigned long long)(t % 60));
	if (incomplete && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", %llu incomplete",
			      (unsigned long long)incomplete);
	return clamp(n, len);
}

size_t tty_progress_format(char *buf, size_t len, size_t done, size_t total, int width)
{
	size_t fill = total ? done * (size_t)width / total : (size_t)width;
	int n = snprintf(buf, len, "Attaching [");

	for (int i = 0; i < width && n >= 0 && (size_t)n + 1 < len; i++)
		buf[n++] = (size_t)i < fill ? '#' : '.';
	if (n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "] %zu/%zu functions", done, total);
	return clamp(n, len);
}

bool tty_status_show(struct tty_status *s, const char *text, double now_s, bool force)
{
	int e = errno;   /* callers report errno after drawing */

	if (!s->enabled)
		return false;
	if (!force && s->last_draw >= 0 && now_s - s->last_draw < TTY_STATUS_MIN_INTERVAL_S)
		return false;
	if (s->shown && !strncmp(s->text, text, sizeof(s->text)))
		return false;
	fprintf(s->f, ERASE_LINE "%s", text);
	fflush(s->f);
	errno = e;
	snprintf(s->text, sizeof(s->text), "%s", text);
	s->shown = true;
	s->last_draw = now_s;
	return true;
}

void tty_status_clear(struct tty_status *s)
{
	int e = errno;

	if (!s->enabled || !s->shown)
		return;
	fputs(ERASE_LINE, s->f);
	fflush(s->f);
	errno = e;
	s->shown = false;
}
