/* test_ksym_records.c - unit tests of record/ksym_records.c: the ksym
 * iterator's binary records give the table /proc/kallsyms text gives (the
 * same lines through symbols/ksyms.c), the iterator's own [bpf] symbols
 * and its repeat of the last symbol at the end are left out, __pfx_
 * padding symbols too, and malformed records are refused with a reason. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bpf/ksym_iter_abi.h"
#include "record/ksym_records.h"
#include "testlib.h"

struct recs {
	char *buf;
	size_t len, cap;
};

static void add_raw(struct recs *r, const void *p, size_t n)
{
	if (r->len + n > r->cap) {
		r->cap = (r->len + n) * 2 + 64;
		r->buf = realloc(r->buf, r->cap);
	}
	memcpy(r->buf + r->len, p, n);
	r->len += n;
}

/* one record as bpf/ksym_iter.bpf.c writes it */
static void add(struct recs *r, uint64_t addr, char type, const char *name, const char *mod)
{
	struct rs_ksym_rec h = { .addr = addr, .name_len = (uint16_t)(strlen(name) + 1),
				 .mod_len = (uint8_t)(mod ? strlen(mod) + 1 : 0), .type = type };

	add_raw(r, &h, RS_KI_HDR_SIZE);
	add_raw(r, name, h.name_len);
	if (mod)
		add_raw(r, mod, h.mod_len);
}

static const struct {
	uint64_t addr;
	char type;
	const char *name, *mod;
} syms[] = {
	{ 0xffffffff81000000ULL, 'T', "_text", NULL },
	{ 0xffffffff81000000ULL, 'T', "_stext", NULL },
	{ 0xffffffff81000ff0ULL, 't', "__pfx_early_func", NULL },
	{ 0xffffffff81001000ULL, 't', "early_func", NULL },
	{ 0xffffffff81003000ULL, 'T', "vfs_read", NULL },
	{ 0xffffffff81003000ULL, 'T', "ksys_read_alias", NULL },
	{ 0xffffffff81002000ULL, 'T', "do_sys_open", NULL },
	{ 0xffffffff81004000ULL, 'W', "weak_fn", NULL },
	{ 0xffffffff81005000ULL, 'D', "some_data", NULL },
	{ 0xffffffff81006000ULL, 't', "dup_static", NULL },
	{ 0xffffffffc0a01000ULL, 't', "kvm_vcpu_ioctl", "kvm" },
	{ 0xffffffffc0a02000ULL, 't', "dup_static", "kvm" },
	{ 0xffffffffc0a03000ULL, 'b', "kvm_bss", "kvm" },
	{ 0xffffffffc0b00000ULL, 'T', "dup_static", "kvm_intel" },
	{ 0xffffffffc0200000ULL, 't', "bpf_prog_0123456789abcdef_other", "bpf" },
	{ 0xffffffffc0201000ULL, 't', "bpf_prog_fedcba9876543210_rs_ksym_iter", "bpf" },
	{ 0xffffffffc0300000ULL, 't', "kprobe_insn_page", "__builtin__kprobes" },
};
#define NSYMS (sizeof(syms) / sizeof(syms[0]))

/* the same symbols as /proc/kallsyms lines, through ksyms_load_file */
static struct ksyms *as_text(size_t skip_idx)
{
	char path[] = "/tmp/test_ksym_records.XXXXXX", err[256];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct ksyms *ks;

	for (size_t i = 0; i < NSYMS; i++) {
		if (i == skip_idx)
			continue;
		fprintf(f, "%016llx %c %s", (unsigned long long)syms[i].addr, syms[i].type,
			syms[i].name);
		if (syms[i].mod)
			fprintf(f, "\t[%s]", syms[i].mod);
		fprintf(f, "\n");
	}
	fclose(f);
	ks = ksyms_load_file(path, err, sizeof(err));
	unlink(path);
	return ks;
}

static void check_same(const struct ksyms *a, const struct ksyms *b)
{
	CHECK_INT(ksyms_count(a), ksyms_count(b));
	for (size_t i = 0; i < ksyms_count(a) && i < ksyms_count(b); i++) {
		const struct ksym *x = ksyms_at(a, i), *y = ksyms_at(b, i);

		CHECK(x->addr == y->addr);
		CHECK(x->size == y->size);
		CHECK_INT(x->type, y->type);
		CHECK_STR(x->name, y->name);
		CHECK((x->module == NULL) == (y->module == NULL));
		if (x->module && y->module)
			CHECK_STR(x->module, y->module);
	}
}

static struct ksyms *from_recs(struct recs *r, const uint64_t *skip, size_t nskip, char *err)
{
	char *buf = r->buf;
	size_t len = r->len;

	r->buf = NULL;
	r->len = r->cap = 0;
	return ksym_records_parse(buf, len, skip, nskip, err, 256);
}

static void test_same_as_text(void)
{
	struct recs r = {};
	char err[256] = "";
	struct ksyms *ks, *txt;
	uint64_t own = 0xffffffffc0201000ULL;

	for (size_t i = 0; i < NSYMS; i++)
		add(&r, syms[i].addr, syms[i].type, syms[i].name, syms[i].mod);
	/* the iterator's stop call: the last symbol again, kprobes' module */
	add(&r, syms[NSYMS - 1].addr, 't', syms[NSYMS - 1].name, "__builtin__kprobes");
	ks = from_recs(&r, &own, 1, err);
	txt = as_text(15);   /* without the iterator's own program */
	CHECK(ks != NULL);
	CHECK(txt != NULL);
	if (!ks || !txt) {
		fprintf(stderr, "  %s\n", err);
		ksyms_free(ks);
		ksyms_free(txt);
		return;
	}
	check_same(ks, txt);
	/* functions only, no padding symbol, no iterator program */
	CHECK_INT(ksyms_count(ks), 13);
	CHECK(ksyms_find(ks, "__pfx_early_func", NULL, NULL) == NULL);
	CHECK(ksyms_find(txt, "__pfx_early_func", NULL, NULL) == NULL);
	CHECK(ksyms_find(ks, "some_data", NULL, NULL) == NULL);
	CHECK(ksyms_find(ks, "bpf_prog_fedcba9876543210_rs_ksym_iter", NULL, NULL) == NULL);
	CHECK(ksyms_find(ks, "bpf_prog_0123456789abcdef_other", "bpf", NULL) != NULL);
	CHECK(ksyms_find(ks, "kprobe_insn_page", "__builtin__kprobes", NULL) != NULL);
	CHECK_INT(ksyms_find_all(ks, "kprobe_insn_page", NULL, 0), 1);
	CHECK(ksyms_lookup(ks, 0xffffffff81001010ULL) == ksyms_find(ks, "early_func", NULL, NULL));
	ksyms_free(ks);
	ksyms_free(txt);
}

/* the stop call's repeat is found when the last real symbol was the
 * iterator's own (left out), and a different last symbol stays */
static void test_stop_repeat(void)
{
	struct recs r = {};
	char err[256] = "";
	uint64_t own = 0xffffffffc0201000ULL;
	struct ksyms *ks;

	add(&r, 0xffffffff81000000ULL, 'T', "_stext", NULL);
	add(&r, own, 't', "bpf_prog_fedcba9876543210_rs_ksym_iter", "bpf");
	add(&r, own, 't', "bpf_prog_fedcba9876543210_rs_ksym_iter", "__builtin__kprobes");
	ks = from_recs(&r, &own, 1, err);
	CHECK(ks != NULL);
	CHECK_INT(ksyms_count(ks), 1);
	ksyms_free(ks);

	add(&r, 0xffffffff81000000ULL, 'T', "_stext", NULL);
	add(&r, 0xffffffffc0300000ULL, 't', "kprobe_insn_page", "__builtin__kprobes");
	add(&r, 0xffffffffc0301000ULL, 't', "kprobe_insn_page", "__builtin__kprobes");
	ks = from_recs(&r, NULL, 0, err);
	CHECK(ks != NULL);
	CHECK_INT(ksyms_count(ks), 3);
	ksyms_free(ks);

	ks = from_recs(&r, NULL, 0, err);   /* nothing at all */
	CHECK(ks != NULL);
	CHECK_INT(ksyms_count(ks), 0);
	ksyms_free(ks);
}

static void expect_malformed(struct recs *r, const char *what)
{
	char err[256] = "";
	struct ksyms *ks = from_recs(r, NULL, 0, err);

	if (ks)
		fprintf(stderr, "  accepted: %s\n", what);
	CHECK(ks == NULL);
	ksyms_free(ks);
	CHECK(strstr(err, "malformed record") != NULL);
}

static void test_malformed(void)
{
	struct recs r = {};
	struct rs_ksym_rec h = { .addr = 1, .name_len = 4, .mod_len = 0, .type = 't' };

	add(&r, 0x1000, 't', "ok", NULL);
	add_raw(&r, &h, RS_KI_HDR_SIZE - 1);
	expect_malformed(&r, "a cut header");

	add(&r, 0x1000, 't', "ok", NULL);
	add_raw(&r, &h, RS_KI_HDR_SIZE);
	add_raw(&r, "ab", 2);
	expect_malformed(&r, "a cut name");

	add_raw(&r, &h, RS_KI_HDR_SIZE);
	add_raw(&r, "abcd", 4);
	expect_malformed(&r, "a name without its NUL");

	add_raw(&r, &h, RS_KI_HDR_SIZE);
	add_raw(&r, "a\0c", 4);
	expect_malformed(&r, "a NUL inside the name");

	h.name_len = 1;
	add_raw(&r, &h, RS_KI_HDR_SIZE);
	add_raw(&r, "", 1);
	expect_malformed(&r, "an empty name");

	h.name_len = 3;
	h.mod_len = 3;
	add_raw(&r, &h, RS_KI_HDR_SIZE);
	add_raw(&r, "ab\0kvm", 6);
	expect_malformed(&r, "a module without its NUL");

	{
		static char big[RS_KI_NAME_MAX + 1];

		memset(big, 'x', RS_KI_NAME_MAX);
		h.name_len = RS_KI_NAME_MAX + 1;
		h.mod_len = 0;
		add_raw(&r, &h, RS_KI_HDR_SIZE);
		add_raw(&r, big, sizeof(big));
		expect_malformed(&r, "a name longer than kallsyms allows");
	}
}

int main(void)
{
	RUN(test_same_as_text);
	RUN(test_stop_repeat);
	RUN(test_malformed);
	return TEST_REPORT("test_ksym_records");
}
