/* dwarf_backend.h - plugs the DWARF symbolizer library (symbols/dwarf_sym.h)
 * into the report's symbolizer (symbolize.h): picks the vmlinux (-k PATH or
 * discovery for the recorded kernel release), checks its GNU build-id
 * against the recording's, computes the KASLR slide from the recorded
 * runtime _text/_stext, and fills source lines and inlined frames for
 * addresses inside vmlinux text and, for modules with a recorded build-id,
 * inside modules whose debug file is found (dwarf_modfind_path; relocated
 * to the recorded section addresses). meta and mods must outlive s. */
#ifndef RS_DWARF_BACKEND_H
#define RS_DWARF_BACKEND_H

#include <stddef.h>
#include <stdio.h>
#include "../format/rsfile.h"
#include "report_opts.h"
#include "symbolize.h"

/* Does nothing for -sn (o->symb == SYMB_NONE) or with RETSNOOP_NO_DWARF=1 in
 * the environment. Otherwise attaches a DWARF
 * backend to s. Returns 0 when attached or when falling back to kallsyms
 * names (one line on msgs says why and how to get DWARF); -1 with a
 * one-line reason in err when the report must not go on: -k PATH cannot
 * be read, or the vmlinux's build-id differs from the recording's and
 * o->allow_build_id_mismatch is not set (then a warning line goes to msgs
 * instead). */
int dwarf_backend_attach(struct symbolizer *s, const struct rsf_meta *meta,
			 const struct rsf_module *mods, size_t nmods,
			 const struct report_opts *o, FILE *msgs, char *err, size_t errlen);

#endif
