/* fd_read_all.c - read a descriptor to EOF in one growing buffer
 * (fd_read_all.h). */
#include "common/fd_read_all.h"
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

char *fd_read_all(int fd, size_t cap, size_t *len)
{
	size_t n = 0;
	char *buf;

	if (cap < 4096)
		cap = 4096;
	buf = malloc(cap + 1);
	while (buf) {
		ssize_t r;

		if (n == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			buf[n] = '\0';
			*len = n;
			return buf;
		}
		if (r < 0)
			break;
		n += (size_t)r;
	}
	if (!buf)
		errno = ENOMEM;
	else if (n == cap)
		errno = ENOMEM;
	free(buf);
	return NULL;
}
