/* test_pid_check.c - record/pid_check.c against a made-up procfs: a
 * process leader is fine, a missing id and a thread of another process are
 * said with the ids in the message, and a status without a Tgid line or an
 * unreadable procfs say nothing (cannot tell). */
#include "testlib.h"
#include "test_tmpdir.h"
#include "record/pid_check.h"
#include <sys/stat.h>
#include <unistd.h>

/* procfs/PID/status with TEXT */
static void status(uint32_t pid, const char *text)
{
	char dir[32], path[48];
	FILE *f;

	snprintf(dir, sizeof(dir), "%u", pid);
	mkdir(tpath(dir), 0755);
	snprintf(path, sizeof(path), "%u/status", pid);
	f = fopen(tpath(path), "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_cases(void)
{
	char msg[200] = "";

	status(10, "Name:\tleader\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t10\nPid:\t10\n");
	status(11, "Name:\tworker\nTgid:\t10\nPid:\t11\n");
	status(12, "Name:\todd\nPid:\t12\n");
	CHECK_INT(pid_check(tmpdir, 10, msg, sizeof(msg)), 0);
	CHECK_INT(pid_check(tmpdir, 11, msg, sizeof(msg)), 1);
	CHECK_STR(msg, "-p 11 is a thread of process 10: -p takes process ids "
		  "(-p 10 traces all its threads)");
	CHECK_INT(pid_check(tmpdir, 13, msg, sizeof(msg)), 1);
	CHECK_STR(msg, "-p 13: no such process now (its calls are traced only if a process "
		  "gets that id)");
	CHECK_INT(pid_check(tmpdir, 12, msg, sizeof(msg)), 0);
	/* a procfs that cannot be read (a file where its directory should
	 * be: ENOTDIR, not ENOENT) says nothing */
	CHECK_INT(pid_check(tpath("10/status"), 10, msg, sizeof(msg)), 0);
}

/* this process, through the real procfs */
static void test_self(void)
{
	char msg[200];

	CHECK_INT(pid_check("/proc", (uint32_t)getpid(), msg, sizeof(msg)), 0);
}

int main(void)
{
	if (tmpdir_make("test_pid_check"))
		return 1;
	RUN(test_cases);
	RUN(test_self);
	tmpdir_remove();
	return TEST_REPORT("test_pid_check");
}
