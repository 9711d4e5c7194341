/* mkustack.c - turns selfcap's dump (registers, stack copy, executable
 * mappings) into a recording as retsnoop-record -U would write it: a
 * UMAPS record (build-ids read from the mapped files with the
 * symbolizer's reader), the USTACK record, then its SESSION_END with a
 * small synthetic kernel side. Usage: mkustack DUMP OUT.rsr [nomaps|trace|
 * sessions=N|sessions-nou=N] (nomaps: no UMAPS record; trace: a -T
 * recording, START and trace records too; sessions: N sessions of that
 * stack, -nou: without their USTACK records, for bench/ustack_report.sh).
 * Exit 1 with a message on any error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/dwarf_sym.h"
#include "tests/golden/reclib.h"

#define KBASE 0xffffffff81000000ULL
#define PID 4242

struct dump {
	uint64_t regs[RS_USER_NREGS], sp;
	size_t len, nmaps;
	struct { uint64_t start, end, pgoff; char path[4096]; } maps[64];
	unsigned char *stack;
};

static void die(const char *what)
{
	fprintf(stderr, "mkustack: %s\n", what);
	exit(1);
}

static void read_dump(const char *path, struct dump *d)
{
	FILE *f = fopen(path, "r");
	char line[8192];

	memset(d, 0, sizeof(*d));
	if (!f)
		die("cannot open the dump");
	while (fgets(line, sizeof(line), f) && strcmp(line, "data\n")) {
		char *p = line;

		if (!strncmp(line, "regs ", 5)) {
			for (int i = 0; i < RS_USER_NREGS; i++)
				d->regs[i] = strtoull(p + 5, &p, 16), p -= 5;
		} else if (!strncmp(line, "stack ", 6)) {
			if (sscanf(line, "stack %lx %zu", &d->sp, &d->len) != 2)
				die("bad stack line");
		} else if (!strncmp(line, "map ", 4) && d->nmaps < 64) {
			if (sscanf(line, "map %lx %lx %lx %4095s", &d->maps[d->nmaps].start,
				   &d->maps[d->nmaps].end, &d->maps[d->nmaps].pgoff,
				   d->maps[d->nmaps].path) == 4)
				d->nmaps++;
		}
	}
	if (!d->len || !(d->stack = malloc(d->len)) || fread(d->stack, 1, d->len, f) != d->len)
		die("short dump");
	fclose(f);
}

static void add_umaps(struct rsf_writer *w, const struct dump *d)
{
	size_t slen = 0, off = 0, size;
	struct rs_rec_umaps *u;
	char *str;

	for (size_t i = 0; i < d->nmaps; i++)
		slen += strlen(d->maps[i].path) + 1;
	size = RS_REC_ALIGN(sizeof(*u) + d->nmaps * sizeof(u->maps[0]) + slen);
	if (!(u = calloc(1, size)))
		die("out of memory");
	u->hdr = (struct rs_rec_hdr){ RS_REC_UMAPS, (uint32_t)size };
	u->ts = 1000;
	u->pid = PID;
	u->nmaps = (uint32_t)d->nmaps;
	u->strings_len = (uint32_t)slen;
	str = (char *)&u->maps[d->nmaps];
	for (size_t i = 0; i < d->nmaps; i++) {
		struct rs_umap *m = &u->maps[i];
		int n = elf_file_build_id(d->maps[i].path, m->build_id, sizeof(m->build_id));

		m->start = d->maps[i].start;
		m->end = d->maps[i].end;
		m->pgoff = d->maps[i].pgoff;
		m->build_id_len = n > 0 ? (uint8_t)n : 0;
		m->path_off = (uint32_t)off;
		strcpy(str + off, d->maps[i].path);
		off += strlen(d->maps[i].path) + 1;
	}
	rb_add(w, u, (uint32_t)size);
	free(u);
}

static void add_ustack(struct rsf_writer *w, const struct dump *d)
{
	size_t size = RS_REC_ALIGN(sizeof(struct rs_rec_ustack) + d->len);
	struct rs_rec_ustack *u = calloc(1, size);

	if (!u)
		die("out of memory");
	u->hdr = (struct rs_rec_hdr){ RS_REC_USTACK, (uint32_t)size };
	u->sess_id = PID;
	u->tid = u->pid = PID;
	memcpy(u->regs, d->regs, sizeof(u->regs));
	u->stack_addr = d->sp;
	u->stack_len = (uint32_t)d->len;
	memcpy(u->stack, d->stack, d->len);
	rb_add(w, u, (uint32_t)size);
	free(u);
}

int main(int argc, char **argv)
{
	static const char *const ksyms[] = { "entry_SYSCALL_64", "do_syscall_64",
					     "__x64_sys_openat", "do_sys_openat2" };
	struct rsf_ksym ks[4];
	struct rsf_func fn[2];
	struct rsf_meta meta;
	struct rsf_writer *w;
	struct rsf_stats st;
	struct dump d;
	bool nomaps, trace, with_ustack = true;
	long nsess = 1;

	rb_prog = "mkustack";
	if (argc < 3)
		die("usage: mkustack DUMP OUT.rsr [nomaps|trace]");
	nomaps = argc > 3 && !strcmp(argv[3], "nomaps");
	trace = argc > 3 && !strcmp(argv[3], "trace");
	if (argc > 3 && !strncmp(argv[3], "sessions", 8)) {   /* sessions[-nou]=N */
		with_ustack = strncmp(argv[3], "sessions-nou=", 13) != 0;
		nsess = strtol(strchr(argv[3], '=') ? strchr(argv[3], '=') + 1 : "", NULL, 10);
		if (nsess < 1 || nsess > 10000000)
			die("sessions=N: N from 1 to 10000000");
	}
	read_dump(argv[1], &d);
	for (int i = 0; i < 4; i++)
		ks[i] = (struct rsf_ksym){ KBASE + 0x1000 * (uint64_t)i, 'T', ksyms[i], NULL };
	fn[0] = (struct rsf_func){ ks[2].addr, RS_FUNC_IS_ENTRY | RS_FUNC_NEEDS_SIGN_EXT, ksyms[2], NULL };
	fn[1] = (struct rsf_func){ ks[3].addr, RS_FUNC_NEEDS_SIGN_EXT, ksyms[3], NULL };
	rb_meta(&meta, "retsnoop-record -U", "6.1.0-test", NULL, "selfcap", KBASE, 0,
		"kprobe-multi", RSF_FEAT_RINGBUF, RSF_MODE_STACKS | (trace ? RSF_MODE_TRACE : 0));
	w = rb_open(argv[2], &meta, ks, 4, NULL, 0, fn, 2);
	if (!nomaps)
		add_umaps(w, &d);
	if (trace) {
		rb_start(w, PID, PID, PID, "selfcap", "selfcap", 2000);
		rb_trace(w, PID, false, 2000, 0, 0, 1, 0, 0);
		rb_trace(w, PID, false, 2500, 1, 1, 2, 0, 0);
		rb_trace(w, PID, true, 4500, 1, 1, 2, ERR(2), 2000);
		rb_trace(w, PID, true, 5000, 0, 0, 1, ERR(2), 3000);
	}
	for (long i = 0; i < nsess; i++) {
		if (with_ustack)
			add_ustack(w, &d);
		rb_begin(PID, PID, PID, "selfcap", "selfcap", 2000 + 10000 * (uint64_t)i,
			 5000 + 10000 * (uint64_t)i, RS_SESS_IS_ERR);
		rb_frame(0, ERR(2), 3000);
		rb_frame(1, ERR(2), 2000);
		rb_e.last_seq_id = trace ? 1 : 0;
		rb_kframe(ks[3].addr + 0x50);
		rb_kframe(ks[2].addr + 0x20);
		rb_kframe(ks[1].addr + 0x40);
		rb_kframe(ks[0].addr + 0x70);
		rb_emit(w);
	}
	memset(&st, 0, sizeof(st));
	st.bpf.sessions_emitted = (uint64_t)nsess;
	rb_close(w, &st);
	free(d.stack);
	return 0;
}
