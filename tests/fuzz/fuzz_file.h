/* fuzz_file.h - the fuzz targets' input as a file: the bytes in a memfd,
 * named by a /proc/self/fd path (the tools open recordings by path). */
#ifndef RS_FUZZ_FILE_H
#define RS_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* the fd (close it after use) with its path in PATH, or -1 */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz.rsr", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	for (size_t off = 0; off < size;) {
		ssize_t w = write(fd, data + off, size - off);

		if (w <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
