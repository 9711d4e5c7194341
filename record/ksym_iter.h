/* ksym_iter.h - the kernel's function symbols for the recorder: through a
 * BPF ksym iterator (Linux 6.0+, bpf/ksym_iter.bpf.c), else from
 * /proc/kallsyms; the same table either way (symbols/ksyms.h). */
#ifndef RECORD_KSYM_ITER_H
#define RECORD_KSYM_ITER_H

#include <stddef.h>
#include "symbols/ksyms.h"

/* the environment variable that forces /proc/kallsyms when set to "proc"
 * (tests compare both ways) */
#define KSYM_ITER_ENV "RETSNOOP_KALLSYMS"

struct ksym_source {
	const char *from;      /* "the ksym iterator" or "/proc/kallsyms" */
	char why[256];         /* why not the iterator ("" when it was used) */
};

/* NULL with the reason in err when /proc/kallsyms cannot be read either */
struct ksyms *ksym_iter_load(struct ksym_source *src, char *err, size_t errlen);

#endif
