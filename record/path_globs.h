/* path_globs.h - record-time source-path globs (-e/-a/-d ':kernel/bpf/ *.c',
 * without the space): expands them into exact function-name globs through
 * the compile units of the running kernel's vmlinux DWARF (symbols/
 * dwarf_sym.h), so select.c only ever matches names. */
#ifndef RS_PATH_GLOBS_H
#define RS_PATH_GLOBS_H

#include <stdbool.h>
#include <stddef.h>
#include "record/options.h"

/* true when one of o's entry/allow/deny specs is a path glob */
bool path_globs_present(const struct record_opts *o);
/* Fills *exp with a copy of *o whose entry/allow/deny sets are new: name
 * specs copied, each path glob replaced by one spec per function of the
 * matching compile units (name set, path kept = the glob it came from).
 * The vmlinux is o->kernel, else the one found for the running release
 * (uname) and build-id (/sys/kernel/notes). Returns 0, or -1 with a
 * one-line reason (no vmlinux, no matching compile unit). */
int path_globs_expand(const struct record_opts *o, struct record_opts *exp,
		      char *err, size_t errlen);
/* frees the sets of an expanded copy (not o's) */
void path_globs_free(struct record_opts *exp);

#endif
