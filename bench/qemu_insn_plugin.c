/* qemu_insn_plugin.c - a QEMU TCG plugin for bench/insn_profile.sh: counts
 * the guest instructions one vCPU executes, per translation block, and
 * writes them out each time the guest runs a marker function, so that a
 * workload can bracket the window it wants counted:
 *
 *   qemu-system-x86_64 -plugin ./qemu_insn_plugin.so,mark=ADDR,dir=DIR[,cpu=N] ...
 *
 * ADDR: the guest virtual address of the marker (a user-space function of
 * the workload, linked at a fixed address); DIR: a host directory; each run
 * of the marker writes DIR/prof.K (K = 0, 1, ...) with one line per block
 * executed since the previous mark, "VADDR NINSNS EXECS" (hex, decimal,
 * decimal), and resets the counts. cpu: the vCPU counted (default 0; the
 * workload is pinned there).
 *
 * A block is counted whole each time it starts (one that an interrupt or a
 * fault leaves early is counted in full): the totals agree with icount's
 * instruction clock to well under 1%. Written against the plugin API as of
 * QEMU 7.2 (version 1; Debian 12's qemu-system-x86), declared here, with
 * only the calls that API had. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the plugin API's types and calls used here (QEMU's include/qemu/qemu-plugin.h) */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum { QEMU_PLUGIN_CB_NO_REGS = 0 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
					  int flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* one translated block (a block translated again gets another record) */
struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t execs;   /* on the counted vCPU since the last mark */
};

static struct block **blocks;
static size_t nr_blocks, cap_blocks;
static uint64_t mark_addr;
static unsigned int counted_cpu;
static char out_dir[4096] = ".";
static unsigned int next_dump;

static void dump_and_reset(void)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/prof.%u", out_dir, next_dump++);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "qemu_insn_plugin: cannot write %s\n", path);
	for (size_t i = 0; i < nr_blocks; i++) {
		struct block *b = blocks[i];

		if (f && b->execs)
			fprintf(f, "%llx %llu %llu\n", (unsigned long long)b->vaddr,
				(unsigned long long)b->insns, (unsigned long long)b->execs);
		b->execs = 0;
	}
	if (f)
		fclose(f);
}

static void on_block_exec(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	if (vcpu == counted_cpu)
		b->execs++;
}

static void on_mark_exec(unsigned int vcpu, void *udata)
{
	(void)udata;
	if (vcpu == counted_cpu)
		dump_and_reset();
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block *b = calloc(1, sizeof(*b));

	(void)id;
	if (!b)
		abort();
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = qemu_plugin_tb_n_insns(tb);
	if (nr_blocks == cap_blocks) {
		cap_blocks = cap_blocks ? cap_blocks * 2 : 65536;
		blocks = realloc(blocks, cap_blocks * sizeof(*blocks));
		if (!blocks)
			abort();
	}
	blocks[nr_blocks++] = b;
	/* the mark first: the marker's own block is counted in the next window */
	if (b->vaddr == mark_addr)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_mark_exec, QEMU_PLUGIN_CB_NO_REGS, NULL);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block_exec, QEMU_PLUGIN_CB_NO_REGS, b);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "mark=", 5))
			mark_addr = strtoull(argv[i] + 5, NULL, 0);
		else if (!strncmp(argv[i], "dir=", 4))
			snprintf(out_dir, sizeof(out_dir), "%s", argv[i] + 4);
		else if (!strncmp(argv[i], "cpu=", 4))
			counted_cpu = (unsigned int)strtoul(argv[i] + 4, NULL, 0);
		else {
			fprintf(stderr, "qemu_insn_plugin: unknown argument '%s' (mark=, dir=, cpu=)\n", argv[i]);
			return -1;
		}
	}
	if (!mark_addr) {
		fprintf(stderr, "qemu_insn_plugin: mark=ADDR is required\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	return 0;
}
