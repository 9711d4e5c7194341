/* insn_profile_report.c - reads the counts bench/qemu_insn_plugin.c wrote
 * for one window (a prof.K file) and the guest's /proc/kallsyms copied in
 * the same run, and attributes the instructions to kernel symbols; for
 * bench/insn_profile.sh:
 *
 *   insn_profile_report total KSYMS PROF N
 *       instructions per unit (N units, e.g. syscalls, ran in the window)
 *   insn_profile_report calls KSYMS PROF N
 *       runs of BPF programs per unit: the executions of the first block
 *       of every bpf_prog_* symbol, divided by N (an empty kprobe.multi
 *       entry and return pair runs twice per traced call)
 *   insn_profile_report top KSYMS PROF N PER [K]
 *       the K (default 25) largest symbols, instructions per unit and per
 *       PER (e.g. traced calls per unit)
 *   insn_profile_report diff KSYMS_A PROF_A KSYMS_B PROF_B N PER [K]
 *       B minus A per symbol, the K largest differences, then the sums of
 *       the BPF programs' differences and of the rest's
 *   insn_profile_report blocks KSYMS PROF N SYMBOL
 *       the blocks inside SYMBOL (a bpf_prog_* symbol may be named by its
 *       program name): offset, instructions, executions per unit
 *   insn_profile_report annotate KSYMS PROF N SYMBOL < LISTING
 *       SYMBOL's instructions (its kallsyms name) with their executions
 *       per unit, the ones that ran: LISTING is objdump's disassembly of
 *       its code (objdump -D -b binary -m i386:x86-64 IMAGE, the image
 *       from bench/jit_images.c), offsets from the symbol's start
 *
 * Names: bpf_prog_TAG_NAME is shown as prog:NAME (the tag differs per
 * load), bpf_trampoline_ID as bpf_trampoline, user space as [user]. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ksym {
	uint64_t addr;
	char *name;   /* shown name */
	char *raw;    /* kallsyms name */
};

struct ksyms {
	struct ksym *v;
	size_t n;
};

struct tally {
	char *name;
	double insns;
};

struct tallies {
	struct tally *v;
	size_t n, cap;
};

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "insn_profile_report: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

static void *xrealloc(void *p, size_t sz)
{
	p = realloc(p, sz);
	if (!p)
		die("%s", "out of memory");
	return p;
}

static char *shown_name(const char *raw)
{
	char buf[512];
	size_t i;

	if (!strncmp(raw, "bpf_prog_", 9) && strlen(raw) > 26 && raw[25] == '_') {
		for (i = 9; i < 25; i++)
			if (!strchr("0123456789abcdef", raw[i]))
				break;
		if (i == 25) {
			snprintf(buf, sizeof(buf), "prog:%s", raw + 26);
			return strdup(buf);
		}
	}
	if (!strncmp(raw, "bpf_trampoline_", 15))
		return strdup("bpf_trampoline");
	return strdup(raw);
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void ksyms_load(const char *path, struct ksyms *ks)
{
	FILE *f = fopen(path, "r");
	char line[1024], type, name[512];
	unsigned long long addr;
	size_t cap = 0;

	if (!f)
		die("cannot read %s", path);
	ks->v = NULL;
	ks->n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3 || !addr)
			continue;
		if (ks->n == cap) {
			cap = cap ? cap * 2 : 65536;
			ks->v = xrealloc(ks->v, cap * sizeof(*ks->v));
		}
		ks->v[ks->n].addr = addr;
		ks->v[ks->n].raw = strdup(name);
		ks->v[ks->n].name = shown_name(name);
		ks->n++;
	}
	fclose(f);
	if (!ks->n)
		die("no symbols in %s (was it read as root?)", path);
	qsort(ks->v, ks->n, sizeof(*ks->v), ksym_cmp);
}

/* the symbol holding addr, NULL below the first */
static const struct ksym *ksym_of(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks->n;

	if (addr < ks->v[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (ks->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return &ks->v[lo];
}

static int kernel_addr(uint64_t a)
{
	return a >= 0xffff800000000000ULL;
}

static void tally_add(struct tallies *t, const char *name, double v)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, name)) {
			t->v[i].insns += v;
			return;
		}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	t->v[t->n].name = strdup(name);
	t->v[t->n].insns = v;
	t->n++;
}

static double tally_get(const struct tallies *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, name))
			return t->v[i].insns;
	return 0;
}

/* each line of PROF: "VADDR NINSNS EXECS"; cb gets the block's symbol */
typedef void (*block_cb)(const struct ksym *sym, uint64_t vaddr, uint64_t insns, uint64_t execs,
			 void *arg);

static void prof_each(const char *path, const struct ksyms *ks, block_cb cb, void *arg)
{
	FILE *f = fopen(path, "r");
	unsigned long long vaddr, insns, execs;
	char line[256];
	size_t lines = 0;

	if (!f)
		die("cannot read %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %llu %llu", &vaddr, &insns, &execs) != 3) {
			fclose(f);
			die("malformed line in %s", path);
		}
		cb(kernel_addr(vaddr) ? ksym_of(ks, vaddr) : NULL, vaddr, insns, execs, arg);
		lines++;
	}
	fclose(f);
	if (!lines)
		die("%s is empty: the marker did not run twice?", path);
}

static void add_block(const struct ksym *sym, uint64_t vaddr, uint64_t insns, uint64_t execs, void *arg)
{
	const char *name = kernel_addr(vaddr) ? (sym ? sym->name : "[kernel?]") : "[user]";

	tally_add(arg, name, (double)insns * (double)execs);
}

static void load_tallies(const char *ksyms_path, const char *prof, struct tallies *t)
{
	struct ksyms ks;

	ksyms_load(ksyms_path, &ks);
	memset(t, 0, sizeof(*t));
	prof_each(prof, &ks, add_block, t);
}

static double tallies_total(const struct tallies *t)
{
	double s = 0;

	for (size_t i = 0; i < t->n; i++)
		s += t->v[i].insns;
	return s;
}

static int abs_desc(const void *a, const void *b)
{
	double x = ((const struct tally *)a)->insns, y = ((const struct tally *)b)->insns;

	x = x < 0 ? -x : x;
	y = y < 0 ? -y : y;
	return x < y ? 1 : x > y ? -1 : 0;
}

static double num_arg(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v <= 0)
		die("not a positive number: '%s'", s);
	return v;
}

static void count_prog_runs(const struct ksym *sym, uint64_t vaddr, uint64_t insns, uint64_t execs,
			    void *arg)
{
	(void)insns;
	if (sym && sym->addr == vaddr && !strncmp(sym->raw, "bpf_prog_", 9))
		*(double *)arg += (double)execs;
}

struct blocks_arg {
	const char *want;
	double n;
	double total;
	int found;
};

static void print_block(const struct ksym *sym, uint64_t vaddr, uint64_t insns, uint64_t execs, void *arg)
{
	struct blocks_arg *b = arg;

	if (!sym || (strcmp(sym->raw, b->want) && strcmp(sym->name, b->want) &&
		     !(!strncmp(sym->name, "prog:", 5) && !strcmp(sym->name + 5, b->want))))
		return;
	b->found = 1;
	b->total += (double)insns * (double)execs / b->n;
	printf("%s+0x%04" PRIx64 " insns %3" PRIu64 " execs %8.2f = %8.1f\n", sym->name, vaddr - sym->addr,
	       insns, (double)execs / b->n, (double)insns * (double)execs / b->n);
}

/* annotate: the blocks of one symbol, then objdump's lines */
struct ann_block {
	uint64_t off, insns, execs;
};

struct ann_insn {
	uint64_t off;
	char *text;
	double execs;
};

struct ann_arg {
	const char *want;
	struct ann_block *b;
	size_t nb, capb;
};

static void collect_block(const struct ksym *sym, uint64_t vaddr, uint64_t insns, uint64_t execs,
			  void *arg)
{
	struct ann_arg *a = arg;

	if (!sym || strcmp(sym->raw, a->want))
		return;
	if (a->nb == a->capb) {
		a->capb = a->capb ? 2 * a->capb : 64;
		a->b = xrealloc(a->b, a->capb * sizeof(*a->b));
	}
	a->b[a->nb++] = (struct ann_block){ vaddr - sym->addr, insns, execs };
}

/* objdump's instruction lines ("  off:\tbytes\ttext"; a line of bytes
 * alone continues the one before) */
static size_t read_listing(FILE *f, struct ann_insn **out)
{
	char line[1024];
	struct ann_insn *v = NULL;
	size_t n = 0, cap = 0;

	while (fgets(line, sizeof(line), f)) {
		char *colon, *end, *text;
		uint64_t off = strtoull(line, &end, 16);

		colon = strchr(line, ':');
		if (!colon || end != colon || colon[1] != '\t' || !(text = strchr(colon + 2, '\t')))
			continue;
		text[strcspn(text, "\n")] = 0;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n++] = (struct ann_insn){ off, strdup(text + 1), 0 };
	}
	*out = v;
	return n;
}

static int annotate(const char *ksyms, const char *prof, double n, const char *want)
{
	struct ann_arg a = { .want = want };
	struct ann_insn *v;
	struct ksyms ks;
	size_t ni, shown = 0, last = (size_t)-1;
	double total = 0;

	ksyms_load(ksyms, &ks);
	prof_each(prof, &ks, collect_block, &a);
	if (!a.nb)
		die("no block of %s ran in the window", want);
	ni = read_listing(stdin, &v);
	if (!ni)
		die("%s", "no instruction lines on standard input (objdump -D -b binary ...)");
	for (size_t i = 0; i < a.nb; i++) {
		size_t k = 0;

		while (k < ni && v[k].off != a.b[i].off)
			k++;
		if (k == ni || k + a.b[i].insns > ni) {
			fprintf(stderr, "insn_profile_report: a block at +0x%" PRIx64
				" does not fit the listing (another program's image?)\n", a.b[i].off);
			return 1;
		}
		for (uint64_t j = 0; j < a.b[i].insns; j++)
			v[k + j].execs += (double)a.b[i].execs / n;
	}
	for (size_t k = 0; k < ni; k++) {
		if (!v[k].execs)
			continue;
		if (last != (size_t)-1 && k != last + 1)
			printf("      ...\n");
		printf("%8.2f %6" PRIx64 "  %s\n", v[k].execs, v[k].off, v[k].text);
		total += v[k].execs;
		shown++;
		last = k;
	}
	printf("total %.1f instructions per unit, %zu distinct instructions ran\n", total, shown);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: insn_profile_report total|calls KSYMS PROF N\n"
			"       insn_profile_report top KSYMS PROF N PER [K]\n"
			"       insn_profile_report diff KSYMS_A PROF_A KSYMS_B PROF_B N PER [K]\n"
			"       insn_profile_report blocks KSYMS PROF N SYMBOL\n"
			"       insn_profile_report annotate KSYMS PROF N SYMBOL < LISTING\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct tallies a, b;

	if (argc < 2)
		usage();
	if ((!strcmp(argv[1], "total") || !strcmp(argv[1], "calls")) && argc == 5) {
		double n = num_arg(argv[4]), runs = 0;

		if (!strcmp(argv[1], "total")) {
			load_tallies(argv[2], argv[3], &a);
			printf("%.1f\n", tallies_total(&a) / n);
		} else {
			struct ksyms ks;

			ksyms_load(argv[2], &ks);
			prof_each(argv[3], &ks, count_prog_runs, &runs);
			printf("%.2f\n", runs / n);
		}
		return 0;
	}
	if (!strcmp(argv[1], "top") && (argc == 6 || argc == 7)) {
		double n = num_arg(argv[4]), per = num_arg(argv[5]);
		size_t k = argc == 7 ? (size_t)num_arg(argv[6]) : 25;

		load_tallies(argv[2], argv[3], &a);
		qsort(a.v, a.n, sizeof(*a.v), abs_desc);
		for (size_t i = 0; i < a.n && i < k; i++)
			printf("  %9.1f %8.1f  %s\n", a.v[i].insns / n, a.v[i].insns / n / per, a.v[i].name);
		return 0;
	}
	if (!strcmp(argv[1], "diff") && (argc == 8 || argc == 9)) {
		double n = num_arg(argv[6]), per = num_arg(argv[7]);
		size_t k = argc == 9 ? (size_t)num_arg(argv[8]) : 25;
		struct tallies d = { 0 };

		load_tallies(argv[2], argv[3], &a);
		load_tallies(argv[4], argv[5], &b);
		for (size_t i = 0; i < b.n; i++)
			tally_add(&d, b.v[i].name, b.v[i].insns - tally_get(&a, b.v[i].name));
		for (size_t i = 0; i < a.n; i++)
			if (!tally_get(&b, a.v[i].name) && a.v[i].insns)
				tally_add(&d, a.v[i].name, -a.v[i].insns);
		qsort(d.v, d.n, sizeof(*d.v), abs_desc);
		for (size_t i = 0; i < d.n && i < k; i++) {
			if (d.v[i].insns / n > -0.5 && d.v[i].insns / n < 0.5)
				break;
			printf("  %+9.1f %+8.1f  %s\n", d.v[i].insns / n, d.v[i].insns / n / per, d.v[i].name);
		}
		/* the programs' own part apart: exact from boot to boot, where the
		 * kernel's part also holds what the recorder's threads ran on the
		 * vCPU (its page allocations differ from run to run) */
		double progs = 0, rest = 0;

		for (size_t i = 0; i < d.n; i++) {
			if (!strncmp(d.v[i].name, "prog:", 5))
				progs += d.v[i].insns;
			else
				rest += d.v[i].insns;
		}
		printf("  %+9.1f %+8.1f  = the BPF programs (prog:*)\n", progs / n, progs / n / per);
		printf("  %+9.1f %+8.1f  = the rest (helpers, kernel, user space)\n", rest / n, rest / n / per);
		return 0;
	}
	if (!strcmp(argv[1], "blocks") && argc == 6) {
		struct blocks_arg ba = { .want = argv[5], .n = num_arg(argv[4]) };
		struct ksyms ks;

		ksyms_load(argv[2], &ks);
		prof_each(argv[3], &ks, print_block, &ba);
		if (!ba.found)
			die("no block of %s ran in the window", argv[5]);
		printf("total %.1f\n", ba.total);
		return 0;
	}
	if (!strcmp(argv[1], "annotate") && argc == 6)
		return annotate(argv[2], argv[3], num_arg(argv[4]), argv[5]);
	usage();
	return 2;
}
