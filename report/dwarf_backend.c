/* dwarf_backend.c - the report's DWARF backend (see dwarf_backend.h):
 * vmlinux selection and build-id check, KASLR slide, and the lookup hook
 * that turns a link-time vmlinux text address into the real function's
 * file:line plus its inlined frames (outermost first). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../symbols/dwarf_sym.h"
#include "dwarf_backend.h"

/* deeper inline chains than this are cut at the innermost end */
#define DWB_MAX_FRAMES 64

struct dwb {
	struct dwarf_sym *ds;
	enum symb_mode mode;
	uint64_t text_lo, text_hi;   /* link-time vmlinux text: [_text, _etext) */
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

static int dwb_lookup(void *ctx, uint64_t link_addr, bool is_ret, struct symb_info *out)
{
	struct dwb *b = ctx;
	struct sym_frame fr[DWB_MAX_FRAMES];
	uint64_t addr = is_ret && link_addr ? link_addr - 1 : link_addr;
	int n;

	if (out->module || addr < b->text_lo || addr >= b->text_hi)
		return -1;
	n = dwarf_sym_lookup(b->ds, addr, fr, DWB_MAX_FRAMES);
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

static void dwb_free(void *ctx)
{
	struct dwb *b = ctx;

	if (!b)
		return;
	dwarf_sym_close(b->ds);
	free(b);
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
			snprintf(err, errlen, "-k %s: not a readable ELF file", o->vmlinux);
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
	fprintf(msgs, "%s: %s; showing kallsyms names only\n", program_invocation_short_name, why);
	return NULL;
}

int dwarf_backend_attach(struct symbolizer *s, const struct rsf_meta *meta,
			 const struct report_opts *o, FILE *msgs, char *err, size_t errlen)
{
	struct symb_backend be = { .lookup = dwb_lookup, .free = dwb_free };
	const char *no_dwarf;
	char why[512];
	struct dwb *b;
	bool mismatch, fatal;
	int64_t slide;
	char *path;

	/* RETSNOOP_NO_DWARF=1: like -sn, for tests that must not depend on
	 * the debug info installed on the machine */
	no_dwarf = getenv("RETSNOOP_NO_DWARF");
	if (o->symb == SYMB_NONE || (no_dwarf && !strcmp(no_dwarf, "1")))
		return 0;
	path = pick_vmlinux(meta, o, msgs, &mismatch, &fatal, err, errlen);
	if (!path)
		return fatal ? -1 : 0;
	b = calloc(1, sizeof(*b));
	if (!b) {
		free(path);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	b->mode = o->symb == SYMB_LINES ? SYMB_LINES : SYMB_INLINES;
	b->ds = dwarf_sym_open(path, 0, why, sizeof(why));
	if (!b->ds) {
		free(b);
		if (o->vmlinux) {
			snprintf(err, errlen, "%s", why);
			free(path);
			return -1;
		}
		fprintf(msgs, "%s: %s; showing kallsyms names only\n",
			program_invocation_short_name, why);
		free(path);
		return 0;
	}
	if (dwarf_kaslr_slide(b->ds, meta->text_addr, meta->stext_addr, &slide) ||
	    dwarf_sym_symbol_addr(b->ds, "_text", &b->text_lo) ||
	    dwarf_sym_symbol_addr(b->ds, "_etext", &b->text_hi)) {
		fprintf(msgs, "%s: %s: cannot compute the KASLR slide (runtime or link-time "
			"_text/_stext/_etext unknown); showing kallsyms names only\n",
			program_invocation_short_name, path);
		dwb_free(b);
		free(path);
		return 0;
	}
	if (o->verbose)
		fprintf(msgs, "DWARF: %s%s, KASLR slide %#llx\n", path,
			mismatch ? " (build-id mismatch allowed)" : "", (unsigned long long)slide);
	free(path);
	be.ctx = b;
	symbolizer_set_backend(s, &be, slide);
	return 0;
}
