/* test_dwarf_raw.c - unit tests of the raw DWARF reader and the index it
 * builds (symbols/dwarf_raw.c, dwarf_rawline.c, dwarf_idx_raw.c) on a
 * hand-assembled DWARF 5 unit: inline chains through an abstract origin
 * and a range list, a line table with two out-of-order sequences, DIE
 * skipping with and without DW_AT_sibling; then every byte of every
 * section mutated and every section truncated, which must never crash
 * (run under ASan/UBSan) - and the natural merge sort (common/runsort.c). */
#include <stdlib.h>
#include <dwarf.h>
#include "testlib.h"
#include "../../common/runsort.h"
#include "../../symbols/dwarf_index.h"
#include "../../symbols/dwarf_raw.h"

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

static void set_raw(struct dwarf_raw *r)
{
	memset(r, 0, sizeof(*r));
	r->le = true;
	r->info = (struct draw_sect){ info.b, info.n };
	r->abbrev = (struct draw_sect){ abbrev.b, abbrev.n };
	r->line = (struct draw_sect){ line.b, line.n };
	r->rnglists = (struct draw_sect){ rngl.b, rngl.n };
	r->str = (struct draw_sect){ strsec.b, strsec.n };
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
	struct dwarf_raw r;
	struct dwi_cu cu;
	struct sym_frame fr[8];
	int hf;

	build_dwarf();
	set_raw(&r);
	CHECK_INT(dwarf_index_build_raw(&r, 0, &cu), 0);
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
	CHECK(dwarf_index_build_raw(&r, info.n + 4, &cu) != 0);
}

/* every byte mutated three ways, every section truncated at every length:
 * any result is fine, crashing or reading out of bounds is not */
static void test_damage(void)
{
	struct buf *secs[] = { &info, &abbrev, &line, &rngl, &strsec };
	static const uint8_t muts[] = { 0x00, 0xff, 0x80 };
	unsigned runs = 0, built = 0;

	build_dwarf();
	for (size_t s = 0; s < sizeof(secs) / sizeof(secs[0]); s++) {
		struct buf *b = secs[s];
		struct buf orig = *b;
		for (size_t i = 0; i < orig.n; i++) {
			for (size_t m = 0; m < sizeof(muts); m++) {
				*b = orig;
				b->b[i] = muts[m];
				struct dwarf_raw r;
				struct dwi_cu cu;
				set_raw(&r);
				/* exact-size heap copy so ASan sees overreads */
				uint8_t *copy = malloc(b->n ? b->n : 1);
				memcpy(copy, b->b, b->n);
				struct draw_sect *ds = s == 0 ? &r.info : s == 1 ? &r.abbrev :
						       s == 2 ? &r.line : s == 3 ? &r.rnglists : &r.str;
				ds->p = copy;
				if (!dwarf_index_build_raw(&r, 0, &cu)) {
					built++;
					struct sym_frame fr[8];
					int hf;
					for (uint64_t a = 0x7f0; a < 0x1110; a += 8)
						dwarf_index_lookup(&cu, a, fr, 8, &hf);
					dwarf_index_free(&cu);
				}
				free(copy);
				runs++;
			}
		}
		for (size_t len = 0; len < orig.n; len++) {
			struct dwarf_raw r;
			struct dwi_cu cu;
			*b = orig;
			set_raw(&r);
			uint8_t *copy = malloc(len ? len : 1);
			memcpy(copy, orig.b, len);
			struct draw_sect *ds = s == 0 ? &r.info : s == 1 ? &r.abbrev :
					       s == 2 ? &r.line : s == 3 ? &r.rnglists : &r.str;
			ds->p = copy;
			ds->n = len;
			if (!dwarf_index_build_raw(&r, 0, &cu))
				dwarf_index_free(&cu);
			free(copy);
			runs++;
		}
		*b = orig;
	}
	CHECK(runs > 1000);
	/* some mutations (names, line numbers) still give an index */
	CHECK(built > 0);
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

static void test_runsort(void)
{
	int sorted[100], runs[100], rnd[1000], empty[1];
	for (int i = 0; i < 100; i++) {
		sorted[i] = i;
		runs[i] = (i % 25) * 4 + i / 25;   /* 4 interleaved runs */
	}
	unsigned x = 12345;
	for (int i = 0; i < 1000; i++) {
		x = x * 1103515245 + 12345;
		rnd[i] = (int)(x >> 16) % 500;
	}
	CHECK_INT(runsort(sorted, 100, sizeof(int), int_cmp), 0);
	CHECK_INT(runsort(runs, 100, sizeof(int), int_cmp), 0);
	CHECK_INT(runsort(rnd, 1000, sizeof(int), int_cmp), 0);
	CHECK_INT(runsort(empty, 0, sizeof(int), int_cmp), 0);
	int ok = 1;
	for (int i = 0; i < 100; i++)
		ok &= sorted[i] == i && runs[i] == i;
	for (int i = 1; i < 1000; i++)
		ok &= rnd[i - 1] <= rnd[i];
	CHECK(ok);
}

int main(void)
{
	RUN(test_index);
	RUN(test_damage);
	RUN(test_runsort);
	return TEST_REPORT("test_dwarf_raw");
}
