// SPDX-License-Identifier: GPL-2.0
/* ksym_iter.bpf.c - a BPF ksym iterator (Linux 6.0+) writing each kallsyms
 * function symbol as a compact binary record (bpf/ksym_iter_abi.h): the
 * recorder reads these instead of formatting and parsing /proc/kallsyms
 * text (record/ksym_iter.c). Same symbols, same order, same type letters
 * as /proc/kallsyms; the kernel types are declared here with
 * preserve_access_index (CO-RE), kallsym_iter's layout varies by version. */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include "ksym_iter_abi.h"

char LICENSE[] SEC("license") = "GPL";

struct seq_file;

/* the iterator context's layout is fixed (seq first; two 8-byte
 * pointers): no CO-RE relocation, each of which costs libbpf a scan of
 * every vmlinux type at load time */
struct bpf_iter_meta {
	struct seq_file *seq;
};

struct kallsym_iter {
	unsigned long value;
	char type;
	char name[RS_KI_NAME_MAX];
	char module_name[RS_KI_MOD_MAX - 8];
	int exported;
	int show_value;
} __attribute__((preserve_access_index));

struct bpf_iter__ksym {
	struct bpf_iter_meta *meta;
	struct kallsym_iter *ksym;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[RS_KI_REC_MAX]);
} rec_buf SEC(".maps");

static __always_inline bool is_func_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* __pfx_X (call padding): left out, as symbols/ksyms.c does */
static __always_inline bool is_padding(struct kallsym_iter *it)
{
	return it->name[0] == '_' && it->name[1] == '_' && it->name[2] == 'p' &&
	       it->name[3] == 'f' && it->name[4] == 'x' && it->name[5] == '_';
}

SEC("iter/ksym")
int rs_ksym_iter(struct bpf_iter__ksym *ctx)
{
	struct kallsym_iter *it = ctx->ksym;
	struct rs_ksym_rec *h;
	__u32 zero = 0;
	long n, m = 0;
	char *buf, t;

	if (!it || !it->name[0])   /* kallsyms skips unnamed symbols too */
		return 0;
	t = it->type;
	if (it->module_name[0]) {   /* /proc/kallsyms: upper case = exported */
		if (it->exported && t >= 'a' && t <= 'z')
			t -= 'a' - 'A';
		else if (!it->exported && t >= 'A' && t <= 'Z')
			t += 'a' - 'A';
	}
	if (!is_func_type(t) || is_padding(it))
		return 0;
	buf = bpf_map_lookup_elem(&rec_buf, &zero);
	if (!buf)
		return 0;
	n = bpf_probe_read_kernel_str(buf + RS_KI_HDR_SIZE, RS_KI_NAME_MAX, it->name);
	if (n <= 1 || n > RS_KI_NAME_MAX)
		return 0;
	if (it->module_name[0]) {
		m = bpf_probe_read_kernel_str(buf + RS_KI_HDR_SIZE + n, RS_KI_MOD_MAX,
					      it->module_name);
		if (m <= 1 || m > RS_KI_MOD_MAX)
			return 0;
	}
	h = (struct rs_ksym_rec *)buf;
	h->addr = it->show_value ? it->value : 0;
	h->name_len = (__u16)n;
	h->mod_len = (__u8)m;
	h->type = t;
	bpf_seq_write(ctx->meta->seq, buf, RS_KI_HDR_SIZE + n + m);
	return 0;
}
