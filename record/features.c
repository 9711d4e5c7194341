/* features.c - kernel feature probes and the diagnosis of why tracing is
 * impossible (features.h). */
#include "record/features.h"
#include "format/rsfile.h"
#include "record/kernel_info.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

void features_detect_basic(struct features *f)
{
	memset(f, 0, sizeof(*f));
	f->root = geteuid() == 0;
	f->btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	f->kprobes = access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0;
	if (!f->kprobes)
		snprintf(f->why_kprobes, sizeof(f->why_kprobes),
			 "no kprobes: /sys/bus/event_source/devices/kprobe is missing "
			 "(kernel built without CONFIG_KPROBES/CONFIG_KPROBE_EVENTS)");
	f->ringbuf = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1;
	f->branch_snapshot = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
						     BPF_FUNC_get_branch_snapshot, NULL) == 1;
	f->func_ip = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_func_ip, NULL) == 1;
	f->cookie = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie,
					    NULL) == 1;
}

static const char *policy_hint(int err)
{
	if (err == EPERM || err == EACCES)
		return "the kernel refused it although we run as root: a security policy "
		       "(lockdown, an LSM, seccomp or a sandboxing hypervisor) forbids this program type";
	if (err == EOPNOTSUPP || err == 524 /* kernel ENOTSUPP */)
		return "not supported by this kernel";
	if (err == EINVAL)
		return "rejected by the kernel (too old for this program type?)";
	return "unexpected failure";
}

void features_probe_fentry(struct features *f, struct btf *btf, int btf_id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = btf_id);
	int fd;

	(void)btf;
	if (!f->btf || btf_id <= 0) {
		f->fentry_err = ENOENT;
		snprintf(f->why_fentry, sizeof(f->why_fentry),
			 "fentry/fexit need BTF for the traced functions (/sys/kernel/btf/vmlinux)");
		return;
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "rs_probe_fentry", "GPL", ret0, 2, &opts);
	if (fd < 0) {
		f->fentry_err = errno;
		snprintf(f->why_fentry, sizeof(f->why_fentry),
			 "loading an fentry program failed with %s (%s): %s",
			 strerrorname_np(f->fentry_err) ? strerrorname_np(f->fentry_err) : "?",
			 strerror(f->fentry_err), policy_hint(f->fentry_err));
		return;
	}
	close(fd);
	f->fentry = true;
}

void features_probe_kprobe_multi(struct features *f, uint64_t addr)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_KPROBE_MULTI);
	LIBBPF_OPTS(bpf_link_create_opts, lopts);
	unsigned long addrs[1] = { (unsigned long)addr };
	int fd, lfd;

	if (!f->kprobes) {
		f->kprobe_multi_err = ENOENT;
		snprintf(f->why_kprobe_multi, sizeof(f->why_kprobe_multi), "%s", f->why_kprobes);
		return;
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "rs_probe_kmulti", "GPL", ret0, 2, &opts);
	if (fd < 0) {
		f->kprobe_multi_err = errno;
		snprintf(f->why_kprobe_multi, sizeof(f->why_kprobe_multi),
			 "loading a kprobe.multi program failed with %s (%s): %s",
			 strerrorname_np(errno) ? strerrorname_np(errno) : "?", strerror(errno),
			 policy_hint(errno));
		return;
	}
	/* a link of no address: a kernel with kprobe.multi refuses it with
	 * EINVAL after its EOPNOTSUPP check, so nothing is attached (attaching
	 * and detaching a real one patches the function twice and waits for
	 * an RCU grace period: ~60 ms of start-up) */
	lopts.kprobe_multi.addrs = addrs;
	lopts.kprobe_multi.cnt = 0;
	lfd = bpf_link_create(fd, 0, BPF_TRACE_KPROBE_MULTI, &lopts);
	if (lfd < 0 && errno == EINVAL) {
		close(fd);
		f->kprobe_multi = true;
		return;
	}
	if (lfd < 0) {
		f->kprobe_multi_err = errno;
		snprintf(f->why_kprobe_multi, sizeof(f->why_kprobe_multi),
			 "kprobe.multi links are not available (%s: %s)%s",
			 strerrorname_np(errno) ? strerrorname_np(errno) : "?", strerror(errno),
			 errno == EOPNOTSUPP ? ": kernel built without CONFIG_FPROBE (needs 5.18+)" : "");
		close(fd);
		return;
	}
	close(lfd);
	close(fd);
	f->kprobe_multi = true;
}

void features_probe_kprobe_session(struct features *f, const struct btf *btf)
{
	f->kprobe_session = f->kprobe_multi && btf &&
			    btf__find_by_name_kind(btf, "bpf_session_is_return", BTF_KIND_FUNC) > 0;
}

void features_probe_rdonly_cast(struct features *f, const struct btf *btf)
{
	f->rdonly_cast = btf && btf__find_by_name_kind(btf, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;
}

uint32_t features_mask(const struct features *f)
{
	uint32_t m = 0;

	if (f->btf) m |= RSF_FEAT_BTF;
	if (f->kprobes) m |= RSF_FEAT_KPROBES;
	if (f->kprobe_multi) m |= RSF_FEAT_KPROBE_MULTI;
	if (f->kprobe_session) m |= RSF_FEAT_KPROBE_SESSION;
	if (f->fentry) m |= RSF_FEAT_FENTRY;
	if (f->ringbuf) m |= RSF_FEAT_RINGBUF;
	if (f->branch_snapshot) m |= RSF_FEAT_BRANCH_SNAPSHOT;
	if (f->func_ip) m |= RSF_FEAT_GET_FUNC_IP;
	if (f->cookie) m |= RSF_FEAT_BPF_COOKIE;
	if (f->lbr) m |= RSF_FEAT_LBR;
	return m;
}

const char *attach_mode_name(enum attach_mode m)
{
	switch (m) {
	case ATTACH_KPROBE_MULTI: return "kprobe-multi";
	case ATTACH_KPROBE: return "kprobe";
	case ATTACH_FENTRY: return "fentry";
	default: return "auto";
	}
}

int features_choose_mode(const struct features *f, enum attach_mode want,
			 enum attach_mode *out, char *err, size_t errlen)
{
	switch (want) {
	case ATTACH_KPROBE_MULTI:
		if (f->kprobe_multi)
			break;
		snprintf(err, errlen, "cannot use kprobe.multi (-M): %s; try -K or -F", f->why_kprobe_multi);
		return -1;
	case ATTACH_KPROBE:
		if (f->kprobes)
			break;
		snprintf(err, errlen, "cannot use kprobes (-K): %s; try -F", f->why_kprobes);
		return -1;
	case ATTACH_FENTRY:
		if (f->fentry)
			break;
		snprintf(err, errlen, "cannot use fentry/fexit (-F): %s", f->why_fentry);
		return -1;
	case ATTACH_AUTO:
		if (f->kprobe_multi)
			want = ATTACH_KPROBE_MULTI;
		else if (f->kprobes)
			want = ATTACH_KPROBE;
		else if (f->fentry)
			want = ATTACH_FENTRY;
		else {
			snprintf(err, errlen, "this kernel cannot trace functions: %s; and %s. "
				 "Run on a kernel with kprobes or BPF tracing allowed "
				 "(e.g. the VM lab: tests/vm/vmrun)", f->why_kprobes, f->why_fentry);
			return -1;
		}
		break;
	}
	*out = want;
	return 0;
}

/* address of the first traceable function, for the kprobe.multi probe */
static uint64_t some_traceable_addr(void)
{
	char name[256] = "", line[512], sym[256], type;
	unsigned long long addr, found = 0;
	FILE *f = fopen("/sys/kernel/tracing/available_filter_functions", "r");

	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f))
		sscanf(line, "%255s", name);
	fclose(f);
	f = fopen("/proc/kallsyms", "r");
	if (!f || !name[0]) {
		if (f)
			fclose(f);
		return 0;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 && !strcmp(sym, name)) {
			found = addr;
			break;
		}
	fclose(f);
	return found;
}

void features_report(FILE *out)
{
	struct features f;
	struct btf *btf;
	int any_id = 0;
	uint64_t addr;

	features_detect_basic(&f);
	btf = f.btf ? btf__load_vmlinux_btf() : NULL;
	for (unsigned id = 1; btf && id < btf__type_cnt(btf) && !any_id; id++)
		if (btf_is_func(btf__type_by_id(btf, id)))
			any_id = (int)id;
	features_probe_fentry(&f, btf, any_id);
	features_probe_rdonly_cast(&f, btf);
	addr = some_traceable_addr();
	if (addr) {
		features_probe_kprobe_multi(&f, addr);
		features_probe_kprobe_session(&f, btf);
	} else
		snprintf(f.why_kprobe_multi, sizeof(f.why_kprobe_multi),
			 "no traceable function found (available_filter_functions unreadable)");
	fprintf(out, "Feature detection:\n");
	fprintf(out, "\trunning as root: %s\n", f.root ? "yes" : "no");
	fprintf(out, "\tkernel BTF: %s\n", f.btf ? "yes" : "no (/sys/kernel/btf/vmlinux missing)");
	fprintf(out, "\tBPF ringbuf map supported: %s\n", f.ringbuf ? "yes" : "no");
	fprintf(out, "\tbpf_get_func_ip() supported: %s\n", f.func_ip ? "yes" : "no");
	fprintf(out, "\tbpf_get_branch_snapshot() supported: %s\n", f.branch_snapshot ? "yes" : "no");
	fprintf(out, "\tBPF cookie supported: %s\n", f.cookie ? "yes" :
		"no (kprobe modes need it: Linux 5.15+)");
	fprintf(out, "\tkprobes: %s\n", f.kprobes ? "yes" : f.why_kprobes);
	fprintf(out, "\tmulti-attach kprobe supported: %s\n", f.kprobe_multi ? "yes" : f.why_kprobe_multi);
	fprintf(out, "\tkprobe.session supported: %s\n", f.kprobe_session ? "yes" :
		!f.kprobe_multi ? "no (needs multi-attach kprobes)" :
		"no (no bpf_session_is_return kfunc in the kernel's BTF: Linux 6.10+)");
	fprintf(out, "\tfentry/fexit supported: %s\n", f.fentry ? "yes" : f.why_fentry);
	fprintf(out, "\tbpf_rdonly_cast() supported: %s\n", f.rdonly_cast ? "yes (kprobe.session and fentry modes read stack words as plain loads)" :
		"no (stack words read through bpf_probe_read_kernel: Linux 6.2+ has it)");
	if (f.branch_snapshot) {
		char why[256];
		/* LBR needs a PMU: tell without keeping anything open */
		FILE *pmu = fopen("/sys/bus/event_source/devices/cpu/caps/branches", "r");

		if (pmu) {
			if (fgets(why, sizeof(why), pmu))
				fprintf(out, "\tLBR: %d entries\n", atoi(why));
			fclose(pmu);
		} else {
			fprintf(out, "\tLBR: not available (no cpu/caps/branches: no hardware PMU with LBR)\n");
		}
	} else {
		fprintf(out, "\tLBR: not available (no bpf_get_branch_snapshot(): needs Linux 5.16+)\n");
	}
	fprintf(out, "Feature calibration:\n");
	fprintf(out, "\tmonotonic to wall-clock offset: %lld ns (best of 10 clock reads)\n",
		(long long)calibrate_mono_to_realtime());
	fprintf(out, "\tkretprobe IP offset: not needed (function ids come from BPF cookies in kprobe "
		"modes, from bpf_get_func_ip() in fentry mode)\n");
	btf__free(btf);
}
