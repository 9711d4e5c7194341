/* symbolize.h - runtime kernel address -> symbol (+ optional source line
 * and inlined frames) for the report views. kallsyms lookups use the
 * recorded runtime snapshot directly (no KASLR slide needed); a DWARF
 * backend, which works in vmlinux link-time addresses, can be plugged in
 * with the slide = recorded runtime _text - vmlinux link-time _text. */
#ifndef RS_SYMBOLIZE_H
#define RS_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>
#include "../format/rsfile.h"

#define SYMB_MAX_INLINES 8

struct symb_src {
	char func[128];          /* DWARF function name ("" if unknown) */
	char file[256];          /* kernel-tree relative path */
	int line;
};

struct symb_info {
	const char *name;        /* ksym name, NULL when no symbol covers addr */
	const char *module;      /* NULL for vmlinux */
	uint64_t sym_addr;       /* runtime address of the symbol */
	uint64_t offset;         /* addr - sym_addr */
	bool has_src;            /* src: location in the real (outermost) function */
	struct symb_src src;
	int ninlines;            /* inlined frames, outermost first */
	struct symb_src inlines[SYMB_MAX_INLINES];
};

/* A source-level symbolizer (DWARF). lookup() gets the runtime address and
 * its vmlinux link-time counterpart (runtime - slide; modules use the
 * runtime one), fills has_src/src/ninlines/inlines of out (name, module
 * and offset are already set from kallsyms) and returns 0, or -1 when it
 * knows nothing. */
struct symb_backend {
	void *ctx;
	int (*lookup)(void *ctx, uint64_t addr, uint64_t link_addr, bool is_ret,
		      struct symb_info *out);
	void (*free)(void *ctx);
};

struct symbolizer;

/* ksyms/mods: the recording's snapshot (copied) */
struct symbolizer *symbolizer_new(const struct rsf_ksym *ksyms, size_t nksyms,
				  const struct rsf_module *mods, size_t nmods);
/* takes ownership of backend->ctx; slide is added to link-time addresses
 * to get runtime ones (compute it with symbolizer_slide) */
void symbolizer_set_backend(struct symbolizer *s, const struct symb_backend *b, int64_t slide);
/* runtime _text from the recording's header minus the vmlinux link-time
 * _text; 0 when the runtime address is unknown */
int64_t symbolizer_slide(uint64_t runtime_text, uint64_t link_text);
/* addr: runtime address; is_ret: a return address from a stack (the
 * symbol is looked up at addr-1 so a call at the very end of a function
 * still resolves to its caller; the offset printed stays addr-sym).
 * Returns 0 when a symbol was found, -1 otherwise (out->name NULL). */
int symbolize(struct symbolizer *s, uint64_t addr, bool is_ret, struct symb_info *out);
void symbolizer_free(struct symbolizer *s);

#endif
