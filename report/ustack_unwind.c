/* ustack_unwind.c - offline unwinding of a recorded user stack with
 * libdwfl (see ustack_unwind.h). x86-64: the recorded pt_regs become the
 * DWARF registers rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>
#include "ustack_unwind.h"

/* pt_regs slots (kernel order, RS_USER_NREGS) */
enum { PT_R15, PT_R14, PT_R13, PT_R12, PT_BP, PT_BX, PT_R11, PT_R10, PT_R9, PT_R8, PT_AX,
       PT_CX, PT_DX, PT_SI, PT_DI, PT_ORIG_AX, PT_IP, PT_CS, PT_FLAGS, PT_SP, PT_SS };
/* DWARF register n (0..16) of x86-64 from pt_regs slot dwarf_from_pt[n] */
static const int dwarf_from_pt[17] = {
	PT_AX, PT_DX, PT_CX, PT_BX, PT_SI, PT_DI, PT_BP, PT_SP,
	PT_R8, PT_R9, PT_R10, PT_R11, PT_R12, PT_R13, PT_R14, PT_R15, PT_IP,
};

struct umod {
	struct uw_map *m;
	int fd;              /* bin, opened on the first memory read outside the stack */
};

struct ustack_unwinder {
	Dwfl *dwfl;
	bool attached;
	struct umod *mods;
	size_t n;
	uint32_t pid;
	const struct rs_rec_ustack *cur;   /* the stack being walked */
	bool thread_given;
};

int uw_load_bias(const char *path, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;
	Elf *elf;
	size_t n;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !elf_getphdrnum(elf, &n)) {
		for (size_t i = 0; i < n && ret; i++) {
			GElf_Phdr ph;
			uint64_t al;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			al = ph.p_align > 1 ? ph.p_align : 1;
			if ((ph.p_offset & ~(al - 1)) <= pgoff && pgoff < ph.p_offset + ph.p_filesz &&
			    (ph.p_flags & PF_X)) {
				*bias = start - pgoff + ph.p_offset - ph.p_vaddr;
				ret = 0;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* the main ELF comes with dwfl_report_elf; debuginfo is the found file */
static int find_elf(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	(void)mod; (void)ud; (void)name; (void)base; (void)file_name;
	*elfp = NULL;
	return -1;
}

static int find_debuginfo(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr base,
			  const char *file_name, const char *debuglink, GElf_Word crc,
			  char **debuginfo_file_name)
{
	struct umod *um = *ud;
	int fd;

	(void)mod; (void)name; (void)base; (void)file_name; (void)debuglink; (void)crc;
	if (!um || !um->m->dbg || (um->m->bin && !strcmp(um->m->dbg, um->m->bin)))
		return -1;
	fd = open(um->m->dbg, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		*debuginfo_file_name = strdup(um->m->dbg);
	return fd;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct ustack_unwinder *u = arg;

	(void)dwfl;
	if (u->thread_given)
		return 0;
	u->thread_given = true;
	*thread_argp = u;
	return (pid_t)u->cur->tid;
}

/* 8 bytes from the mapped file behind addr, if its binary was found */
static bool read_file(struct ustack_unwinder *u, uint64_t addr, Dwarf_Word *out)
{
	for (size_t i = 0; i < u->n; i++) {
		struct umod *um = &u->mods[i];

		if (addr < um->m->start || addr + 8 > um->m->end || !um->m->bin)
			continue;
		if (um->fd < 0)
			um->fd = open(um->m->bin, O_RDONLY | O_CLOEXEC);
		return um->fd >= 0 &&
		       pread(um->fd, out, 8, (off_t)(addr - um->m->start + um->m->pgoff)) == 8;
	}
	return false;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct ustack_unwinder *u = arg;
	const struct rs_rec_ustack *st = u->cur;

	(void)dwfl;
	if (addr >= st->stack_addr && addr - st->stack_addr <= st->stack_len &&
	    st->stack_len - (addr - st->stack_addr) >= 8) {
		memcpy(result, st->stack + (addr - st->stack_addr), 8);
		return true;
	}
	return read_file(u, addr, result);
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct ustack_unwinder *u = arg;
	Dwarf_Word regs[17];

	for (int i = 0; i < 17; i++)
		regs[i] = u->cur->regs[dwarf_from_pt[i]];
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* each mapping whose binary was found, at its load bias */
static void report_modules(struct ustack_unwinder *u)
{
	dwfl_report_begin(u->dwfl);
	for (size_t i = 0; i < u->n; i++) {
		struct uw_map *m = u->mods[i].m;
		const char *f = m->bin ? m->bin : m->dbg;
		Dwfl_Module *mod;
		void **ud = NULL;

		m->has_bias = f && uw_load_bias(f, m->start, m->pgoff, &m->bias) == 0;
		if (!m->bin || !m->has_bias)
			continue;
		mod = dwfl_report_elf(u->dwfl, m->bin, m->bin, -1, m->bias, true);
		if (mod && dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL) && ud)
			*ud = &u->mods[i];
	}
	dwfl_report_end(u->dwfl, NULL, NULL);
}

struct ustack_unwinder *uw_new(struct uw_map *maps, size_t n, uint32_t pid)
{
	struct ustack_unwinder *u = calloc(1, sizeof(*u));

	if (!u || !(u->mods = calloc(n ? n : 1, sizeof(*u->mods))) ||
	    !(u->dwfl = dwfl_begin(&callbacks))) {
		if (u)
			free(u->mods);
		free(u);
		return NULL;
	}
	u->n = n;
	u->pid = pid;
	for (size_t i = 0; i < n; i++)
		u->mods[i] = (struct umod){ &maps[i], -1 };
	elf_version(EV_CURRENT);
	report_modules(u);
	u->attached = dwfl_attach_state(u->dwfl, NULL, (pid_t)pid, &thread_callbacks, u);
	return u;
}

struct walk {
	struct ustack_unwinder *u;
	struct uw_pc *out;
	int n, max;
	bool stopped_outside;
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	/* the caller of a frame outside every found binary came from
	 * libdwfl's frame-pointer guess, which code built without frame
	 * pointers turns into garbage: stop there instead */
	if (w->n && !dwfl_addrmodule(w->u->dwfl, w->out[w->n - 1].pc - !w->out[w->n - 1].activation)) {
		w->stopped_outside = true;
		return DWARF_CB_ABORT;
	}
	w->out[w->n++] = (struct uw_pc){ pc, act };
	return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int uw_walk(struct ustack_unwinder *u, const struct rs_rec_ustack *st, struct uw_pc *out,
	    int max, char *why, size_t whylen)
{
	struct walk w = { u, out, 0, max, false };
	int r;

	why[0] = '\0';
	if (max <= 0)
		return 0;
	if (!u->attached) {
		out[0] = (struct uw_pc){ st->regs[PT_IP], true };
		snprintf(why, whylen, "no binary to unwind with");
		return 1;
	}
	u->cur = st;
	u->thread_given = false;
	r = dwfl_getthread_frames(u->dwfl, (pid_t)st->tid, frame_cb, &w);
	if (w.n && !dwfl_addrmodule(u->dwfl, out[w.n - 1].pc - !out[w.n - 1].activation))
		w.stopped_outside = true;   /* whatever libdwfl says: it had no CFI there */
	if (w.stopped_outside)
		snprintf(why, whylen, "no binary with unwind information for 0x%llx",
			 (unsigned long long)out[w.n - 1].pc);
	else if (r == -1 && w.n < max) {
		const char *msg = dwfl_errmsg(-1);

		snprintf(why, whylen, "%s", msg ? msg : "unwinding failed");
	}
	if (!w.n) {
		out[0] = (struct uw_pc){ st->regs[PT_IP], true };
		w.n = 1;
	}
	u->cur = NULL;
	return w.n;
}

const char *uw_symbol(struct ustack_unwinder *u, uint64_t addr, uint64_t *off)
{
	Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, addr);
	GElf_Off o = 0;
	GElf_Sym sym;
	const char *name;

	if (!mod)
		return NULL;
	name = dwfl_module_addrinfo(mod, addr, &o, &sym, NULL, NULL, NULL);
	if (!name || !*name || !sym.st_size || o >= sym.st_size)
		return NULL;
	*off = o;
	return name;
}

void uw_free(struct ustack_unwinder *u)
{
	if (!u)
		return;
	dwfl_end(u->dwfl);
	for (size_t i = 0; i < u->n; i++)
		if (u->mods[i].fd >= 0)
			close(u->mods[i].fd);
	free(u->mods);
	free(u);
}
