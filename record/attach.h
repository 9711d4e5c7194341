/* attach.h - the BPF skeleton's lifecycle: configure and load for one
 * attach mode, attach every selected function (kprobe.multi, kprobes,
 * fentry/fexit clones), start/stop tracing, detach. */
#ifndef RS_ATTACH_H
#define RS_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "record/options.h"
#include "record/select.h"
#include "bpf/retsnoop_abi.h"
#include "record/clone_patch.h"

struct retsnoop_bpf;
struct bpf_link;
struct ksyms;

struct tracer {
	struct retsnoop_bpf *skel;
	enum attach_mode mode;
	struct bpf_link **links;
	size_t nlinks, links_cap;
	uint32_t *link_funcs;     /* kprobe mode: the function of links[2k], links[2k+1] */
	int *fds;                 /* fentry mode: cloned program and link fds */
	size_t nfds, fds_cap;
	bool session;             /* -M as one kprobe.session link */
	bool lean;                /* the lean BPF object loaded (record/bpf_objects.h) */
	struct bpf_program *fexit;   /* fentry mode: the fexit template loaded (rs_fexit or
				      * rs_fexit_cast) */
	struct cookie_sites cookie_at[2];   /* fentry mode: the cookie's immediates in
					     * rs_fentry's and the fexit template's
					     * instructions (function 0's there,
					     * patched per clone) */
	long ret_at;              /* fentry mode: the index of the fexit template's
				   * RS_CLONE_RET_MAGIC immediate (0 in the template:
				   * its helper's read; -1: no direct read in that
				   * template) */
	struct ret_off_sites ret_off;   /* and its RS_CLONE_RET_OFF_MAGIC loads */
	long flags_at;            /* fentry mode: the index of the fexit template's
				   * RS_CLONE_FLAGS_MAGIC move (function 0's there,
				   * patched per clone) */
	long args_at;             /* and of its RS_CLONE_ARGS_MAGIC move (the same) */
	size_t ret_direct;        /* fexit clones that read their return value directly */
	int session_fd;           /* its link, else -1 */
	size_t attached, failed;
	uint64_t attach_ns, detach_ns;
	FILE *log;                /* warnings, -v failures, the TTY progress bar */
};

/* session: -M as one kprobe.session link (features_probe_kprobe_session
 * said the kernel has it, -C bpf.kprobe-session did not turn it off);
 * rdonly_cast: the kernel has bpf_rdonly_cast (features_probe_rdonly_cast):
 * fentry mode uses the fexit template that reads stack words through it */
int tracer_open(struct tracer *t, const struct record_opts *o, const struct selection *sel,
		enum attach_mode mode, bool use_lbr, bool session, bool rdonly_cast, char *err,
		size_t errlen);
/* the attach type in use, as the file header names it: "kprobe-session"
 * for -M's one-link form, else attach_mode_name() */
const char *tracer_mode_name(const struct tracer *t);
/* pid filters (-p/-P and the spawned child), comm filters, function tables
 * (ks: the kallsyms the selection came from, for function extents) */
int tracer_configure(struct tracer *t, const struct record_opts *o, const struct selection *sel,
		     const struct ksyms *ks, pid_t child, char *err, size_t errlen);
/* warnings (a lifecycle hook that failed), with verbose each function
 * that failed, and on a terminal the progress bar go to log */
int tracer_attach(struct tracer *t, const struct selection *sel, int verbose, FILE *log,
		  char *err, size_t errlen);
/* sessions open from start on, none after stop (those open then go on
 * until they end or the programs are detached; the reader's last drain
 * takes what they sent by then) */
void tracer_start(struct tracer *t);
void tracer_stop(struct tracer *t);
int tracer_ringbuf_fd(const struct tracer *t);
void tracer_stats(const struct tracer *t, struct rs_bpf_stats *out);
/* fentry's deferred stacks met a BPF trampoline frame they do not know
 * (bpf/stack_defer.bpf.h) and were turned off */
bool tracer_fexit_defer_broken(const struct tracer *t);
/* fentry's deferred stacks: the traced functions' trampoline images, from
 * the [bpf] symbols read after attaching (record/attach.c) */
int tracer_fill_tramp_ranges(struct tracer *t, const struct selection *sel, const struct ksyms *bpf_ks,
			     const struct ksyms *current);
/* -U: the map of execs per process (bpf/ustack.bpf.h exec_gen) */
int tracer_exec_gen_fd(const struct tracer *t);
/* program runs the kernel skipped (recursion misses of every loaded
 * program), in all and of the entry and exit programs; call before
 * tracer_detach, which closes fentry clones */
struct prog_misses {
	uint64_t total, entry, exit, probes;   /* probes: the -J programs' */
};
void tracer_prog_misses(const struct tracer *t, struct prog_misses *m);
/* the instructions the kernel's verifier went through, over every program
 * loaded (what the attach's load time grows with; 0 before Linux 5.16),
 * and per fentry/fexit clone pair (0 in other modes) */
uint64_t tracer_verified_insns(const struct tracer *t, uint64_t *per_clone);

/* kprobe.multi: the slots of the functions' cookie table by address
 * (record/ip_cookies.h) and, in *direct, whether it is the BPF side's
 * global array (else the ip_cookies map); 0 in the other modes */
uint32_t tracer_cookie_slots(const struct tracer *t, bool *direct);
void tracer_detach(struct tracer *t);   /* closes links and programs, timed */
void tracer_close(struct tracer *t);

#endif
