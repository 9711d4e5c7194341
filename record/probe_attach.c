/* probe_attach.c - the injected probes' programs in the skeleton, their
 * links (attach, detach) and the "probes" header blob (probe_attach.h). */
#include "record/probe_attach.h"
#include "record/options.h"
#include "record/probe_spec.h"
#include "record/header_blobs.h"
#include "bpf/probe_cookie.h"
#include <linux/types.h>
#include "retsnoop.skel.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void probe_skel_setup(struct retsnoop_bpf *s, const struct record_opts *o)
{
	bool kinds[RSF_PROBE_TP + 1] = { false };

	for (size_t i = 0; i < o->nprobes; i++) {
		struct probe_spec p;
		char err[256];

		if (!probe_spec_parse(o->probes[i], &p, err, sizeof(err))) {
			kinds[p.kind] = true;
			probe_spec_free(&p);
		}
	}
	bpf_program__set_autoload(s->progs.rs_probe_kprobe,
				  kinds[RSF_PROBE_KPROBE] || kinds[RSF_PROBE_KRETPROBE]);
	bpf_program__set_autoload(s->progs.rs_probe_rawtp, kinds[RSF_PROBE_RAWTP]);
	bpf_program__set_autoload(s->progs.rs_probe_tp, kinds[RSF_PROBE_TP]);
	s->rodata->probe_ctx = o->probe_ctx;
}

/* BPF_RAW_TRACEPOINT_OPEN with a cookie (Linux 6.10+): this libbpf's
 * headers predate the field, so the attribute is spelled out here */
static int raw_tp_open(int prog_fd, const char *name, uint64_t cookie)
{
	struct {
		__u64 name;
		__u32 prog_fd;
		__u32 pad;
		__u64 cookie;
	} attr;

	memset(&attr, 0, sizeof(attr));
	attr.name = (uintptr_t)name;
	attr.prog_fd = (__u32)prog_fd;
	attr.cookie = cookie;
	return (int)syscall(__NR_bpf, BPF_RAW_TRACEPOINT_OPEN, &attr, sizeof(attr));
}

static int attach_one(struct probe_set *ps, struct retsnoop_bpf *s, uint32_t id)
{
	const struct probe_def *d = &ps->v[id];
	uint64_t c = RS_PROBE_COOKIE(id, d->trunc, d->want, d->min);
	struct bpf_link *l = NULL;
	int fd;

	switch (d->kind) {
	case RSF_PROBE_KPROBE:
	case RSF_PROBE_KRETPROBE: {
		LIBBPF_OPTS(bpf_kprobe_opts, ko, .bpf_cookie = c, .offset = (size_t)d->offset,
			    .retprobe = d->kind == RSF_PROBE_KRETPROBE);

		l = bpf_program__attach_kprobe_opts(s->progs.rs_probe_kprobe, d->target, &ko);
		break;
	}
	case RSF_PROBE_TP: {
		LIBBPF_OPTS(bpf_tracepoint_opts, to, .bpf_cookie = c);

		l = bpf_program__attach_tracepoint_opts(s->progs.rs_probe_tp, d->category, d->target,
							&to);
		break;
	}
	case RSF_PROBE_RAWTP:
		fd = raw_tp_open(bpf_program__fd(s->progs.rs_probe_rawtp), d->target, c);
		if (fd < 0)
			return -1;
		ps->fds[ps->nfds++] = fd;
		return 0;
	}
	if (!l)
		return -1;
	ps->links[ps->nlinks++] = l;
	return 0;
}

static const char *attach_hint(const struct probe_def *d, int e)
{
	if (e == ENOENT || e == EINVAL)
		return d->kind == RSF_PROBE_RAWTP ? " (no such raw tracepoint?)" :
		       d->kind == RSF_PROBE_TP ? " (no such tracepoint?)" :
		       d->offset ? " (no such kernel function, or the offset is not an "
				   "instruction boundary inside it?)" :
				   " (no such kernel function, or it cannot be probed?)";
	return "";
}

int probe_set_attach(struct probe_set *ps, struct retsnoop_bpf *s, char *err, size_t errlen)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ps->links = calloc(ps->n ? ps->n : 1, sizeof(*ps->links));
	ps->fds = calloc(ps->n ? ps->n : 1, sizeof(*ps->fds));
	if (!ps->links || !ps->fds) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < ps->n; i++) {
		if (attach_one(ps, s, i)) {
			int e = errno;

			snprintf(err, errlen, "probe '%s': attaching %s failed: %s%s", ps->v[i].spec,
				 ps->v[i].name, strerror(e), attach_hint(&ps->v[i], e));
			return -1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ps->attach_ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ULL + t1.tv_nsec - t0.tv_nsec;
	return 0;
}

void probe_set_detach(struct probe_set *ps)
{
	for (size_t i = 0; i < ps->nlinks; i++)
		bpf_link__destroy(ps->links[i]);
	for (size_t i = 0; i < ps->nfds; i++)
		close(ps->fds[i]);
	ps->nlinks = ps->nfds = 0;
}

void probe_set_print(FILE *f, const struct probe_set *ps)
{
	if (ps->n)
		fprintf(f, "%zu injected probes would be attached:\n", ps->n);
	for (size_t i = 0; i < ps->n; i++) {
		const struct probe_def *d = &ps->v[i];

		fprintf(f, "  %s (from -J %s; context %u bytes%s%s)\n", d->name, d->spec, d->ctx_size,
			d->src_btf_id ? "" : ", no BTF type",
			d->trunc ? ", cut to args.max-sized-arg-size" : "");
	}
}

int probe_set_blob(const struct probe_set *ps, void **blob, size_t *size)
{
	struct rsf_probe *v = calloc(ps->n ? ps->n : 1, sizeof(*v));
	int ret;

	if (!v)
		return -1;
	for (size_t i = 0; i < ps->n; i++)
		v[i] = (struct rsf_probe){ ps->v[i].kind, ps->v[i].btf_id, ps->v[i].ctx_size,
					   ps->v[i].spec, ps->v[i].name };
	ret = rsf_probes_encode(v, ps->n, blob, size);
	free(v);
	return ret;
}

int probe_set_add_blob(const struct probe_set *ps, struct header_blobs *hb)
{
	void *blob;
	size_t size;
	int ret;

	if (probe_set_blob(ps, &blob, &size))
		return -1;
	ret = header_blobs_add(hb, "probes", blob, size);
	free(blob);
	return ret ? -1 : 0;
}

void probe_set_free(struct probe_set *ps)
{
	probe_set_detach(ps);
	for (size_t i = 0; i < ps->n; i++) {
		free(ps->v[i].spec);
		free(ps->v[i].name);
		free(ps->v[i].category);
		free(ps->v[i].target);
	}
	free(ps->v);
	btf__free(ps->synth);
	free(ps->links);
	free(ps->fds);
	memset(ps, 0, sizeof(*ps));
}
