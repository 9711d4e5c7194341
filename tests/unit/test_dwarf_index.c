/* test_dwarf_index.c - unit tests of the compile-unit index built through
 * libdw (symbols/dwarf_index_build.c) and looked up (dwarf_index.c), on a
 * hand-assembled DWARF 5 unit wrapped in an in-memory ELF file: inline
 * chains through an abstract origin and a range list, a line table with
 * two out-of-order sequences, DIEs with and without DW_AT_sibling; then
 * every byte of every section mutated and every section truncated, which
 * must never crash (run under ASan/UBSan). */
#include <stdlib.h>
#include <dwarf.h>
#include <libelf.h>
#include <gelf.h>
#include "testlib.h"
#include "../../symbols/dwarf_index.h"

struct buf {
	uint8_t b[1024];
	size_t n;
};

static void u8(struct buf *b, uint64_t v) { b->b[b->n++] = (uint8_t)v; }
static void un(struct buf *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		u8(b, v >> (8 * i));
}
static void uleb(struct buf *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		u8(b, c | (v ? 0x80 : 0));
	} while (v);
}
static void sleb(struct buf *b, int64_t v)
{
	for (;;) {
		uint8_t c = v & 0x7f;
		v >>= 7;
		if ((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40))) {
			u8(b, c);
			return;
		}
		u8(b, c | 0x80);
	}
}
static void str(struct buf *b, const char *s)
{
	do
		u8(b, (uint8_t)*s);
	while (*s++);
}
/* patches a 4-byte little-endian value at off */
static void put4(struct buf *b, size_t off, uint64_t v)
{
	for (int i = 0; i < 4; i++)
		b->b[off + i] = (uint8_t)(v >> (8 * i));
}

enum { AB_CU = 1, AB_SUB, AB_INL, AB_ABSTRACT, AB_BASE, AB_STRUCT, AB_MEMBER };

static struct buf abbrev, info, line, rngl, strsec;

static void attr(struct buf *b, unsigned at, unsigned form)
{
	uleb(b, at);
	uleb(b, form);
}

static void build_dwarf(void)
{
	memset(&abbrev, 0, sizeof(abbrev));
	memset(&info, 0, sizeof(info));
	memset(&line, 0, sizeof(line));
	memset(&rngl, 0, sizeof(rngl));
	memset(&strsec, 0, sizeof(strsec));

	/* .debug_abbrev */
	struct buf *a = &abbrev;
	uleb(a, AB_CU); uleb(a, DW_TAG_compile_unit); u8(a, DW_CHILDREN_yes);
	attr(a, DW_AT_name, DW_FORM_string); attr(a, DW_AT_comp_dir, DW_FORM_string);
	attr(a, DW_AT_low_pc, DW_FORM_addr); attr(a, DW_AT_stmt_list, DW_FORM_sec_offset);
	attr(a, 0, 0);
	uleb(a, AB_SUB); uleb(a, DW_TAG_subprogram); u8(a, DW_CHILDREN_yes);
	attr(a, DW_AT_name, DW_FORM_strp); attr(a, DW_AT_low_pc, DW_FORM_addr);
	attr(a, DW_AT_high_pc, DW_FORM_data8); attr(a, DW_AT_sibling, DW_FORM_ref4);
	attr(a, 0, 0);
	uleb(a, AB_INL); uleb(a, DW_TAG_inlined_subroutine); u8(a, DW_CHILDREN_no);
	attr(a, DW_AT_abstract_origin, DW_FORM_ref4); attr(a, DW_AT_ranges, DW_FORM_sec_offset);
	attr(a, DW_AT_call_file, DW_FORM_data1); attr(a, DW_AT_call_line, DW_FORM_udata);
	attr(a, 0, 0);
	uleb(a, AB_ABSTRACT); uleb(a, DW_TAG_subprogram); u8(a, DW_CHILDREN_no);
	attr(a, DW_AT_name, DW_FORM_string);
	uleb(a, DW_AT_inline); uleb(a, DW_FORM_implicit_const); sleb(a, DW_INL_declared_inlined);
	attr(a, 0, 0);
	uleb(a, AB_BASE); uleb(a, DW_TAG_base_type); u8(a, DW_CHILDREN_no);
	attr(a, DW_AT_name, DW_FORM_string); attr(a, 0, 0);
	uleb(a, AB_STRUCT); uleb(a, DW_TAG_structure_type); u8(a, DW_CHILDREN_yes);
	attr(a, DW_AT_name, DW_FORM_string); attr(a, 0, 0);
	uleb(a, AB_MEMBER); uleb(a, DW_TAG_member); u8(a, DW_CHILDREN_no);
	attr(a, DW_AT_name, DW_FORM_string); attr(a, DW_AT_data_member_location, DW_FORM_exprloc);
	attr(a, 0, 0);
	u8(a, 0);

	/* .debug_str */
	str(&strsec, "");
	str(&strsec, "f");   /* offset 1 */

	/* .debug_rnglists: header, then one list at offset 12 */
	struct buf *r = &rngl;
	un(r, 0, 4); un(r, 5, 2); u8(r, 8); u8(r, 0); un(r, 0, 4);
	u8(r, DW_RLE_offset_pair); uleb(r, 0x1040); uleb(r, 0x1080);
	u8(r, DW_RLE_start_length); un(r, 0x10c0, 8); uleb(r, 0x10);
	u8(r, DW_RLE_end_of_list);
	put4(r, 0, r->n - 4);

	/* .debug_info */
	struct buf *d = &info;
	un(d, 0, 4); un(d, 5, 2); u8(d, DW_UT_compile); u8(d, 8); un(d, 0, 4);
	uleb(d, AB_CU); str(d, "f.c"); str(d, "/src/linux"); un(d, 0, 8); un(d, 0, 4);
	size_t g_off = d->n;
	uleb(d, AB_ABSTRACT); str(d, "g");
	uleb(d, AB_BASE); str(d, "int");
	uleb(d, AB_STRUCT); str(d, "s");                 /* no DW_AT_sibling */
	uleb(d, AB_MEMBER); str(d, "a"); uleb(d, 2); u8(d, DW_OP_plus_uconst); u8(d, 0);
	u8(d, 0);
	uleb(d, AB_SUB); un(d, 1, 4); un(d, 0x1000, 8); un(d, 0x100, 8);
	size_t sib_at = d->n;
	un(d, 0, 4);
	uleb(d, AB_INL); un(d, g_off, 4); un(d, 12, 4); u8(d, 0); uleb(d, 10);
	u8(d, 0);
	put4(d, sib_at, d->n);
	u8(d, 0);
	put4(d, 0, d->n - 4);

	/* .debug_line, DWARF 5 */
	struct buf *l = &line;
	un(l, 0, 4); un(l, 5, 2); u8(l, 8); u8(l, 0);
	size_t hlen_at = l->n;
	un(l, 0, 4);
	size_t hstart = l->n;
	u8(l, 1); u8(l, 1); u8(l, 1); u8(l, (uint8_t)-5); u8(l, 14); u8(l, 13);
	static const uint8_t oplen[] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	for (size_t i = 0; i < sizeof(oplen); i++)
		u8(l, oplen[i]);
	u8(l, 1); uleb(l, DW_LNCT_path); uleb(l, DW_FORM_string);
	uleb(l, 2); str(l, "/src/linux"); str(l, "include");
	u8(l, 2); uleb(l, DW_LNCT_path); uleb(l, DW_FORM_string);
	uleb(l, DW_LNCT_directory_index); uleb(l, DW_FORM_udata);
	uleb(l, 2); str(l, "f.c"); uleb(l, 0); str(l, "g.h"); uleb(l, 1);
	put4(l, hlen_at, l->n - hstart);
	/* sequence 1: 0x1000-0x1100 */
	u8(l, 0); u8(l, 9); u8(l, DW_LNE_set_address); un(l, 0x1000, 8);
	u8(l, DW_LNS_set_file); uleb(l, 0);
	u8(l, DW_LNS_advance_line); sleb(l, 4); u8(l, DW_LNS_copy);              /* f.c:5 */
	u8(l, DW_LNS_advance_pc); uleb(l, 0x40); u8(l, DW_LNS_set_file); uleb(l, 1);
	u8(l, DW_LNS_advance_line); sleb(l, 15); u8(l, DW_LNS_copy);             /* g.h:20 */
	u8(l, DW_LNS_advance_pc); uleb(l, 0x40); u8(l, DW_LNS_set_file); uleb(l, 0);
	u8(l, DW_LNS_advance_line); sleb(l, -14); u8(l, DW_LNS_copy);            /* f.c:6 */
	u8(l, DW_LNS_advance_pc); uleb(l, 0x40); u8(l, DW_LNS_set_file); uleb(l, 1);
	u8(l, DW_LNS_advance_line); sleb(l, 15); u8(l, DW_LNS_copy);             /* g.h:21 */
	u8(l, DW_LNS_set_file); uleb(l, 0);
	u8(l, 13 + (7 - -5) + 14 * 0x10);                                        /* +0x10, line 28 */
	u8(l, DW_LNS_advance_pc); uleb(l, 0x30);
	u8(l, 0); u8(l, 1); u8(l, DW_LNE_end_sequence);
	/* sequence 2, lower addresses: 0x800-0x810 */
	u8(l, 0); u8(l, 9); u8(l, DW_LNE_set_address); un(l, 0x800, 8);
	u8(l, DW_LNS_set_file); uleb(l, 0);
	u8(l, DW_LNS_advance_line); sleb(l, 99); u8(l, DW_LNS_copy);             /* f.c:100 */
	u8(l, DW_LNS_advance_pc); uleb(l, 0x10);
	u8(l, 0); u8(l, 1); u8(l, DW_LNE_end_sequence);
	put4(l, 0, l->n - 4);
}

/* the DWARF sections, in the order of their section headers 1..5 */
enum { S_INFO, S_ABBREV, S_LINE, S_RNGLISTS, S_STR, NSECT };
static const char *const sect_names[NSECT] = {
	".debug_info", ".debug_abbrev", ".debug_line", ".debug_rnglists", ".debug_str",
};

static struct buf *sect_buf(int i)
{
	struct buf *v[NSECT] = { &info, &abbrev, &line, &rngl, &strsec };
	return v[i];
}

/* an ELF64 executable holding the sections (section sec cut to len bytes
 * when len >= 0); malloc'ed, *size set */
static char *elf_image(int sec, long len, size_t *size)
{
	char shstr[128];
	size_t shlen = 1, name_off[NSECT + 1];
	shstr[0] = '\0';
	for (int i = 0; i <= NSECT; i++) {
		const char *nm = i < NSECT ? sect_names[i] : ".shstrtab";
		name_off[i] = shlen;
		memcpy(shstr + shlen, nm, strlen(nm) + 1);
		shlen += strlen(nm) + 1;
	}
	size_t data_off[NSECT + 1], data_len[NSECT + 1], off = sizeof(Elf64_Ehdr);
	for (int i = 0; i <= NSECT; i++) {
		data_len[i] = i < NSECT ? sect_buf(i)->n : shlen;
		if (i == sec && len >= 0)
			data_len[i] = (size_t)len;
		data_off[i] = off;
		off += data_len[i];
	}
	size_t shoff = (off + 7) & ~(size_t)7;
	*size = shoff + (NSECT + 2) * sizeof(Elf64_Shdr);
	char *img = calloc(1, *size);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shoff = shoff;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = NSECT + 2;
	eh->e_shstrndx = NSECT + 1;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + shoff);
	for (int i = 0; i <= NSECT; i++) {
		memcpy(img + data_off[i], i < NSECT ? (const char *)sect_buf(i)->b : shstr, data_len[i]);
		sh[i + 1] = (Elf64_Shdr){ .sh_name = (Elf64_Word)name_off[i],
					  .sh_type = i < NSECT ? SHT_PROGBITS : SHT_STRTAB,
					  .sh_offset = data_off[i], .sh_size = data_len[i],
					  .sh_addralign = 1 };
	}
	return img;
}

/* builds the index of the unit at unit_off from the current sections
 * (section sec cut to len when len >= 0); -1 also when libdw refuses the
 * file */
static int build(int sec, long len, uint64_t unit_off, struct dwi_cu *cu)
{
	size_t size;
	char *img = elf_image(sec, len, &size);
	Elf *elf = elf_memory(img, size);
	Dwarf *dbg = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	int r = dbg ? dwarf_index_build(dbg, unit_off, cu) : -1;
	/* the index owns its memory: it outlives the handles */
	if (dbg)
		dwarf_end(dbg);
	if (elf)
		elf_end(elf);
	free(img);
	return r;
}

static void check_frame(const struct sym_frame *f, const char *func, const char *file, int line,
			int inl)
{
	CHECK_STR(f->func, func);
	CHECK_STR(f->file, file);
	CHECK_INT(f->line, line);
	CHECK_INT(f->is_inline, inl);
}

static void test_index(void)
{
	struct dwi_cu cu;
	struct sym_frame fr[8];
	int hf;

	build_dwarf();
	CHECK_INT(build(-1, -1, 0, &cu), 0);
	/* first range of the inlined g */
	int n = dwarf_index_lookup(&cu, 0x1050, fr, 8, &hf);
	CHECK_INT(n, 2);
	CHECK(hf);
	check_frame(&fr[0], "g", "include/g.h", 20, 1);
	check_frame(&fr[1], "f", "f.c", 10, 0);
	/* second range (DW_RLE_start_length) */
	n = dwarf_index_lookup(&cu, 0x10c4, fr, 8, &hf);
	CHECK_INT(n, 2);
	check_frame(&fr[0], "g", "include/g.h", 21, 1);
	/* f itself, between and after the inlined ranges */
	n = dwarf_index_lookup(&cu, 0x1090, fr, 8, &hf);
	CHECK_INT(n, 1);
	check_frame(&fr[0], "f", "f.c", 6, 0);
	n = dwarf_index_lookup(&cu, 0x10d8, fr, 8, &hf);
	CHECK_INT(n, 1);
	check_frame(&fr[0], "f", "f.c", 28, 0);
	/* the earlier sequence: lines but no function; past the end: nothing */
	n = dwarf_index_lookup(&cu, 0x805, fr, 8, &hf);
	CHECK_INT(n, 1);
	CHECK(!hf);
	check_frame(&fr[0], "??", "f.c", 100, 0);
	n = dwarf_index_lookup(&cu, 0x1100, fr, 8, &hf);
	CHECK(!hf);
	CHECK_INT(fr[0].line, 0);
	dwarf_index_free(&cu);

	/* a unit offset that is not a unit */
	CHECK(build(-1, -1, info.n + 4, &cu) != 0);
	CHECK_INT(cu.nivals + cu.nscopes + cu.nlines, 0);
}

/* every byte mutated three ways, every section truncated at every length:
 * any result is fine, crashing or reading out of bounds is not */
static void test_damage(void)
{
	static const uint8_t muts[] = { 0x00, 0xff, 0x80 };
	unsigned runs = 0, built = 0;

	build_dwarf();
	for (int sec = 0; sec < NSECT; sec++) {
		struct buf *b = sect_buf(sec);
		struct buf orig = *b;
		for (size_t i = 0; i < orig.n; i++) {
			for (size_t m = 0; m < sizeof(muts); m++) {
				struct dwi_cu cu;
				*b = orig;
				b->b[i] = muts[m];
				if (!build(-1, -1, 0, &cu)) {
					built++;
					struct sym_frame fr[8];
					int hf;
					for (uint64_t a = 0x7f0; a < 0x1110; a += 8)
						dwarf_index_lookup(&cu, a, fr, 8, &hf);
					dwarf_index_free(&cu);
				}
				runs++;
			}
		}
		*b = orig;
		for (long len = 0; len < (long)orig.n; len++) {
			struct dwi_cu cu;
			if (!build(sec, len, 0, &cu))
				dwarf_index_free(&cu);
			runs++;
		}
	}
	CHECK(runs > 1000);
	/* some mutations (names, line numbers) still give an index */
	CHECK(built > 0);
}

int main(void)
{
	elf_version(EV_CURRENT);
	RUN(test_index);
	RUN(test_damage);
	return TEST_REPORT("test_dwarf_index");
}
