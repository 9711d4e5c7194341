/* probe_attach.h - the injected probes of one recording (-J): the specs
 * resolved against the running kernel (tracepoint globs expanded, each
 * kind's kernel support checked, the context's size and BTF type found),
 * their programs set up in the skeleton, attached with the probe id in the
 * BPF cookie and detached on stop, and the "probes" header blob. */
#ifndef RS_PROBE_ATTACH_H
#define RS_PROBE_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "format/probe_table.h"

struct btf;
struct bpf_link;
struct header_blobs;
struct retsnoop_bpf;
struct record_opts;

/* one resolved probe; its id is its index */
struct probe_def {
	enum rsf_probe_kind kind;
	char *spec;              /* the -J text */
	char *name;              /* row name (probe_display_name) */
	char *category;          /* tp: the event's category */
	char *target;            /* function, raw tracepoint or event name */
	uint64_t offset;         /* kprobe +OFF */
	uint32_t ctx_size;       /* the context's natural size */
	uint32_t want, min;      /* context bytes copied with -A (bpf/probe_cookie.h) */
	bool trunc;              /* want < ctx_size */
	int32_t src_btf_id;      /* context type in the kernel BTF, or with
				  * synth in probe_set.synth (0: none) */
	bool synth;
	uint32_t btf_id;         /* ... in the recording's BTF (0: none) */
};

struct probe_set {
	struct probe_def *v;
	size_t n, cap;
	struct bpf_link **links;
	size_t nlinks;
	int *fds;                /* raw tracepoint links (opened without libbpf) */
	size_t nfds;
	uint64_t attach_ns;
	struct btf *synth;       /* tracepoint structs made from tracefs formats */
};

/* resolves SPECS (already parsed once by the option parser) against the
 * kernel: BTF for contexts, tracefs for tracepoints. max_ctx bounds a
 * tracepoint record's copy (args.max-sized-arg-size). 0, or -1 with
 * err: one line per failing spec (lines after the first are also printed
 * on log under prog's name, so each spec gets its own line). */
int probe_set_resolve(struct probe_set *ps, char *const *specs, size_t nspecs,
		      const struct btf *vmlinux, uint32_t max_ctx, FILE *log, const char *prog,
		      char *err, size_t errlen);
/* -A: each probe's context type copied into SUB (the recording's "btf"
 * blob under construction, record/btf_subset.h), its id kept for the
 * "probes" blob; 0, or -1 with the reason in err */
struct btf_subset;
int probe_set_add_types(struct probe_set *ps, struct btf_subset *sub, const struct btf *vmlinux,
			char *err, size_t errlen);
/* -A: every probe's context type into the "btf" blob of HB: appended to
 * the one -A already added (the probes' ids shifted past its types), or
 * a blob of their own; 0, or -1 with the reason in err */
int probe_set_add_btf(struct probe_set *ps, const struct btf *vmlinux, struct header_blobs *hb,
		      char *err, size_t errlen);
/* before the skeleton loads: only the programs of kinds in use load */
void probe_skel_setup(struct retsnoop_bpf *s, const struct record_opts *o);
/* the dry run's list: one line per probe (name, spec, context size) */
void probe_set_print(FILE *f, const struct probe_set *ps);
/* attaches every probe; 0, or -1 with the failing probe named in err */
int probe_set_attach(struct probe_set *ps, struct retsnoop_bpf *s, char *err, size_t errlen);
void probe_set_detach(struct probe_set *ps);
/* the "probes" blob (malloc'ed); 0 or -1 */
int probe_set_blob(const struct probe_set *ps, void **blob, size_t *size);
/* ... added to the recorder's header blobs; 0 or -1 */
int probe_set_add_blob(const struct probe_set *ps, struct header_blobs *hb);
void probe_set_free(struct probe_set *ps);

#endif
