/* same_file.c - the output guard (same_file.h). */
#include "common/same_file.h"
#include <sys/stat.h>

bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!a || !b || stat(a, &sa) || stat(b, &sb))
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
