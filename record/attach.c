/* attach.c - loads the retsnoop BPF skeleton for one attach mode and
 * attaches it to every selected function (attach.h). */
#include "record/attach.h"
#include "record/stop_signal.h"
#include "record/tty_status.h"
#include "common/array_grow.h"
#include "record/features.h"
#include "record/comm_filter.h"
#include "record/args_capture.h"
#include "record/clone_btf.h"
#include "record/clone_patch.h"
#include "record/bpf_objects.h"
#include "record/probe_attach.h"
#include "record/map_fill.h"
#include "record/ip_cookies.h"
#include "symbols/ksyms.h"
#include <linux/types.h>
#include <pthread.h>
#include "retsnoop.skel.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* fentry's deferred stacks read the x86-64 BPF trampoline's frame */
#if defined(__x86_64__)
#define FENTRY_DEFER_ARCH true
#else
#define FENTRY_DEFER_ARCH false
#endif
#include <unistd.h>
#include <sys/syscall.h>

/* BPF_TRACE_KPROBE_SESSION (Linux 6.10): newer than the distribution's
 * uapi headers (linux-libc-dev 6.1), and than libbpf 1.1's link_create,
 * which fills kprobe.multi's attributes for BPF_TRACE_KPROBE_MULTI only */
#define RS_BPF_TRACE_KPROBE_SESSION 56

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "?";
}

/* the recorder's own process, for the BPF side to skip (self_tgid in
 * bpf/retsnoop.bpf.c); 0 when -p names it: asked for */
static uint32_t self_tgid(const struct record_opts *o)
{
	uint32_t me = (uint32_t)getpid();

	for (uint32_t i = 0; i < o->f.npids; i++)
		if (o->f.pids[i] == me)
			return 0;
	return me;
}

/* the -n/-N globs with wildcards, compiled into the read-only data */
static void set_comm_globs(struct retsnoop_bpf *s, const struct filter_opts *f)
{
	const uint32_t max = sizeof(s->rodata->comm_glob_acc) / sizeof(s->rodata->comm_glob_acc[0]);
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->ncomms + f->nnocomms && n < max; i++) {
		bool no = i >= f->ncomms;
		const char *glob = no ? f->nocomms[i - f->ncomms] : f->comms[i];
		struct comm_glob_bits b;

		if (!comm_is_glob(glob))
			continue;
		comm_glob_compile(glob, &b);
		memcpy(s->bss->comm_glob_masks[n], b.masks, sizeof(b.masks));
		s->rodata->comm_glob_star[n] = b.star;
		s->rodata->comm_glob_acc[n] = b.acc;
		s->rodata->comm_glob_deny[n] = no;
		n++;
	}
	s->rodata->nr_comm_globs = n;
}

/* -U (bpf/ustack.bpf.h): one scratch slot per CPU, the exec hook; off:
 * the smallest maps and no hook */
static void set_user_stacks(struct retsnoop_bpf *s, const struct record_opts *o)
{
	int ncpus = libbpf_num_possible_cpus();

	s->rodata->emit_ustack = o->user_stacks;
	s->rodata->ustack_size = o->ustack_size;
	bpf_map__set_max_entries(s->maps.ustack_scratch,
				 o->user_stacks && ncpus > 0 ? (uint32_t)ncpus : 1);
	if (!o->user_stacks) {
		bpf_map__set_max_entries(s->maps.exec_gen, 1);
		bpf_map__set_max_entries(s->maps.ustack_seen, 1);
	}
	bpf_program__set_autoload(s->progs.rs_task_exec, o->user_stacks);
}

/* the fexit template's direct return read (bpf/retsnoop.bpf.c fexit_ret):
 * found, and off in the template (the helper's read: function 0 is not
 * known to allow the other); a template without the load has none */
static void template_ret(struct tracer *t, struct bpf_insn *v, size_t cnt)
{
	t->ret_at = insn_at(v, cnt, is_ret_magic);
	t->ret_off.n = 0;
	if (t->ret_at >= 0)
		v[t->ret_at].imm = 0;
	if (t->ret_at >= 0 && !ret_off_sites_find(v, cnt, &t->ret_off))
		t->ret_at = -1;
}

/* before load: the fentry templates, attached to function 0, get its
 * cookie as the immediate, the fexit one its flags too (each clone then its
 * own, clone_insns); -EINVAL when a template has not exactly one of each
 * (a BPF object built wrong) */
static int templates_cookie(struct tracer *t, const struct selection *sel)
{
	struct bpf_program *tmpl[2] = { t->skel->progs.rs_fentry, t->fexit };
	uint64_t cookie0 = RS_FUNC_COOKIE(0, sel->v[0].flags);

	for (int k = 0; k < 2; k++) {
		size_t cnt = bpf_program__insn_cnt(tmpl[k]);
		struct bpf_insn *v;
		int err;

		if (!cookie_sites_find(bpf_program__insns(tmpl[k]), cnt, &t->cookie_at[k]))
			return -EINVAL;
		v = malloc(cnt * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memcpy(v, bpf_program__insns(tmpl[k]), cnt * sizeof(*v));
		cookie_sites_set(v, &t->cookie_at[k], cookie0);
		if (k == 1) {
			t->flags_at = insn_at(v, cnt, is_flags_magic);
			t->args_at = insn_at(v, cnt, is_args_magic);
			if (t->flags_at < 0 || t->args_at < 0) {
				free(v);
				return -EINVAL;
			}
			v[t->flags_at].imm = RS_CLONE_FLAGS(sel->v[0].flags);
			v[t->args_at].imm = (int32_t)RS_CLONE_ARGS(sel->v[0].arg_regs);
			template_ret(t, v, cnt);
		}
		err = bpf_program__set_insns(tmpl[k], v, cnt);   /* libbpf copies them */
		free(v);
		if (err)
			return err;
	}
	return 0;
}

/* the programs the mode loads; fentry's templates attach to function 0
 * and carry its cookie (templates_cookie); a negative errno on failure */
static int set_programs(struct tracer *t, const struct selection *sel, bool rdonly_cast)
{
	struct retsnoop_bpf *s = t->skel;
	bool multi = t->mode == ATTACH_KPROBE_MULTI, fentry = t->mode == ATTACH_FENTRY;

	bpf_program__set_autoload(s->progs.rs_kentry_multi, multi && !t->session);
	bpf_program__set_autoload(s->progs.rs_kexit_multi, multi && !t->session);
	bpf_program__set_autoload(s->progs.rs_ksession, t->session);
	if (t->session)
		bpf_program__set_expected_attach_type(s->progs.rs_ksession, RS_BPF_TRACE_KPROBE_SESSION);
	bpf_program__set_autoload(s->progs.rs_kentry, t->mode == ATTACH_KPROBE);
	bpf_program__set_autoload(s->progs.rs_kexit, t->mode == ATTACH_KPROBE);
	bpf_program__set_autoload(s->progs.rs_fentry, fentry);
	t->fexit = rdonly_cast ? s->progs.rs_fexit_cast : s->progs.rs_fexit;
	bpf_program__set_autoload(s->progs.rs_fexit, fentry && !rdonly_cast);
	bpf_program__set_autoload(s->progs.rs_fexit_cast, fentry && rdonly_cast);
	if (!fentry)
		return 0;
	bpf_program__set_attach_target(s->progs.rs_fentry, 0, sel->v[0].name);
	bpf_program__set_attach_target(t->fexit, 0, sel->v[0].name);
	return templates_cookie(t, sel);
}

/* the .rodata knobs of the recording's options (those of -A and -J:
 * args_capture_preload, probe_skel_setup) */
static void set_knobs(struct retsnoop_bpf *s, const struct record_opts *o, enum attach_mode mode,
		      bool use_lbr, const struct selection *sel)
{
	s->rodata->emit_success = o->success == 1;
	s->rodata->success_stacks = o->success == 1 && o->stacks;
	/* deferred error stacks (bpf/stack_defer.bpf.h), on by default in
	 * kprobe modes: a swallowed error costs no capture. Not for success
	 * stacks, captured at successful calls, nor -I, whose snapshots need
	 * them whole. Through fentry the return addresses come from the
	 * x86-64 BPF trampoline's frame. Off, the verifier drops it as dead
	 * code. */
	s->rodata->defer_stacks = o->defer_stacks && !s->rodata->success_stacks && !o->interim &&
				  (mode != ATTACH_FENTRY || FENTRY_DEFER_ARCH);
	s->rodata->emit_trace = o->trace;
	s->rodata->emit_interim = o->interim;
	/* the common call takes a path of its own (bpf/retsnoop.bpf.c fast_entry),
	 * -T entries included */
	s->rodata->lean_calls = !o->capture_args && !o->interim && o->success != 1 && !use_lbr;
	s->rodata->use_lbr = use_lbr;
	s->rodata->filter_tgid = o->f.npids > 0 || o->cmd != NULL;
	s->rodata->deny_tgid = o->f.nnopids > 0;
	s->rodata->self_tgid = self_tgid(o);
	s->rodata->filter_comm = o->f.ncomms > 0;
	s->rodata->deny_comm = o->f.nnocomms > 0;
	set_comm_globs(s, &o->f);
	s->rodata->fentry_mode = mode == ATTACH_FENTRY;
	s->rodata->duration_ns = o->f.min_lat_ns;
	s->rodata->nr_funcs = (uint32_t)sel->n;
	s->rodata->max_fstack_depth = o->max_depth;
	/* past a quarter of the ring buffer waiting, a session end wakes the
	 * reader; below, the reader's poll timeout collects it */
	s->rodata->wake_bytes = o->ringbuf_size / 4 ? o->ringbuf_size / 4 : 1;
	set_user_stacks(s, o);
}

/* kprobe.multi: the selected functions' addresses (NULL: out of memory) */
static uint64_t *sel_ips(const struct selection *sel)
{
	uint64_t *ips = calloc(sel->n ? sel->n : 1, sizeof(*ips));

	for (uint32_t i = 0; ips && i < sel->n; i++)
		ips[i] = sel->v[i].addr;
	return ips;
}

/* ip_cookies' size (record/ip_cookies.h) */
static uint32_t ipc_bits_of(const struct selection *sel)
{
	uint64_t *ips = sel_ips(sel);
	uint32_t bits = ipc_pick_bits(ips, sel->n);

	free(ips);
	return bits;
}

/* the BPF object t->skel opened made ready to load for the recording:
 * its knobs, map sizes, the programs the mode loads. It changes only the
 * skeleton (and t's fexit template and cookie indices), so that the same
 * preparation can be made again on the other build of the object */
static int tracer_prepare(struct tracer *t, const struct record_opts *o,
			  const struct selection *sel, bool use_lbr, bool rdonly_cast, char *err,
			  size_t errlen)
{
	struct retsnoop_bpf *s = t->skel;
	/* open sessions: -C bpf.sessions-size slots and one per CPU (a CPU
	 * keeps one free slot aside: bpf/retsnoop.bpf.c's cpu_state), all
	 * free at first */
	int ncpus = libbpf_num_possible_cpus(), e;
	uint32_t nslots = o->sessions_size + (uint32_t)(ncpus > 0 ? ncpus : 1);

	if (ncpus > RS_MAX_CPUS) {
		snprintf(err, errlen, "this machine has %d possible CPUs; the BPF side keeps state for %d at most",
			 ncpus, RS_MAX_CPUS);
		return -1;
	}
	set_knobs(s, o, t->mode, use_lbr, sel);
	bpf_map__set_max_entries(s->maps.rb, (uint32_t)o->ringbuf_size);
	bpf_map__set_max_entries(s->maps.sess_slots, nslots);
	bpf_map__set_max_entries(s->maps.free_slots, nslots);
	bpf_map__set_max_entries(s->maps.sess_tb, o->trace ? nslots : 1);
	bpf_map__set_max_entries(s->maps.sess_lbrs, use_lbr ? nslots : 1);
	/* deferred stacks' table only when they are on */
	bpf_map__set_max_entries(s->maps.func_ranges,
				 s->rodata->defer_stacks && sel->n ? (uint32_t)sel->n : 1);
	if (t->mode == ATTACH_KPROBE_MULTI) {
		uint32_t bits = ipc_bits_of(sel);

		s->rodata->ipc_bits = bits;
		s->rodata->ipc_mask = (1U << bits) - 1;
		s->rodata->ipc_shift = 64 - bits;
		bpf_map__set_max_entries(s->maps.ip_cookies, ipc_is_direct(bits) ? 1 : 1U << bits);
	}
	args_capture_preload(s, o, sel->n);
	if ((e = set_programs(t, sel, rdonly_cast))) {
		snprintf(err, errlen, "preparing the fentry templates failed: %s", e == -EINVAL ?
			 "not exactly one cookie immediate in a template (the BPF object is built wrong)" :
			 strerror(-e));
		return -1;
	}
	probe_skel_setup(s, o);
	return 0;
}

/* t->skel opened and prepared: the lean build (bpf/lean_knobs.h) where the
 * knobs the preparation set on it are its constants (-C bpf.lean, default
 * true: tried first, the common recording's), else the general one; the
 * knobs are the recorder's to set, the choice follows them */
static int tracer_pick_object(struct tracer *t, const struct record_opts *o,
			      const struct selection *sel, bool use_lbr, bool rdonly_cast, char *err,
			      size_t errlen)
{
	for (int lean = o->lean; lean >= 0; lean--) {
		retsnoop_bpf__destroy(t->skel);
		t->lean = lean;
		t->skel = bpf_objects_open(lean);
		if (!t->skel) {
			snprintf(err, errlen, "opening the %s BPF object failed: %s",
				 lean ? "lean" : "general", strerror(errno));
			return -1;
		}
		if (tracer_prepare(t, o, sel, use_lbr, rdonly_cast, err, errlen))
			return -1;
		if (!lean || !bpf_objects_lean_mismatch(t->skel))
			return 0;
	}
	return 0;
}

int tracer_open(struct tracer *t, const struct record_opts *o, const struct selection *sel,
		enum attach_mode mode, bool use_lbr, bool session, bool rdonly_cast, char *err,
		size_t errlen)
{
	int e;

	memset(t, 0, sizeof(*t));
	t->mode = mode;
	t->session_fd = -1;
	t->ret_at = t->flags_at = t->args_at = -1;
	t->session = mode == ATTACH_KPROBE_MULTI && session;
	if (tracer_pick_object(t, o, sel, use_lbr, rdonly_cast, err, errlen))
		return -1;
	if (retsnoop_bpf__load(t->skel)) {
		e = errno;
		snprintf(err, errlen, "loading the BPF programs failed with %s (%s)%s", errname(e),
			 strerror(e), e == EPERM ?
			 ": not permitted (need root with CAP_BPF/CAP_PERFMON, and no lockdown/LSM policy forbidding BPF tracing)" :
			 e == EACCES ? ": the BPF verifier rejected a program (run with -vvv to see its log)" :
			 e == ENOMEM ? ": try a smaller -C bpf.ringbuf-size or -C bpf.sessions-size" :
			 "; run with -vvv to see the verifier log");
		return -1;
	}
	return 0;
}

/* kprobe.multi: every function's cookie into ip_cookies, or where it is
 * small the global array through the skeleton's mapping of the loaded
 * object's data (bpf/retsnoop_abi.h, record/ip_cookies.h) */
static int fill_ip_cookies(struct retsnoop_bpf *s, const struct selection *sel)
{
	uint32_t bits = s->rodata->ipc_bits;
	struct rs_ip_cookie *tab = calloc(1U << bits, sizeof(*tab));
	uint64_t *ips = sel_ips(sel), *cookies = calloc(sel->n ? sel->n : 1, sizeof(*cookies));
	int ret = -1;

	if (tab && ips && cookies) {
		for (uint32_t i = 0; i < sel->n; i++)
			cookies[i] = RS_FUNC_COOKIE(i, sel->v[i].flags);
		ipc_fill(tab, bits, ips, cookies, sel->n);
		if (ipc_is_direct(bits)) {
			memcpy(s->bss->ipc_direct_tab, tab, sizeof(*tab) << bits);
			ret = 0;
		} else {
			ret = array_map_fill(bpf_map__fd(s->maps.ip_cookies), tab, 1U << bits);
		}
	}
	free(tab);
	free(ips);
	free(cookies);
	return ret;
}

/* each traced function's code range, for deferred stacks: its kallsyms
 * symbol's extent (0 when unknown: its failures' stacks are captured at once) */
static int fill_func_ranges(struct retsnoop_bpf *s, const struct selection *sel,
			    const struct ksyms *ks)
{
	struct rs_func_range *v = calloc(sel->n ? sel->n : 1, sizeof(*v));
	int ret;

	if (!v)
		return -1;
	for (uint32_t i = 0; i < sel->n; i++) {
		const struct ksym *k = ksyms_lookup(ks, sel->v[i].addr);

		v[i].start = sel->v[i].addr;
		v[i].end = k && k->addr == sel->v[i].addr && k->size ? k->addr + k->size : 0;
	}
	ret = array_map_fill(bpf_map__fd(s->maps.func_ranges), v, (uint32_t)sel->n);
	free(v);
	return ret;
}

/* a vmlinux function's BTF id and function id, sorted by BTF id */
struct btf_func {
	uint32_t btf_id, f;
};

static int cmp_btf_func(const void *a, const void *b)
{
	uint32_t x = ((const struct btf_func *)a)->btf_id, y = ((const struct btf_func *)b)->btf_id;

	return x < y ? -1 : x > y;
}

/* fentry's deferred stacks: each traced function's trampoline image from
 * the [bpf] symbols read after attaching, "bpf_trampoline_KEY", KEY the
 * BTF object id (vmlinux: 1) above the function's BTF id (bit 31 set on
 * newer kernels). current (NULL: unknown): the images in use, of those
 * (bpf_ksym_watch_collect's tramps); an image an attach replaced can stay
 * registered under the same name a while, and taken for the current one
 * it would send a chain through the tail call's return the wrong way. A
 * function without one keeps capturing at once after a tail call. */
int tracer_fill_tramp_ranges(struct tracer *t, const struct selection *sel, const struct ksyms *bpf_ks,
			     const struct ksyms *current)
{
	struct retsnoop_bpf *s = t->skel;
	int fd = bpf_map__fd(s->maps.func_ranges), ret = 0;
	struct btf_func *by_id;
	size_t n = 0;

	if (t->mode != ATTACH_FENTRY || !s->rodata->defer_stacks || !bpf_ks)
		return 0;
	by_id = malloc((sel->n ? sel->n : 1) * sizeof(*by_id));
	if (!by_id)
		return -1;
	for (uint32_t f = 0; f < sel->n; f++)
		if (!sel->v[f].module && sel->v[f].btf_id > 0)
			by_id[n++] = (struct btf_func){ (uint32_t)sel->v[f].btf_id, f };
	qsort(by_id, n, sizeof(*by_id), cmp_btf_func);
	for (size_t i = 0; i < ksyms_count(bpf_ks); i++) {
		const struct ksym *k = ksyms_at(bpf_ks, i);
		unsigned long long key;
		struct btf_func want, *hit;
		struct rs_func_range v;
		const struct ksym *c;
		char *end;

		if (!ksym_is_bpf_tramp(k->name))
			continue;
		if (current && (!(c = ksyms_lookup(current, k->addr)) || c->addr != k->addr))
			continue;
		key = strtoull(k->name + 15, &end, 10);
		if (*end || key >> 32 != 1)
			continue;
		want.btf_id = (uint32_t)(key & 0x7fffffff);
		hit = bsearch(&want, by_id, n, sizeof(*by_id), cmp_btf_func);
		if (!hit || bpf_map_lookup_elem(fd, &hit->f, &v) || !v.end)
			continue;
		v.tramp_start = k->addr;
		v.tramp_end = k->addr + (k->size && k->size < 4096 ? k->size : 4096);
		if (bpf_map_update_elem(fd, &hit->f, &v, 0))
			ret = -1;
	}
	free(by_id);
	return ret;
}

int tracer_configure(struct tracer *t, const struct record_opts *o, const struct selection *sel,
		     const struct ksyms *ks, pid_t child, char *err, size_t errlen)
{
	struct retsnoop_bpf *s = t->skel;
	uint8_t allow = 1, deny = 2;

	if (t->mode == ATTACH_KPROBE_MULTI && fill_ip_cookies(s, sel))
		goto fail;
	for (uint32_t i = 0; i < bpf_map__max_entries(s->maps.free_slots); i++)
		if (bpf_map__update_elem(s->maps.free_slots, NULL, 0, &i, sizeof(i), 0))
			goto fail;
	if (s->rodata->defer_stacks && fill_func_ranges(s, sel, ks))
		goto fail;
	for (uint32_t i = 0; i < o->f.npids; i++) {
		uint32_t p = o->f.pids[i];

		if (bpf_map__update_elem(s->maps.tgids, &p, sizeof(p), &allow, 1, 0))
			goto fail;
	}
	if (child > 0) {
		uint32_t p = (uint32_t)child;

		if (bpf_map__update_elem(s->maps.tgids, &p, sizeof(p), &allow, 1, 0))
			goto fail;
	}
	for (uint32_t i = 0; i < o->f.nnopids; i++) {
		uint32_t p = o->f.nopids[i];

		if (bpf_map__update_elem(s->maps.tgids, &p, sizeof(p), &deny, 1, 0))
			goto fail;
	}
	/* exact names: one hash lookup; globs: bpf/comm_glob.h */
	for (uint32_t i = 0; i < o->f.ncomms + o->f.nnocomms; i++) {
		bool no = i >= o->f.ncomms;
		const char *name = no ? o->f.nocomms[i - o->f.ncomms] : o->f.comms[i];
		char c[16] = {0};

		if (comm_is_glob(name))
			continue;
		memcpy(c, name, strnlen(name, 15));
		if (bpf_map__update_elem(s->maps.comms, c, sizeof(c), no ? &deny : &allow, 1, 0))
			goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "filling BPF maps failed: %s", strerror(errno));
	return -1;
}

static int push_link(struct tracer *t, struct bpf_link *l)
{
	if (array_grow((void **)&t->links, t->nlinks, &t->links_cap, sizeof(*t->links), 64))
		return -1;
	t->links[t->nlinks++] = l;
	return 0;
}

static int push_fd(struct tracer *t, int fd)
{
	if (array_grow((void **)&t->fds, t->nfds, &t->fds_cap, sizeof(*t->fds), 64))
		return -1;
	t->fds[t->nfds++] = fd;
	return 0;
}

/* TTY-only bar for large per-function attaches (kprobe.multi is one call) */
static void progress(struct tty_status *st, size_t done, size_t total)
{
	char line[128];

	if (!st->enabled || total < TTY_PROGRESS_MIN_FUNCS)
		return;
	tty_progress_format(line, sizeof(line), done, total, 30);
	tty_status_show(st, line, tty_status_now(), done == total);
}

/* the arrays one kprobe.multi or kprobe.session link is created from */
struct multi_arrays {
	unsigned long *addrs;
	__u64 *cookies;
	const char **syms;
};

static void multi_arrays_free(struct multi_arrays *a)
{
	free(a->addrs);
	free(a->cookies);
	free(a->syms);
}

static int multi_arrays_fill(struct multi_arrays *a, const struct selection *sel)
{
	size_t n = sel->n;

	a->addrs = calloc(n, sizeof(*a->addrs));
	a->cookies = calloc(n, sizeof(*a->cookies));
	a->syms = calloc(n, sizeof(*a->syms));
	if (!a->addrs || !a->cookies || !a->syms) {
		multi_arrays_free(a);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		a->addrs[i] = sel->v[i].addr;
		a->cookies[i] = RS_FUNC_COOKIE(i, sel->v[i].flags);
		a->syms[i] = sel->v[i].name;
	}
	return 0;
}

static int attach_multi(struct tracer *t, const struct selection *sel, int verbose,
			char *err, size_t errlen)
{
	size_t n = sel->n;
	struct multi_arrays a;
	struct bpf_link *lx = NULL, *le = NULL;
	int ret = -1;

	if (multi_arrays_fill(&a, sel)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* kallsyms names (select_exact.c): by address only; a refusal is
	 * the recorder's cue to select through ftrace's list */
	for (int by_name = 0; by_name < (sel->from_kallsyms ? 1 : 2); by_name++) {
		LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .cnt = n, .cookies = a.cookies);

		if (by_name)
			opts.syms = a.syms;
		else
			opts.addrs = a.addrs;
		opts.retprobe = true;
		/* exit first: an entry without its exit would leave sessions open */
		lx = bpf_program__attach_kprobe_multi_opts(t->skel->progs.rs_kexit_multi, NULL, &opts);
		if (!lx)
			goto retry;
		opts.retprobe = false;
		le = bpf_program__attach_kprobe_multi_opts(t->skel->progs.rs_kentry_multi, NULL, &opts);
		if (!le) {
			bpf_link__destroy(lx);
			lx = NULL;
			goto retry;
		}
		push_link(t, lx);
		push_link(t, le);
		t->attached = n;
		ret = 0;
		goto out;
retry:
		if (verbose && !sel->from_kallsyms)
			fprintf(t->log, "kprobe.multi attach by %s failed: %s%s\n",
				by_name ? "name" : "address", strerror(errno),
				by_name ? "" : "; retrying by name");
	}
	snprintf(err, errlen, "attaching kprobe.multi to %zu functions failed: %s (%s); "
		 "try -K to attach one by one and see which function fails", n, errname(errno),
		 strerror(errno));
out:
	multi_arrays_free(&a);
	return ret;
}

/* -M as one kprobe.session link: BPF_LINK_CREATE by hand (see
 * RS_BPF_TRACE_KPROBE_SESSION); by address, then by name like attach_multi */
static int session_link(int prog_fd, const unsigned long *addrs, const char **syms,
			const __u64 *cookies, size_t n)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (__u32)prog_fd;
	a.link_create.attach_type = RS_BPF_TRACE_KPROBE_SESSION;
	a.link_create.kprobe_multi.cnt = (__u32)n;
	a.link_create.kprobe_multi.addrs = addrs ? (__u64)(uintptr_t)addrs : 0;
	a.link_create.kprobe_multi.syms = syms ? (__u64)(uintptr_t)syms : 0;
	a.link_create.kprobe_multi.cookies = (__u64)(uintptr_t)cookies;
	return (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
}

static int attach_session(struct tracer *t, const struct selection *sel, int verbose,
			  char *err, size_t errlen)
{
	size_t n = sel->n;
	struct multi_arrays a;
	int prog = bpf_program__fd(t->skel->progs.rs_ksession), ret = -1;

	if (multi_arrays_fill(&a, sel)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int by_name = 0; by_name < (sel->from_kallsyms ? 1 : 2); by_name++) {
		int fd = session_link(prog, by_name ? NULL : a.addrs, by_name ? a.syms : NULL,
				      a.cookies, n);

		if (fd >= 0) {
			t->session_fd = fd;
			t->attached = n;
			ret = 0;
			goto out;
		}
		if (verbose && !sel->from_kallsyms)
			fprintf(t->log, "kprobe.session attach by %s failed: %s%s\n",
				by_name ? "name" : "address", strerror(errno),
				by_name ? "" : "; retrying by name");
	}
	snprintf(err, errlen, "attaching kprobe.session to %zu functions failed: %s (%s); "
		 "try -C bpf.kprobe-session=false, or -K to attach one by one and see which "
		 "function fails", n, errname(errno), strerror(errno));
out:
	multi_arrays_free(&a);
	return ret;
}

const char *tracer_mode_name(const struct tracer *t)
{
	return t->session ? "kprobe-session" : attach_mode_name(t->mode);
}

/* attaches function i of the selection; returns -1 with errno set on failure */
typedef int (*attach_one_fn)(struct tracer *t, const struct selection *sel, size_t i);

/* the per-function attach loop of the kprobe and fentry modes: progress on a
 * TTY, failures counted (and named with -v), stops early on Ctrl-C; an error
 * only when nothing could be attached. how_msg goes into the per-function
 * message, mode_name into the final error. */
static int attach_each(struct tracer *t, const struct selection *sel, int verbose,
		       attach_one_fn attach_one, const char *how_msg, const char *mode_name,
		       char *err, size_t errlen)
{
	struct tty_status st;

	tty_status_init(&st, t->log);
	for (size_t i = 0; i < sel->n && !stop_requested(); i++) {
		if (attach_one(t, sel, i) == 0) {
			t->attached++;
		} else {
			t->failed++;
			if (verbose) {
				tty_status_clear(&st);
				fprintf(t->log, "Function '%s' could not be attached%s: %s\n",
					sel->v[i].name, how_msg, strerror(errno));
			}
		}
		progress(&st, i + 1, sel->n);
	}
	tty_status_clear(&st);
	if (!t->attached && !stop_requested()) {
		snprintf(err, errlen, "no function could be attached with %s (last error: %s)",
			 mode_name, strerror(errno));
		return -1;
	}
	return 0;
}

static int attach_kprobe_one(struct tracer *t, const struct selection *sel, size_t i)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = RS_FUNC_COOKIE(i, sel->v[i].flags),
		    .offset = sel->v[i].addr);
	struct bpf_link *lx, *le;

	opts.retprobe = true;
	lx = bpf_program__attach_kprobe_opts(t->skel->progs.rs_kexit, NULL, &opts);
	if (!lx)
		return -1;
	opts.retprobe = false;
	le = bpf_program__attach_kprobe_opts(t->skel->progs.rs_kentry, NULL, &opts);
	if (!le) {
		int e = errno;

		bpf_link__destroy(lx);
		errno = e;
		return -1;
	}
	if (t->nlinks % 2 == 0)   /* the pair's function, for tracer_link_misses */
		t->link_funcs[t->nlinks / 2] = (uint32_t)i;
	push_link(t, lx);
	push_link(t, le);
	return 0;
}

/* a clone's instructions: the loaded template's, with the function's
 * cookie in place of function 0's at the indices of cs (templates_cookie);
 * NULL when out of memory, or (EINVAL) when one of those immediates is not
 * there after load */
static struct bpf_insn *clone_insns(const struct bpf_program *tmpl, const struct cookie_sites *cs,
				    uint64_t cookie0, uint64_t cookie)
{
	size_t cnt = bpf_program__insn_cnt(tmpl);
	struct bpf_insn *v;

	for (int j = 0; j < cs->n; j++) {
		if (!ldimm_is(bpf_program__insns(tmpl), cnt, cs->at[j], cookie0)) {
			errno = EINVAL;
			return NULL;
		}
	}
	v = malloc(cnt * sizeof(*v));
	if (!v) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(v, bpf_program__insns(tmpl), cnt * sizeof(*v));
	cookie_sites_set(v, cs, cookie);
	return v;
}

/* an fexit clone's direct return read (template_ret): the move's
 * RS_CLONE_RET_NUM or _PTR (by its function's flags: btf_func_ret_slot
 * gives slots to integers, enums and pointers only) and the loads'
 * offsets, its function's slot; false when the template does not hold them
 * as expected (the clone then keeps the helper's read) */
static bool clone_ret_direct(const struct tracer *t, struct bpf_insn *v, size_t cnt, int slot,
			     uint64_t cookie)
{
	if (t->ret_at < 0 || slot < 0 || (size_t)t->ret_at >= cnt || !is_ret_mov(&v[t->ret_at]) ||
	    v[t->ret_at].imm != 0 || !ret_off_sites_intact(v, cnt, &t->ret_off))
		return false;
	v[t->ret_at].imm = ((cookie >> 32) & RS_FUNC_RET_PTR) ? RS_CLONE_RET_PTR : RS_CLONE_RET_NUM;
	ret_off_sites_set(v, &t->ret_off, (int16_t)(slot * 8));
	return true;
}

/* an fexit clone's flags from its cookie and its argument registers
 * (templates_cookie); false when the template does not hold the moves
 * where they were found */
static bool clone_flags(const struct tracer *t, struct bpf_insn *v, size_t cnt, uint64_t cookie,
			int arg_regs)
{
	if (t->flags_at < 0 || (size_t)t->flags_at >= cnt || !is_ret_mov(&v[t->flags_at]) ||
	    t->args_at < 0 || (size_t)t->args_at >= cnt || !is_ret_mov(&v[t->args_at]))
		return false;
	v[t->flags_at].imm = RS_CLONE_FLAGS((uint32_t)(cookie >> 32));
	v[t->args_at].imm = (int32_t)RS_CLONE_ARGS(arg_regs);
	return true;
}

/* ret_slot: the fexit clone's return slot (btf_func_ret_slot), -1 for
 * none and for fentry, arg_regs its btf_func_arg_regs; *direct: the clone
 * loaded reads it directly (one the kernel refuses so is loaded again with
 * the helper's read) */
static int clone_attach(const struct tracer *t, struct bpf_program *tmpl,
			const struct cookie_sites *cs, uint64_t cookie0, enum bpf_attach_type type,
			int btf_id, uint64_t cookie, bool with_btf, int ret_slot, int arg_regs,
			bool *direct, int *prog_fd, int *link_fd)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type, .attach_btf_id = btf_id);
	struct bpf_insn *insns = clone_insns(tmpl, cs, cookie0, cookie);
	struct clone_btf cb = { .btf_fd = -1 };
	size_t obj_sz, cnt = bpf_program__insn_cnt(tmpl);
	const void *obj = bpf_objects_bytes(t->lean, &obj_sz);

	*direct = false;
	if (!insns)
		return -1;
	if (type == BPF_TRACE_FEXIT && !clone_flags(t, insns, cnt, cookie, arg_regs)) {
		free(insns);
		errno = EINVAL;
		return -1;
	}
	/* -A, deferred stacks: the template's function info, so that its
	 * global functions are verified once each, not inlined into every path */
	if (with_btf && !clone_btf_get(tmpl, insns, bpf_program__insn_cnt(tmpl), obj, obj_sz, &cb)) {
		opts.prog_btf_fd = cb.btf_fd;
		opts.func_info = cb.fi;
		opts.func_info_cnt = cb.n;
		opts.func_info_rec_size = sizeof(*cb.fi);
	}
	*direct = clone_ret_direct(t, insns, cnt, ret_slot, cookie);
	*prog_fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, bpf_program__name(tmpl), "GPL", insns, cnt,
				 &opts);
	if (*prog_fd < 0 && *direct) {
		insns[t->ret_at].imm = 0;
		*direct = false;
		*prog_fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, bpf_program__name(tmpl), "GPL", insns,
					 cnt, &opts);
	}
	clone_btf_free(&cb);
	free(insns);
	if (*prog_fd < 0)
		return -1;
	*link_fd = bpf_link_create(*prog_fd, 0, type, NULL);
	if (*link_fd < 0) {
		int e = errno;

		close(*prog_fd);
		errno = e;
		return -1;
	}
	return 0;
}

/* function 0 attaches the loaded templates; the others get clones */
static int attach_fentry_one(struct tracer *t, const struct selection *sel, size_t i)
{
	struct bpf_program *pe = t->skel->progs.rs_fentry, *px = t->fexit;
	uint64_t cookie = RS_FUNC_COOKIE(i, sel->v[i].flags);
	uint64_t cookie0 = RS_FUNC_COOKIE(0, sel->v[0].flags);
	int pfx, lfx, pfe, lfe, e;
	bool direct;

	if (i == 0) {
		struct bpf_link *lx = bpf_program__attach_trace(px), *le;

		if (!lx)
			return -1;
		le = bpf_program__attach_trace(pe);
		if (!le) {
			e = errno;
			bpf_link__destroy(lx);
			errno = e;
			return -1;
		}
		push_link(t, lx);
		push_link(t, le);
		return 0;
	}
	if (clone_attach(t, px, &t->cookie_at[1], cookie0, BPF_TRACE_FEXIT, sel->v[i].btf_id, cookie,
			 t->skel->rodata->defer_stacks, sel->v[i].ret_slot, sel->v[i].arg_regs, &direct,
			 &pfx, &lfx))
		return -1;
	t->ret_direct += direct;
	if (clone_attach(t, pe, &t->cookie_at[0], cookie0, BPF_TRACE_FENTRY, sel->v[i].btf_id, cookie,
			 t->skel->rodata->capture_args, -1, -1, &direct, &pfe, &lfe)) {
		e = errno;
		close(lfx);
		close(pfx);
		errno = e;
		return -1;
	}
	/* this order is read back by clone_prog_fd */
	push_fd(t, lfx);
	push_fd(t, lfe);
	push_fd(t, pfx);
	push_fd(t, pfe);
	return 0;
}

static int attach_fentry(struct tracer *t, const struct selection *sel, int verbose,
			 char *err, size_t errlen)
{
	struct bpf_program *pe = t->skel->progs.rs_fentry, *px = t->fexit;

	if (!bpf_program__insn_cnt(pe) || !bpf_program__insn_cnt(px)) {
		snprintf(err, errlen, "libbpf kept no instructions of the loaded fentry template");
		return -1;
	}
	return attach_each(t, sel, verbose, attach_fentry_one, " with fentry/fexit",
			   "fentry/fexit", err, errlen);
}

int tracer_attach(struct tracer *t, const struct selection *sel, int verbose, FILE *log,
		  char *err, size_t errlen)
{
	uint64_t t0 = now_ns();
	int ret;

	t->log = log;
	/* lifecycle tracepoints: sessions of exiting threads, forked children */
	t->skel->links.rs_task_exit = bpf_program__attach(t->skel->progs.rs_task_exit);
	if (!t->skel->links.rs_task_exit)
		fprintf(t->log, "warning: sched_process_exit hook failed: %s; sessions of threads "
			"exiting mid-call are freed only when the table fills\n", strerror(errno));
	t->skel->links.rs_task_fork = bpf_program__attach(t->skel->progs.rs_task_fork);
	if (!t->skel->links.rs_task_fork)
		fprintf(t->log, "warning: sched_process_fork hook failed: %s; children of the traced "
			"command are not followed\n", strerror(errno));
	if (bpf_program__autoload(t->skel->progs.rs_task_exec)) {   /* -U */
		t->skel->links.rs_task_exec = bpf_program__attach(t->skel->progs.rs_task_exec);
		if (!t->skel->links.rs_task_exec)
			fprintf(t->log, "warning: sched_process_exec hook failed: %s; mappings "
				"replaced by exec are noticed only by their addresses\n",
				strerror(errno));
	}

	switch (t->mode) {
	case ATTACH_KPROBE_MULTI:
		ret = t->session ? attach_session(t, sel, verbose, err, errlen) :
				   attach_multi(t, sel, verbose, err, errlen);
		break;
	case ATTACH_KPROBE:
		t->link_funcs = calloc(sel->n ? sel->n : 1, sizeof(*t->link_funcs));
		if (!t->link_funcs) {
			snprintf(err, errlen, "out of memory");
			ret = -1;
			break;
		}
		ret = attach_each(t, sel, verbose, attach_kprobe_one, "", "kprobes", err, errlen);
		break;
	case ATTACH_FENTRY: ret = attach_fentry(t, sel, verbose, err, errlen); break;
	default:
		snprintf(err, errlen, "internal error: no attach mode");
		ret = -1;
	}
	t->attach_ns = now_ns() - t0;
	return ret;
}

void tracer_start(struct tracer *t)
{
	t->skel->bss->ready = true;
}

void tracer_stop(struct tracer *t)
{
	t->skel->bss->ready = false;
}

int tracer_ringbuf_fd(const struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.rb);
}

int tracer_exec_gen_fd(const struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.exec_gen);
}

void tracer_stats(const struct tracer *t, struct rs_bpf_stats *out)
{
	memcpy(out, (const void *)&t->skel->bss->stats, sizeof(*out));
}

bool tracer_fexit_defer_broken(const struct tracer *t)
{
	return t->skel->bss->fexit_defer_broken;
}

/* fentry clones: attach_fentry_one pushes four fds per function, link
 * (exit), link (entry), program (exit), program (entry) */
enum { CLONE_FDS = 4, CLONE_EXIT_PROG = 2, CLONE_ENTRY_PROG = 3 };

/* clone k's exit or entry program */
static int clone_prog_fd(const struct tracer *t, size_t k, bool exit)
{
	return t->fds[k * CLONE_FDS + (exit ? CLONE_EXIT_PROG : CLONE_ENTRY_PROG)];
}

/* program fd's information (all zero when it has none: fd < 0, or the
 * kernel refused) */
static struct bpf_prog_info prog_info(int fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len))
		memset(&info, 0, sizeof(info));
	return info;
}

static uint64_t prog_misses(int fd)
{
	return prog_info(fd).recursion_misses;
}

static uint64_t prog_verified(int fd)
{
	return prog_info(fd).verified_insns;   /* 0 before Linux 5.16 */
}

uint32_t tracer_cookie_slots(const struct tracer *t, bool *direct)
{
	uint32_t bits = t->skel->rodata->ipc_bits;

	*direct = ipc_is_direct(bits);
	return t->mode == ATTACH_KPROBE_MULTI ? 1U << bits : 0;
}

uint64_t tracer_verified_insns(const struct tracer *t, uint64_t *per_clone)
{
	struct bpf_program *p;
	uint64_t n = 0, clones = 0;

	bpf_object__for_each_program(p, t->skel->obj)
		n += prog_verified(bpf_program__fd(p));
	for (size_t k = 0; k < t->nfds / CLONE_FDS; k++)
		clones += prog_verified(clone_prog_fd(t, k, true)) +
			  prog_verified(clone_prog_fd(t, k, false));
	*per_clone = t->nfds >= CLONE_FDS ? clones / (t->nfds / CLONE_FDS) : 0;
	return n + clones;
}

/* entry programs: kprobe(.multi), fentry; exit: kretprobe(.multi),
 * fexit; the task-lifetime tracepoints count in the total only; the
 * kprobe.session program (section kprobe.multi) runs at both ends and
 * counts as entry */
void tracer_prog_misses(const struct tracer *t, struct prog_misses *m)
{
	struct bpf_program *p;

	memset(m, 0, sizeof(*m));
	bpf_object__for_each_program(p, t->skel->obj) {
		const char *sec = bpf_program__section_name(p);
		uint64_t n = prog_misses(bpf_program__fd(p));

		m->total += n;
		if (!strncmp(bpf_program__name(p), "rs_probe_", 9)) {
			m->probes += n;   /* -J probes: not entry or exit */
			continue;
		}
		if (strstr(sec, "kretprobe") || strstr(sec, "fexit"))
			m->exit += n;
		else if (strstr(sec, "kprobe") || strstr(sec, "fentry"))
			m->entry += n;
	}
	for (size_t k = 0; k < t->nfds / CLONE_FDS; k++) {
		uint64_t x = prog_misses(clone_prog_fd(t, k, true));
		uint64_t e = prog_misses(clone_prog_fd(t, k, false));

		m->total += x + e;
		m->exit += x;
		m->entry += e;
	}
}

/* one detaching thread's share of the links and fds */
struct detach_slice {
	struct bpf_link **links;
	size_t nlinks;
	int *fds;
	size_t nfds;
};

static void *detach_slice_run(void *arg)
{
	struct detach_slice *d = arg;

	for (size_t i = 0; i < d->nlinks; i++)
		bpf_link__destroy(d->links[i]);
	for (size_t i = 0; i < d->nfds; i++)
		close(d->fds[i]);
	return NULL;
}

/* Each kprobe or trampoline removal, and each kprobe.multi link's, waits
 * for an RCU grace period; done from several threads at once the waits
 * overlap instead of adding up (the two kprobe.multi links too). */
#define DETACH_THREADS 16
#define DETACH_MIN_PER_THREAD 1

void tracer_detach(struct tracer *t)
{
	uint64_t t0 = now_ns();
	size_t nthr;
	struct detach_slice sl[DETACH_THREADS];
	pthread_t tid[DETACH_THREADS];
	bool started[DETACH_THREADS] = { false };

	if (t->session && t->session_fd >= 0) {   /* closed with the fds */
		if (push_fd(t, t->session_fd))
			close(t->session_fd);
		t->session_fd = -1;
	}
	nthr = (t->nlinks + t->nfds) / DETACH_MIN_PER_THREAD;
	if (nthr > DETACH_THREADS)
		nthr = DETACH_THREADS;
	if (nthr < 1)
		nthr = 1;
	for (size_t k = 0; k < nthr; k++) {
		size_t l0 = t->nlinks * k / nthr, l1 = t->nlinks * (k + 1) / nthr;
		size_t f0 = t->nfds * k / nthr, f1 = t->nfds * (k + 1) / nthr;

		sl[k] = (struct detach_slice){ t->links + l0, l1 - l0, t->fds + f0, f1 - f0 };
	}
	for (size_t k = 1; k < nthr; k++)
		started[k] = pthread_create(&tid[k], NULL, detach_slice_run, &sl[k]) == 0;
	detach_slice_run(&sl[0]);
	for (size_t k = 1; k < nthr; k++) {
		if (started[k])
			pthread_join(tid[k], NULL);
		else
			detach_slice_run(&sl[k]);   /* no thread: do it here */
	}
	t->nlinks = 0;
	t->nfds = 0;
	retsnoop_bpf__detach(t->skel);
	t->detach_ns = now_ns() - t0;
}

void tracer_close(struct tracer *t)
{
	if (t->nlinks || t->nfds || (t->session && t->session_fd >= 0))
		tracer_detach(t);
	retsnoop_bpf__destroy(t->skel);
	free(t->links);
	free(t->link_funcs);
	free(t->fds);
	memset(t, 0, sizeof(*t));
}
