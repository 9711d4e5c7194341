/* features.h - what the running kernel lets us do (BTF, kprobes,
 * kprobe.multi, fentry, ring buffer, helpers), probed up front, and the
 * exact reason when tracing is impossible. */
#ifndef RS_FEATURES_H
#define RS_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "record/options.h"

struct btf;

struct features {
	bool root;
	bool btf;
	bool kprobes;
	bool kprobe_multi;
	bool kprobe_session;     /* kprobe.session links (6.10+): -M's one-link form */
	bool rdonly_cast;        /* the bpf_rdonly_cast kfunc (6.2+): fentry's deferred stacks
				  * read stack words as plain loads (bpf/kword.bpf.h) */
	bool fentry;
	bool ringbuf;
	bool branch_snapshot;
	bool func_ip;            /* bpf_get_func_ip() */
	bool cookie;             /* bpf_get_attach_cookie(): function ids in kprobe modes */
	bool lbr;                /* LBR perf events are running */
	int kprobe_multi_err;    /* errno of the probe, 0 if fine */
	int fentry_err;
	char why_kprobes[256];
	char why_kprobe_multi[256];
	char why_fentry[256];
};

/* cheap checks: euid, /sys/kernel/btf/vmlinux, kprobe PMU */
void features_detect_basic(struct features *f);
/* loads (and for kprobe.multi attaches, then detaches) tiny programs
 * against the given function; fills the *_err and why_* fields */
void features_probe_fentry(struct features *f, struct btf *btf, int btf_id);
void features_probe_kprobe_multi(struct features *f, uint64_t addr);
/* after features_probe_kprobe_multi: kprobe.session, known by its kfunc
 * bpf_session_is_return in the kernel's BTF (no program load) */
void features_probe_kprobe_session(struct features *f, const struct btf *btf);
/* bpf_rdonly_cast, known by its kfunc in the kernel's BTF */
void features_probe_rdonly_cast(struct features *f, const struct btf *btf);
/* RSF_FEAT_* mask for the recording header */
uint32_t features_mask(const struct features *f);
/* picks the attach mode; on failure writes why (every backend's reason) */
int features_choose_mode(const struct features *f, enum attach_mode want,
			 enum attach_mode *out, char *err, size_t errlen);
const char *attach_mode_name(enum attach_mode m);
/* -Vv: detects and prints every feature with the reason when missing */
void features_report(FILE *out);

#endif
