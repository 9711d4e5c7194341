/* comm_filter.h - compiles a -n/-N thread-name glob into the tables the
 * BPF program matches it with (bpf/comm_glob.h). */
#ifndef RS_COMM_FILTER_H
#define RS_COMM_FILTER_H

#include <stdint.h>

struct comm_glob_bits {
	uint16_t masks[256];   /* bit j: position j matches this character */
	uint32_t star;         /* bit j: '*' at position j (runs of * collapsed) */
	uint32_t acc;          /* 1 << the pattern's length */
};

/* GLOB: 1..15 characters (checked by the option parser) */
void comm_glob_compile(const char *glob, struct comm_glob_bits *out);
/* the BPF program's match in C, for the unit test: does G match COMM? */
int comm_glob_bits_match(const struct comm_glob_bits *g, const char *comm);

#endif
