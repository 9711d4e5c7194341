/* test_lbr_view.c - unit tests of report/lbr_view.c: relevance filtering
 * to the deepest traced function, fmt.lbr-max-count, the unfiltered
 * fallback and its notice, stacks.unfiltered, unknown addresses, address
 * and decimal-offset formatting, the dropped/failed record messages, a
 * record claiming more entries than it holds, and source/inline
 * continuation rows from a fake DWARF backend. */
#include <stdlib.h>
#include <string.h>
#include "bpf/retsnoop_abi.h"
#include "report/lbr_view.h"
#include "testlib.h"

#define T 0xffffffff81000000ULL

static const struct rsf_ksym ksyms[] = {
	{ T + 0x1000, 'T', "caller", NULL },
	{ T + 0x2000, 't', "deepest", NULL },
	{ T + 0x3000, 't', "helper", NULL },
	{ T + 0x4000, 't', "ret_thunk", NULL },
	{ T + 0x5000, 't', "kprobe_stuff", NULL },
	{ T + 0x6000, 't', "last", NULL },
};
#define DEEPEST (T + 0x2000)

static struct symbolizer *new_sym(void)
{
	return symbolizer_new(ksyms, sizeof(ksyms) / sizeof(ksyms[0]), NULL, 0);
}

/* most recent first: #0, #1 are kprobe machinery, #2 leaves deepest */
static const struct rs_lbr_entry ents[] = {
	{ T + 0x5010, T + 0x5100, 0 },     /* 0 */
	{ T + 0x4000, T + 0x5000, 0 },     /* 1 */
	{ T + 0x20e0, T + 0x4000, 0 },     /* 2: deepest -> ret_thunk */
	{ T + 0x4000, T + 0x2098, 0 },     /* 3 */
	{ T + 0x3040, T + 0x4000, 0 },     /* 4 */
	{ T + 0x2093, T + 0x3000, 0 },     /* 5 */
	{ T + 0x1044, T + 0x2000, 0 },     /* 6 */
};
#define NE 7

static char *render(struct symbolizer *s, const struct rs_lbr_entry *e, int n, uint64_t fa,
		    const struct lv_opts *o)
{
	struct lv_table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (lbr_view_build(&t, s, e, n, fa, o) == 0)
		lbr_view_print(f, &t);
	lv_table_free(&t);
	fclose(f);
	return buf;
}

static void test_relevance(void)
{
	struct symbolizer *s = new_sym();
	struct lv_opts o = {0};
	struct lv_table t;
	char *out;

	CHECK_INT(lbr_view_build(&t, s, ents, NE, DEEPEST, &o), 0);
	CHECK(t.relevant);
	CHECK_INT(t.boundary, 2);
	CHECK_INT(t.n, 5);
	CHECK_INT(t.rows[0].idx, 6);         /* oldest first */
	CHECK_INT(t.rows[4].idx, 2);
	CHECK_STR(t.rows[0].from.sym, "caller+0x44");
	CHECK_STR(t.rows[0].to.sym, "deepest+0x0");
	lv_table_free(&t);

	out = render(s, ents, NE, DEEPEST, &o);
	CHECK_STR(out,
		"[#06] caller+0x44    ->  deepest+0x0\n"
		"[#05] deepest+0x93   ->  helper+0x0\n"
		"[#04] helper+0x40    ->  ret_thunk+0x0\n"
		"[#03] ret_thunk+0x0  ->  deepest+0x98\n"
		"[#02] deepest+0xe0   ->  ret_thunk+0x0\n");
	free(out);

	/* the `to` side counts as well: #6 jumps into deepest */
	CHECK_INT(lbr_view_build(&t, s, ents + 6, 1, DEEPEST, &o), 0);
	CHECK(t.relevant);
	CHECK_INT(t.n, 1);
	lv_table_free(&t);
	symbolizer_free(s);
}

static void test_max_count(void)
{
	struct symbolizer *s = new_sym();
	struct lv_opts o = { .max_count = 2 };
	struct lv_table t;

	CHECK_INT(lbr_view_build(&t, s, ents, NE, DEEPEST, &o), 0);
	CHECK_INT(t.n, 2);                   /* the two closest to the boundary */
	CHECK_INT(t.rows[0].idx, 3);
	CHECK_INT(t.rows[1].idx, 2);
	lv_table_free(&t);
	o.max_count = 100;
	CHECK_INT(lbr_view_build(&t, s, ents, NE, DEEPEST, &o), 0);
	CHECK_INT(t.n, 5);
	lv_table_free(&t);
	symbolizer_free(s);
}

static void test_fallback(void)
{
	struct symbolizer *s = new_sym();
	struct lv_opts o = {0};
	struct lv_table t;
	char *out;

	/* nothing from deepest: everything, then the notice */
	CHECK_INT(lbr_view_build(&t, s, ents, 2, DEEPEST, &o), 0);
	CHECK(!t.relevant);
	CHECK_INT(t.n, 2);
	lv_table_free(&t);
	out = render(s, ents, 2, DEEPEST, &o);
	CHECK(out && strstr(out, "[LBR] No relevant LBR data were captured, showing unfiltered LBR stack!\n"));
	CHECK(out && strncmp(out, "[#01] ", 6) == 0);
	free(out);
	/* unknown deepest function: nothing can be relevant */
	CHECK_INT(lbr_view_build(&t, s, ents, NE, 0, &o), 0);
	CHECK(!t.relevant);
	CHECK_INT(t.n, NE);
	lv_table_free(&t);
	/* stacks.unfiltered: all entries, no notice when one was relevant */
	o.unfiltered = true;
	CHECK_INT(lbr_view_build(&t, s, ents, NE, DEEPEST, &o), 0);
	CHECK(t.relevant);
	CHECK_INT(t.n, NE);
	lv_table_free(&t);
	out = render(s, ents, NE, DEEPEST, &o);
	CHECK(out && !strstr(out, "No relevant"));
	CHECK(out && strstr(out, "[#00] kprobe_stuff+0x10"));
	free(out);
	/* zero entries: only the notice */
	o.unfiltered = false;
	out = render(s, ents, 0, DEEPEST, &o);
	CHECK_STR(out, "[LBR] No relevant LBR data were captured, showing unfiltered LBR stack!\n");
	free(out);
	symbolizer_free(s);
}

static void test_formats(void)
{
	struct symbolizer *s = new_sym();
	struct lv_opts o = { .emit_addrs = true, .dec_offs = true };
	struct rs_lbr_entry e[] = { { T + 0x2010, 0xffffffffa0000010ULL, 0 } };
	char *out = render(s, e, 1, DEEPEST, &o);

	CHECK_STR(out, "[#00] ffffffff81002010 deepest+16  ->  ffffffffa0000010 0xffffffffa0000010\n");
	free(out);
	symbolizer_free(s);
}

static char *render_rec(struct symbolizer *s, const struct rs_rec_lbr *rec)
{
	struct lv_opts o = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	lbr_view_render(f, s, rec, DEEPEST, &o);
	fclose(f);
	return buf;
}

static void test_records(void)
{
	struct symbolizer *s = new_sym();
	struct rs_rec_lbr rec;
	char *out;

	out = render_rec(s, NULL);
	CHECK_STR(out, "LBR data was dropped and is missing in this sample!\n");
	free(out);

	memset(&rec, 0, sizeof(rec));
	rec.hdr.type = RS_REC_LBR;
	rec.hdr.size = sizeof(rec);
	rec.lbrs_sz = -2;
	out = render_rec(s, &rec);
	CHECK_STR(out, "Failed to capture LBR entries: -ENOENT\n");
	free(out);
	rec.lbrs_sz = -9999;
	out = render_rec(s, &rec);
	CHECK_STR(out, "Failed to capture LBR entries: -9999\n");
	free(out);

	/* claims 32 entries but the record holds only 2 (cut short) */
	memcpy(rec.lbrs, ents + 5, 2 * sizeof(rec.lbrs[0]));
	rec.lbrs_sz = 32 * (int)sizeof(rec.lbrs[0]);
	rec.hdr.size = (uint32_t)(offsetof(struct rs_rec_lbr, lbrs) + 2 * sizeof(rec.lbrs[0]));
	out = render_rec(s, &rec);
	CHECK_STR(out,
		"[#01] caller+0x44   ->  deepest+0x0\n"
		"[#00] deepest+0x93  ->  helper+0x0\n");
	free(out);
	symbolizer_free(s);
}

/* a fake DWARF backend: deepest+0x93 is inside two inlined functions */
static int fake_lookup(void *ctx, uint64_t addr, uint64_t link_addr, bool is_ret,
		       struct symb_info *out)
{
	(void)ctx;
	(void)addr;
	(void)is_ret;
	if (link_addr < T + 0x2000 || link_addr >= T + 0x3000)
		return -1;
	out->has_src = true;
	snprintf(out->src.func, sizeof(out->src.func), "deepest");
	snprintf(out->src.file, sizeof(out->src.file), "kernel/deep.c");
	out->src.line = (int)(link_addr - T - 0x2000);
	if (link_addr == T + 0x2093) {
		out->ninlines = 2;
		snprintf(out->inlines[0].func, sizeof(out->inlines[0].func), "inl_a");
		snprintf(out->inlines[0].file, sizeof(out->inlines[0].file), "include/a.h");
		out->inlines[0].line = 10;
		snprintf(out->inlines[1].func, sizeof(out->inlines[1].func), "inl_b");
		snprintf(out->inlines[1].file, sizeof(out->inlines[1].file), "include/b.h");
		out->inlines[1].line = 20;
	}
	return 0;
}

static void test_dwarf(void)
{
	struct symbolizer *s = new_sym();
	struct symb_backend be = { .ctx = NULL, .lookup = fake_lookup, .free = NULL };
	struct lv_opts o = {0};
	char *out;

	symbolizer_set_backend(s, &be, 0);
	out = render(s, ents + 5, 2, DEEPEST, &o);
	CHECK_STR(out,
		"[#01] caller+0x44                        ->  deepest+0x0  (kernel/deep.c:0)\n"
		"[#00] deepest+0x93  (kernel/deep.c:147)  ->  helper+0x0\n"
		"      . inl_a       (include/a.h:10)\n"
		"      . inl_b       (include/b.h:20)\n");
	free(out);
	symbolizer_free(s);
}

int main(void)
{
	RUN(test_relevance);
	RUN(test_max_count);
	RUN(test_fallback);
	RUN(test_formats);
	RUN(test_records);
	RUN(test_dwarf);
	return TEST_REPORT("test_lbr_view");
}
