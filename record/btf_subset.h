/* btf_subset.h - one self-contained BTF (no base) built from chosen types
 * of other BTFs (vmlinux, module split BTF): a type and every type it
 * reaches are copied with libbpf's btf__add_* API, their ids remapped.
 * Each source type is copied once (dedup by source BTF and id; a type of a
 * split BTF's base counts as the base's). The recording's "btf" blob (-A)
 * and the -J probe contexts are built with it.
 *
 * With BTF_SUBSET_SHALLOW, structs and unions reached through a pointer
 * that sits inside a struct or union are copied as forward declarations
 * (their name only): a capture holds at most the bytes of an argument and
 * of what an argument points to, so deeper structs are never rendered,
 * and without the cut one kernel function prototype reaches most of the
 * kernel's types. */
#ifndef RS_BTF_SUBSET_H
#define RS_BTF_SUBSET_H

#include <stdint.h>

struct btf;
struct btf_subset;

enum btf_subset_flags {
	BTF_SUBSET_SHALLOW = 0x1,
};

/* NULL when out of memory */
struct btf_subset *btf_subset_new(unsigned flags);
void btf_subset_free(struct btf_subset *s);

/* Copies type ID of SRC (and what it reaches) unless already copied;
 * returns its id in the subset (0 for void), or -errno (-EINVAL: no such
 * type or a kind that cannot be copied). After an error inside the copy
 * every later add fails with it too. SRC must outlive the subset. */
int btf_subset_add(struct btf_subset *s, const struct btf *src, uint32_t id);

/* the BTF built so far (owned by the subset; read-only use) */
const struct btf *btf_subset_btf(const struct btf_subset *s);
/* number of types, void excluded */
uint32_t btf_subset_types(const struct btf_subset *s);
/* the raw BTF bytes (valid until the next add or free); NULL on error */
const void *btf_subset_raw(struct btf_subset *s, uint32_t *size);

#endif
