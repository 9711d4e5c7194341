/* jit_images.c - the guest side of bench/insn_profile.sh's JIT=1: writes
 * the JIT image (x86 code) of every loaded BPF program whose name starts
 * with PREFIX into DIR, one file per program named after its kallsyms
 * symbol, bpf_prog_TAG_NAME.bin (its main function first, its
 * subprograms after it, as the kernel returns them), so that the
 * instruction counts insn_profile_report reads per symbol can be put on
 * its instructions (insn_profile_report annotate).
 *
 *   jit_images DIR PREFIX
 *
 * Prints how many images it wrote; exits 1 when it could read none. */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* one program's image into dir; 1 written, 0 not ours, -1 failed */
static int write_image(int fd, const char *dir, const char *prefix)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info), n;
	char path[4096], tag[2 * BPF_TAG_SIZE + 1];
	void *buf;
	FILE *f;
	int ok;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	if (strncmp(info.name, prefix, strlen(prefix)) || !info.jited_prog_len)
		return 0;
	n = info.jited_prog_len;
	for (int i = 0; i < BPF_TAG_SIZE; i++)
		snprintf(tag + 2 * i, 3, "%02x", info.tag[i]);
	snprintf(path, sizeof(path), "%s/bpf_prog_%s_%s.bin", dir, tag, info.name);
	buf = calloc(1, n);
	if (!buf)
		return -1;
	memset(&info, 0, sizeof(info));
	info.jited_prog_len = n;
	info.jited_prog_insns = (__u64)(unsigned long)buf;
	len = sizeof(info);
	ok = !bpf_obj_get_info_by_fd(fd, &info, &len) && (f = fopen(path, "wb"));
	if (ok) {
		ok = fwrite(buf, 1, n, f) == n;
		ok = !fclose(f) && ok;
	}
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
