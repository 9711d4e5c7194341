/* comm_filter.c - -n/-N globs compiled for the BPF matcher (comm_filter.h). */
#include "record/comm_filter.h"
#include <string.h>

void comm_glob_compile(const char *glob, struct comm_glob_bits *out)
{
	unsigned j = 0;

	memset(out, 0, sizeof(*out));
	for (const char *p = glob; *p && j < 15; p++) {
		if (*p == '*' && j && (out->star & (1u << (j - 1))))
			continue;   /* "**" is "*" */
		if (*p == '*')
			out->star |= 1u << j;
		else if (*p == '?')
			for (int c = 1; c < 256; c++)
				out->masks[c] |= (uint16_t)(1u << j);
		else
			out->masks[(uint8_t)*p] |= (uint16_t)(1u << j);
		j++;
	}
	out->acc = 1u << j;
}

/* the BPF program's algorithm (bpf/comm_glob.h), step for step */
int comm_glob_bits_match(const struct comm_glob_bits *g, const char *comm)
{
	uint32_t s = 1;

	s |= (s & g->star) << 1;
	for (int k = 0; k < 16 && comm[k]; k++) {
		uint32_t m = g->masks[(uint8_t)comm[k]] & ~g->star, next;

		next = ((s & m) << 1) | (s & g->star);
		next |= (next & g->star) << 1;
		s = next;
	}
	return (s & g->acc) != 0;
}
