/* recorder.c - the recorder object's lifecycle (recorder.h): the checks
 * before anything is loaded, selection and attach mode, attach, the
 * capture loop with its hooks, detach and the file's trailer. */
#include "format/rsfile.h"
#include "record/args_capture.h"
#include "record/attach.h"
#include "record/attach_plan.h"
#include "record/bpf_ksym_watch.h"
#include "record/capture.h"
#include "record/features.h"
#include "record/file_header.h"
#include "record/header_blobs.h"
#include "record/ksym_iter.h"
#include "record/lbr.h"
#include "record/record_sink.h"
#include "record/recorder.h"
#include "record/link_misses.h"
#include "record/pid_check.h"
#include "record/probe_attach.h"
#include "record/select.h"
#include "record/spawn.h"
#include "record/stop_signal.h"
#include "symbols/ksyms.h"
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* the start-up steps -v times (printed with the "Recording" line) */
enum { LAP_CHECKS, LAP_KALLSYMS, LAP_BTF, LAP_SELECT, LAP_PROBES, LAP_LOAD, LAP_ATTACH,
       LAP_OUTPUT, LAP_N };
static const char *const lap_names[LAP_N] = {
	"checks", "kallsyms", "BTF", "selection", "probes", "load", "attach", "file header",
};

struct recorder {
	struct record_opts o;
	const char *prog;
	const struct record_hooks *hooks;
	FILE *log;
	char err[1024];
	bool failed;               /* a step failed: exit status 1 */
	struct features feat;
	struct ksyms *ks;
	struct bpf_ksym_watch kw;  /* [bpf] symbols added from before ks was read */
	struct btf *btf;
	struct selection sel;
	enum attach_mode mode;
	struct spawned child;
	bool have_child;
	struct lbr_events lbr;
	char lbr_why[1024];
	struct tracer tr;
	struct probe_set probes;   /* -J */
	struct file_header hdr;
	struct header_blobs blobs; /* named header blobs added while attaching */
	struct args_capture args;  /* -A plans */
	struct rsf_writer *w;
	struct record_sink sink;
	uint64_t finish_t0;
	uint64_t lap_t;            /* -v start-up profile: end of the last step */
	uint64_t laps[LAP_N];      /* ns spent in each step */
};

/* libbpf's own messages: only with -vv (warnings, info) and -vvv (debug) */
static int libbpf_verbosity;

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && libbpf_verbosity < 3)
		return 0;
	if ((level == LIBBPF_INFO || level == LIBBPF_WARN) && libbpf_verbosity < 2)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* the time since the previous lap goes to step i */
static void lap(struct recorder *r, int i)
{
	uint64_t t = now_ns();

	r->laps[i] += t - r->lap_t;
	r->lap_t = t;
}

__attribute__((format(printf, 2, 3)))
static int fail(struct recorder *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->failed = true;
	return -1;
}

/* a step failed and its callee already wrote the reason into r->err */
static int failed(struct recorder *r)
{
	r->failed = true;
	return -1;
}

/* a problem that does not stop the recording, under the command's name */
static void warn(struct recorder *r, const char *msg)
{
	fprintf(r->log, "%s: %s\n", r->prog, msg);
}

struct recorder *recorder_new(const struct record_opts *o, const char *prog,
			      const struct record_hooks *hooks, FILE *log)
{
	struct recorder *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->o = *o;
	r->prog = prog;
	r->hooks = hooks;
	r->log = log;
	r->child = (struct spawned){ .pid = -1, .gate_fd = -1 };
	r->lap_t = now_ns();
	libbpf_verbosity = o->verbose;
	libbpf_set_print(libbpf_log);
	return r;
}

struct header_blobs *recorder_blobs(struct recorder *r)
{
	return &r->blobs;
}

const char *recorder_error(const struct recorder *r)
{
	return r->err;
}

/* ----------------------------------------------------------- preflight -- */

static int check_kernel(struct recorder *r)
{
	features_detect_basic(&r->feat);
	if (!r->feat.root)
		return fail(r, "must run as root: attaching kernel probes needs CAP_BPF, "
			    "CAP_PERFMON and CAP_SYS_ADMIN, and reading kallsyms addresses needs "
			    "CAP_SYSLOG (try sudo)");
	if (!r->feat.btf)
		return fail(r, "the kernel has no BTF (/sys/kernel/btf/vmlinux is missing): "
			    "retsnoop needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
	if (!r->feat.ringbuf)
		return fail(r, "the kernel has no BPF ring buffer (needs Linux 5.8+)");
	return 0;
}

static void raise_limits(void)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

	setrlimit(RLIMIT_MEMLOCK, &rl);
	rl.rlim_cur = rl.rlim_max = 300000;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static int load_kernel_symbols(struct recorder *r)
{
	size_t cnt;
	const struct ksym *k;

	struct ksym_source src;

	bpf_ksym_watch_open(&r->kw);   /* failing: the header re-reads kallsyms */
	r->ks = ksym_iter_load(&src, r->err, sizeof(r->err));
	if (!r->ks)
		return failed(r);
	if (r->o.verbose)
		fprintf(r->log, "Kernel symbols: %zu functions from %s%s%s%s\n",
			ksyms_count(r->ks), src.from, src.why[0] ? " (not the ksym iterator: " : "",
			src.why, src.why[0] ? ")" : "");
	k = ksyms_find(r->ks, "_stext", NULL, &cnt);
	if (!k || !k->addr)
		return fail(r, "/proc/kallsyms shows no addresses (all zero): set "
			    "'sysctl kernel.kptr_restrict=0' (or 1) and run as root");
	lap(r, LAP_KALLSYMS);
	r->btf = btf__load_vmlinux_btf();
	lap(r, LAP_BTF);
	if (!r->btf)
		return fail(r, "loading the kernel BTF failed: %s", strerror(errno));
	return 0;
}

/* no traceable list: still find out what else stops us, so that the
 * message names every reason at once */
static int check_traceable(struct recorder *r)
{
	char why_list[256];
	int any_id = 0;

	if (traceable_list_path())
		return 0;
	snprintf(why_list, sizeof(why_list), "%s", strerror(errno));
	for (unsigned id = 1; id < btf__type_cnt(r->btf) && !any_id; id++)
		if (btf_is_func(btf__type_by_id(r->btf, id)))
			any_id = (int)id;
	features_probe_fentry(&r->feat, r->btf, any_id);
	return fail(r, "this kernel cannot be traced here: available_filter_functions is "
		    "not readable (%s; is tracefs mounted at /sys/kernel/tracing?); %s; %s. "
		    "Run on a kernel that allows kprobes or BPF tracing programs "
		    "(e.g. under qemu: tests/vm/vmrun)", why_list,
		    r->feat.kprobes ? "kprobes are available" : r->feat.why_kprobes,
		    r->feat.fentry ? "fentry programs load" : r->feat.why_fentry);
}

/* -p naming no process, or a thread: said, not fatal (a process may get
 * that id later) */
static void warn_pids(struct recorder *r)
{
	char msg[200], line[220];

	for (uint32_t i = 0; i < r->o.f.npids; i++) {
		if (!pid_check("/proc", r->o.f.pids[i], msg, sizeof(msg)))
			continue;
		snprintf(line, sizeof(line), "warning: %s", msg);
		warn(r, line);
	}
}

int recorder_preflight(struct recorder *r)
{
	warn_pids(r);
	if (check_kernel(r))
		return -1;
	raise_limits();
	lap(r, LAP_CHECKS);
	if (load_kernel_symbols(r) || check_traceable(r))
		return -1;
	return 0;
}

/* -------------------------------------------------------------- select -- */

/* probes the backends against a function we are about to trace */
static void probe_backends(struct recorder *r)
{
	enum attach_mode want = r->o.mode;
	int id = 0;

	if (want == ATTACH_AUTO || want == ATTACH_KPROBE_MULTI)
		features_probe_kprobe_multi(&r->feat, r->sel.v[0].addr);
	features_probe_kprobe_session(&r->feat, r->btf);
	if (want == ATTACH_FENTRY ||
	    (want == ATTACH_AUTO && !r->feat.kprobe_multi && !r->feat.kprobes)) {
		for (size_t i = 0; i < r->sel.n && !id; i++)
			id = r->sel.v[i].btf_id;
		features_probe_fentry(&r->feat, r->btf, id);
	}
}

/* the exact-name fast path (select_exact.c): only where the attach that
 * confirms it will be kprobe.multi by address, and not for a dry run,
 * which attaches nothing */
static bool select_fast(struct recorder *r)
{
	const struct record_opts *o = &r->o;

	if (o->dry_run || (o->mode != ATTACH_AUTO && o->mode != ATTACH_KPROBE_MULTI))
		return false;
	return select_exact(o, r->ks, r->btf, &r->sel);
}

/* the selection's notes (warnings always, the rest with -v) and -v's count */
/* -M as one kprobe.session link: the kernel has it, -C did not refuse it */
static bool use_session(const struct recorder *r)
{
	return r->mode == ATTACH_KPROBE_MULTI && r->feat.kprobe_session && r->o.kprobe_session;
}

static void print_selection(struct recorder *r)
{
	const struct record_opts *o = &r->o;

	for (size_t i = 0; i < r->sel.nnotes; i++)
		if (!r->sel.notes[i].verbose_only || o->verbose)
			fprintf(r->log, "%s: %s%s\n", r->prog,
				r->sel.notes[i].verbose_only ? "" : "warning: ", r->sel.notes[i].text);
	if (o->verbose && r->sel.from_kallsyms)
		fprintf(r->log, "Found %zu attachable functions (exact names, from kallsyms: "
			"available_filter_functions not read); attach mode %s.\n", r->sel.n,
			use_session(r) ? "kprobe-session" : attach_mode_name(r->mode));
	else if (o->verbose)
		fprintf(r->log, "Found %zu attachable functions (of %zu traceable); attach mode %s.\n",
			r->sel.n, r->sel.traceable_total,
			use_session(r) ? "kprobe-session" : attach_mode_name(r->mode));
}

/* no attach mode for a selection from kallsyms: the full selection's
 * error, if it has one, comes first, as it would have without the fast
 * path; else the mode's */
static int select_error_first(struct recorder *r)
{
	char mode_err[sizeof(r->err)];

	memcpy(mode_err, r->err, sizeof(mode_err));
	selection_free(&r->sel);
	if (!select_functions(&r->o, r->ks, r->btf, r->o.mode == ATTACH_FENTRY, &r->sel, r->err,
			      sizeof(r->err)))
		memcpy(r->err, mode_err, sizeof(r->err));
	return failed(r);
}

int recorder_select(struct recorder *r)
{
	const struct record_opts *o = &r->o;

	if (!select_fast(r) && select_functions(o, r->ks, r->btf, o->mode == ATTACH_FENTRY,
						 &r->sel, r->err, sizeof(r->err)))
		return failed(r);
	lap(r, LAP_SELECT);
	probe_backends(r);
	lap(r, LAP_PROBES);
	if (features_choose_mode(&r->feat, o->mode, &r->mode, r->err, sizeof(r->err)))
		return r->sel.from_kallsyms ? select_error_first(r) : failed(r);
	if ((r->sel.from_kallsyms && r->mode != ATTACH_KPROBE_MULTI) ||
	    (r->mode == ATTACH_FENTRY && o->mode != ATTACH_FENTRY)) {
		/* fell back to fentry: only functions with unique BTF can be
		 * used; or to kprobes, which cannot confirm kallsyms names */
		selection_free(&r->sel);
		if (select_functions(o, r->ks, r->btf, r->mode == ATTACH_FENTRY, &r->sel, r->err,
				     sizeof(r->err)))
			return failed(r);
		lap(r, LAP_SELECT);
	}
	print_selection(r);
	if (o->nprobes && probe_set_resolve(&r->probes, o->probes, o->nprobes, r->btf,
					    o->args_max_sized, r->log, r->prog, r->err,
					    sizeof(r->err)))
		return failed(r);
	if (o->nprobes && o->verbose)
		fprintf(r->log, "%zu injected probes from %zu -J specs.\n", r->probes.n, o->nprobes);
	return 0;
}

void recorder_print_plan(const struct recorder *r, FILE *f)
{
	attach_plan_print(f, &r->sel, r->mode, use_session(r), r->o.verbose);
	probe_set_print(f, &r->probes);   /* -J */
}

/* -------------------------------------------------------------- attach -- */

static int check_output_dir(struct recorder *r, const char *path)
{
	char *copy = strdup(path), *dir;
	int ret = 0;

	if (!copy)
		return fail(r, "out of memory");
	dir = dirname(copy);
	if (access(dir, W_OK))
		ret = fail(r, "cannot write the output file '%s': directory '%s': %s", path, dir,
			   strerror(errno));
	free(copy);
	return ret;
}

/* -A: the argument plans and the "btf"/"func_btf" blobs */
static int capture_args_plan(struct recorder *r)
{
	if (args_capture_build(&r->args, r->btf, &r->sel, &r->o, &r->blobs, r->err, sizeof(r->err)))
		return failed(r);
	if (r->o.verbose)
		fprintf(r->log, "Arguments (-A): %zu of %zu functions with BTF; \"btf\" blob %u bytes "
			"(%u types), \"func_btf\" %zu bytes.\n", r->args.with_btf, r->args.n,
			r->args.btf_size, r->args.btf_types, r->args.n * sizeof(uint32_t));
	return 0;
}

static int load_and_attach(struct recorder *r);

/* kprobe.multi refused an address of the exact-name fast path (not
 * traceable after all): undo the load and select and attach the usual way,
 * whose error, if any, names the function as it always has */
static int reselect_and_attach(struct recorder *r)
{
	if (r->o.verbose)
		fprintf(r->log, "Attaching the functions found in kallsyms failed (%s); selecting "
			"through available_filter_functions.\n", r->err);
	r->err[0] = '\0';
	tracer_close(&r->tr);
	args_capture_free(&r->args);
	header_blobs_free(&r->blobs);
	selection_free(&r->sel);
	lap(r, LAP_ATTACH);
	if (select_functions(&r->o, r->ks, r->btf, false, &r->sel, r->err, sizeof(r->err)))
		return failed(r);
	lap(r, LAP_SELECT);
	print_selection(r);
	return load_and_attach(r);   /* once: this selection is not from kallsyms */
}

static int load_and_attach(struct recorder *r)
{
	const struct record_opts *o = &r->o;
	bool cast = false;

	if (o->capture_args && capture_args_plan(r))
		return -1;
	/* only fentry mode picks its fexit template by it: a scan of the
	 * kernel's BTF saved elsewhere */
	if (r->mode == ATTACH_FENTRY && o->rdonly_cast) {
		features_probe_rdonly_cast(&r->feat, r->btf);
		cast = r->feat.rdonly_cast;
	}
	if (cast && tracer_open(&r->tr, o, &r->sel, r->mode, r->feat.lbr, use_session(r), true,
				r->err, sizeof(r->err))) {
		/* the kfunc is in the kernel's BTF, yet the template that
		 * uses it did not load (a kernel none of our tests boot): the
		 * helper's template, whose error is the one said */
		if (o->verbose)
			fprintf(r->log, "The fexit template reading through bpf_rdonly_cast did not load "
				"(%s); using bpf_probe_read_kernel's.\n", r->err);
		tracer_close(&r->tr);
		r->err[0] = '\0';
		cast = false;
	}
	if (cast && o->verbose)
		fprintf(r->log, "Deferred stacks read stack words as plain loads (bpf_rdonly_cast).\n");
	if ((!cast && tracer_open(&r->tr, o, &r->sel, r->mode, r->feat.lbr, use_session(r), false,
				  r->err, sizeof(r->err))) ||
	    tracer_configure(&r->tr, o, &r->sel, r->ks, r->have_child ? r->child.pid : 0,
			     r->err, sizeof(r->err)) ||
	    (o->capture_args && args_capture_fill(&r->args, r->tr.skel, r->err, sizeof(r->err))))
		return failed(r);
	lap(r, LAP_LOAD);
	if (tracer_attach(&r->tr, &r->sel, o->verbose, r->log, r->err, sizeof(r->err)))
		return r->sel.from_kallsyms ? reselect_and_attach(r) : failed(r);
	if (probe_set_attach(&r->probes, r->tr.skel, r->err, sizeof(r->err)))
		return failed(r);
	if (r->probes.n && o->probe_ctx) {
		if (probe_set_add_btf(&r->probes, r->btf, &r->blobs, r->err, sizeof(r->err)))
			return failed(r);
		if (o->verbose)
			fprintf(r->log, "Probe contexts (-J -A): types added, \"btf\" blob %zu bytes.\n",
				header_blobs_find(&r->blobs, "btf")->size);
	}
	if (r->probes.n && probe_set_add_blob(&r->probes, &r->blobs))
		return fail(r, "out of memory");
	lap(r, LAP_ATTACH);
	if (o->verbose)
		fprintf(r->log, "Attached %zu functions (%zu failed) with %s in %llu ms, the %s BPF object.\n",
			r->tr.attached, r->tr.failed, tracer_mode_name(&r->tr),
			(unsigned long long)(r->tr.attach_ns / 1000000), r->tr.lean ? "lean" : "general");
	if (o->verbose) {
		bool direct;
		uint32_t slots = tracer_cookie_slots(&r->tr, &direct);
		uint64_t per_clone, v = tracer_verified_insns(&r->tr, &per_clone);

		if (slots)
			fprintf(r->log, "The functions' cookie table by address has %u slots: %s.\n",
				slots, direct ? "a global array" : "the ip_cookies map");
		fprintf(r->log, "The kernel verified %llu BPF instructions", (unsigned long long)v);
		if (per_clone)
			fprintf(r->log, ", %llu per fentry/fexit clone pair",
				(unsigned long long)per_clone);
		fprintf(r->log, ".\n");
	}
	if (o->verbose && r->tr.ret_direct)
		fprintf(r->log, "%zu fexit programs read the return value from the context directly.\n",
			r->tr.ret_direct);
	if (!o->verbose && r->tr.failed)   /* calls of those go untraced: never silently */
		fprintf(r->log, "%s: warning: %zu of %zu functions could not be attached with %s "
			"(-v names them); their calls are not traced\n", r->prog, r->tr.failed,
			r->tr.attached + r->tr.failed, tracer_mode_name(&r->tr));
	return 0;
}

/* the header and tables, the file, and the hooks' on_start */
static int open_outputs(struct recorder *r)
{
	const struct record_opts *o = &r->o;
	struct file_header *h = &r->hdr;
	const char *lbr_status = o->lbr && !r->feat.lbr ? r->lbr_why : NULL;

	struct ksyms *tramps, *bpf_ks = bpf_ksym_watch_collect(&r->kw, r->ks, &tramps);
	int err;

	bpf_ksym_watch_close(&r->kw);
	if (file_header_build(h, o, r->ks, &r->sel, tracer_mode_name(&r->tr),
			      features_mask(&r->feat), lbr_status, bpf_ks, r->err, sizeof(r->err))) {
		ksyms_free(tramps);
		return failed(r);
	}
	err = tracer_fill_tramp_ranges(&r->tr, &r->sel, h->bpf_ks, tramps);
	if (tramps && o->verbose) {
		size_t n = 0;

		for (size_t i = 0; i < ksyms_count(h->bpf_ks); i++)
			n += ksym_is_bpf_tramp(ksyms_at(h->bpf_ks, i)->name);
		if (n > ksyms_count(tramps))
			fprintf(r->log, "%s: %zu replaced trampoline images still registered (not taken for their functions')\n",
				r->prog, n - ksyms_count(tramps));
	}
	ksyms_free(tramps);
	if (err && o->verbose)
		fprintf(r->log, "%s: the trampolines' ranges were not all set: %s\n", r->prog,
			strerror(errno));
	if (lbr_status)
		fprintf(r->log, "%s: LBR (-B) unavailable: %s; recording continues without it\n",
			r->prog, h->meta.lbr_status);
	h->meta.max_size = o->max_size;   /* 0: unbounded; else a flight recording */
	if (o->output) {
		r->w = rsf_writer_open_blobs(o->output, &h->meta, h->ksyms, h->nksyms, h->mods.v,
					     h->mods.n, h->funcs, h->nfuncs, r->blobs.v, r->blobs.n,
					     r->err, sizeof(r->err));
		if (!r->w)
			return failed(r);
	}
	if (r->hooks && r->hooks->on_blobs &&
	    r->hooks->on_blobs(r->hooks->ctx, r->blobs.v, r->blobs.n))
		return failed(r);
	if (r->hooks && r->hooks->on_start &&
	    r->hooks->on_start(r->hooks->ctx, &h->meta, h->ksyms, h->nksyms, h->mods.v,
			       h->mods.n, h->funcs, h->nfuncs))
		return failed(r);
	lap(r, LAP_OUTPUT);
	return 0;
}

int recorder_attach(struct recorder *r)
{
	const struct record_opts *o = &r->o;

	if (o->output && check_output_dir(r, o->output))
		return -1;
	stop_catch_signals();   /* Ctrl-C from here on: detach and finish the file */
	if (o->cmd) {
		if (spawn_gated(&r->child, o->cmd, r->err, sizeof(r->err)))
			return failed(r);
		r->have_child = true;
	}
	if (o->lbr && lbr_open(&r->lbr, o->lbr_flags, r->feat.branch_snapshot, r->lbr_why,
			       sizeof(r->lbr_why)) == 0)
		r->feat.lbr = true;
	if (load_and_attach(r))
		return -1;
	return open_outputs(r);
}

/* ----------------------------------------------------------------- run -- */

/* -v: "Start-up N ms: kallsyms A ms, BTF B ms, ..." */
static void print_laps(struct recorder *r)
{
	uint64_t total = 0;

	for (int i = 0; i < LAP_N; i++)
		total += r->laps[i];
	fprintf(r->log, "Start-up %llu ms:", (unsigned long long)(total / 1000000));
	for (int i = 0; i < LAP_N; i++)
		fprintf(r->log, "%s %s %llu ms", i ? "," : "", lap_names[i],
			(unsigned long long)(r->laps[i] / 1000000));
	fprintf(r->log, ".\n");
}

static void announce(struct recorder *r)
{
	if (r->o.verbose)
		print_laps(r);
	if (stop_requested())
		fprintf(r->log, "Interrupted while attaching: %zu of %zu functions were attached.\n",
			r->tr.attached, r->sel.n);
	else if (r->o.output)
		fprintf(r->log, "Recording %zu functions (%s) to %s%s\n", r->sel.n,
			tracer_mode_name(&r->tr), r->o.output,
			r->have_child ? "" : "; Ctrl-C to stop.");
}

int recorder_run(struct recorder *r)
{
	struct record_sink *s = &r->sink;
	struct capture_sink cs;
	char err[512];

	record_sink_init(s, r->log);
	/* a -- CMD child writes to the terminal it inherited from us: a status
	 * line would share a line with its output, so none while it runs */
	if (r->have_child)
		s->status.enabled = false;
	s->w = r->w;
	s->sel = &r->sel;
	s->errs = &r->o.f.errs;
	s->hooks = r->hooks;
	s->tr = &r->tr;
	s->prog = r->prog;
	if (r->o.user_stacks && !(s->umaps = umaps_new(tracer_exec_gen_fd(&r->tr))))
		warn(r, "-U: out of memory for the process table; no mappings are recorded");
	if (r->o.user_stacks)   /* NULL (no memory): every USTACK is written */
		s->hold = ustack_hold_new();
	cs = record_sink_callbacks(s);

	tracer_start(&r->tr);
	announce(r);
	if (r->hooks && r->hooks->on_ready)
		r->hooks->on_ready(r->hooks->ctx);
	if (r->have_child && spawn_release(&r->child, err, sizeof(err)))
		warn(r, err);
	s->start_s = tty_status_now();
	s->stop_after = r->o.stop_after;
	s->stop_at_s = r->o.duration_ms ? s->start_s + (double)r->o.duration_ms / 1000 : 0;
	if (capture_run(&r->tr, r->have_child ? &r->child : NULL, &cs, err, sizeof(err))) {
		tty_status_clear(&s->status);
		if (err[0])   /* else the sink has said why */
			warn(r, err);
		r->failed = true;
	}
	tty_status_clear(&s->status);
	if (s->write_failed)
		r->failed = true;
	return r->failed ? -1 : 0;
}

/* -------------------------------------------------------------- finish -- */

/* the drop/missed-probe table; to be replaced by the one printer the three
 * commands share (see docs/design.md) */
static void print_drops(FILE *f, const struct rsf_stats *st)
{
	rsf_print_drops(f, st);   /* the table all three commands print */
}

/* detaches (timed) and collects the trailer's statistics */
static void detach(struct recorder *r, struct rsf_stats *st)
{
	struct prog_misses misses;
	struct timespec ts;

	memset(st, 0, sizeof(*st));
	tracer_prog_misses(&r->tr, &misses);   /* before detach closes fentry clones */
	tracer_link_misses(&r->tr, &r->sel, st);   /* and the links */

	probe_set_detach(&r->probes);
	tracer_detach(&r->tr);
	tracer_stats(&r->tr, &st->bpf);
	if (tracer_fexit_defer_broken(&r->tr))
		fprintf(r->log, "%s: warning: an fexit stack capture did not start at the traced "
			"function: deferred fentry stacks were turned off from then on "
			"(-C bpf.defer-stacks=false avoids them)\n", r->prog);
	st->prog_misses = misses.total;
	st->prog_misses_entry = misses.entry;
	st->prog_misses_exit = misses.exit;
	st->prog_misses_probes = misses.probes;
	st->prog_misses_known = 1;
	st->records_written = r->sink.records;
	st->ringbuf_lost = capture_bad_records();
	st->attach_ns = r->tr.attach_ns;
	st->detach_ns = r->tr.detach_ns;
	st->funcs_attached = r->tr.attached;
	st->funcs_failed = r->tr.failed;
	clock_gettime(CLOCK_REALTIME, &ts);
	st->end_realtime_ns = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	if (r->sink.umaps) {
		struct umaps_counts uc;

		umaps_counts(r->sink.umaps, &uc);
		st->umaps_gone = uc.gone;
	}
}

/* -v: what -U read (record/umaps.c) */
static void print_umaps(struct recorder *r)
{
	struct umaps_counts c;

	if (!r->sink.umaps || !r->o.verbose)
		return;
	umaps_counts(r->sink.umaps, &c);
	fprintf(r->log, "-U: %llu processes, %llu maps reads, %llu UMAPS records, %llu files "
		"without a build-id, %llu processes exited before their maps were read, %llu "
		"stacks of filtered sessions left out.\n",
		(unsigned long long)c.procs, (unsigned long long)c.reads,
		(unsigned long long)c.records, (unsigned long long)c.no_build_id,
		(unsigned long long)c.gone,
		(unsigned long long)(r->sink.hold ? ustack_hold_dropped(r->sink.hold) : 0));
}

int recorder_finish(struct recorder *r)
{
	struct rsf_stats st;
	uint64_t t0 = now_ns();
	char msg[512];

	/* on a terminal, Ctrl-C left "^C" where the status line was */
	fprintf(r->log, "%sDetaching...\n", r->sink.status.enabled ? "\n" : "");
	detach(r, &st);
	if (r->w && rsf_writer_close(r->w, &st)) {
		snprintf(msg, sizeof(msg), "finishing the recording failed: %s",
			 rsf_writer_error(NULL));
		if (!r->sink.write_failed)   /* else already said */
			warn(r, msg);
		r->failed = true;
	}
	r->w = NULL;
	print_drops(r->log, &st);
	print_umaps(r);
	if (r->hooks && r->hooks->on_end)
		r->hooks->on_end(r->hooks->ctx, &st);
	if (r->o.verbose)
		fprintf(r->log, "%llu sessions, %llu records written (%llu filtered by -x/-X); detach took %llu ms.\n",
			(unsigned long long)st.bpf.sessions_emitted,
			(unsigned long long)r->sink.records, (unsigned long long)r->sink.filtered,
			(unsigned long long)(r->tr.detach_ns / 1000000));
	fprintf(r->log, "DONE in %llu ms.\n", (unsigned long long)((now_ns() - t0) / 1000000));
	return r->failed ? -1 : 0;
}

int recorder_exit_status(const struct recorder *r)
{
	if (r->failed)
		return 1;
	return r->have_child ? r->child.status : 0;
}

void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	if (r->have_child)
		spawn_kill(&r->child);
	if (r->w)
		rsf_writer_close(r->w, NULL);
	if (r->tr.skel)
		tracer_close(&r->tr);
	lbr_close(&r->lbr);
	probe_set_free(&r->probes);
	file_header_free(&r->hdr);
	umaps_free(r->sink.umaps);
	ustack_hold_free(r->sink.hold);
	header_blobs_free(&r->blobs);
	args_capture_free(&r->args);
	selection_free(&r->sel);
	btf__free(r->btf);
	bpf_ksym_watch_close(&r->kw);
	if (r->ks)
		ksyms_free(r->ks);
	free(r);
}

int recorder_execute(struct recorder *r)
{
	if (recorder_preflight(r) || recorder_select(r))
		return 1;
	if (r->o.dry_run) {
		recorder_print_plan(r, stdout);
		return 0;
	}
	if (recorder_attach(r))
		return 1;
	recorder_run(r);
	recorder_finish(r);
	return recorder_exit_status(r);
}
