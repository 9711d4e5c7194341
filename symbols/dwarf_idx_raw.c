/* dwarf_idx_raw.c - builds one compile unit's index (dwarf_index.h)
 * with the raw DWARF reader (dwarf_raw.h, dwarf_rawline.h). It makes the
 * same builder calls in the same order as the libdw producer
 * (dwarf_idx_libdw.c), so both give identical indexes; whenever the raw
 * reader declines a unit, DRAW_UNSUPPORTED tells the caller to use libdw. */
#include <stdbool.h>
#include <string.h>
#include <dwarf.h>
#include "dwarf_index.h"
#include "dwarf_ibuild.h"
#include "dwarf_raw.h"
#include "dwarf_rawline.h"

#define UNSUP DRAW_UNSUPPORTED
#define MAX_DEPTH 200     /* like the libdw producer */
#define MAX_CHAIN 16      /* abstract_origin / specification hops */

struct rctx {
	struct dwib b;
	struct draw_unit u;
	struct draw_lines l;
};

static int build_lines(struct rctx *c)
{
	const struct draw_row *r = c->l.rows;
	size_t n = c->l.nrows;

	for (size_t i = 0; i < n; ) {
		uint64_t a = r[i].addr;
		size_t pick = SIZE_MAX, k = i;
		bool endrow = false;
		for (; k < n && r[k].addr == a; k++) {
			if (r[k].end)
				endrow = true;
			else
				pick = k;
		}
		i = k;
		uint32_t file = DWI_NONE, line = 0;
		if (pick != SIZE_MAX) {
			const char *name = draw_file_name(&c->l, r[pick].file);
			if (!name && r[pick].file < c->l.nfiles)
				return -1; /* OOM joining the path */
			file = dwib_intern(&c->b, name, 1);
			if (file == DWI_NONE)
				file = dwib_str(&c->b, "??");
			line = r[pick].line > 0 ? (uint32_t)r[pick].line : 0;
		} else if (!endrow) {
			continue;
		}
		if (dwib_line(&c->b, a, file, line))
			return -1;
	}
	return 0;
}

/* constant-class value the way dwarf_formudata reads it */
static int udata(const struct draw_val *v, uint64_t *out)
{
	switch (v->form) {
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
	case DW_FORM_udata: case DW_FORM_sdata: case DW_FORM_implicit_const:
		*out = v->u;
		return 0;
	default:
		return UNSUP;
	}
}

/* dwarf_attr_integrate(DW_AT_name) + dwarf_formstring from the DIE at p */
static int integrate_name(struct rctx *c, const uint8_t *p, const char **out)
{
	const struct draw_unit *u = &c->u;
	for (int hop = 0; hop < MAX_CHAIN; hop++) {
		struct draw_die d;
		if (!p || draw_die_at(u, p, &d) || !d.ab)
			return UNSUP;
		struct draw_val name, origin, spec;
		bool has_name = false, has_origin = false, has_spec = false;
		const uint8_t *vp = d.attrs;
		for (uint32_t i = 0; i < d.ab->nattrs; i++) {
			const struct draw_attrspec *as = &u->specs[d.ab->first + i];
			struct draw_val *want = NULL;
			if (as->name == DW_AT_name && !has_name) {
				want = &name;
				has_name = true;
			} else if (as->name == DW_AT_abstract_origin && !has_origin) {
				want = &origin;
				has_origin = true;
			} else if (as->name == DW_AT_specification && !has_spec) {
				want = &spec;
				has_spec = true;
			}
			if (want && draw_attr_val(u, &d, vp, as, want))
				return UNSUP;
			int64_t sz = as->size >= 0 ? as->size : draw_form_size(u, as->form, vp);
			if (sz < 0)
				return UNSUP;
			vp += sz;
		}
		if (has_name) {
			int sf = draw_string_form(u, name.form);
			if (sf < 0)
				return UNSUP;
			*out = sf ? draw_string(u, &name) : NULL;
			if (sf && !*out)
				return UNSUP;
			return 0;
		}
		if (!has_origin && !has_spec) {
			*out = NULL;
			return 0;
		}
		p = draw_ref(u, has_origin ? &origin : &spec);
	}
	return UNSUP;
}

static int range_cb(uint64_t lo, uint64_t hi, void *ctx)
{
	struct { struct rctx *c; uint32_t depth; int nr; } *rc = ctx;
	if (hi <= lo)
		return 0;
	if (dwib_range(&rc->c->b, lo, hi, rc->depth))
		return -1;
	rc->nr++;
	return 0;
}

/* a subprogram / inlined_subroutine DIE: scope index, -1 when it has no
 * code, -2 on OOM, UNSUP; *sib gets its DW_AT_sibling target or NULL */
static int add_scope(struct rctx *c, const struct draw_die *d, int32_t parent, uint32_t depth,
		     bool inl, const uint8_t **sib)
{
	const struct draw_unit *u = &c->u;
	struct draw_val low, high, ranges, origin, cfile, cline, sv;
	bool has_low = false, has_high = false, has_ranges = false, has_origin = false;
	bool has_cfile = false, has_cline = false, has_sib = false;
	const uint8_t *vp = d->attrs;

	for (uint32_t i = 0; i < d->ab->nattrs; i++) {
		const struct draw_attrspec *as = &u->specs[d->ab->first + i];
		struct draw_val *want = NULL;
		bool *flag = NULL;
		switch (as->name) {
		case DW_AT_low_pc: want = &low; flag = &has_low; break;
		case DW_AT_high_pc: want = &high; flag = &has_high; break;
		case DW_AT_ranges: want = &ranges; flag = &has_ranges; break;
		case DW_AT_abstract_origin: want = &origin; flag = &has_origin; break;
		case DW_AT_call_file: want = &cfile; flag = &has_cfile; break;
		case DW_AT_call_line: want = &cline; flag = &has_cline; break;
		case DW_AT_sibling: want = &sv; flag = &has_sib; break;
		default: break;
		}
		if (want && !*flag) {
			if (draw_attr_val(u, d, vp, as, want))
				return UNSUP;
			*flag = true;
		}
		int64_t sz = as->size >= 0 ? as->size : draw_form_size(u, as->form, vp);
		if (sz < 0)
			return UNSUP;
		vp += sz;
	}
	*sib = NULL;
	if (has_sib) {
		*sib = draw_ref(u, &sv);
		if (!*sib || *sib < d->after)
			return UNSUP;
	}

	/* dwarf_ranges: low_pc + high_pc, else DW_AT_ranges */
	struct { struct rctx *c; uint32_t depth; int nr; } rc = { c, depth, 0 };
	bool single = false;
	uint64_t lo = 0, hi = 0;
	if (has_low && low.form != DW_FORM_addr)
		has_low = false; /* dwarf_lowpc fails */
	if (has_high && has_low) {
		if (high.form == DW_FORM_addr) {
			hi = high.u;
		} else if (high.form == DW_FORM_addrx || high.form == DW_FORM_addrx1 ||
			   high.form == DW_FORM_addrx2 || high.form == DW_FORM_addrx3 ||
			   high.form == DW_FORM_addrx4 || high.form == DW_FORM_GNU_addr_index) {
			return UNSUP;
		} else {
			uint64_t x;
			if (udata(&high, &x))
				return UNSUP;
			hi = low.u + x;
		}
		lo = low.u;
		single = true;
	}
	if (single) {
		if (range_cb(lo, hi, &rc))
			return -2;
	} else if (has_ranges) {
		int r = draw_ranges(u, &ranges, range_cb, &rc);
		if (r == -1)
			return -2;
		if (r)
			return UNSUP;
	}
	if (!rc.nr)
		return -1;

	/* name: through the abstract origin (memoized), else the DIE's own */
	uint32_t name = DWI_NONE;
	const char *s = NULL;
	if (has_origin) {
		const uint8_t *op = draw_ref(u, &origin);
		if (!op)
			return UNSUP;
		uint32_t *slot = dwib_origin_slot(&c->b, (uint64_t)(op - u->r->info.p));
		if (!slot)
			return -2;
		if (*slot == DWI_NONE) {
			if (integrate_name(c, op, &s))
				return UNSUP;
			*slot = s ? dwib_intern(&c->b, s, 0) : DWI_NONE;
		}
		name = *slot;
	} else {
		if (integrate_name(c, d->p, &s))
			return UNSUP;
		name = s ? dwib_intern(&c->b, s, 0) : DWI_NONE;
	}
	if (name == DWI_NONE)
		name = dwib_str(&c->b, "??");

	uint32_t call_file = DWI_NONE, call_line = 0;
	if (inl) {
		uint64_t w;
		if (has_cline) {
			if (udata(&cline, &w))
				return UNSUP;
			call_line = (uint32_t)w;
		}
		if (has_cfile && c->l.nfiles) {
			if (udata(&cfile, &w))
				return UNSUP;
			if (w < c->l.nfiles) {
				const char *fn = draw_file_name(&c->l, (size_t)w);
				if (!fn)
					return -2;
				call_file = dwib_intern(&c->b, fn, 1);
			}
		}
	}
	int idx = dwib_scope(&c->b, name, parent, call_file, call_line);
	return idx < 0 ? -2 : idx;
}

/* walks the sibling list starting at p; *endp: position after it */
static int walk(struct rctx *c, const uint8_t *p, int32_t scope, uint32_t depth,
		const uint8_t **endp)
{
	const struct draw_unit *u = &c->u;

	*endp = NULL;
	if (depth > MAX_DEPTH)
		return 0;
	for (;;) {
		struct draw_die d;
		if (p >= u->end) {
			*endp = p;
			return 0;
		}
		if (draw_die_at(u, p, &d))
			return UNSUP;
		if (!d.ab) {
			*endp = d.after;
			return 0;
		}
		const uint8_t *sib = NULL, *child_end = NULL;
		int r;
		switch (d.ab->tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
			r = add_scope(c, &d, scope, depth, d.ab->tag == DW_TAG_inlined_subroutine, &sib);
			if (r == -2 || r == UNSUP)
				return r == -2 ? -1 : UNSUP;
			if (r >= 0 && d.ab->children && (r = walk(c, d.after, r, depth + 1, &child_end)))
				return r;
			break;
		case DW_TAG_lexical_block:
			if (draw_sibling(u, &d, &sib) < 0)
				return UNSUP;
			if (scope >= 0 && d.ab->children &&
			    (r = walk(c, d.after, scope, depth + 1, &child_end)))
				return r;
			break;
		default:
			if (d.ab->children && draw_sibling(u, &d, &sib) < 0)
				return UNSUP;
			break;
		}
		if (!d.ab->children)
			p = sib ? sib : d.after;
		else if (sib)
			p = sib;
		else if (child_end)
			p = child_end;
		else if (!(p = draw_skip_subtree(u, &d, NULL)))
			return UNSUP;
	}
}

int dwarf_index_build_raw(const struct dwarf_raw *r, uint64_t unit_off, struct dwi_cu *out)
{
	struct rctx c;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	if (draw_unit_open(r, unit_off, &c.u))
		return UNSUP;
	if (draw_lines_read(&c.u, &c.l)) {
		draw_unit_free(&c.u);
		return UNSUP;
	}
	dwib_init(&c.b, c.u.comp_dir);
	const uint8_t *end;
	struct draw_die cu;
	rc = draw_die_at(&c.u, c.u.cu_die, &cu) || !cu.ab ? UNSUP : 0;
	if (!rc)
		rc = build_lines(&c);
	if (!rc && cu.ab->children)
		rc = walk(&c, cu.after, -1, 0, &end);
	draw_lines_free(&c.l);
	draw_unit_free(&c.u);
	if (rc) {
		dwib_free(&c.b);
		return rc == UNSUP ? UNSUP : -1;
	}
	return dwib_finish(&c.b, out);
}
