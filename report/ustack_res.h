/* ustack_res.h - a session's user stack, unwound (ustack_unwind.h) and
 * symbolized, as every output shows it: per frame the address, the
 * mapping's recorded path and build-id, the file offset, and when the
 * binary (or its debug file) with that build-id was found (user_find.h),
 * the ELF symbol, file:line and inlined frames from DWARF
 * (symbols/dwarf_sym.h, as for the kernel). One resolver per report; it
 * keeps the files and unwinders it made, bounded, and the last session's
 * result so several outputs of one session unwind it once. */
#ifndef RS_USTACK_RES_H
#define RS_USTACK_RES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "report_opts.h"
#include "session.h"
#include "symbolize.h"

#define US_MAX_FRAMES 128

struct us_frame {
	uint64_t ip;             /* return address, except the first (exact) frame */
	bool is_ret;             /* looked up at ip - 1 */
	const char *module;      /* recorded path ("[vdso]"...); NULL when no mapping covers ip */
	char build_id[41];       /* hex, "" when none recorded */
	uint64_t offset;         /* file offset: ip - map start + map pgoff */
	bool found;              /* a file with the recorded build-id was found */
	bool has_name, has_off;  /* name (ELF symbol, else DWARF function) [+name_off] */
	char name[128];
	uint64_t name_off;
	bool has_src;            /* file:line in the real (outermost) function */
	struct symb_src src;
	int ninlines;            /* inlined frames, outermost first */
	struct symb_src inlines[SYMB_MAX_INLINES];
};

struct us_stack {
	uint32_t flags;          /* the record's enum rs_ustack_flags */
	int32_t err;             /* with RS_USTACKF_ERR */
	bool no_maps;            /* no UMAPS of the process were recorded */
	bool truncated;          /* US_MAX_FRAMES reached */
	char note[256];          /* why the walk stopped early ("" when it did not) */
	int n;                   /* frames, innermost first */
	struct us_frame f[US_MAX_FRAMES];
};

struct ustack_res;

/* symfs: --symfs DIR or NULL; notes (a binary not found, once each) go
 * to msgs as "PROG: note: ...", and with verbose the files used */
struct ustack_res *ustack_res_new(const char *symfs, enum symb_mode mode, FILE *msgs,
				  const char *prog, int verbose);
/* s's user stack, or NULL when s has none (or r is NULL, or out of
 * memory); valid until the next call */
const struct us_stack *ustack_res_get(struct ustack_res *r, const struct rp_session *s);
void ustack_res_free(struct ustack_res *r);

/* "name+0xoff", "name", or "path+0xOFFSET" (or "[unknown]+0xADDR") for
 * the views; dec_offs prints offsets in decimal */
void us_frame_label(const struct us_frame *f, bool dec_offs, char *buf, size_t len);

#endif
