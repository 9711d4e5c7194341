/* test_umaps.c - record/umaps.c on this very process: the first USTACK of
 * a process writes its executable mappings with the build-ids libelf reads
 * from the files; the same IP again writes nothing; a stack word pointing
 * into a library loaded after the read (dlopen) writes a new record that
 * has it; an exec generation change re-reads; a process that has exited is
 * counted, with no record. */
#include "testlib.h"
#include "record/umaps.h"
#include "symbols/dwarf_sym.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

struct got {
	int n;
	struct rs_rec_umaps *last;
};

static int collect(void *ctx, const struct rs_rec_hdr *rec, uint32_t size)
{
	struct got *g = ctx;

	CHECK(rec->type == RS_REC_UMAPS);
	CHECK(size == rec->size && size % 8 == 0);
	free(g->last);
	g->last = malloc(size);
	memcpy(g->last, rec, size);
	g->n++;
	return 0;
}

/* the map of REC holding ADDR, or NULL */
static const struct rs_umap *map_of(const struct rs_rec_umaps *r, uint64_t addr)
{
	for (uint32_t i = 0; r && i < r->nmaps; i++)
		if (addr >= r->maps[i].start && addr < r->maps[i].end)
			return &r->maps[i];
	return NULL;
}

static const char *path_of(const struct rs_rec_umaps *r, const struct rs_umap *m)
{
	const char *strs = (const char *)&r->maps[r->nmaps];

	CHECK(m->path_off < r->strings_len);
	return strs + m->path_off;
}

/* a USTACK of this process with IP and a stack holding WORD */
static struct rs_rec_ustack *fake_ustack(uint64_t ip, uint64_t word)
{
	struct rs_rec_ustack *u = calloc(1, sizeof(*u) + 64);

	u->hdr.type = RS_REC_USTACK;
	u->hdr.size = sizeof(*u) + 64;
	u->pid = u->tid = (uint32_t)getpid();
	u->regs[16] = ip;
	u->stack_len = 64;
	memcpy(u->stack + 8, &word, 8);
	return u;
}

static void test_self(void)
{
	struct umaps *u = umaps_new(-1);
	struct umaps_counts c;
	struct got g = {};
	uint64_t ip = (uint64_t)(uintptr_t)&test_self;
	struct rs_rec_ustack *us = fake_ustack(ip, 0);
	uint8_t want[20];
	int wn = elf_file_build_id("/proc/self/exe", want, sizeof(want));
	char exe[4096];
	ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	CHECK(u != NULL);
	CHECK(el > 0);
	exe[el > 0 ? el : 0] = '\0';
	CHECK_INT(umaps_on_ustack(u, us, collect, &g), 0);
	CHECK_INT(g.n, 1);
	const struct rs_umap *m = map_of(g.last, ip);
	CHECK(m != NULL);
	if (m) {
		CHECK_STR(path_of(g.last, m), exe);
		CHECK(wn > 0);
		CHECK_INT(m->build_id_len, wn);
		CHECK(wn > 0 && !memcmp(m->build_id, want, (size_t)wn));
	}
	CHECK_INT(g.last->pid, getpid());
	/* libc too, with a build-id */
	m = map_of(g.last, (uint64_t)(uintptr_t)&getpid);
	CHECK(m != NULL && m->build_id_len == 20 && strstr(path_of(g.last, m), "libc"));
	/* nothing new: no record */
	CHECK_INT(umaps_on_ustack(u, us, collect, &g), 0);
	CHECK_INT(g.n, 1);
	umaps_counts(u, &c);
	CHECK_INT(c.procs, 1);
	CHECK_INT(c.records, 1);
	CHECK_INT(c.gone, 0);
	free(us);
	free(g.last);
	umaps_free(u);
}

/* a library loaded after the first read, reached by a stack word */
static void test_dlopen(void)
{
	static const struct { const char *lib, *sym; } libs[] = {
		{ "libcap.so.2", "cap_init" }, { "libacl.so.1", "acl_init" },
		{ "libattr.so.1", "attr_copy_file" }, { "libcrypt.so.1", "crypt" },
	};
	struct umaps *u = umaps_new(-1);
	struct got g = {};
	uint64_t ip = (uint64_t)(uintptr_t)&test_dlopen, fn = 0;
	struct rs_rec_ustack *us = fake_ustack(ip, 0);
	void *h = NULL;

	CHECK_INT(umaps_on_ustack(u, us, collect, &g), 0);
	CHECK_INT(g.n, 1);
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]) && !h; i++) {
		h = dlopen(libs[i].lib, RTLD_NOW | RTLD_LOCAL);
		fn = h ? (uint64_t)(uintptr_t)dlsym(h, libs[i].sym) : 0;
		if (h && (!fn || map_of(g.last, fn))) {   /* loaded already (or no symbol) */
			dlclose(h);
			h = NULL;
		}
	}
	CHECK(h != NULL && fn != 0);
	if (h && fn) {
		free(us);
		us = fake_ustack(ip, fn);
		CHECK_INT(umaps_on_ustack(u, us, collect, &g), 0);
		CHECK_INT(g.n, 2);
		CHECK(map_of(g.last, fn) != NULL);
		dlclose(h);
	}
	free(us);
	free(g.last);
	umaps_free(u);
}

/* a process gone before its maps were read: counted, no record */
static void test_gone(void)
{
	struct umaps *u = umaps_new(-1);
	struct umaps_counts c;
	struct got g = {};
	struct rs_rec_ustack *us = fake_ustack(0x401000, 0);
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	CHECK(p > 0);
	waitpid(p, NULL, 0);
	us->pid = us->tid = (uint32_t)p;
	CHECK_INT(umaps_on_ustack(u, us, collect, &g), 0);
	CHECK_INT(umaps_on_ustack(u, us, collect, &g), 0);   /* counted once */
	CHECK_INT(g.n, 0);
	umaps_counts(u, &c);
	CHECK_INT(c.gone, 1);
	/* a kernel thread's USTACK is ignored */
	us->flags = RS_USTACKF_NO_USER;
	us->pid = (uint32_t)getpid();
	CHECK_INT(umaps_on_ustack(u, us, collect, &g), 0);
	CHECK_INT(g.n, 0);
	free(us);
	umaps_free(u);
}

/* -T: a SESSION_START reads a new process once */
static void test_on_pid(void)
{
	struct umaps *u = umaps_new(-1);
	struct got g = {};

	CHECK_INT(umaps_on_pid(u, (uint32_t)getpid(), collect, &g), 0);
	CHECK_INT(umaps_on_pid(u, (uint32_t)getpid(), collect, &g), 0);
	CHECK_INT(g.n, 1);
	CHECK(map_of(g.last, (uint64_t)(uintptr_t)&test_on_pid) != NULL);
	free(g.last);
	umaps_free(u);
}

int main(void)
{
	RUN(test_self);
	RUN(test_dlopen);
	RUN(test_gone);
	RUN(test_on_pid);
	return TEST_REPORT("test_umaps");
}
