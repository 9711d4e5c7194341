/* session.c - one recording run shared by retsnoop-record and the live
 * tool: checks, selection, attach, capture into the file and/or hooks,
 * detach, statistics (session.h). */
#include "common/errfilter.h"
#include "format/rsfile.h"
#include "record/attach.h"
#include "record/capture.h"
#include "record/features.h"
#include "record/kernel_info.h"
#include "record/lbr.h"
#include "record/options.h"
#include "record/session.h"
#include "record/select.h"
#include "record/spawn.h"
#include "record/tty_status.h"
#include "symbols/ksyms.h"
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const char *PROG = "retsnoop-record";

static int verbose;

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && verbose < 3)
		return 0;
	if (level == LIBBPF_INFO && verbose < 2)
		return 0;
	if (level == LIBBPF_WARN && verbose < 2)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void die_msg(const char *msg)
{
	fprintf(stderr, "%s: %s\n", PROG, msg);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct writer_sink {
	struct rsf_writer *w;
	const struct selection *sel;
	const struct record_opts *o;
	const struct record_hooks *hooks;
	const struct tracer *tr;
	struct tty_status status;  /* TTY-only live status line on stderr */
	double start_s;
	uint64_t records, filtered, sessions;
	bool write_failed;         /* the file cannot be written: said once, capture stops */
};

/* the writer failed (e.g. the disk is full): one line naming the file and
 * the cause, then capturing stops and the probes are detached */
static void sink_write_failed(struct writer_sink *ws)
{
	if (ws->write_failed)
		return;
	ws->write_failed = true;
	tty_status_clear(&ws->status);
	fprintf(stderr, "%s: %s; recording stopped\n", PROG, rsf_writer_error(ws->w));
	capture_request_stop();
}

static int sink_emit(struct writer_sink *ws, const void *rec, uint32_t size)
{
	ws->records++;
	if (ws->w && rsf_writer_add(ws->w, rec, size)) {
		sink_write_failed(ws);
		return -1;
	}
	if (ws->hooks && ws->hooks->on_record) {
		/* the hook may print a session: never mix it with the status line */
		tty_status_clear(&ws->status);
		return ws->hooks->on_record(ws->hooks->ctx, rec, size);
	}
	return 0;
}

static void sink_status(void *ctx)
{
	struct writer_sink *ws = ctx;
	struct rs_bpf_stats bs;
	char line[160];
	double now = tty_status_now();

	if (!ws->status.enabled)
		return;
	tracer_stats(ws->tr, &bs);
	tty_status_format(line, sizeof(line), ws->sessions,
			  bs.sessions_dropped + bs.sessions_table_full, bs.sessions_incomplete,
			  now - ws->start_s);
	tty_status_show(&ws->status, line, now, false);
}

static uint32_t sel_flags(void *ctx, uint32_t id)
{
	const struct selection *sel = ctx;

	return id < sel->n ? sel->v[id].flags : 0;
}

static int sink_record(void *ctx, const struct rs_rec_hdr *rec, size_t size)
{
	struct writer_sink *ws = ctx;

	if (rec->type == RS_REC_SESSION_END && size >= sizeof(struct rs_rec_session_end) &&
	    !(((const struct rs_rec_session_end *)rec)->flags & RS_SESS_IGNORED))
		ws->sessions++;   /* corrected below when -x/-X filters it out */

	if (rec->type == RS_REC_SESSION_END && size >= sizeof(struct rs_rec_session_end) &&
	    err_filter_active(&ws->o->errs)) {
		const struct rs_rec_session_end *s = (const void *)rec;

		if (!(s->flags & RS_SESS_IGNORED) &&
		    !err_filter_keep(&ws->o->errs, s, sel_flags, (void *)ws->sel)) {
			/* keep the record so trace data is freed, but mark it filtered */
			struct rs_rec_session_end copy;

			memcpy(&copy, s, sizeof(copy));
			copy.flags |= RS_SESS_IGNORED;
			ws->filtered++;
			ws->sessions--;
			return sink_emit(ws, &copy, sizeof(copy));
		}
	}
	return sink_emit(ws, rec, (uint32_t)size);
}

static void sink_tick(void *ctx)
{
	struct writer_sink *ws = ctx;

	if (ws->w && rsf_writer_flush(ws->w))
		sink_write_failed(ws);
}

static int check_output_dir(const char *path)
{
	char *copy = strdup(path), *dir;
	int ok;

	if (!copy)
		return -1;
	dir = dirname(copy);
	ok = access(dir, W_OK);
	if (ok)
		fprintf(stderr, "%s: cannot write the output file '%s': directory '%s': %s\n",
			PROG, path, dir, strerror(errno));
	free(copy);
	return ok;
}

static void print_selection(const struct selection *sel, enum attach_mode mode)
{
	size_t nentry = 0;

	for (size_t i = 0; i < sel->n; i++) {
		const struct traced_func *f = &sel->v[i];

		nentry += !!(f->flags & RS_FUNC_IS_ENTRY);
		printf("%s%s%s%s (addr 0x%llx%s%s)\n", f->name, f->module ? " [" : "",
		       f->module ? f->module : "", f->module ? "]" : "",
		       (unsigned long long)f->addr, f->flags & RS_FUNC_IS_ENTRY ? ", entry" : "",
		       f->btf_id ? "" : ", no BTF");
	}
	printf("%zu functions would be attached with %s (%zu skipped: ambiguous, %zu without BTF, %zu denied).\n",
	       sel->n, attach_mode_name(mode), sel->skipped_ambiguous, sel->skipped_no_btf,
	       sel->skipped_denied);
	printf("Attach plan: %zu entry and %zu other functions; ", nentry, sel->n - nentry);
	switch (mode) {
	case ATTACH_KPROBE_MULTI:
		printf("2 kprobe.multi links (entry and exit) covering all %zu.\n", sel->n);
		break;
	case ATTACH_KPROBE:
		printf("%zu kprobes and %zu kretprobes, one each per function.\n", sel->n, sel->n);
		break;
	default:
		printf("%zu fentry and %zu fexit programs (%zu of each cloned from the first).\n",
		       sel->n, sel->n, sel->n ? sel->n - 1 : 0);
		break;
	}
	printf("Dry run: no tracing program was loaded or attached.\n");
}

static struct rsf_ksym *ksyms_snapshot(const struct ksyms *ks, size_t *n)
{
	size_t cnt = ksyms_count(ks);
	struct rsf_ksym *v = calloc(cnt ? cnt : 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < cnt; i++) {
		const struct ksym *k = ksyms_at(ks, i);

		v[i].addr = k->addr;
		v[i].type = k->type;
		v[i].name = k->name;
		v[i].module = k->module;
	}
	*n = cnt;
	return v;
}

int record_run(struct record_opts *op, const char *prog, const struct record_hooks *hooks)
{
	struct record_opts o = *op;
	struct features feat;
	struct ksyms *ks = NULL;
	struct btf *btf = NULL;
	struct selection sel = {0};
	struct tracer tr = {0};
	struct spawned child = { .pid = -1, .gate_fd = -1 };
	struct rsf_writer *w = NULL;
	struct rsf_meta meta;
	struct rsf_stats stats;
	struct kmodules mods = {0};
	struct lbr_events lbr = {0};
	char lbr_why[256] = "";
	struct rsf_ksym *snap = NULL;
	struct rsf_func *funcs = NULL;
	enum attach_mode mode;
	char err[1024];
	size_t nsnap = 0;
	int ret = 1, r;
	bool have_child = false;

	PROG = prog;
	verbose = o.verbose;
	libbpf_set_print(libbpf_log);

	features_detect_basic(&feat);
	if (!feat.root) {
		die_msg("must run as root: attaching kernel probes needs CAP_BPF, CAP_PERFMON and "
			"CAP_SYS_ADMIN, and reading kallsyms addresses needs CAP_SYSLOG (try sudo)");
		goto out;
	}
	if (!feat.btf) {
		die_msg("the kernel has no BTF (/sys/kernel/btf/vmlinux is missing): retsnoop needs a "
			"kernel built with CONFIG_DEBUG_INFO_BTF=y");
		goto out;
	}
	if (!feat.ringbuf) {
		die_msg("the kernel has no BPF ring buffer (needs Linux 5.8+)");
		goto out;
	}
	{
		struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

		setrlimit(RLIMIT_MEMLOCK, &rl);
		rl.rlim_cur = rl.rlim_max = 300000;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	ks = ksyms_load_file("/proc/kallsyms", err, sizeof(err));
	if (!ks) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		goto out;
	}
	{
		size_t cnt;
		const struct ksym *k = ksyms_find(ks, "_stext", NULL, &cnt);

		if (!k || !k->addr) {
			die_msg("/proc/kallsyms shows no addresses (all zero): set "
				"'sysctl kernel.kptr_restrict=0' (or 1) and run as root");
			goto out;
		}
	}
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		fprintf(stderr, "%s: loading the kernel BTF failed: %s\n", PROG, strerror(errno));
		goto out;
	}
	if (!traceable_list_path()) {
		/* no traceable list: still find out what else stops us, so the
		 * message names every reason at once */
		char why_list[256];
		int any_id = 0;

		snprintf(why_list, sizeof(why_list), "%s", strerror(errno));
		for (unsigned id = 1; id < btf__type_cnt(btf) && !any_id; id++)
			if (btf_is_func(btf__type_by_id(btf, id)))
				any_id = (int)id;
		features_probe_fentry(&feat, btf, any_id);
		fprintf(stderr, "%s: this kernel cannot be traced here: available_filter_functions is "
			"not readable (%s; is tracefs mounted at /sys/kernel/tracing?); %s; %s. "
			"Run on a kernel that allows kprobes or BPF tracing programs "
			"(e.g. under qemu: tests/vm/vmrun)\n", PROG, why_list,
			feat.kprobes ? "kprobes are available" : feat.why_kprobes,
			feat.fentry ? "fentry programs load" : feat.why_fentry);
		goto out;
	}
	if (select_functions(&o, ks, btf, o.mode == ATTACH_FENTRY, &sel, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		goto out;
	}
	/* probe the backends against a function we are about to trace */
	if (o.mode == ATTACH_AUTO || o.mode == ATTACH_KPROBE_MULTI)
		features_probe_kprobe_multi(&feat, sel.v[0].addr);
	if (o.mode == ATTACH_FENTRY || (o.mode == ATTACH_AUTO && !feat.kprobe_multi && !feat.kprobes)) {
		int id = 0;

		for (size_t i = 0; i < sel.n && !id; i++)
			id = sel.v[i].btf_id;
		features_probe_fentry(&feat, btf, id);
	}
	if (features_choose_mode(&feat, o.mode, &mode, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		goto out;
	}
	if (mode == ATTACH_FENTRY && o.mode != ATTACH_FENTRY) {
		/* fell back to fentry: only functions with unique BTF can be used */
		selection_free(&sel);
		if (select_functions(&o, ks, btf, true, &sel, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", PROG, err);
			goto out;
		}
	}
	if (o.verbose)
		fprintf(stderr, "Found %zu attachable functions (of %zu traceable); attach mode %s.\n",
			sel.n, sel.traceable_total, attach_mode_name(mode));
	if (o.dry_run) {
		if (o.verbose)
			print_selection(&sel, mode);
		else
			printf("%zu functions would be attached with %s.\n", sel.n, attach_mode_name(mode));
		ret = 0;
		goto out;
	}
	if (o.output && check_output_dir(o.output))
		goto out;
	capture_catch_signals();   /* Ctrl-C from here on: detach and finish the file */

	if (o.cmd) {
		if (spawn_gated(&child, o.cmd, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", PROG, err);
			goto out;
		}
		have_child = true;
	}
	if (o.lbr && lbr_open(&lbr, o.lbr_flags, feat.branch_snapshot, lbr_why, sizeof(lbr_why)) == 0)
		feat.lbr = true;
	if (tracer_open(&tr, &o, &sel, mode, feat.lbr, err, sizeof(err)) ||
	    tracer_configure(&tr, &o, &sel, have_child ? child.pid : 0, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		goto out;
	}
	if (tracer_attach(&tr, &sel, o.verbose, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		goto out;
	}
	if (o.verbose)
		fprintf(stderr, "Attached %zu functions (%zu failed) with %s in %llu ms.\n",
			tr.attached, tr.failed, attach_mode_name(mode),
			(unsigned long long)(tr.attach_ns / 1000000));

	memset(&meta, 0, sizeof(meta));
	snprintf(meta.recorder_version, sizeof(meta.recorder_version), "%s", RECORD_VERSION);
	snprintf(meta.cmdline, sizeof(meta.cmdline), "%s", o.cmdline);
	kernel_info_fill(&meta);
	{
		size_t cnt;
		const struct ksym *k = ksyms_find(ks, "_stext", NULL, &cnt);

		meta.stext_addr = k ? k->addr : 0;
		k = ksyms_find(ks, "_text", NULL, &cnt);
		meta.text_addr = k ? k->addr : 0;
	}
	snprintf(meta.attach_mode, sizeof(meta.attach_mode), "%s", attach_mode_name(mode));
	meta.features = features_mask(&feat);
	meta.mode = (o.stacks ? RSF_MODE_STACKS : 0) | (o.trace ? RSF_MODE_TRACE : 0) |
		    (o.lbr ? RSF_MODE_LBR : 0) | (o.success == 1 ? RSF_MODE_SUCCESS : 0) |
		    (o.interim ? RSF_MODE_INTERIM : 0);
	meta.lbr_flags = o.lbr_flags;
	if (o.lbr && !feat.lbr)
		snprintf(meta.lbr_status, sizeof(meta.lbr_status), "%.*s", (int)sizeof(meta.lbr_status) - 1, lbr_why);
	kmodules_load(&mods);
	snap = ksyms_snapshot(ks, &nsnap);
	funcs = calloc(sel.n, sizeof(*funcs));
	if (!snap || !funcs) {
		die_msg("out of memory");
		goto out;
	}
	for (size_t i = 0; i < sel.n; i++) {
		funcs[i].addr = sel.v[i].addr;
		funcs[i].flags = sel.v[i].flags;
		funcs[i].name = sel.v[i].name;
		funcs[i].module = sel.v[i].module;
	}
	if (o.lbr && !feat.lbr)
		fprintf(stderr, "%s: LBR (-B) unavailable: %s; recording continues without it\n",
			PROG, meta.lbr_status);
	if (o.output) {
		w = rsf_writer_open(o.output, &meta, snap, nsnap, mods.v, mods.n, funcs, sel.n,
				    err, sizeof(err));
		if (!w) {
			fprintf(stderr, "%s: %s\n", PROG, err);
			goto out;
		}
	}
	if (hooks && hooks->on_start &&
	    hooks->on_start(hooks->ctx, &meta, snap, nsnap, mods.v, mods.n, funcs, sel.n))
		goto out;

	struct writer_sink ws = { .w = w, .sel = &sel, .o = &o, .hooks = hooks, .tr = &tr };
	struct capture_sink sink = { .on_record = sink_record, .on_tick = sink_tick,
				     .on_status = sink_status, .ctx = &ws };

	tty_status_init(&ws.status, stderr);
	/* a -- CMD child writes to the terminal it inherited from us: a status
	 * line would share a line with its output, so none while it runs */
	if (have_child)
		ws.status.enabled = false;

	tracer_start(&tr);
	if (capture_stopping())
		fprintf(stderr, "Interrupted while attaching: %zu of %zu functions were attached.\n",
			tr.attached, sel.n);
	else if (o.output)
		fprintf(stderr, "Recording %zu functions (%s) to %s%s\n", sel.n, attach_mode_name(mode),
			o.output, have_child ? "" : "; Ctrl-C to stop.");
	if (hooks && hooks->on_ready)
		hooks->on_ready(hooks->ctx);
	if (have_child)
		spawn_release(&child);
	ws.start_s = tty_status_now();
	r = capture_run(&tr, have_child ? &child : NULL, &sink, err, sizeof(err));
	tty_status_clear(&ws.status);
	if (r && err[0])
		fprintf(stderr, "%s: %s\n", PROG, err);
	if (ws.write_failed)
		r = -1;

	uint64_t t0 = now_ns(), misses;
	/* on a terminal, Ctrl-C left "^C" where the status line was */
	fprintf(stderr, "%sDetaching...\n", ws.status.enabled ? "\n" : "");
	misses = tracer_prog_misses(&tr);   /* before detach closes the fentry clones */
	tracer_detach(&tr);
	memset(&stats, 0, sizeof(stats));
	tracer_stats(&tr, &stats.bpf);
	stats.prog_misses = misses;
	stats.prog_misses_known = 1;
	stats.records_written = ws.records;
	stats.ringbuf_lost = capture_bad_records();
	stats.attach_ns = tr.attach_ns;
	stats.detach_ns = tr.detach_ns;
	stats.funcs_attached = tr.attached;
	stats.funcs_failed = tr.failed;
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		stats.end_realtime_ns = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	}
	if (w && rsf_writer_close(w, &stats)) {
		if (!ws.write_failed)   /* else already said */
			fprintf(stderr, "%s: finishing the recording failed: %s\n", PROG,
				rsf_writer_error(NULL));
		w = NULL;
		r = -1;
	}
	w = NULL;
	if (stats.bpf.sessions_dropped || stats.bpf.records_dropped || stats.bpf.sessions_incomplete ||
	    stats.bpf.sessions_table_full) {
		fprintf(stderr, "WARNING! There were dropped or incomplete data. Output might be incomplete!\n");
		fprintf(stderr, "%-20s%llu\n", "DROPPED SESSIONS:", (unsigned long long)stats.bpf.sessions_dropped);
		fprintf(stderr, "%-20s%llu\n", "DROPPED RECORDS:", (unsigned long long)stats.bpf.records_dropped);
		fprintf(stderr, "%-20s%llu\n", "INCOMPLETE SESSIONS:", (unsigned long long)stats.bpf.sessions_incomplete);
		fprintf(stderr, "%-20s%llu\n", "TABLE FULL:", (unsigned long long)stats.bpf.sessions_table_full);
	}
	if (hooks && hooks->on_end)
		hooks->on_end(hooks->ctx, &stats);
	if (o.verbose)
		fprintf(stderr, "%llu sessions, %llu records written (%llu filtered by -x/-X); detach took %llu ms.\n",
			(unsigned long long)stats.bpf.sessions_emitted, (unsigned long long)ws.records,
			(unsigned long long)ws.filtered, (unsigned long long)(tr.detach_ns / 1000000));
	fprintf(stderr, "DONE in %llu ms.\n", (unsigned long long)((now_ns() - t0) / 1000000));
	if (r)
		ret = 1;
	else if (have_child)
		ret = child.status;
	else
		ret = 0;
out:
	if (have_child)
		spawn_kill(&child);
	if (w)
		rsf_writer_close(w, NULL);
	if (tr.skel)
		tracer_close(&tr);
	lbr_close(&lbr);
	free(snap);
	free(funcs);
	kmodules_free(&mods);
	selection_free(&sel);
	btf__free(btf);
	if (ks)
		ksyms_free(ks);
	return ret;
}
