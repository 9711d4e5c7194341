/* link_misses.h - the attach links' missed counts (Linux 6.7+): probes the
 * kernel skipped before any BPF program ran, per kprobe.multi link (-M) or
 * per function's kprobe/kretprobe links (-K), for the trailer. */
#ifndef RS_LINK_MISSES_H
#define RS_LINK_MISSES_H

#include "record/attach.h"
#include "record/select.h"
#include "format/rsfile.h"

/* functions named in rsf_stats.link_misses_funcs (the rest are summed) */
#define LINK_MISSES_TOP 8

/* Fills st->link_misses_*; leaves them 0 (known 0) when the kernel does not
 * report missed counts per link, or in fentry mode. Call before
 * tracer_detach. */
void tracer_link_misses(const struct tracer *t, const struct selection *sel,
			struct rsf_stats *st);

#endif
