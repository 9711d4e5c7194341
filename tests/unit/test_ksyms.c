/* test_ksyms.c - unit tests of symbols/ksyms.c on generated kallsyms
 * files: function-type filtering, modules, aliases, sizes, address lookup
 * edges, name(+module) lookup, snapshots, malformed input, and the
 * parsing speed of a /proc/kallsyms-sized file. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "symbols/ksyms.h"
#include "testlib.h"

static char path[64];

static int write_file(const char *text)
{
	int fd;
	FILE *f;

	strcpy(path, "/tmp/test_ksyms.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return 0;
}

static const char *small_kallsyms =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 t early_func\n"
	"ffffffff81003000 T vfs_read\n"
	"ffffffff81003000 T ksys_read_alias\n"
	"ffffffff81002000 T do_sys_open\n"          /* out of order */
	"ffffffff81004000 W weak_fn\n"
	"ffffffff81005000 D some_data\n"
	"ffffffff81005800 r a_rodata\n"
	"ffffffff81006000 t dup_static\n"
	"ffffffff81007000 t last_vmlinux_fn\n"
	"ffffffff82000000 D _etext_data\n"
	"ffffffffc0a01000 t kvm_vcpu_ioctl\t[kvm]\n"
	"ffffffffc0a02000 t dup_static\t[kvm]\n"
	"ffffffffc0a03000 b kvm_bss\t[kvm]\n"
	"ffffffffc0b00000 T dup_static\t[kvm_intel]\n"
	"\n";

static void test_parse_small(void)
{
	char err[256] = "";
	struct ksyms *ks;
	const struct ksym *s;

	CHECK_INT(write_file(small_kallsyms), 0);
	ks = ksyms_load_file(path, err, sizeof(err));
	unlink(path);
	CHECK(ks != NULL);
	if (!ks) {
		fprintf(stderr, "  %s\n", err);
		return;
	}
	CHECK_INT(ksyms_count(ks), 12);            /* data symbols dropped */
	for (size_t i = 1; i < ksyms_count(ks); i++)
		CHECK(ksyms_at(ks, i - 1)->addr <= ksyms_at(ks, i)->addr);
	CHECK(ksyms_at(ks, 12) == NULL);

	/* aliases: file order kept, sizes to the next distinct address */
	s = ksyms_at(ks, 0);
	CHECK_STR(s->name, "_text");
	CHECK_INT(s->size, 0x1000);
	CHECK_STR(ksyms_at(ks, 1)->name, "_stext");
	CHECK_INT(ksyms_at(ks, 1)->size, 0x1000);
	s = ksyms_find(ks, "weak_fn", NULL, NULL);
	CHECK(s && s->type == 'W' && s->size == 0x2000);   /* data in between is ignored */
	s = ksyms_find(ks, "kvm_vcpu_ioctl", NULL, NULL);
	CHECK(s && s->module && !strcmp(s->module, "kvm") && s->type == 't');
	s = ksyms_find(ks, "dup_static", "kvm_intel", NULL);
	CHECK(s && s->size == 0);                  /* the last symbol */
	ksyms_free(ks);
}

static void test_lookup(void)
{
	char err[256];
	struct ksyms *ks;
	const struct ksym *s;

	CHECK_INT(write_file(small_kallsyms), 0);
	ks = ksyms_load_file(path, err, sizeof(err));
	unlink(path);
	if (!ks) {
		CHECK(0);
		return;
	}
	CHECK(ksyms_lookup(ks, 0) == NULL);
	CHECK(ksyms_lookup(ks, 0xffffffff80ffffffULL) == NULL);
	s = ksyms_lookup(ks, 0xffffffff81000000ULL);
	CHECK(s && !strcmp(s->name, "_text"));      /* first alias */
	s = ksyms_lookup(ks, 0xffffffff81000fffULL);
	CHECK(s && !strcmp(s->name, "_text"));
	s = ksyms_lookup(ks, 0xffffffff81001000ULL);
	CHECK(s && !strcmp(s->name, "early_func"));
	s = ksyms_lookup(ks, 0xffffffff81003010ULL);
	CHECK(s && !strcmp(s->name, "vfs_read"));
	s = ksyms_lookup(ks, 0xffffffff81005900ULL);   /* past the data: still weak_fn's span */
	CHECK(s && !strcmp(s->name, "weak_fn"));
	s = ksyms_lookup(ks, 0xffffffffc0a02abcULL);
	CHECK(s && !strcmp(s->name, "dup_static") && s->module && !strcmp(s->module, "kvm"));
	s = ksyms_lookup(ks, 0xffffffffffff0000ULL);   /* last one has no size */
	CHECK(s && !strcmp(s->module, "kvm_intel"));
	ksyms_free(ks);
}

static void test_find(void)
{
	char err[256];
	struct ksyms *ks;
	const struct ksym *s;
	size_t n = 99;

	CHECK_INT(write_file(small_kallsyms), 0);
	ks = ksyms_load_file(path, err, sizeof(err));
	unlink(path);
	if (!ks) {
		CHECK(0);
		return;
	}
	s = ksyms_find(ks, "dup_static", NULL, &n);
	CHECK_INT(n, 3);
	CHECK(s && s->module == NULL);               /* vmlinux first */
	s = ksyms_find(ks, "dup_static", "kvm", &n);
	CHECK_INT(n, 1);
	CHECK(s && s->addr == 0xffffffffc0a02000ULL);
	s = ksyms_find(ks, "dup_static", "nope", &n);
	CHECK(s == NULL);
	CHECK_INT(n, 0);
	CHECK(ksyms_find(ks, "some_data", NULL, &n) == NULL);   /* not a function */
	CHECK(ksyms_find(ks, "vfs_rea", NULL, NULL) == NULL);
	CHECK(ksyms_find(ks, "vfs_read_", NULL, NULL) == NULL);
	s = ksyms_find(ks, "ksys_read_alias", NULL, &n);
	CHECK(s && n == 1 && s->addr == 0xffffffff81003000ULL);
	/* exact (name, module): NULL is vmlinux only; address order */
	const struct ksym *hits[4] = { NULL };
	CHECK_INT(ksyms_find_exact(ks, "dup_static", NULL, hits, 4), 1);
	CHECK(hits[0] && hits[0]->module == NULL);
	CHECK_INT(ksyms_find_exact(ks, "dup_static", "kvm", hits, 4), 1);
	CHECK(hits[0] && hits[0]->addr == 0xffffffffc0a02000ULL);
	CHECK_INT(ksyms_find_exact(ks, "dup_static", "nope", hits, 4), 0);
	CHECK_INT(ksyms_find_exact(ks, "vfs_rea", NULL, hits, 4), 0);
	CHECK_INT(ksyms_find_exact(ks, "dup_static", "kvm", hits, 0), 1);   /* counted, not stored */
	ksyms_free(ks);

	CHECK_INT(write_file(small_kallsyms), 0);
	CHECK(ksyms_find_any_addr(path, "_etext_data") == 0xffffffff82000000ULL);
	CHECK(ksyms_find_any_addr(path, "_stext") == 0xffffffff81000000ULL);
	CHECK(ksyms_find_any_addr(path, "no_such_symbol") == 0);
	unlink(path);
	CHECK(ksyms_find_any_addr("/nonexistent/kallsyms", "_text") == 0);
}

static void test_errors(void)
{
	char err[256] = "";

	CHECK(ksyms_load_file("/nonexistent/kallsyms", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "/nonexistent/kallsyms") != NULL);
	CHECK(strstr(err, "No such file") != NULL);

	CHECK_INT(write_file("ffffffff81000000 T ok\nthis is not kallsyms\n"), 0);
	err[0] = '\0';
	CHECK(ksyms_load_file(path, err, sizeof(err)) == NULL);
	CHECK(strstr(err, ":2:") != NULL);
	unlink(path);

	CHECK_INT(write_file("ffffffff81000000ff T too_long_address\n"), 0);
	CHECK(ksyms_load_file(path, err, sizeof(err)) == NULL);
	unlink(path);

	CHECK_INT(write_file(""), 0);               /* empty: valid, no symbols */
	struct ksyms *ks = ksyms_load_file(path, err, sizeof(err));
	unlink(path);
	CHECK(ks && ksyms_count(ks) == 0 && ksyms_lookup(ks, 0x1000) == NULL);
	CHECK(ksyms_find(ks, "x", NULL, NULL) == NULL);
	ksyms_free(ks);
	/* no trailing newline on the last line */
	CHECK_INT(write_file("ffffffff81000000 T only\t[m]"), 0);
	ks = ksyms_load_file(path, err, sizeof(err));
	unlink(path);
	CHECK(ks && ksyms_count(ks) == 1 && !strcmp(ksyms_at(ks, 0)->module, "m"));
	ksyms_free(ks);
}

static void test_from_array(void)
{
	char name[16] = "foo", mod[8] = "mod";
	struct ksym v[3] = {
		{ .addr = 0x3000, .type = 'T', .name = "c" },
		{ .addr = 0x1000, .type = 't', .name = name, .module = mod },
		{ .addr = 0x2000, .type = 'T', .name = "b" },
	};
	struct ksyms *ks = ksyms_from_array(v, 3);
	const struct ksym *s;

	CHECK(ks != NULL);
	if (!ks)
		return;
	strcpy(name, "XXX");                        /* strings were copied */
	strcpy(mod, "YYY");
	s = ksyms_lookup(ks, 0x1800);
	CHECK(s && !strcmp(s->name, "foo") && !strcmp(s->module, "mod") && s->size == 0x1000);
	CHECK(ksyms_find(ks, "foo", "mod", NULL) == s);
	CHECK_INT(ksyms_at(ks, 2)->addr, 0x3000);
	ksyms_free(ks);
	ks = ksyms_from_array(NULL, 0);
	CHECK(ks && ksyms_count(ks) == 0);
	ksyms_free(ks);
}

/* ~200k lines like a distro kernel with modules, shuffled a bit */
static void test_big_file(void)
{
	const size_t N = 200000;
	char err[256];
	struct ksyms *ks;
	FILE *f;
	int fd;
	struct timespec t0, t1;
	double ms;
	size_t nfunc = 0;

	strcpy(path, "/tmp/test_ksyms.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0) {
		CHECK(0);
		return;
	}
	f = fdopen(fd, "w");
	for (size_t i = 0; i < N; i++) {
		size_t k = (i * 7919) % N;          /* a permutation: out of order */
		unsigned long long a = 0xffffffff81000000ULL + k * 0x40;
		char t = "tTtDtWrt"[k % 8];

		if (t != 'D' && t != 'r')
			nfunc++;
		if (k >= N - 20000)
			fprintf(f, "%016llx %c mod_fn_%zu\t[mod%zu]\n", a + 0x3e000000ULL, t, k, k % 50);
		else
			fprintf(f, "%016llx %c fn_%zu\n", a, t, k);
	}
	fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ks = ksyms_load_file(path, err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	unlink(path);
	CHECK(ks != NULL);
	if (!ks)
		return;
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("  parsed %zu lines (%zu functions) in %.1f ms (sanitized build)\n", N, ksyms_count(ks), ms);
	CHECK_INT(ksyms_count(ks), nfunc);
	CHECK(ms < 5000);
	/* every function resolves to itself, by address and by name */
	for (size_t k = 0; k < N; k += 997) {
		char nm[32];
		char t = "tTtDtWrt"[k % 8];
		unsigned long long a = 0xffffffff81000000ULL + k * 0x40;
		const struct ksym *s;

		if (t == 'D' || t == 'r')
			continue;
		if (k >= N - 20000) {
			a += 0x3e000000ULL;
			snprintf(nm, sizeof(nm), "mod_fn_%zu", k);
		} else {
			snprintf(nm, sizeof(nm), "fn_%zu", k);
		}
		s = ksyms_lookup(ks, a + 0x3f);
		CHECK(s && !strcmp(s->name, nm));
		CHECK(ksyms_find(ks, nm, NULL, NULL) == s);
	}
	ksyms_free(ks);
}

/* only one module's symbols: the [bpf] JIT images the recorder adds to
 * its snapshot after attaching */
static void test_load_module(void)
{
	char err[256] = "";
	struct ksyms *ks;

	CHECK_INT(write_file("ffffffff81001000 T vfs_read\n"
			     "ffffffffc0200000 t bpf_trampoline_6442451234\t[bpf]\n"
			     "ffffffffc0a01000 t kvm_vcpu_ioctl\t[kvm]\n"
			     "ffffffffc0201000 t bpf_prog_0123456789abcdef_rs_fexit\t[bpf]\n"
			     "ffffffffc0202000 d bpf_data\t[bpf]\n"), 0);
	ks = ksyms_load_module(path, "bpf", err, sizeof(err));
	unlink(path);
	CHECK(ks != NULL);
	if (!ks)
		return;
	CHECK_INT(ksyms_count(ks), 2);
	CHECK_STR(ksyms_at(ks, 0)->name, "bpf_trampoline_6442451234");
	CHECK_STR(ksyms_at(ks, 0)->module, "bpf");
	CHECK_STR(ksyms_at(ks, 1)->name, "bpf_prog_0123456789abcdef_rs_fexit");
	CHECK(ksyms_lookup(ks, 0xffffffffc0201010ULL) == ksyms_at(ks, 1));
	ksyms_free(ks);
	CHECK(ksyms_load_module("/nonexistent/kallsyms", "bpf", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "/nonexistent/kallsyms") != NULL);
}

int main(void)
{
	RUN(test_parse_small);
	RUN(test_lookup);
	RUN(test_find);
	RUN(test_errors);
	RUN(test_from_array);
	RUN(test_big_file);
	RUN(test_load_module);
	return TEST_REPORT("test_ksyms");
}
