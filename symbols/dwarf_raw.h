/* dwarf_raw.h - a small, allocation-light DWARF 2-5 reader over the
 * mapped ELF sections (internal to the symbolizer): unit headers,
 * abbreviation tables, attribute values, DIE trees and range lists (the
 * line program is in dwarf_rawline.h). It exists for speed: indexing a compile unit through it
 * is several times faster than through libdw. It reads only what the
 * index needs and gives up (DRAW_UNSUPPORTED) on anything it does not
 * handle exactly like libdw, so the caller can fall back to libdw for
 * that unit and results never differ. Thread-safe: all state is per unit. */
#ifndef RS_DWARF_RAW_H
#define RS_DWARF_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

#define DRAW_UNSUPPORTED (-2)

struct draw_sect {
	const uint8_t *p;
	size_t n;
};

/* LEB128 decoding bounded by end; 0, or -1 on overrun (bits past 64 are
 * dropped) */
static inline int draw_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned sh = 0;
	for (;;) {
		if (p >= end)
			return -1;
		uint8_t b = *p++;
		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		sh += 7;
		if (!(b & 0x80))
			break;
	}
	*pp = p;
	*out = v;
	return 0;
}

static inline int draw_sleb(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned sh = 0;
	uint8_t b;
	do {
		if (p >= end)
			return -1;
		b = *p++;
		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		sh += 7;
	} while (b & 0x80);
	if (sh < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << sh;
	*pp = p;
	*out = (int64_t)v;
	return 0;
}

/* the sections of one ELF file */
struct dwarf_raw {
	struct draw_sect info, abbrev, str, line_str, line, str_offsets, addr, rnglists, ranges;
	bool le;             /* little-endian file */
};

/* n-byte unsigned integer in the file's byte order */
static inline uint64_t draw_rd(const struct dwarf_raw *r, const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = (v << 8) | p[r->le ? n - 1 - i : i];
	return v;
}

/* Finds the DWARF sections. Returns 0, or DRAW_UNSUPPORTED when the file
 * cannot be read raw (relocatable object, compressed or missing
 * .debug_info, unknown byte order). */
int dwarf_raw_open(Elf *elf, struct dwarf_raw *r);

struct draw_attrspec {
	uint16_t name, form;
	int32_t size;        /* fixed value size in bytes, -1 variable */
	int64_t implicit;    /* DW_FORM_implicit_const value */
};

struct draw_abbrev {
	uint32_t tag;
	uint8_t children;
	uint8_t valid;
	int32_t fixed;       /* total attribute bytes when all fixed, else -1 */
	int32_t sib;         /* index of DW_AT_sibling among the attributes, -1 none */
	int32_t sib_off;     /* its byte offset when all attributes before it
			      * have fixed sizes, else -1 */
	uint32_t first, nattrs;   /* into draw_unit.specs */
};

/* one compile unit, with the CU DIE attributes the index needs */
struct draw_unit {
	const struct dwarf_raw *r;
	const uint8_t *start, *end;   /* unit header start, unit end */
	const uint8_t *cu_die;        /* first DIE */
	uint64_t off;                 /* unit offset in .debug_info */
	int ver, offsz, asz, unit_type;
	struct draw_abbrev *abbrevs;  /* indexed by code */
	uint32_t nabbrevs;
	struct draw_attrspec *specs;
	uint32_t nspecs;
	/* from the CU DIE */
	const char *comp_dir;
	bool has_stmt_list;
	uint64_t stmt_list;
	uint64_t base_addr;
	bool has_str_off_base, has_addr_base, has_rnglists_base;
	uint64_t str_off_base, addr_base, rnglists_base;
};

/* Opens the unit whose header is at unit_off. 0, -1 (malformed) or
 * DRAW_UNSUPPORTED. Free with draw_unit_free. */
int draw_unit_open(const struct dwarf_raw *r, uint64_t unit_off, struct draw_unit *u);
void draw_unit_free(struct draw_unit *u);

/* a decoded attribute value */
struct draw_val {
	uint16_t form;
	uint64_t u;          /* constants, addresses, offsets, references (CU-relative
			      * for ref1..ref_udata, section-relative for ref_addr) */
	const char *s;       /* strings (NULL when the form is not a string) */
};

/* one parsed DIE: where its attributes start and its abbreviation */
struct draw_die {
	const uint8_t *p;             /* abbrev code position */
	const uint8_t *attrs;         /* first attribute value */
	const uint8_t *after;         /* first byte after the attributes */
	const struct draw_abbrev *ab; /* NULL: null entry (end of siblings) */
};

/* Parses the DIE at p. 0, or -1 / DRAW_UNSUPPORTED. */
int draw_die_at(const struct draw_unit *u, const uint8_t *p, struct draw_die *d);
/* Decodes attribute value i of the DIE. 0, -1 or DRAW_UNSUPPORTED. */
int draw_attr_val(const struct draw_unit *u, const struct draw_die *d, const uint8_t *vp,
		  const struct draw_attrspec *as, struct draw_val *v);
/* Target of the DIE's DW_AT_sibling: 1 (*out set), 0 none, DRAW_UNSUPPORTED
 * (not a unit-local reference, or not after the DIE). */
int draw_sibling(const struct draw_unit *u, const struct draw_die *d, const uint8_t **out);
/* Converts a reference value (ref1..ref_udata, ref_addr) to the DIE
 * position inside this unit; NULL when it is elsewhere or not a ref. */
const uint8_t *draw_ref(const struct draw_unit *u, const struct draw_val *v);
/* Position right after the DIE's whole subtree (its next sibling), using
 * DW_AT_sibling when present like libdw does. NULL on malformed input. */
const uint8_t *draw_skip_subtree(const struct draw_unit *u, const struct draw_die *d,
				 const uint8_t *sibling);
/* Size of a value of this form at p (needed for variable forms). -1 bad. */
int64_t draw_form_size(const struct draw_unit *u, unsigned form, const uint8_t *p);

/* The first attribute `name` of the DIE; 1 found (*v set), 0 absent, <0 error. */
int draw_find_attr(const struct draw_unit *u, const struct draw_die *d, unsigned name,
		   struct draw_val *v);
/* String value of an attribute (string, strp, line_strp, strx forms);
 * NULL when not a string or out of bounds. draw_string_form tells whether
 * the form is a string form this reader resolves itself (1), a string form
 * it cannot resolve like libdw would (DRAW_UNSUPPORTED: alternate / supplementary
 * files, strx without a base) or no string form (0). */
int draw_string_form(const struct draw_unit *u, unsigned form);
const char *draw_string(const struct draw_unit *u, const struct draw_val *v);

/* Range list of DW_AT_ranges value v: calls cb(lo, hi) per entry. 0, or
 * -1 / DRAW_UNSUPPORTED. */
typedef int (*draw_range_cb)(uint64_t lo, uint64_t hi, void *ctx);
int draw_ranges(const struct draw_unit *u, const struct draw_val *v, draw_range_cb cb, void *ctx);

#endif
