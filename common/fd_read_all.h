/* fd_read_all.h - reads a file descriptor to its end in big read() calls
 * (procfs, tracefs and BPF iterator files restart their walk at every
 * small read, so stdio's 4 KiB reads make them quadratic). */
#ifndef RS_FD_READ_ALL_H
#define RS_FD_READ_ALL_H

#include <stddef.h>

/* everything until EOF, NUL-terminated (one byte past *len), in a buffer
 * that starts at cap bytes and doubles; NULL with errno set on a read error
 * or when memory runs out. The caller frees it. */
char *fd_read_all(int fd, size_t cap, size_t *len);

#endif
