/* select.h - which kernel functions to trace: the traceable list
 * (available_filter_functions) ∩ kallsyms ∩ BTF, filtered by the -e/-a/-d
 * globs and the enforced deny list, one entry per address. */
#ifndef RS_SELECT_H
#define RS_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "record/options.h"
#include "symbols/ksyms.h"

struct btf;

struct traced_func {
	char *name;
	char *module;          /* NULL: vmlinux */
	uint64_t addr;
	uint32_t flags;        /* enum rs_func_flags */
	int btf_id;            /* 0: no BTF */
	int ret_slot;          /* fexit: btf_func_ret_slot, -1: none */
	int arg_regs;          /* fexit: btf_func_arg_regs, -1: unknown */
};

/* something worth saying about a glob: an -a/-d glob that matched nothing
 * (always said) or how many functions each glob selected (-v) */
struct sel_note {
	char *text;
	bool verbose_only;
};

struct selection {
	struct traced_func *v;
	size_t n;
	struct sel_note *notes;
	size_t nnotes;
	size_t skipped_ambiguous, skipped_no_btf, skipped_denied;
	size_t traceable_total;
	/* select_exact: found in kallsyms only, available_filter_functions not
	 * read (traceable_total unknown); the attach is the check */
	bool from_kallsyms;
};

/* Reads the traceable list; on failure says why in err (unreadable
 * tracefs, kernel without ftrace). */
const char *traceable_list_path(void);
/* need_btf: fentry mode (functions without BTF are skipped). Returns 0 or
 * -1 with a one-line reason (e.g. an -e glob that matched nothing, and why) */
int select_functions(const struct record_opts *o, const struct ksyms *ks,
		     struct btf *vmlinux_btf, bool need_btf,
		     struct selection *out, char *err, size_t errlen);
void selection_free(struct selection *s);

/* every -e/-a selector is an exact name (no '*' '?', no ':path'), there
 * is no -d, and at most a few selectors: select_exact may try */
bool select_exact_applies(const struct record_opts *o);
/* the orders both paths share: module names (NULL: vmlinux, first), and
 * traced functions by (name, module, address), the function ids' order */
int select_cmp_module(const char *a, const char *b);
int select_cmp_func(const void *pa, const void *pb);
/* the exact-name fast path (select_exact.c): the functions the selectors
 * name, from kallsyms, with select_functions' flags, order and -v notes,
 * as that would select them if ftrace lists every kallsyms instance; false
 * (nothing selected) whenever unsure: then select_functions decides. The
 * caller must attach with kprobe.multi by address, which refuses any
 * address ftrace cannot trace, and fall back to select_functions then */
bool select_exact(const struct record_opts *o, const struct ksyms *ks, struct btf *vmlinux_btf,
		  struct selection *out);

#endif
