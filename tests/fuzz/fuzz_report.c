/* fuzz_report.c - libFuzzer target for the whole retsnoop-report path:
 * the first input byte picks a command line (every output: text with the
 * stack, -T trace and LBR views, --format json, --perfetto, --folded,
 * summary, info; with and without report-time filters), the rest is the
 * recording, given by path through a memfd. It calls retsnoop-report's own
 * main (report/main.c built with main renamed report_cli_main). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "fuzz_file.h"

int report_cli_main(int argc, char **argv);

/* -sn everywhere but the first: no vmlinux lookups (slow, host-dependent) */
static const char *const variants[][8] = {
	{ NULL },
	{ "-sn", NULL },
	{ "-sn", "-T", "-C", "args.fmt-max-arg-width=7", NULL },
	{ "-sn", "-B", NULL },
	{ "-sn", "-T", "-E", "-B", NULL },
	{ "-sn", "--format", "json", NULL },
	{ "-sn", "--perfetto", "/dev/null", NULL },
	{ "-sn", "--folded", NULL },
	{ "-sn", "--folded-weight=latency", NULL },
	{ "summary", "-sn", NULL },
	{ "info", NULL },
	{ "-sn", "-x", "ENOMEM", "-x", "EINVAL", NULL },
	{ "-sn", "-S", "-p", "1", "-P", "2", NULL },
	{ "-sn", "--stack-has", "*alloc*", "--format", "json", NULL },
	{ "-sn", "-Sn", "-L", "0.5", "-n", "sim*", NULL },
	{ "-sn", "--success-only", "--entry", "*sys_bpf", NULL },
	{ "-sn", "-C", "stacks.emit-addrs=true", "-C", "stacks.dec-offs=true", "-T", NULL },
	{ "-sn", "-X", "ENOENT", "--since", "+1s", "--until", "+1h", NULL },
	{ "-sn", "-S", "--summary", NULL },
	{ "-sn", "-C", "stacks.unfiltered=true", "-v", "-T", "-C", "args.fmt-mode=v", NULL },
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	unsetenv("DEBUGINFOD_URLS");   /* never fetch anything */
	setenv("TZ", "UTC", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], *argv[12];
	int argc = 0, fd;
	const char *const *v;

	if (size < 1)
		return 0;
	v = variants[data[0] % NVARIANTS];
	fd = fuzz_file(data + 1, size - 1, path, sizeof(path));
	if (fd < 0)
		return 0;
	argv[argc++] = (char *)"retsnoop-report";
	for (int i = 0; v[i]; i++)
		argv[argc++] = (char *)v[i];
	argv[argc++] = path;
	argv[argc] = NULL;
	report_cli_main(argc, argv);
	fflush(stdout);
	clearerr(stdout);
	close(fd);
	return 0;
}
