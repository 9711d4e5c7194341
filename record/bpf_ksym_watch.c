/* bpf_ksym_watch.c - the [bpf] symbols registered while the recorder
 * starts, from perf KSYMBOL events (bpf_ksym_watch.h): the kernel emits one
 * per BPF program (and subprogram), trampoline and dispatcher image added to
 * or removed from kallsyms, with the kallsyms name, so the file header's
 * snapshot needs no second read of /proc/kallsyms (~155k lines). */
#include "record/bpf_ksym_watch.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_PAGES 64   /* per CPU; a ring that fills up means: re-read kallsyms */

struct ksymbol_rec {    /* PERF_RECORD_KSYMBOL; its sample_id (the time) is the last 8 bytes */
	struct perf_event_header header;
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type;
	uint16_t flags;
	char name[];
};

struct items {
	struct bpf_ksym_item *v;
	size_t n, cap;
	bool bad;       /* out of memory or an event lost: the watch cannot tell */
};

static int open_cpu(int cpu)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.size = sizeof(a),
		.ksymbol = 1,
		/* each event timed: a program freed after its recorder exited
		 * (deferred) is unregistered while ours registers at its
		 * address, maybe on another CPU: only the order says which */
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_TIME,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
	};

	return (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int bpf_ksym_watch_open(struct bpf_ksym_watch *w)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int n = libbpf_num_possible_cpus();

	memset(w, 0, sizeof(*w));
	if (n <= 0)
		return -1;
	w->fds = malloc(n * sizeof(*w->fds));
	w->rings = calloc(n, sizeof(*w->rings));
	if (!w->fds || !w->rings) {
		bpf_ksym_watch_close(w);
		return -1;
	}
	w->ring_size = RING_PAGES * page;
	for (int cpu = 0; cpu < n; cpu++) {
		int fd = open_cpu(cpu);
		void *m;

		if (fd < 0 && (errno == ENODEV || errno == ENXIO || errno == EINVAL) && cpu > 0)
			continue;   /* an offline CPU: nothing runs there */
		if (fd < 0)
			goto fail;
		m = mmap(NULL, page + w->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			close(fd);
			goto fail;
		}
		w->fds[w->ncpu] = fd;
		w->rings[w->ncpu++] = m;
	}
	return 0;
fail:
	bpf_ksym_watch_close(w);
	return -1;
}

static void add_item(struct items *it, uint64_t addr, const char *name, uint64_t time, int delta)
{
	if (it->n == it->cap) {
		size_t cap = it->cap ? it->cap * 2 : 256;
		struct bpf_ksym_item *v = realloc(it->v, cap * sizeof(*v));

		if (!v) {
			it->bad = true;
			return;
		}
		it->v = v;
		it->cap = cap;
	}
	it->v[it->n].name = strdup(name);
	if (!it->v[it->n].name) {
		it->bad = true;
		return;
	}
	it->v[it->n].addr = addr;
	it->v[it->n].time = time;
	it->v[it->n++].delta = delta;
}

/* the records of one ring (copied out where they wrap around) */
static void read_ring(struct items *it, void *base, size_t size)
{
	struct perf_event_mmap_page *pg = base;
	uint8_t *data = (uint8_t *)base + sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	uint8_t buf[sizeof(struct ksymbol_rec) + 512];

	/* a ring this full may have dropped records without saying so yet */
	if (head - tail > size - sizeof(buf))
		it->bad = true;
	while (!it->bad && tail < head) {
		struct perf_event_header h;
		size_t off = tail % size, first;

		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(off + i) % size];
		if (h.size < sizeof(h) || h.type == PERF_RECORD_LOST) {
			it->bad = true;
			break;
		}
		if (h.type == PERF_RECORD_KSYMBOL && h.size <= sizeof(buf) - 1) {
			const struct ksymbol_rec *r = (const void *)buf;
			uint64_t time;

			first = size - off < h.size ? size - off : h.size;
			memcpy(buf, data + off, first);
			memcpy(buf + first, data, h.size - first);
			buf[h.size - sizeof(time)] = '\0';   /* the name ends before the time */
			memcpy(&time, buf + h.size - sizeof(time), sizeof(time));
			if (r->ksym_type == PERF_RECORD_KSYMBOL_TYPE_BPF &&
			    h.size > sizeof(*r) + sizeof(time))
				add_item(it, r->addr, r->name, time,
					 r->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER ? -1 : 1);
		} else if (h.type == PERF_RECORD_KSYMBOL) {
			it->bad = true;   /* a name longer than kallsyms allows */
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

static int cmp_item(const void *a, const void *b)
{
	const struct bpf_ksym_item *x = a, *y = b;
	int c;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->time < y->time ? -1 : x->time > y->time;
}

static bool same_sym(const struct bpf_ksym_item *x, const struct bpf_ksym_item *y)
{
	return x->addr == y->addr && !strcmp(x->name, y->name);
}

static int cmp_by_name_time(const void *a, const void *b)
{
	const struct bpf_ksym_item *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* of the live trampoline images t[0, n) (time: when each was registered),
 * the newest of each name: a function's trampoline is rebuilt at another
 * address each time a program is attached to it, and the image it
 * replaces is unregistered only after a grace period, maybe after this
 * collect. Two images of one name from the kallsyms read (time 0) are
 * both kept: nothing tells which is current. */
static struct ksyms *newest_tramps(struct bpf_ksym_item *t, size_t n)
{
	struct ksym *v = malloc((n ? n : 1) * sizeof(*v));
	struct ksyms *ks;
	size_t m = 0;

	if (!v)
		return NULL;
	qsort(t, n, sizeof(*t), cmp_by_name_time);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && !strcmp(t[i].name, t[j + 1].name))
			j++;
		/* t[j]: the newest of the name, and any as new */
		for (size_t k = i; k <= j; k++)
			if (t[k].time == t[j].time)
				v[m++] = (struct ksym){ .addr = t[k].addr, .type = 't',
							.name = t[k].name, .module = "bpf" };
		i = j + 1;
	}
	ks = ksyms_from_array(v, m);
	free(v);
	return ks;
}

struct ksyms *bpf_ksym_net(struct bpf_ksym_item *items, size_t n, struct ksyms **tramps)
{
	struct ksym *v = malloc((n ? n : 1) * sizeof(*v));
	struct bpf_ksym_item *t = malloc((n ? n : 1) * sizeof(*t));
	struct ksyms *ks = NULL;
	size_t m = 0, nt = 0;

	*tramps = NULL;
	if (!v || !t)
		goto out;
	qsort(items, n, sizeof(*items), cmp_item);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && same_sym(&items[i], &items[j + 1]))
			j++;
		if (items[j].delta > 0) {
			v[m++] = (struct ksym){ .addr = items[i].addr, .type = 't',
						.name = items[i].name, .module = "bpf" };
			if (ksym_is_bpf_tramp(items[j].name))
				t[nt++] = items[j];   /* its last event: the registration */
		}
		i = j + 1;
	}
	ks = ksyms_from_array(v, m);
	*tramps = ks ? newest_tramps(t, nt) : NULL;
	if (ks && !*tramps) {
		ksyms_free(ks);
		ks = NULL;
	}
out:
	free(v);
	free(t);
	return ks;
}

struct ksyms *bpf_ksym_watch_collect(struct bpf_ksym_watch *w, const struct ksyms *ks,
				     struct ksyms **tramps)
{
	struct items it = {};
	struct ksyms *out = NULL;

	*tramps = NULL;
	if (!w->ncpu)
		return NULL;
	for (size_t i = 0; i < ksyms_count(ks) && !it.bad; i++) {
		const struct ksym *k = ksyms_at(ks, i);

		if (k->module && !strcmp(k->module, "bpf"))
			add_item(&it, k->addr, k->name, 0, 1);
	}
	for (int c = 0; c < w->ncpu && !it.bad; c++)
		read_ring(&it, w->rings[c], w->ring_size);
	if (!it.bad)
		out = bpf_ksym_net(it.v, it.n, tramps);
	for (size_t i = 0; i < it.n; i++)
		free(it.v[i].name);
	free(it.v);
	return out;
}

void bpf_ksym_watch_close(struct bpf_ksym_watch *w)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (int c = 0; c < w->ncpu; c++) {
		munmap(w->rings[c], page + w->ring_size);
		close(w->fds[c]);
	}
	free(w->fds);
	free(w->rings);
	memset(w, 0, sizeof(*w));
}
