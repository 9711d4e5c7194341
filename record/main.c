/* main.c - retsnoop-record: select kernel functions, attach the BPF
 * probes, and write every captured session to a recording file. */
#include "record/features.h"
#include "record/options.h"
#include "record/recorder.h"
#include <stdio.h>

#define PROG "retsnoop-record"

int main(int argc, char **argv)
{
	struct record_opts o;
	struct recorder *rec;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	switch (record_opts_parse(&o, argc, argv, PROG)) {
	case RECORD_PARSE_RUN:
		break;
	case RECORD_PARSE_FEATURES:
		features_report(stdout);
		return 0;
	case RECORD_PARSE_HELP:
		record_usage(stdout, PROG, false);
		return 0;
	case RECORD_PARSE_CONFIG_HELP:
		record_config_help(stdout);
		return 0;
	case RECORD_PARSE_VERSION:
		return 0;
	default:
		return 2;
	}
	rec = recorder_new(&o, PROG, NULL, stderr);
	if (!rec) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		record_opts_free(&o);
		return 1;
	}
	r = recorder_execute(rec);
	if (*recorder_error(rec))
		fprintf(stderr, "%s: %s\n", PROG, recorder_error(rec));
	recorder_free(rec);
	record_opts_free(&o);
	return r;
}
