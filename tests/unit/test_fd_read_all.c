/* test_fd_read_all.c - unit tests of common/fd_read_all.c: a descriptor
 * read to EOF through buffer growth gives every byte, NUL-terminated; an
 * empty one gives an empty string; a read error gives NULL with errno. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/fd_read_all.h"
#include "testlib.h"

/* a temporary file holding n bytes of a known pattern, opened for reading */
static int pattern_fd(size_t n)
{
	char path[] = "/tmp/rs_fd_read_all_XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	for (size_t i = 0; i < n; i++) {
		char c = (char)('a' + i % 26);

		if (write(fd, &c, 1) != 1)
			return -1;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

static void test_grows_to_eof(void)
{
	size_t n = 3 * 4096 + 17, len = 0;
	int fd = pattern_fd(n);
	char *buf;
	size_t bad = 0;

	CHECK(fd >= 0);
	buf = fd_read_all(fd, 4096, &len);   /* two doublings */
	CHECK(buf != NULL);
	CHECK_INT(len, n);
	for (size_t i = 0; buf && i < len; i++)
		bad += buf[i] != (char)('a' + i % 26);
	CHECK_INT(bad, 0);
	CHECK(buf && buf[len] == '\0');
	free(buf);
	close(fd);
}

static void test_empty(void)
{
	size_t len = 99;
	int fd = pattern_fd(0);
	char *buf = fd_read_all(fd, 0, &len);

	CHECK(buf != NULL);
	CHECK_INT(len, 0);
	CHECK_STR(buf ? buf : "(null)", "");
	free(buf);
	close(fd);
}

static void test_read_error(void)
{
	int p[2];
	size_t len = 7;
	char *buf;

	CHECK(pipe(p) == 0);
	errno = 0;
	buf = fd_read_all(p[1], 4096, &len);   /* the write end: read() fails */
	CHECK(buf == NULL);
	CHECK_INT(errno, EBADF);
	CHECK_INT(len, 7);   /* untouched */
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	RUN(test_grows_to_eof);
	RUN(test_empty);
	RUN(test_read_error);
	return TEST_REPORT("test_fd_read_all");
}
