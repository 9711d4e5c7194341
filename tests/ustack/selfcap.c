/* selfcap.c - the self-capture program of the host user-stack test
 * (run.sh): built -O2 -g without frame pointers, static and dynamic.
 * main -> level1 -> level2 -> level3 (none inlined, cloned or
 * tail-called; level2 calls level3 from the inlined via_inline); level3 captures its own registers at one instruction and
 * copies its stack from rsp upwards, as the recorder would at a syscall,
 * and writes them with its executable mappings to the dump file (argv[1])
 * that mkustack turns into a recording. Only libc: the static variant
 * links nothing else. The MARK comments are where run.sh expects frames. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STACK_COPY 16384
#define NOIPA __attribute__((noinline, noclone))

static const char *dump_path;
static volatile int sink;

/* the [stack] mapping's end: where the copy must stop */
static uint64_t stack_end(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	unsigned long lo, hi;
	uint64_t end = 0;

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			end = hi;
	if (f)
		fclose(f);
	return end;
}

/* executable file mappings, as "map START END PGOFF PATH" lines */
static void write_maps(FILE *out)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096], perms[8], path[4096];
	unsigned long lo, hi, off;

	while (f && fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &lo, &hi, perms, &off, path) >= 4 &&
		    perms[2] == 'x' && path[0])
			fprintf(out, "map %lx %lx %lx %s\n", lo, hi, off, path);
	}
	if (f)
		fclose(f);
}

/* regs in the kernel's pt_regs order (r15 r14 r13 r12 bp bx r11 r10 r9 r8
 * ax cx dx si di orig_ax ip cs flags sp ss); the others stay 0 */
static NOIPA void write_dump(const uint64_t *cap)
{
	uint64_t regs[21] = {0}, sp = cap[1], end = stack_end(), len;
	FILE *out = fopen(dump_path, "w");

	if (!out || !end || end <= sp) {
		perror(dump_path);
		exit(1);
	}
	regs[16] = cap[0];   /* ip */
	regs[19] = cap[1];   /* sp */
	regs[4] = cap[2];    /* bp */
	regs[5] = cap[3];    /* bx */
	regs[3] = cap[4];    /* r12 */
	regs[2] = cap[5];    /* r13 */
	regs[1] = cap[6];    /* r14 */
	regs[0] = cap[7];    /* r15 */
	len = end - sp < STACK_COPY ? end - sp : STACK_COPY;
	fprintf(out, "regs");
	for (int i = 0; i < 21; i++)
		fprintf(out, " %llx", (unsigned long long)regs[i]);
	fprintf(out, "\nstack %llx %llu\n", (unsigned long long)sp, (unsigned long long)len);
	write_maps(out);
	fprintf(out, "data\n");
	fwrite((const void *)(uintptr_t)sp, 1, len, out);
	if (fclose(out)) {
		perror(dump_path);
		exit(1);
	}
}

static NOIPA int level3(int x)
{
	uint64_t cap[8];

	/* rip (the next instruction), then rsp rbp rbx r12-r15 as they are
	 * there; rax is the only register changed on the way */
	__asm__ volatile("lea 0(%%rip), %%rax\n\t" /* MARK level3 */
			 "mov %%rax, 0(%0)\n\t"
			 "mov %%rsp, 8(%0)\n\t"
			 "mov %%rbp, 16(%0)\n\t"
			 "mov %%rbx, 24(%0)\n\t"
			 "mov %%r12, 32(%0)\n\t"
			 "mov %%r13, 40(%0)\n\t"
			 "mov %%r14, 48(%0)\n\t"
			 "mov %%r15, 56(%0)\n\t"
			 : : "r"(cap) : "rax", "memory");
	write_dump(cap);
	return x + sink;
}

/* inlined into level2: its frame is an inlined one of level2's */
static inline __attribute__((always_inline)) int via_inline(int x)
{
	int r = level3(x * 3); /* MARK via_inline */

	sink += r;
	return r;
}

static NOIPA int level2(int x)
{
	int r = via_inline(x) + 1; /* MARK level2 */

	sink += r;
	return r + 2;
}

static NOIPA int level1(int x)
{
	int r = level2(x + 7); /* MARK level1 */

	sink += r;
	return r + 1;
}

int main(int argc, char **argv)
{
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: selfcap DUMPFILE\n");
		return 2;
	}
	dump_path = argv[1];
	r = level1(argc); /* MARK main */
	sink += r;
	return 0;
}
