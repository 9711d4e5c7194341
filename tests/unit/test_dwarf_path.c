/* test_dwarf_path.c - unit tests of kernel-relative source paths
 * (symbols/dwarf_path.c) and of the symbolization index lookup on a
 * hand-built CU index (symbols/dwarf_index.c). */
#include <stdlib.h>
#include "testlib.h"
#include "../../symbols/dwarf_path.h"
#include "../../symbols/dwarf_index.h"

static const char *rel(const char *p, const char *cd)
{
	static char out[4096];
	dwarf_path_relative(p, cd, out, sizeof(out));
	return out;
}

static void test_relative_comp_dir(void)
{
	const char *cd = "debian/build/build_amd64_none_cloud-amd64";
	CHECK_STR(rel("debian/build/build_amd64_none_cloud-amd64/kernel/bpf/syscall.c", cd), "kernel/bpf/syscall.c");
	CHECK_STR(rel("init/main.c", cd), "init/main.c");
	CHECK_STR(rel("debian/build/build_amd64_none_cloud-amd64/arch/x86/kernel/../include/asm/trace/./irq_vectors.h", cd),
		  "arch/x86/include/asm/trace/irq_vectors.h");
}

static void test_absolute(void)
{
	CHECK_STR(rel("/build/linux-6.1/debian/build/build_amd64/../../../mm/slub.c", "/build/linux-6.1/debian/build/build_amd64"),
		  "mm/slub.c");
	CHECK_STR(rel("/build/reproducible-path/linux-6.12/kernel/fork.c", NULL), "kernel/fork.c");
	CHECK_STR(rel("/home/u/src/linux//fs/./open.c", "/elsewhere"), "fs/open.c");
	CHECK_STR(rel("include/generated/autoconf.h", "/b/obj"), "include/generated/autoconf.h");
	/* nothing kernel-looking: left as normalized */
	CHECK_STR(rel("/opt/x/y.c", NULL), "/opt/x/y.c");
	CHECK_STR(rel("../foo.c", NULL), "../foo.c");
}

static void test_topdir(void)
{
	CHECK(dwarf_path_is_topdir("kernel", 6));
	CHECK(dwarf_path_is_topdir("io_uring", 8));
	CHECK(!dwarf_path_is_topdir("kern", 4));
	CHECK(!dwarf_path_is_topdir("debian", 6));
}

static void test_truncation(void)
{
	char small[8];
	size_t n = dwarf_path_relative("kernel/bpf/syscall.c", NULL, small, sizeof(small));
	CHECK_INT(n, 7);
	CHECK_STR(small, "kernel/");
}

/* f (0x100-0x200) inlines g at f.c:10 over 0x140-0x180, which inlines h
 * at g.h:5 over 0x150-0x160 */
static void test_lookup_chain(void)
{
	static char strs[] = "??\0f\0g\0h\0f.c\0g.h\0h.h";
	enum { S_F = 3, S_G = 5, S_H = 7, S_FC = 9, S_GH = 13, S_HH = 17 };
	struct dwi_scope scopes[] = {
		{ S_F, DWI_NONE, 0, -1 },
		{ S_G, S_FC, 10, 0 },
		{ S_H, S_GH, 5, 1 },
	};
	struct dwi_ival iv[] = {
		{ 0x100, 0, 0 }, { 0x140, 1, 0 }, { 0x150, 2, 0 }, { 0x160, 1, 0 },
		{ 0x180, 0, 0 }, { 0x200, DWI_NONE, 0 },
	};
	struct dwi_line ln[] = {
		{ 0x100, S_FC, 1 }, { 0x150, S_HH, 42 }, { 0x160, S_FC, 11 }, { 0x200, DWI_NONE, 0 },
	};
	struct dwi_cu cu = { iv, scopes, ln, strs, 6, 3, 4, sizeof(strs), 0 };
	struct sym_frame fr[8];
	int hf;

	int n = dwarf_index_lookup(&cu, 0x155, fr, 8, &hf);
	CHECK_INT(n, 3);
	CHECK(hf);
	CHECK_STR(fr[0].func, "h");
	CHECK_STR(fr[0].file, "h.h");
	CHECK_INT(fr[0].line, 42);
	CHECK_INT(fr[0].is_inline, 1);
	CHECK_STR(fr[1].func, "g");
	CHECK_STR(fr[1].file, "g.h");
	CHECK_INT(fr[1].line, 5);
	CHECK_STR(fr[2].func, "f");
	CHECK_STR(fr[2].file, "f.c");
	CHECK_INT(fr[2].line, 10);
	CHECK_INT(fr[2].is_inline, 0);

	n = dwarf_index_lookup(&cu, 0x190, fr, 8, &hf);
	CHECK_INT(n, 1);
	CHECK_STR(fr[0].func, "f");
	CHECK_INT(fr[0].line, 11);

	/* max_frames cuts the chain */
	n = dwarf_index_lookup(&cu, 0x155, fr, 2, &hf);
	CHECK_INT(n, 2);

	/* outside every function and past the end of the sequence */
	n = dwarf_index_lookup(&cu, 0x200, fr, 8, &hf);
	CHECK_INT(n, 1);
	CHECK(!hf);
	CHECK_STR(fr[0].func, "??");
	CHECK_STR(fr[0].file, "??");
	CHECK_INT(fr[0].line, 0);
	n = dwarf_index_lookup(&cu, 0x50, fr, 8, &hf);
	CHECK_INT(n, 1);
	CHECK(!hf);
}

int main(void)
{
	RUN(test_relative_comp_dir);
	RUN(test_absolute);
	RUN(test_topdir);
	RUN(test_truncation);
	RUN(test_lookup_chain);
	return TEST_REPORT("test_dwarf_path");
}
