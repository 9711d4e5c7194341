/* test_tmpdir.h - a scratch directory for the unit tests that write files
 * (test_format.c, test_ring.c): made under /tmp at the start, paths in it
 * by name, removed with everything in it at the end. */
#ifndef RS_TEST_TMPDIR_H
#define RS_TEST_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

static char tmpdir[64];

/* mkdtemp /tmp/PREFIX.XXXXXX; 0, or -1 after perror */
static inline int tmpdir_make(const char *prefix)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/%s.XXXXXX", prefix);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

/* tmpdir/NAME; the last four results stay valid */
static inline const char *tpath(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

static inline void tmpdir_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

#endif
