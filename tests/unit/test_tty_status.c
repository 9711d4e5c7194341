/* test_tty_status.c - unit tests of record/tty_status.c: the live status
 * and progress-bar formatters, the rate limit, and the TTY gating: nothing
 * is written to a pipe, while a pseudo-terminal gets the line, its
 * erasure before other output, and no leftover at the end. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>
#include "record/tty_status.h"
#include "testlib.h"

static void test_status_format(void)
{
	char b[160];

	tty_status_format(b, sizeof(b), 0, 0, 0, 0.4);
	CHECK_STR(b, "0 sessions captured, 0 dropped, 00:00:00 elapsed");
	tty_status_format(b, sizeof(b), 1, 3, 0, 65.9);
	CHECK_STR(b, "1 session captured, 3 dropped, 00:01:05 elapsed");
	tty_status_format(b, sizeof(b), 1234567, 0, 2, 3600 * 27 + 61);
	CHECK_STR(b, "1234567 sessions captured, 0 dropped, 27:01:01 elapsed, 2 incomplete");
	/* truncation: NUL-terminated, length reported within the buffer */
	CHECK_INT(tty_status_format(b, 10, 5, 0, 0, 1), 9);
	CHECK_STR(b, "5 session");
}

static void test_progress_format(void)
{
	char b[128];

	tty_progress_format(b, sizeof(b), 0, 200, 10);
	CHECK_STR(b, "Attaching [..........] 0/200 functions");
	tty_progress_format(b, sizeof(b), 100, 200, 10);
	CHECK_STR(b, "Attaching [#####.....] 100/200 functions");
	tty_progress_format(b, sizeof(b), 199, 200, 10);
	CHECK_STR(b, "Attaching [#########.] 199/200 functions");
	tty_progress_format(b, sizeof(b), 200, 200, 10);
	CHECK_STR(b, "Attaching [##########] 200/200 functions");
	CHECK_INT(tty_progress_format(b, 8, 1, 2, 30), 7);
	CHECK_STR(b, "Attachi");
}

/* everything readable from fd without blocking */
static size_t drain(int fd, char *buf, size_t len)
{
	size_t n = 0;

	for (int idle = 0; idle < 20 && n + 1 < len; ) {
		ssize_t r = read(fd, buf + n, len - 1 - n);

		if (r > 0) {
			n += (size_t)r;
			idle = 0;
		} else if (r < 0 && errno == EAGAIN) {
			idle++;
			usleep(2000);
		} else {
			break;
		}
	}
	buf[n] = '\0';
	return n;
}

static void test_not_a_tty(void)
{
	int p[2];
	FILE *f;
	struct tty_status s;
	char buf[256];

	CHECK(pipe(p) == 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	f = fdopen(p[1], "w");
	CHECK(f != NULL);
	if (!f)
		return;
	tty_status_init(&s, f);
	CHECK(!s.enabled);
	CHECK(!tty_status_show(&s, "3 sessions captured", 10.0, true));
	tty_status_clear(&s);
	fflush(f);
	CHECK_INT(drain(p[0], buf, sizeof(buf)), 0);
	fclose(f);
	close(p[0]);
}

static void test_pty(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), sfd = -1;
	struct tty_status s;
	FILE *f = NULL;
	char buf[512];

	CHECK(m >= 0);
	if (m < 0)
		return;
	CHECK(grantpt(m) == 0 && unlockpt(m) == 0);
	sfd = open(ptsname(m), O_RDWR | O_NOCTTY);
	CHECK(sfd >= 0);
	if (sfd < 0)
		goto out;
	{
		/* raw output: the line discipline must not translate \r or \n */
		struct termios t;

		tcgetattr(sfd, &t);
		cfmakeraw(&t);
		tcsetattr(sfd, TCSANOW, &t);
	}
	fcntl(m, F_SETFL, O_NONBLOCK);
	f = fdopen(sfd, "w");
	CHECK(f != NULL);
	if (!f)
		goto out;
	tty_status_init(&s, f);
	CHECK(s.enabled);

	/* first draw, then a redraw within the interval is skipped, a forced one is not */
	CHECK(tty_status_show(&s, "1 session captured", 100.0, false));
	CHECK(!tty_status_show(&s, "2 sessions captured", 100.1, false));
	CHECK(tty_status_show(&s, "3 sessions captured", 100.1 + TTY_STATUS_MIN_INTERVAL_S, false));
	CHECK(tty_status_show(&s, "4 sessions captured", 100.36, true));
	/* the same text again is not redrawn, even when forced */
	CHECK(!tty_status_show(&s, "4 sessions captured", 101.0, false));
	CHECK(!tty_status_show(&s, "4 sessions captured", 101.0, true));
	drain(m, buf, sizeof(buf));
	CHECK_STR(buf, "\r\033[K1 session captured\r\033[K3 sessions captured"
		       "\r\033[K4 sessions captured");
	/* erased once before other output; a second clear writes nothing */
	tty_status_clear(&s);
	tty_status_clear(&s);
	drain(m, buf, sizeof(buf));
	CHECK_STR(buf, "\r\033[K");
	CHECK(!s.shown);
	/* after an erase the same text is drawn again */
	CHECK(tty_status_show(&s, "4 sessions captured", 102.0, false));
	tty_status_clear(&s);
	drain(m, buf, sizeof(buf));
	CHECK_STR(buf, "\r\033[K4 sessions captured\r\033[K");
	/* errno survives drawing and clearing */
	errno = ENOENT;
	tty_status_show(&s, "x", 200.0, true);
	tty_status_clear(&s);
	CHECK_INT(errno, ENOENT);
	drain(m, buf, sizeof(buf));
	CHECK_STR(buf, "\r\033[Kx\r\033[K");
out:
	if (f)
		fclose(f);
	else if (sfd >= 0)
		close(sfd);
	close(m);
}

int main(void)
{
	RUN(test_status_format);
	RUN(test_progress_format);
	RUN(test_not_a_tty);
	RUN(test_pty);
	return TEST_REPORT("test_tty_status");
}
