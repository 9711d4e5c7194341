/* clone_btf.c - a loaded program's BTF function info over its pre-load
 * instructions (clone_btf.h). The subprogram starts come from the
 * pre-load instructions (the targets of BPF-to-BPF calls). The kernel
 * reports the info of the verified program, whose offsets are rewritten
 * and from which subprograms it proved dead are gone; when none is gone
 * its type ids are taken in order, else each subprogram is named by the
 * ELF symbol of its length in the BPF object (of several that long, the
 * one the kernel kept, or any where they are typed alike) and typed by
 * that name in the program's BTF. Computed once per template. */
#include "record/clone_btf.h"
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* subprogram starts of INSNS (0 first), sorted and unique; their number */
static size_t subprog_starts(const struct bpf_insn *insns, size_t cnt, __u32 *starts)
{
	size_t n = 0, u = 0;

	starts[n++] = 0;
	for (size_t i = 0; i < cnt; i++) {
		const struct bpf_insn *in = &insns[i];

		if ((in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL) ||
		    (in->code == (BPF_LD | BPF_IMM | BPF_DW) && in->src_reg == BPF_PSEUDO_FUNC))
			starts[n++] = (__u32)((long)i + in->imm + 1);
	}
	qsort(starts, n, sizeof(*starts), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (!u || starts[u - 1] != starts[i])
			starts[u++] = starts[i];
	return u;
}

#define MAX_SAME_LEN 8

/* the names of the .text functions of LEN instructions in the embedded
 * object (at most MAX_SAME_LEN): their number */
static size_t subprog_names(Elf *e, size_t len, const char **names)
{
	size_t shstrndx, n = 0;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(e, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			GElf_Shdr tsh;
			Elf_Scn *ts;
			const char *sec;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_size != len * sizeof(struct bpf_insn))
				continue;
			ts = elf_getscn(e, sym.st_shndx);
			sec = ts && gelf_getshdr(ts, &tsh) ? elf_strptr(e, shstrndx, tsh.sh_name) : NULL;
			if (!sec || strcmp(sec, ".text"))
				continue;
			if (n == MAX_SAME_LEN)
				return 0;
			names[n++] = elf_strptr(e, sh.sh_link, sym.st_name);
		}
	}
	return n;
}

/* whether the kernel kept a subprogram of type id in the template */
static bool kept(const struct bpf_func_info *kfi, __u32 nfi, __u32 id)
{
	for (__u32 i = 0; i < nfi; i++)
		if (kfi[i].type_id == id)
			return true;
	return false;
}

/* the type id of the subprogram of LEN instructions: the one function of
 * that length, else the one of them the template kept (the two copies of
 * a cast/helper pair: the template holds one), else any of them when all
 * are typed alike (same prototype, same linkage: the verifier sees no
 * difference); -1 when none fits */
static int type_of_len(const struct btf *btf, Elf *e, size_t len, const struct bpf_func_info *kfi,
		       __u32 nfi)
{
	const char *names[MAX_SAME_LEN];
	int ids[MAX_SAME_LEN], pick = -1;
	size_t n = subprog_names(e, len, names), nkept = 0;

	for (size_t i = 0; i < n; i++) {
		ids[i] = btf__find_by_name_kind(btf, names[i], BTF_KIND_FUNC);
		if (ids[i] <= 0)
			return -1;
		if (kept(kfi, nfi, (__u32)ids[i])) {
			pick = ids[i];
			nkept++;
		}
	}
	if (n == 1)
		return ids[0];
	if (nkept == 1)
		return pick;
	for (size_t i = 1; i < n; i++) {
		const struct btf_type *a = btf__type_by_id(btf, (__u32)ids[0]);
		const struct btf_type *b = btf__type_by_id(btf, (__u32)ids[i]);

		if (a->type != b->type || btf_vlen(a) != btf_vlen(b))
			return -1;
	}
	return n ? ids[0] : -1;
}

/* type ids of subprograms 1..n-1 by their names (the kernel dropped some;
 * kfi, nfi: the info of those it kept) */
static int types_by_name(__u32 btf_id, const __u32 *starts, size_t n, size_t cnt,
			 const void *obj, size_t sz, const struct bpf_func_info *kfi, __u32 nfi,
			 struct bpf_func_info *fi)
{
	struct btf *btf = btf__load_from_kernel_by_id(btf_id);
	Elf *e;
	int ret = 0;

	if (!btf)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_memory((char *)obj, sz);
	for (size_t i = 1; e && !ret && i < n; i++) {
		size_t len = (i + 1 < n ? starts[i + 1] : cnt) - starts[i];
		int id = type_of_len(btf, e, len, kfi, nfi);

		if (id <= 0)
			ret = -1;
		else
			fi[i].type_id = (__u32)id;
	}
	if (e)
		elf_end(e);
	btf__free(btf);
	return e ? ret : -1;
}

/* the function info of TMPL over INSNS into *out (n entries) */
static int compute(const struct bpf_program *tmpl, const struct bpf_insn *insns, size_t cnt,
		   const void *obj, size_t obj_sz, struct bpf_func_info **out, __u32 *out_n,
		   __u32 *btf_id)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info), nfi, *starts = calloc(cnt + 1, sizeof(__u32));
	struct bpf_func_info *kfi = NULL, *fi = NULL;
	int fd = bpf_program__fd(tmpl), ret = -1;
	size_t n;

	memset(&info, 0, sizeof(info));
	if (!starts || fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) || !info.btf_id ||
	    !info.nr_func_info || info.func_info_rec_size != sizeof(struct bpf_func_info))
		goto out;
	nfi = info.nr_func_info;
	n = subprog_starts(insns, cnt, starts);
	kfi = calloc(nfi, sizeof(*kfi));
	fi = calloc(n, sizeof(*fi));
	if (!kfi || !fi || n < nfi)
		goto out;
	memset(&info, 0, sizeof(info));
	info.nr_func_info = nfi;
	info.func_info_rec_size = sizeof(struct bpf_func_info);
	info.func_info = (__u64)(unsigned long)kfi;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		goto out;
	for (size_t i = 0; i < n; i++) {
		fi[i].insn_off = starts[i];
		fi[i].type_id = i < nfi ? kfi[i].type_id : 0;
	}
	if (n != nfi && types_by_name(info.btf_id, starts, n, cnt, obj, obj_sz, kfi, nfi, fi))
		goto out;
	*out = fi;
	*out_n = (__u32)n;
	*btf_id = info.btf_id;
	fi = NULL;
	ret = 0;
out:
	free(starts);
	free(kfi);
	free(fi);
	return ret;
}

int clone_btf_get(const struct bpf_program *tmpl, const struct bpf_insn *insns, size_t cnt,
		  const void *obj, size_t obj_sz, struct clone_btf *cb)
{
	/* one template's info, computed at its first clone (clones differ
	 * from it only in an immediate) */
	static const struct bpf_program *c_tmpl;
	static const void *c_obj;
	static struct bpf_func_info *c_fi;
	static __u32 c_n, c_btf_id;
	static int c_err;

	memset(cb, 0, sizeof(*cb));
	cb->btf_fd = -1;
	if (c_tmpl != tmpl || c_obj != obj) {
		free(c_fi);
		c_fi = NULL;
		c_tmpl = tmpl;
		c_obj = obj;
		c_err = compute(tmpl, insns, cnt, obj, obj_sz, &c_fi, &c_n, &c_btf_id);
	}
	if (c_err)
		return -1;
	cb->fi = calloc(c_n, sizeof(*cb->fi));
	cb->btf_fd = bpf_btf_get_fd_by_id(c_btf_id);
	if (!cb->fi || cb->btf_fd < 0) {
		clone_btf_free(cb);
		return -1;
	}
	memcpy(cb->fi, c_fi, c_n * sizeof(*cb->fi));
	cb->n = c_n;
	return 0;
}

void clone_btf_free(struct clone_btf *cb)
{
	if (cb->btf_fd >= 0)
		close(cb->btf_fd);
	free(cb->fi);
	memset(cb, 0, sizeof(*cb));
	cb->btf_fd = -1;
}
