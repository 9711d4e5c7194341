/* dwarf_rawline.h - the DWARF 2-5 line program decoded straight from
 * .debug_line (internal to the symbolizer, companion of dwarf_raw.h): the
 * rows libdw's dwarf_getsrclines would return, in the same order, and
 * libdw's file names, built only for the files actually used. */
#ifndef RS_DWARF_RAWLINE_H
#define RS_DWARF_RAWLINE_H

#include "dwarf_raw.h"

struct draw_row {
	uint64_t addr;
	uint32_t idx;        /* program order */
	uint32_t file;
	int32_t line;
	uint32_t end;        /* end_sequence */
};

struct draw_lines {
	struct draw_row *rows;   /* sorted like libdw: address, end rows first,
				  * then program order; the last one marked end */
	size_t nrows;
	size_t nfiles;
	const char **fname;      /* per file: the name in the table */
	const char **fdir;       /* per file: directory to prefix, NULL for none */
	char **joined;           /* per file: "dir/name" once built */
};

/* Decodes the unit's line program (DW_AT_stmt_list). 0 (possibly zero
 * rows when the unit has none), -1 / DRAW_UNSUPPORTED (callers fall back
 * to libdw, whose treatment of broken tables we do not imitate). */
int draw_lines_read(const struct draw_unit *u, struct draw_lines *out);
/* libdw's name for file i ("dir/name", or "???" for DWARF < 5 index 0);
 * NULL when i is out of range or on OOM. */
const char *draw_file_name(struct draw_lines *l, size_t i);
void draw_lines_free(struct draw_lines *l);

#endif
