/* jit_images.c - the guest side of bench/insn_profile.sh's JIT=1: writes
 * the JIT image (x86 code) of every loaded BPF program whose name starts
 * with PREFIX into DIR, one file per program named after its kallsyms
 * symbol, bpf_prog_TAG_NAME.bin (its main function first, its
 * subprograms after it, as the kernel returns them), and each subprogram
 * (a BPF global function) again in a file of its own, named after its own
 * symbol as /proc/kallsyms lists it, so that the instruction counts
 * insn_profile_report reads per symbol can be put on the instructions of
 * both (insn_profile_report annotate).
 *
 *   jit_images DIR PREFIX
 *
 * Prints how many images it wrote; exits 1 when it could read none. */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the BPF symbols of /proc/kallsyms (its lines ending in [bpf]), read once */
struct bpf_sym {
	__u64 addr;
	char name[128];
};
static struct bpf_sym *bpf_syms;
static size_t nr_bpf_syms;

static void read_bpf_syms(void)
{
	char line[512], sym[128];
	unsigned long long a;
	size_t cap = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[bpf]") || sscanf(line, "%llx %*s %127s", &a, sym) != 2)
			continue;
		if (nr_bpf_syms == cap) {
			struct bpf_sym *v;

			cap = cap ? 2 * cap : 256;
			if (!(v = realloc(bpf_syms, cap * sizeof(*v))))
				break;
			bpf_syms = v;
		}
		bpf_syms[nr_bpf_syms].addr = a;
		snprintf(bpf_syms[nr_bpf_syms++].name, sizeof(bpf_syms[0].name), "%s", sym);
	}
	fclose(f);
}

/* the kallsyms name of the JIT code at addr (NULL: none) */
static const char *ksym_name(__u64 addr)
{
	for (size_t i = 0; i < nr_bpf_syms; i++)
		if (bpf_syms[i].addr == addr)
			return bpf_syms[i].name;
	return NULL;
}

/* buf[0, n) into dir/name.bin; false when not written */
static bool write_file(const char *dir, const char *name, const void *buf, size_t n)
{
	char path[4096];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
	if (!(f = fopen(path, "wb")))
		return false;
	ok = fwrite(buf, 1, n, f) == n;
	return !fclose(f) && ok;
}

/* the subprograms' images (functions 1 and on of buf), each into a file
 * named after its symbol; false when one could not be written */
static bool write_subprogs(int fd, const char *dir, const unsigned char *buf, __u32 n)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info), nf, off = 0;
	__u64 addrs[256];
	__u32 lens[256];
	const char *name;
	bool ok = true;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	nf = info.nr_jited_ksyms;
	if (nf < 2 || nf > 256 || info.nr_jited_func_lens != nf)
		return true;
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = nf;
	info.jited_ksyms = (__u64)(unsigned long)addrs;
	info.nr_jited_func_lens = nf;
	info.jited_func_lens = (__u64)(unsigned long)lens;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	for (__u32 i = 0; i < nf; i++) {
		if (off + lens[i] > n)
			return false;
		if (i && (name = ksym_name(addrs[i])))
			ok = write_file(dir, name, buf + off, lens[i]) && ok;
		off += lens[i];
	}
	return ok;
}

/* one program's image into dir; 1 written, 0 not ours, -1 failed */
static int write_image(int fd, const char *dir, const char *prefix)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info), n;
	char name[512], tag[2 * BPF_TAG_SIZE + 1];
	void *buf;
	int ok;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	if (strncmp(info.name, prefix, strlen(prefix)) || !info.jited_prog_len)
		return 0;
	n = info.jited_prog_len;
	for (int i = 0; i < BPF_TAG_SIZE; i++)
		snprintf(tag + 2 * i, 3, "%02x", info.tag[i]);
	snprintf(name, sizeof(name), "bpf_prog_%s_%s", tag, info.name);
	buf = calloc(1, n);
	if (!buf)
		return -1;
	memset(&info, 0, sizeof(info));
	info.jited_prog_len = n;
	info.jited_prog_insns = (__u64)(unsigned long)buf;
	len = sizeof(info);
	ok = !bpf_obj_get_info_by_fd(fd, &info, &len) && write_file(dir, name, buf, n) &&
	     write_subprogs(fd, dir, buf, n);
	free(buf);
	return ok ? 1 : -1;
}

int main(int argc, char **argv)
{
	__u32 id = 0;
	int written = 0, failed = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: jit_images DIR PREFIX\n");
		return 2;
	}
	read_bpf_syms();
	while (!bpf_prog_get_next_id(id, &id)) {
		int fd = bpf_prog_get_fd_by_id(id), r;

		if (fd < 0)
			continue;   /* unloaded meanwhile */
		r = write_image(fd, argv[1], argv[2]);
		close(fd);
		written += r > 0;
		failed += r < 0;
	}
	printf("jit_images: %d image(s) written to %s, %d failed\n", written, argv[1], failed);
	return written ? 0 : 1;
}
