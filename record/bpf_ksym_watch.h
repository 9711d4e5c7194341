/* bpf_ksym_watch.h - the [bpf] kallsyms symbols (BPF programs, trampolines,
 * dispatchers) registered and unregistered while the recorder starts, seen
 * through perf KSYMBOL side-band events instead of a second full read of
 * /proc/kallsyms. */
#ifndef RECORD_BPF_KSYM_WATCH_H
#define RECORD_BPF_KSYM_WATCH_H

#include <stddef.h>
#include "symbols/ksyms.h"

struct bpf_ksym_watch {
	int ncpu;
	int *fds;          /* one system-wide KSYMBOL event per CPU */
	void **rings;      /* their mmapped ring buffers */
	size_t ring_size;  /* data bytes per ring */
};

/* starts watching (before /proc/kallsyms is read); -1 when perf events are
 * not usable here (the caller then re-reads /proc/kallsyms) */
int bpf_ksym_watch_open(struct bpf_ksym_watch *w);

/* the [bpf] symbols now: those of KS (read after the watch opened) and
 * those registered since, each as its last event left it (a symbol
 * unregistered and registered again at one address is there); NULL when
 * the watch cannot tell (not open, a ring filled up, out of memory) */
struct ksyms *bpf_ksym_watch_collect(struct bpf_ksym_watch *w, const struct ksyms *ks);

void bpf_ksym_watch_close(struct bpf_ksym_watch *w);

#endif
