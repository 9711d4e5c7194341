/* rsf_pread.c - the reader's one positioned read: as many bytes as the
 * file has at an offset, retried on EINTR (rsf_internal.h). */
#include <errno.h>
#include <unistd.h>
#include "rsf_internal.h"

ssize_t rsf_pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(fd, (uint8_t *)buf + got, n - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}
