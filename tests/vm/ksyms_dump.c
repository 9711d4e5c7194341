/* ksyms_dump.c - test helper for tests/vm/run.sh: prints a recording's
 * kallsyms snapshot, one "ADDR TYPE NAME [MODULE]" line per symbol in the
 * file's order, so two recordings' snapshots can be compared (the ksym
 * iterator's and /proc/kallsyms'). Exit status 2 when the file cannot be
 * read. */
#include <inttypes.h>
#include <stdio.h>
#include "format/rsfile.h"

int main(int argc, char **argv)
{
	struct rsf_reader *rd;
	const struct rsf_ksym *k;
	char err[512];
	size_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: ksyms_dump FILE.rsr\n");
		return 2;
	}
	rd = rsf_reader_open(argv[1], err, sizeof(err));
	if (!rd) {
		fprintf(stderr, "ksyms_dump: %s\n", err);
		return 2;
	}
	k = rsf_reader_ksyms(rd, &n);
	for (size_t i = 0; i < n; i++)
		printf("%016" PRIx64 " %c %s%s%s%s\n", k[i].addr, k[i].type, k[i].name,
		       k[i].module ? " [" : "", k[i].module ? k[i].module : "",
		       k[i].module ? "]" : "");
	rsf_reader_close(rd);
	return 0;
}
