/* pid_check.c - -p's process ids checked against procfs at start-up: a
 * missing process or a thread id (see pid_check.h). */
#include "record/pid_check.h"
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int pid_check(const char *procfs, uint32_t pid, char *msg, size_t len)
{
	char path[64], line[128];
	unsigned int tgid = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%" PRIu32 "/status", procfs, pid);
	f = fopen(path, "re");
	if (!f) {
		if (errno != ENOENT)
			return 0;   /* cannot tell (no procfs, no access) */
		snprintf(msg, len, "-p %" PRIu32 ": no such process now (its calls are traced only "
			 "if a process gets that id)", pid);
		return 1;
	}
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "Tgid: %u", &tgid) == 1;
	fclose(f);
	if (!found || tgid == pid)
		return 0;
	snprintf(msg, len, "-p %" PRIu32 " is a thread of process %u: -p takes process ids "
		 "(-p %u traces all its threads)", pid, tgid, tgid);
	return 1;
}
