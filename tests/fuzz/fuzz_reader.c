/* fuzz_reader.c - libFuzzer target for the recording reader (format/):
 * arbitrary bytes as a recording file, opened by path through a memfd,
 * then the header, kallsyms snapshot, module and function tables, every
 * record and the trailer are read, and each record's header is touched. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "format/rsfile.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512];
	struct rsf_reader *rd;
	const struct rs_rec_hdr *rec;
	size_t n, nrec = 0;
	uint64_t sum = 0;
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	rd = rsf_reader_open(path, err, sizeof(err));
	if (rd) {
		const struct rsf_ksym *ks = rsf_reader_ksyms(rd, &n);

		for (size_t i = 0; i < n; i++)
			sum += ks[i].addr + (uint8_t)ks[i].name[0];
		rsf_reader_modules(rd, &n);
		rsf_reader_funcs(rd, &n);
		sum += rsf_reader_meta(rd)->mode;
		while (rsf_reader_next(rd, &rec) == RSF_OK && nrec++ < 1000000)
			sum += rec->type + rec->size;
		if (rsf_reader_stats(rd))
			sum++;
		rsf_reader_close(rd);
	}
	close(fd);
	return sum == 42 ? 0 : 0;   /* sum keeps the reads from being optimized out */
}
