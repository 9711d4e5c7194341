/* dwarf_backend.c - the report's DWARF backend (see dwarf_backend.h):
 * vmlinux selection and build-id check, KASLR slide, module debug files
 * (found and relocated on a module's first frame), and the lookup hook
 * that turns a vmlinux text address (link time) or a module address
 * (runtime) into the real function's file:line plus its inlined frames
 * (outermost first). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../symbols/dwarf_sym.h"
#include "dwarf_backend.h"

/* deeper inline chains than this are cut at the innermost end */
#define DWB_MAX_FRAMES 64

/* one module's debug file, opened on its first frame */
struct dwb_mod {
	const struct rsf_module *rec;   /* the recording's entry */
	struct dwarf_sym *ds;           /* NULL: not opened (yet) */
	bool tried;
};

struct dwb {
	struct dwarf_sym *ds;           /* vmlinux; NULL when not found */
	enum symb_mode mode;
	uint64_t text_lo, text_hi;      /* link-time vmlinux text: [_text, _etext) */
	struct dwb_mod *mods;
	size_t nmods;
	struct dwarf_modfind *mf;
	char *release;
	FILE *msgs;
	int verbose;
};

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src && strcmp(src, "??") ? src : "");
}

static void fill_src(struct symb_src *dst, const struct sym_frame *f)
{
	copy_str(dst->func, sizeof(dst->func), f->func);
	snprintf(dst->file, sizeof(dst->file), "%s", f->file ? f->file : "??");
	dst->line = f->line;
}

/* frames (innermost first) -> out: the real function's line, then the
 * inlined frames outermost first */
static int fill_frames(const struct dwb *b, const struct sym_frame *fr, int n,
		       struct symb_info *out)
{
	if (n <= 0 || !fr[n - 1].line || !fr[n - 1].file || !strcmp(fr[n - 1].file, "??"))
		return -1;
	out->has_src = true;
	fill_src(&out->src, &fr[n - 1]);
	out->ninlines = 0;
	if (b->mode != SYMB_INLINES)
		return 0;
	/* fr[n-2] is inlined into the real function, fr[0] is the innermost */
	for (int i = n - 2; i >= 0 && out->ninlines < SYMB_MAX_INLINES; i--)
		fill_src(&out->inlines[out->ninlines++], &fr[i]);
	return 0;
}

/* the module's debug file relocated to the recorded section addresses
 * (old recordings without them: .text at the module base) */
static struct dwarf_sym *module_ds(struct dwb *b, const char *name)
{
	struct dwb_mod *m = NULL;
	char why[1024];

	for (size_t i = 0; i < b->nmods; i++)
		if (b->mods[i].rec->name && !strcmp(b->mods[i].rec->name, name))
			m = &b->mods[i];
	if (!m)
		return NULL;
	if (m->tried)
		return m->ds;
	m->tried = true;
	if (!b->mf && !(b->mf = dwarf_modfind_new(b->release)))
		return NULL;
	char *path = dwarf_modfind_path(b->mf, name, m->rec->build_id, m->rec->build_id_len,
					why, sizeof(why));
	if (!path) {
		fprintf(b->msgs, "%s: %s; its frames show kallsyms names only\n",
			program_invocation_short_name, why);
		return NULL;
	}
	struct dwarf_sect_addr text = { ".text", m->rec->base };
	struct dwarf_sect_addr *secs = &text;
	size_t nsecs = 1;
	if (m->rec->nsects) {
		secs = calloc(m->rec->nsects, sizeof(*secs));
		if (!secs) {
			free(path);
			return NULL;
		}
		for (uint32_t i = 0; i < m->rec->nsects; i++)
			secs[i] = (struct dwarf_sect_addr){ m->rec->sects[i].name, m->rec->sects[i].addr };
		nsecs = m->rec->nsects;
	}
	m->ds = dwarf_sym_open_module(path, name, secs, nsecs, why, sizeof(why));
	if (secs != &text)
		free(secs);
	if (!m->ds)
		fprintf(b->msgs, "%s: module %s: %s; its frames show kallsyms names only\n",
			program_invocation_short_name, name, why);
	else if (b->verbose)
		fprintf(b->msgs, "DWARF: module %s: %s%s\n", name, path,
			m->rec->nsects ? "" : " (no section addresses recorded: .text at the module base)");
	free(path);
	return m->ds;
}

static int dwb_lookup(void *ctx, uint64_t addr, uint64_t link_addr, bool is_ret,
		      struct symb_info *out)
{
	struct dwb *b = ctx;
	struct sym_frame fr[DWB_MAX_FRAMES];
	struct dwarf_sym *ds;

	if (out->module) {
		ds = module_ds(b, out->module);
		if (!ds)
			return -1;
		addr = is_ret && addr ? addr - 1 : addr;
		return fill_frames(b, fr, dwarf_sym_lookup(ds, addr, fr, DWB_MAX_FRAMES), out);
	}
	addr = is_ret && link_addr ? link_addr - 1 : link_addr;
	if (!b->ds || addr < b->text_lo || addr >= b->text_hi)
		return -1;
	return fill_frames(b, fr, dwarf_sym_lookup(b->ds, addr, fr, DWB_MAX_FRAMES), out);
}

static void dwb_free(void *ctx)
{
	struct dwb *b = ctx;

	if (!b)
		return;
	dwarf_sym_close(b->ds);
	for (size_t i = 0; i < b->nmods; i++)
		dwarf_sym_close(b->mods[i].ds);
	free(b->mods);
	dwarf_modfind_free(b->mf);
	free(b->release);
	free(b);
}

/* why -k PATH, which is not an ELF file libelf can read, cannot be used:
 * missing, unreadable, a compressed kernel image (what /boot holds), or
 * something else */
static void explain_bad_k(const char *path, const char *release, char *err, size_t errlen)
{
	static const struct { size_t off; const char *magic; size_t len; const char *what; } imgs[] = {
		{ 0x202, "HdrS", 4, "a compressed kernel image (bzImage)" },
		{ 0, "\x1f\x8b", 2, "a gzip-compressed file" },
		{ 0, "\x28\xb5\x2f\xfd", 4, "a zstd-compressed file" },
		{ 0, "\xfd" "7zXZ", 5, "an xz-compressed file" },
		{ 0x38, "ARMd", 4, "a kernel Image without debug info" },
	};
	unsigned char buf[0x210];
	const char *rel = release && *release ? release : "RELEASE";
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		snprintf(err, errlen, "-k %s: %s", path,
			 errno == ENOENT ? "no such file" : strerror(errno));
		return;
	}
	n = fread(buf, 1, sizeof(buf), f);
	if (!n && ferror(f)) {              /* e.g. a directory */
		snprintf(err, errlen, "-k %s: %s", path, strerror(errno));
		fclose(f);
		return;
	}
	fclose(f);
	for (size_t i = 0; i < sizeof(imgs) / sizeof(imgs[0]); i++) {
		if (n >= imgs[i].off + imgs[i].len &&
		    !memcmp(buf + imgs[i].off, imgs[i].magic, imgs[i].len)) {
			snprintf(err, errlen, "-k %s: %s, not a vmlinux with debug info; pass the "
				 "vmlinux from the linux-image-%s-dbg package "
				 "(/usr/lib/debug/boot/vmlinux-%s)", path, imgs[i].what, rel, rel);
			return;
		}
	}
	snprintf(err, errlen, "-k %s: not an ELF file (pass the vmlinux with debug info)", path);
}

/* the vmlinux to use: -k PATH or discovery; NULL when DWARF is off (msgs
 * already told why) or on a fatal error (*fatal set, err filled) */
static char *pick_vmlinux(const struct rsf_meta *meta, const struct report_opts *o, FILE *msgs,
			  bool *mismatch, bool *fatal, char *err, size_t errlen)
{
	char why[1024], mine[129], want[129];
	char *mm = NULL, *path;
	uint8_t got[64];
	int n;

	*mismatch = false;
	*fatal = false;
	if (o->vmlinux) {
		n = elf_file_build_id(o->vmlinux, got, sizeof(got));
		if (n < 0) {
			explain_bad_k(o->vmlinux, meta->uts_release, err, errlen);
			*fatal = true;
			return NULL;
		}
		if (meta->build_id_len &&
		    ((size_t)n != meta->build_id_len || memcmp(got, meta->build_id, (size_t)n))) {
			dwarf_build_id_hex(got, (size_t)n, mine);
			dwarf_build_id_hex(meta->build_id, meta->build_id_len, want);
			snprintf(why, sizeof(why), "%s has build-id %s, the recording's kernel has %s",
				 o->vmlinux, n ? mine : "(none)", want);
			if (!o->allow_build_id_mismatch) {
				snprintf(err, errlen, "%s (--allow-build-id-mismatch to use it anyway)", why);
				*fatal = true;
				return NULL;
			}
			fprintf(msgs, "%s: warning: %s; source lines may be wrong\n",
				program_invocation_short_name, why);
			*mismatch = true;
		}
		return strdup(o->vmlinux);
	}
	path = dwarf_find_vmlinux(meta->uts_release, meta->build_id, meta->build_id_len, &mm,
				  why, sizeof(why));
	if (path) {
		free(mm);
		return path;
	}
	if (mm) {
		if (!o->allow_build_id_mismatch) {
			snprintf(err, errlen, "%s (--allow-build-id-mismatch to use it anyway)", why);
			*fatal = true;
			free(mm);
			return NULL;
		}
		fprintf(msgs, "%s: warning: %s; source lines may be wrong\n",
			program_invocation_short_name, why);
		*mismatch = true;
		return mm;
	}
	if (!o->no_src_output)
		fprintf(msgs, "%s: no source lines: %s\n", program_invocation_short_name, why);
	return NULL;
}

/* modules with a build-id: the ones whose frames can get DWARF */
static int set_modules(struct dwb *b, const struct rsf_module *mods, size_t nmods)
{
	b->mods = calloc(nmods ? nmods : 1, sizeof(*b->mods));
	if (!b->mods)
		return -1;
	for (size_t i = 0; i < nmods; i++)
		if (mods[i].name && mods[i].build_id_len)
			b->mods[b->nmods++].rec = &mods[i];
	return 0;
}

int dwarf_backend_attach(struct symbolizer *s, const struct rsf_meta *meta,
			 const struct rsf_module *mods, size_t nmods,
			 const struct report_opts *o, FILE *msgs, char *err, size_t errlen)
{
	struct symb_backend be = { .lookup = dwb_lookup, .free = dwb_free };
	const char *no_dwarf;
	char why[512];
	struct dwb *b;
	bool mismatch, fatal;
	int64_t slide = 0;
	char *path;

	/* RETSNOOP_NO_DWARF=1: like -sn, for tests that must not depend on
	 * the debug info installed on the machine */
	no_dwarf = getenv("RETSNOOP_NO_DWARF");
	if (o->symb == SYMB_NONE || (no_dwarf && !strcmp(no_dwarf, "1")))
		return 0;
	path = pick_vmlinux(meta, o, msgs, &mismatch, &fatal, err, errlen);
	if (!path && fatal)
		return -1;
	b = calloc(1, sizeof(*b));
	if (!b || set_modules(b, mods, nmods) || !(b->release = strdup(meta->uts_release))) {
		dwb_free(b);
		free(path);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	b->mode = o->symb == SYMB_LINES ? SYMB_LINES : SYMB_INLINES;
	b->msgs = msgs;
	b->verbose = o->verbose;
	if (path) {
		b->ds = dwarf_sym_open(path, 0, why, sizeof(why));
		if (!b->ds && o->vmlinux) {
			snprintf(err, errlen, "%s", why);
			free(path);
			dwb_free(b);
			return -1;
		}
		if (!b->ds) {
			fprintf(msgs, "%s: %s; showing kallsyms names only\n",
				program_invocation_short_name, why);
		} else if (dwarf_kaslr_slide(b->ds, meta->text_addr, meta->stext_addr, &slide) ||
			   dwarf_sym_symbol_addr(b->ds, "_text", &b->text_lo) ||
			   dwarf_sym_symbol_addr(b->ds, "_etext", &b->text_hi)) {
			fprintf(msgs, "%s: %s: cannot compute the KASLR slide (runtime or link-time "
				"_text/_stext/_etext unknown); showing kallsyms names only\n",
				program_invocation_short_name, path);
			dwarf_sym_close(b->ds);
			b->ds = NULL;
			slide = 0;
		} else if (o->verbose) {
			fprintf(msgs, "DWARF: %s%s, KASLR slide %#llx\n", path,
				mismatch ? " (build-id mismatch allowed)" : "", (unsigned long long)slide);
		}
		free(path);
	}
	if (!b->ds && !b->nmods) {
		dwb_free(b);
		return 0;
	}
	be.ctx = b;
	symbolizer_set_backend(s, &be, slide);
	return 0;
}
