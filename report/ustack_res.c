/* ustack_res.c - the user-stack resolver (ustack_res.h): per process-maps
 * version a set of found files and an unwinder (at most MAX_PROCS kept,
 * the oldest freed first), per (path, build-id) the found files and
 * their DWARF symbolizer (at most MAX_FILES), and the last result. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "../symbols/dwarf_sym.h"
#include "../symbols/user_find.h"
#include "ustack_asm.h"
#include "ustack_res.h"
#include "ustack_unwind.h"

#define MAX_PROCS 32
#define MAX_FILES 256
#define MAX_DW_FRAMES 16
#define SYM_CACHE 1024          /* resolved frames kept (direct-mapped) */

struct ufile {
	char *path;
	uint8_t bid[20];
	uint8_t bidlen;
	struct user_files uf;
	struct dwarf_sym *ds;   /* on uf.dbg, made on first use */
	bool ds_tried;
};

struct uproc {
	uint64_t serial;        /* us_maps serial; 0 = free slot */
	struct uw_map *maps;
	struct ufile **files;   /* per map (NULL: not a file, or too many files) */
	char **paths;           /* per map: the recorded path */
	char (*bids)[41];       /* per map: the recorded build-id in hex */
	size_t n;
	struct ustack_unwinder *uw;
};

struct sym_ent {
	const struct ufile *uf;
	uint64_t va;
	bool is_ret;
	struct us_frame f;      /* its fields from has_name on */
};

struct ustack_res {
	struct sym_ent *cache[SYM_CACHE];
	char *symfs;
	enum symb_mode mode;
	FILE *msgs;
	const char *prog;
	int verbose;
	struct ufile *files[MAX_FILES];
	size_t nfiles;
	struct uproc procs[MAX_PROCS];
	size_t next_proc;       /* round-robin eviction */
	/* the last session's result and what it was made from */
	const void *key_rec;
	uint64_t key_sess, key_ts, key_serial;
	struct us_stack st;
};

struct ustack_res *ustack_res_new(const char *symfs, enum symb_mode mode, FILE *msgs,
				  const char *prog, int verbose)
{
	struct ustack_res *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (symfs && !(r->symfs = strdup(symfs))) {
		free(r);
		return NULL;
	}
	r->mode = mode;
	r->msgs = msgs;
	r->prog = prog ? prog : "retsnoop";
	r->verbose = verbose;
	return r;
}

/* ---------------------------------------------------------------- files */
static struct ufile *file_get(struct ustack_res *r, const char *path, const struct rs_umap *m)
{
	struct ufile *f;

	for (size_t i = 0; i < r->nfiles; i++) {
		f = r->files[i];
		if (f->bidlen == m->build_id_len && !memcmp(f->bid, m->build_id, f->bidlen) &&
		    !strcmp(f->path, path))
			return f;
	}
	if (r->nfiles >= MAX_FILES || !(f = calloc(1, sizeof(*f))) || !(f->path = strdup(path))) {
		if (r->nfiles < MAX_FILES)
			free(f);
		return NULL;
	}
	memcpy(f->bid, m->build_id, m->build_id_len);
	f->bidlen = m->build_id_len;
	if (user_find_files(path, f->bid, f->bidlen, r->symfs, &f->uf) && r->msgs)
		fprintf(r->msgs, "%s: note: %s%s\n", r->prog, f->uf.why,
			f->uf.dbg ? "; names from its debug file" : "; its user frames are shown as "
			"path+offset (--symfs DIR finds a copy)");
	else if (r->verbose && r->msgs)
		fprintf(r->msgs, "%s: user binary %s: %s, debug info %s\n", r->prog, path, f->uf.bin,
			f->uf.dbg ? f->uf.dbg : "none");
	r->files[r->nfiles++] = f;
	return f;
}

static struct dwarf_sym *file_dwarf(struct ustack_res *r, struct ufile *f)
{
	char err[300];

	if (!f->ds_tried && f->uf.dbg && r->mode != SYMB_NONE) {
		f->ds_tried = true;
		f->ds = dwarf_sym_open(f->uf.dbg, 0, err, sizeof(err));
		if (!f->ds && r->msgs)
			fprintf(r->msgs, "%s: note: %s\n", r->prog, err);
	}
	return f->ds;
}

static void file_free(struct ufile *f)
{
	if (f->ds)
		dwarf_sym_close(f->ds);
	user_files_free(&f->uf);
	free(f->path);
	free(f);
}

/* ------------------------------------------------------------ processes */
static void proc_clear(struct uproc *p)
{
	uw_free(p->uw);
	for (size_t i = 0; p->paths && i < p->n; i++)
		free(p->paths[i]);
	free(p->paths);
	free(p->bids);
	free(p->maps);
	free(p->files);
	memset(p, 0, sizeof(*p));
}

static int proc_fill(struct ustack_res *r, struct uproc *p, const struct us_maps *um)
{
	const struct rs_rec_umaps *rec = um->rec;

	p->n = rec->nmaps;
	p->maps = calloc(p->n ? p->n : 1, sizeof(*p->maps));
	p->files = calloc(p->n ? p->n : 1, sizeof(*p->files));
	p->paths = calloc(p->n ? p->n : 1, sizeof(*p->paths));
	p->bids = calloc(p->n ? p->n : 1, sizeof(*p->bids));
	if (!p->maps || !p->files || !p->paths || !p->bids)
		return -1;
	for (size_t i = 0; i < p->n; i++) {
		const struct rs_umap *m = &rec->maps[i];
		const char *path = us_map_path(um, (uint32_t)i);
		struct ufile *f = path[0] == '/' ? file_get(r, path, m) : NULL;

		p->files[i] = f;
		if (!(p->paths[i] = strdup(path)))
			return -1;
		dwarf_build_id_hex(m->build_id, m->build_id_len, p->bids[i]);
		p->maps[i] = (struct uw_map){ .start = m->start, .end = m->end, .pgoff = m->pgoff,
					      .bin = f ? f->uf.bin : NULL,
					      .dbg = f ? f->uf.dbg : NULL };
	}
	p->uw = uw_new(p->maps, p->n, rec->pid);
	p->serial = um->serial;
	return p->uw ? 0 : -1;
}

static struct uproc *proc_get(struct ustack_res *r, const struct us_maps *um)
{
	struct uproc *p;

	for (size_t i = 0; i < MAX_PROCS; i++)
		if (r->procs[i].serial == um->serial)
			return &r->procs[i];
	p = &r->procs[r->next_proc];
	r->next_proc = (r->next_proc + 1) % MAX_PROCS;
	proc_clear(p);
	if (proc_fill(r, p, um)) {
		proc_clear(p);
		return NULL;
	}
	return p;
}

/* --------------------------------------------------------------- frames */
static void copy_src(struct symb_src *d, const struct sym_frame *f)
{
	snprintf(d->func, sizeof(d->func), "%s", f->func && strcmp(f->func, "??") ? f->func : "");
	snprintf(d->file, sizeof(d->file), "%s", f->file ? f->file : "??");
	d->line = f->line;
}

/* file:line and inlined frames from DWARF at link-time address a */
static void frame_dwarf(struct ustack_res *r, struct dwarf_sym *ds, uint64_t a, struct us_frame *f)
{
	struct sym_frame fr[MAX_DW_FRAMES];
	int n = dwarf_sym_lookup(ds, a, fr, MAX_DW_FRAMES);
	const struct sym_frame *outer = n > 0 ? &fr[n - 1] : NULL;

	if (!outer)
		return;
	if (!f->has_name && outer->func && strcmp(outer->func, "??")) {
		snprintf(f->name, sizeof(f->name), "%s", outer->func);
		f->has_name = true;
	}
	if (!outer->line || !outer->file || !strcmp(outer->file, "??"))
		return;
	f->has_src = true;
	copy_src(&f->src, outer);
	for (int i = n - 2; r->mode != SYMB_LINES && i >= 0 && f->ninlines < SYMB_MAX_INLINES; i--)
		copy_src(&f->inlines[f->ninlines++], &fr[i]);
}

/* names, lines and inlines of a frame at link-time address va of uf;
 * the same return address recurs in nearly every session of a program,
 * and libdwfl's symbol lookup is a linear scan: cached */
static void frame_symbols(struct ustack_res *r, struct uproc *p, struct ufile *uf, uint64_t va,
			  struct us_frame *f)
{
	const size_t part = sizeof(*f) - offsetof(struct us_frame, has_name);
	size_t h = (size_t)(((uintptr_t)uf >> 4) ^ va * 0x9e3779b97f4a7c15ULL ^ f->is_ret) % SYM_CACHE;
	struct sym_ent *e = r->cache[h];
	uint64_t look = f->ip - f->is_ret, off;
	const char *name;

	if (e && e->uf == uf && e->va == va && e->is_ret == f->is_ret) {
		memcpy(&f->has_name, &e->f.has_name, part);
		return;
	}
	if ((name = uw_symbol(p->uw, look, &off))) {   /* without its @VERSION */
		snprintf(f->name, sizeof(f->name), "%.*s", (int)strcspn(name, "@"), name);
		f->has_name = f->has_off = true;
		f->name_off = off + f->is_ret;
	}
	if (file_dwarf(r, uf)) {
		if (!f->has_name && (name = dwarf_sym_elf_name(uf->ds, va))) {
			snprintf(f->name, sizeof(f->name), "%s", name);
			f->has_name = true;
		}
		if (r->mode != SYMB_NONE)
			frame_dwarf(r, uf->ds, va, f);
	}
	if (!e && !(e = r->cache[h] = malloc(sizeof(*e))))
		return;
	e->uf = uf;
	e->va = va;
	e->is_ret = f->is_ret;
	memcpy(&e->f.has_name, &f->has_name, part);
}

static void frame_resolve(struct ustack_res *r, struct uproc *p, struct us_frame *f)
{
	uint64_t look = f->ip - f->is_ret;
	struct ufile *uf;
	struct uw_map *m = NULL;
	size_t i;

	for (i = 0; i < p->n && !m; i++)
		if (look >= p->maps[i].start && look < p->maps[i].end)
			m = &p->maps[i];
	if (!m)
		return;
	uf = p->files[--i];
	f->module = p->paths[i];
	memcpy(f->build_id, p->bids[i], sizeof(f->build_id));
	f->offset = f->ip - m->start + m->pgoff;
	f->found = uf && (uf->uf.bin || uf->uf.dbg) && m->has_bias;
	if (!f->found)
		return;
	frame_symbols(r, p, uf, look - m->bias, f);
}

static void resolve(struct ustack_res *r, const struct rp_session *s)
{
	const struct rs_rec_ustack *u = s->ustack;
	struct us_stack *st = &r->st;
	struct uw_pc pcs[US_MAX_FRAMES];
	struct uproc *p = s->umaps ? proc_get(r, s->umaps) : NULL;
	int n;

	memset(st, 0, offsetof(struct us_stack, f));
	st->flags = u->flags;
	st->err = u->err;
	st->no_maps = !s->umaps;
	if (u->flags & (RS_USTACKF_NO_USER | RS_USTACKF_ERR))
		return;
	if (p) {
		n = uw_walk(p->uw, u, pcs, US_MAX_FRAMES, st->note, sizeof(st->note));
	} else {
		pcs[0] = (struct uw_pc){ u->regs[16], true };
		n = 1;
		snprintf(st->note, sizeof(st->note), "%s", s->umaps ? "out of memory" :
			 "no memory maps of the process were recorded");
	}
	st->truncated = n >= US_MAX_FRAMES;
	for (int i = 0; i < n; i++) {
		struct us_frame *f = &st->f[i];

		memset(f, 0, offsetof(struct us_frame, src));
		f->ninlines = 0;
		f->ip = pcs[i].pc;
		f->is_ret = !pcs[i].activation && f->ip > 0;
		if (p)
			frame_resolve(r, p, f);
	}
	st->n = n;
}

const struct us_stack *ustack_res_get(struct ustack_res *r, const struct rp_session *s)
{
	uint64_t serial = s->umaps ? s->umaps->serial : 0;

	if (!r || !s->ustack)
		return NULL;
	if (r->key_rec != s->ustack || r->key_sess != s->ustack->sess_id ||
	    r->key_ts != s->e->end_ts || r->key_serial != serial) {
		resolve(r, s);
		r->key_rec = s->ustack;
		r->key_sess = s->ustack->sess_id;
		r->key_ts = s->e->end_ts;
		r->key_serial = serial;
	}
	return &r->st;
}

void us_frame_label(const struct us_frame *f, bool dec_offs, char *buf, size_t len)
{
	const char *fmt = dec_offs ? "%s+%" PRIu64 : "%s+0x%" PRIx64;

	if (f->has_name && f->has_off)
		snprintf(buf, len, fmt, f->name, f->name_off);
	else if (f->has_name)
		snprintf(buf, len, "%s", f->name);
	else if (f->module && f->module[0])
		snprintf(buf, len, fmt, f->module, f->offset);
	else
		snprintf(buf, len, dec_offs ? "[unknown]+%" PRIu64 : "[unknown]+0x%" PRIx64, f->ip);
}

void ustack_res_free(struct ustack_res *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < MAX_PROCS; i++)
		proc_clear(&r->procs[i]);
	for (size_t i = 0; i < r->nfiles; i++)
		file_free(r->files[i]);
	for (size_t i = 0; i < SYM_CACHE; i++)
		free(r->cache[i]);
	free(r->symfs);
	free(r);
}
