/* bpf_ksym_watch.h - the [bpf] kallsyms symbols (BPF programs, trampolines,
 * dispatchers) registered and unregistered while the recorder starts, seen
 * through perf KSYMBOL side-band events instead of a second full read of
 * /proc/kallsyms. */
#ifndef RECORD_BPF_KSYM_WATCH_H
#define RECORD_BPF_KSYM_WATCH_H

#include <stddef.h>
#include <stdint.h>
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
 * the watch cannot tell (not open, a ring filled up, out of memory).
 * *tramps: of those, each trampoline's current image (the one of its name
 * registered last: a replaced image stays registered for a grace period),
 * NULL with the result */
struct ksyms *bpf_ksym_watch_collect(struct bpf_ksym_watch *w, const struct ksyms *ks,
				     struct ksyms **tramps);

void bpf_ksym_watch_close(struct bpf_ksym_watch *w);

/* a [bpf] symbol registered or unregistered at time (an event), or read
 * from kallsyms (time 0, delta 1) */
struct bpf_ksym_item {
	uint64_t addr;
	char *name;
	uint64_t time;          /* CLOCK_MONOTONIC ns; 0: in the kallsyms read */
	int delta;              /* +1 registered (or read), -1 unregistered */
};

/* collect's answer from its items (sorted in place): what is registered
 * now, each (addr, name) as its last event left it; *tramps: the current
 * image of each trampoline among them, the one of its name registered
 * last (several as new: all of them) */
struct ksyms *bpf_ksym_net(struct bpf_ksym_item *items, size_t n, struct ksyms **tramps);

#endif
