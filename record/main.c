/* main.c - retsnoop-record: select kernel functions, attach the BPF
 * probes, and write every captured session to a recording file. Its
 * options are the recorder's table and the shared one (common/opts.h). */
#include "record/features.h"
#include "record/options.h"
#include "record/recorder.h"
#include <stdio.h>

#define PROG "retsnoop-record"

/* 0: record with O; else the exit status (help, version, usage error) */
static int parse_args(struct record_opts *o, int argc, char **argv, int *status)
{
	struct shared_opts s;
	struct opt_group groups[2] = {
		{ record_opt_table, record_opt_count, o },
		{ shared_opt_table, shared_opt_count, &s },
	};
	struct opt_cmdline c = {
		.prog = PROG, .cmd = OPT_RECORD, .groups = groups, .ngroups = 2,
		.dashdash = OPT_DD_COMMAND,
	};
	struct opt_error e;
	int r;

	record_opts_init(o, argc, argv);
	shared_opts_init(&s, OPT_RECORD, record_config_apply, o);
	r = opt_parse(&c, argc, argv, &e);
	if (r == OPT_OK)
		r = record_opts_finish(o, &s, c.command, false, &e);
	*status = 0;
	if (r < 0) {
		opt_error_print(stderr, PROG, r, &e);
		*status = 2;
	} else if (s.list) {
		opt_list(stdout, &c);
	} else if (s.help) {
		record_help_head(stdout, PROG, false);
		opt_help(stdout, &c);
		record_help_tail(stdout);
	} else if (s.usage) {
		opt_usage(stdout, &c, "[-- CMD ARGS...]");
	} else if (s.config_help) {
		cfg_help(stdout, OPT_RECORD);
	} else if (s.version) {
		printf("%s %s\n", PROG, RECORD_VERSION);
		if (s.verbose)
			features_report(stdout);
	} else {
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct record_opts o;
	struct recorder *rec;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_args(&o, argc, argv, &r)) {
		record_opts_free(&o);
		return r;
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
