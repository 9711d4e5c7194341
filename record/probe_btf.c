/* probe_btf.c - the -J probes' context types in the recording's "btf"
 * blob (probe_attach.h): copied with their reachable types into a BTF
 * subset, and appended to the blob -A made (or made the blob alone), so
 * every probe's btf_id in the "probes" blob names its type there. */
#include "record/probe_attach.h"
#include "record/btf_subset.h"
#include "record/header_blobs.h"
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int probe_set_add_types(struct probe_set *ps, struct btf_subset *sub, const struct btf *vmlinux,
			char *err, size_t errlen)
{
	for (size_t i = 0; i < ps->n; i++) {
		struct probe_def *d = &ps->v[i];
		int id;

		if (d->src_btf_id <= 0)
			continue;
		id = btf_subset_add(sub, d->synth ? ps->synth : vmlinux, (uint32_t)d->src_btf_id);
		if (id < 0) {
			snprintf(err, errlen, "probe '%s': copying the type of %s's context into the "
				 "recording's BTF failed: %s", d->spec, d->name, strerror(-id));
			return -1;
		}
		d->btf_id = (uint32_t)id;
	}
	return 0;
}

/* the types of SUB after those of the "btf" blob already in HB: the
 * probes' ids shift by where they land; 0 or -errno */
static int append_to_blob(struct probe_set *ps, const struct btf_subset *sub,
			  struct header_blobs *hb)
{
	const struct rsf_blob *old = header_blobs_find(hb, "btf");
	struct btf *all = btf__new(old->data, (uint32_t)old->size);
	const void *raw;
	uint32_t size;
	int first, ret;

	if (!all)
		return -errno;
	first = btf__add_btf(all, btf_subset_btf(sub));
	if (first < 0) {
		btf__free(all);
		return first;
	}
	for (size_t i = 0; i < ps->n; i++)
		if (ps->v[i].btf_id)
			ps->v[i].btf_id += (uint32_t)first - 1;
	raw = btf__raw_data(all, &size);
	ret = raw ? header_blobs_add(hb, "btf", raw, size) : -ENOMEM;
	btf__free(all);
	return ret;
}

int probe_set_add_btf(struct probe_set *ps, const struct btf *vmlinux, struct header_blobs *hb,
		      char *err, size_t errlen)
{
	struct btf_subset *sub = btf_subset_new(BTF_SUBSET_SHALLOW);
	const void *raw;
	uint32_t size;
	int ret = -1;

	if (!sub) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (probe_set_add_types(ps, sub, vmlinux, err, errlen))
		goto out;
	if (header_blobs_find(hb, "btf"))
		ret = append_to_blob(ps, sub, hb);
	else
		ret = (raw = btf_subset_raw(sub, &size)) ? header_blobs_add(hb, "btf", raw, size) :
							    -ENOMEM;
	if (ret)
		snprintf(err, errlen, "-J: adding the probes' context types to the \"btf\" blob "
			 "failed: %s", strerror(-ret));
out:
	btf_subset_free(sub);
	return ret ? -1 : 0;
}
