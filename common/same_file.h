/* same_file.h - the output guard: is an output path the same file as an
 * input (same device and inode, so also through a symlink or a hard link)?
 * Checked before anything is opened for writing, so that no command can
 * truncate the recording or vmlinux it reads. */
#ifndef RS_SAME_FILE_H
#define RS_SAME_FILE_H

#include <stdbool.h>

/* true when both paths exist and name the same file; false otherwise
 * (including when either is NULL or does not exist yet) */
bool same_file(const char *a, const char *b);

#endif
