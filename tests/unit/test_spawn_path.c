/* test_spawn_path.c - record/spawn.c's PATH lookup for `-- CMD`: the first
 * executable regular file along PATH, as execvp would run it; entries
 * without it, a non-executable file and a directory of the name are
 * passed over; a name with a '/' or found nowhere is left to execvp. */
#include "testlib.h"
#include "test_tmpdir.h"
#include "record/spawn.h"
#include <sys/stat.h>
#include <unistd.h>

static void touch(const char *path, mode_t mode)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f)
		fclose(f);
	chmod(path, mode);
}

static void test_lookup(void)
{
	char path[1024];
	char *p;

	mkdir(tpath("a"), 0755);
	mkdir(tpath("b"), 0755);
	mkdir(tpath("c"), 0755);
	touch(tpath("a/cmd"), 0644);        /* not executable */
	mkdir(tpath("b/cmd"), 0755);        /* a directory */
	touch(tpath("c/cmd"), 0755);
	snprintf(path, sizeof(path), "%s/none:%s:%s:%s", tmpdir, tpath("a"), tpath("b"), tpath("c"));
	p = spawn_path_lookup("cmd", path);
	CHECK_STR(p ? p : "(null)", tpath("c/cmd"));
	free(p);
	p = spawn_path_lookup("other", path);
	CHECK(p == NULL);
	p = spawn_path_lookup("./cmd", path);
	CHECK(p == NULL);
	p = spawn_path_lookup("", path);
	CHECK(p == NULL);
	/* the first of two */
	touch(tpath("a/two"), 0755);
	touch(tpath("c/two"), 0755);
	p = spawn_path_lookup("two", path);
	CHECK_STR(p ? p : "(null)", tpath("a/two"));
	free(p);
}

/* an empty entry is the current directory; no PATH: execvp's default */
static void test_defaults(void)
{
	char *p;

	CHECK_INT(chdir(tpath("c")), 0);
	p = spawn_path_lookup("cmd", "/nonexistent-dir:");
	CHECK_STR(p ? p : "(null)", "./cmd");
	free(p);
	p = spawn_path_lookup("sh", NULL);
	CHECK(p != NULL && (!strcmp(p, "/bin/sh") || !strcmp(p, "/usr/bin/sh")));
	free(p);
	CHECK_INT(chdir("/"), 0);
}

int main(void)
{
	if (tmpdir_make("test_spawn_path"))
		return 1;
	RUN(test_lookup);
	RUN(test_defaults);
	tmpdir_remove();
	return TEST_REPORT("test_spawn_path");
}
