/* main.c - retsnoop-record: select kernel functions, attach the BPF
 * probes, and write every captured session to a recording file. */
#include "record/features.h"
#include "record/options.h"
#include "record/session.h"
#include <stdio.h>

int main(int argc, char **argv)
{
	struct record_opts o;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	r = record_opts_parse(&o, argc, argv, "retsnoop-record");
	if (r == 2)
		features_report(stdout);
	if (r)
		return r > 0 ? 0 : 2;
	r = record_run(&o, "retsnoop-record", NULL);
	record_opts_free(&o);
	return r;
}
