/* dwarf_raw.c - the raw DWARF reader (see dwarf_raw.h): section lookup,
 * unit headers, abbreviation tables, attribute forms and values, DIE
 * subtree skipping and DWARF 4 / 5 range lists. */
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <gelf.h>
#include "dwarf_raw.h"

/* ---------------------------------------------------------- sections -- */
int dwarf_raw_open(Elf *elf, struct dwarf_raw *r)
{
	static const struct { const char *name; size_t off; } want[] = {
		{ ".debug_info", offsetof(struct dwarf_raw, info) },
		{ ".debug_abbrev", offsetof(struct dwarf_raw, abbrev) },
		{ ".debug_str", offsetof(struct dwarf_raw, str) },
		{ ".debug_line_str", offsetof(struct dwarf_raw, line_str) },
		{ ".debug_line", offsetof(struct dwarf_raw, line) },
		{ ".debug_str_offsets", offsetof(struct dwarf_raw, str_offsets) },
		{ ".debug_addr", offsetof(struct dwarf_raw, addr) },
		{ ".debug_rnglists", offsetof(struct dwarf_raw, rnglists) },
		{ ".debug_ranges", offsetof(struct dwarf_raw, ranges) },
	};
	GElf_Ehdr eh;
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	memset(r, 0, sizeof(*r));
	if (!gelf_getehdr(elf, &eh) || eh.e_type == ET_REL || elf_getshdrstrndx(elf, &shstrndx))
		return DRAW_UNSUPPORTED;
	if (eh.e_ident[EI_DATA] != ELFDATA2LSB && eh.e_ident[EI_DATA] != ELFDATA2MSB)
		return DRAW_UNSUPPORTED;
	r->le = eh.e_ident[EI_DATA] == ELFDATA2LSB;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strncmp(name, ".debug_", 7))
			continue;
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			if (strcmp(name, want[i].name))
				continue;
			if ((sh.sh_flags & SHF_COMPRESSED) || sh.sh_type == SHT_NOBITS)
				return DRAW_UNSUPPORTED;
			Elf_Data *d = elf_rawdata(scn, NULL);
			if (!d || (d->d_size && !d->d_buf))
				return DRAW_UNSUPPORTED;
			struct draw_sect *s = (struct draw_sect *)((char *)r + want[i].off);
			s->p = d->d_buf;
			s->n = d->d_size;
		}
	}
	return r->info.n && r->abbrev.n ? 0 : DRAW_UNSUPPORTED;
}

/* ------------------------------------------------------------- forms -- */
/* fixed size of a form's value, -1 variable, -2 unsupported */
static int form_fixed_size(int ver, int offsz, int asz, unsigned form)
{
	switch (form) {
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag:
	case DW_FORM_strx1: case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
	case DW_FORM_ref_sup4:
		return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_addr:
		return asz;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
	case DW_FORM_strp_sup: case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
		return offsz;
	case DW_FORM_ref_addr:
		return ver <= 2 ? asz : offsz;
	case DW_FORM_string: case DW_FORM_block: case DW_FORM_block1: case DW_FORM_block2:
	case DW_FORM_block4: case DW_FORM_exprloc: case DW_FORM_udata: case DW_FORM_sdata:
	case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx: case DW_FORM_loclistx:
	case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
		return -1;
	default:
		return -2; /* DW_FORM_indirect and unknown forms */
	}
}

int64_t draw_form_size(const struct draw_unit *u, unsigned form, const uint8_t *p)
{
	const uint8_t *q = p, *end = u->end;
	uint64_t v;
	int fs = form_fixed_size(u->ver, u->offsz, u->asz, form);

	if (fs >= 0)
		return fs;
	if (fs == -2)
		return -1;
	switch (form) {
	case DW_FORM_string: {
		const uint8_t *z = memchr(p, 0, (size_t)(end - p));
		return z ? z - p + 1 : -1;
	}
	case DW_FORM_block1:
		return p < end ? 1 + (int64_t)p[0] : -1;
	case DW_FORM_block2:
		return end - p >= 2 ? 2 + (int64_t)draw_rd(u->r, p, 2) : -1;
	case DW_FORM_block4:
		return end - p >= 4 ? 4 + (int64_t)draw_rd(u->r, p, 4) : -1;
	case DW_FORM_block:
	case DW_FORM_exprloc:
		if (draw_uleb(&q, end, &v) || v > (uint64_t)(end - q))
			return -1;
		return (q - p) + (int64_t)v;
	default: /* the LEB128 forms */
		if (draw_uleb(&q, end, &v))
			return -1;
		return q - p;
	}
}

/* ----------------------------------------------------------- abbrevs -- */
static int read_abbrevs(struct draw_unit *u, uint64_t aoff)
{
	const struct dwarf_raw *r = u->r;
	if (aoff >= r->abbrev.n)
		return -1;
	const uint8_t *p = r->abbrev.p + aoff, *end = r->abbrev.p + r->abbrev.n;
	uint32_t cap_ab = 0, cap_sp = 0;

	for (;;) {
		uint64_t code, tag, name, form;
		if (draw_uleb(&p, end, &code))
			return -1;
		if (!code)
			break;
		if (code > (1u << 16) || draw_uleb(&p, end, &tag) || p >= end)
			return DRAW_UNSUPPORTED;
		uint8_t children = *p++;
		if (code >= u->nabbrevs) {
			uint32_t nn = (uint32_t)code + 1;
			if (nn > cap_ab) {
				uint32_t nc = cap_ab ? cap_ab : 256;
				while (nc < nn)
					nc *= 2;
				void *np = realloc(u->abbrevs, nc * sizeof(*u->abbrevs));
				if (!np)
					return -1;
				u->abbrevs = np;
				memset(u->abbrevs + cap_ab, 0, (nc - cap_ab) * sizeof(*u->abbrevs));
				cap_ab = nc;
			}
			u->nabbrevs = nn;
		}
		struct draw_abbrev *ab = &u->abbrevs[code];
		if (ab->valid)
			return DRAW_UNSUPPORTED; /* duplicate code: libdw keeps the first */
		ab->tag = (uint32_t)tag;
		ab->children = children == DW_CHILDREN_yes;
		ab->first = u->nspecs;
		ab->nattrs = 0;
		ab->fixed = 0;
		ab->sib = -1;
		ab->sib_off = -1;
		ab->valid = 1;
		for (;;) {
			int64_t ic = 0;
			if (draw_uleb(&p, end, &name) || draw_uleb(&p, end, &form))
				return -1;
			if (!name && !form)
				break;
			if (form == DW_FORM_implicit_const && draw_sleb(&p, end, &ic))
				return -1;
			if (name > 0xffff || form > 0xffff)
				return DRAW_UNSUPPORTED;
			int fs = form_fixed_size(u->ver, u->offsz, u->asz, (unsigned)form);
			if (fs == -2)
				return DRAW_UNSUPPORTED;
			if (u->nspecs == cap_sp) {
				uint32_t nc = cap_sp ? cap_sp * 2 : 1024;
				void *np = realloc(u->specs, nc * sizeof(*u->specs));
				if (!np)
					return -1;
				u->specs = np;
				cap_sp = nc;
			}
			u->specs[u->nspecs++] = (struct draw_attrspec){
				(uint16_t)name, (uint16_t)form, fs, ic };
			if (name == DW_AT_sibling && ab->sib < 0) {
				ab->sib = (int32_t)ab->nattrs;
				ab->sib_off = ab->fixed;
			}
			ab->nattrs++;
			if (fs < 0 || ab->fixed < 0)
				ab->fixed = -1;
			else
				ab->fixed += fs;
		}
	}
	return 0;
}

/* --------------------------------------------------------------- DIEs -- */
int draw_die_at(const struct draw_unit *u, const uint8_t *p, struct draw_die *d)
{
	uint64_t code;
	d->p = p;
	if (p < u->cu_die || draw_uleb(&p, u->end, &code))
		return -1;
	d->attrs = p;
	if (!code) {
		d->ab = NULL;
		d->after = p;
		return 0;
	}
	if (code >= u->nabbrevs || !u->abbrevs[code].valid)
		return -1;
	const struct draw_abbrev *ab = &u->abbrevs[code];
	d->ab = ab;
	if (ab->fixed >= 0) {
		if (ab->fixed > u->end - p)
			return -1;
		d->after = p + ab->fixed;
		return 0;
	}
	for (uint32_t i = 0; i < ab->nattrs; i++) {
		const struct draw_attrspec *as = &u->specs[ab->first + i];
		int64_t sz = as->size >= 0 ? as->size : draw_form_size(u, as->form, p);
		if (sz < 0 || sz > u->end - p)
			return -1;
		p += sz;
	}
	d->after = p;
	return 0;
}

static const uint8_t *section_ptr(const struct draw_sect *s, uint64_t off)
{
	return s->p && off < s->n ? s->p + off : NULL;
}

int draw_string_form(const struct draw_unit *u, unsigned form)
{
	switch (form) {
	case DW_FORM_string: case DW_FORM_strp: case DW_FORM_line_strp:
		return 1;
	case DW_FORM_strx: case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3:
	case DW_FORM_strx4: case DW_FORM_GNU_str_index:
		return u->has_str_off_base ? 1 : DRAW_UNSUPPORTED;
	case DW_FORM_GNU_strp_alt: case DW_FORM_strp_sup:
		return DRAW_UNSUPPORTED;
	default:
		return 0;
	}
}

const char *draw_string(const struct draw_unit *u, const struct draw_val *v)
{
	const struct draw_sect *s;
	uint64_t off = v->u;

	switch (v->form) {
	case DW_FORM_string:
		return v->s;
	case DW_FORM_strp:
		s = &u->r->str;
		break;
	case DW_FORM_line_strp:
		s = &u->r->line_str;
		break;
	case DW_FORM_strx: case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3:
	case DW_FORM_strx4: case DW_FORM_GNU_str_index: {
		if (!u->has_str_off_base)
			return NULL; /* callers treat strx forms as unsupported then */
		uint64_t at = u->str_off_base + off * (uint64_t)u->offsz;
		if (!u->r->str_offsets.p || at + (uint64_t)u->offsz > u->r->str_offsets.n)
			return NULL;
		off = draw_rd(u->r, u->r->str_offsets.p + at, u->offsz);
		s = &u->r->str;
		break;
	}
	default:
		return NULL;
	}
	const uint8_t *p = section_ptr(s, off);
	if (!p || !memchr(p, 0, s->n - off))
		return NULL;
	return (const char *)p;
}

static int read_addrx(const struct draw_unit *u, uint64_t idx, uint64_t *out)
{
	if (!u->has_addr_base)
		return -1;
	uint64_t at = u->addr_base + idx * (uint64_t)u->asz;
	if (!u->r->addr.p || at + (uint64_t)u->asz > u->r->addr.n)
		return -1;
	*out = draw_rd(u->r, u->r->addr.p + at, u->asz);
	return 0;
}

int draw_attr_val(const struct draw_unit *u, const struct draw_die *d, const uint8_t *vp,
		  const struct draw_attrspec *as, struct draw_val *v)
{
	const uint8_t *end = d->after, *q = vp;
	uint64_t x;
	int64_t sx;

	v->form = as->form;
	v->s = NULL;
	v->u = 0;
	switch (as->form) {
	case DW_FORM_flag_present:
		v->u = 1;
		return 0;
	case DW_FORM_implicit_const:
		v->u = (uint64_t)as->implicit;
		return 0;
	case DW_FORM_string:
		v->s = (const char *)vp;
		return 0;
	case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx:
	case DW_FORM_loclistx: case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
		if (draw_uleb(&q, end, &x))
			return -1;
		v->u = x;
		break;
	case DW_FORM_sdata:
		if (draw_sleb(&q, end, &sx))
			return -1;
		v->u = (uint64_t)sx;
		return 0;
	case DW_FORM_block: case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4:
	case DW_FORM_exprloc: case DW_FORM_data16:
		return 0; /* never needed by the index */
	default:
		if (as->size < 0 || as->size > 8 || as->size > end - vp)
			return DRAW_UNSUPPORTED;
		v->u = draw_rd(u->r, vp, as->size);
		break;
	}
	switch (as->form) {
	case DW_FORM_addrx: case DW_FORM_addrx1: case DW_FORM_addrx2: case DW_FORM_addrx3:
	case DW_FORM_addrx4: case DW_FORM_GNU_addr_index:
		if (read_addrx(u, v->u, &v->u))
			return DRAW_UNSUPPORTED;
		v->form = DW_FORM_addr;
		break;
	default:
		break;
	}
	return 0;
}

int draw_find_attr(const struct draw_unit *u, const struct draw_die *d, unsigned name,
		   struct draw_val *v)
{
	const struct draw_abbrev *ab = d->ab;
	const uint8_t *p = d->attrs;
	if (!ab)
		return 0;
	for (uint32_t i = 0; i < ab->nattrs; i++) {
		const struct draw_attrspec *as = &u->specs[ab->first + i];
		if (as->name == name)
			return draw_attr_val(u, d, p, as, v) ? -1 : 1;
		int64_t sz = as->size >= 0 ? as->size : draw_form_size(u, as->form, p);
		if (sz < 0)
			return -1;
		p += sz;
	}
	return 0;
}

const uint8_t *draw_ref(const struct draw_unit *u, const struct draw_val *v)
{
	uint64_t off;
	switch (v->form) {
	case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
	case DW_FORM_ref_udata:
		off = u->off + v->u;
		break;
	case DW_FORM_ref_addr:
		off = v->u;
		break;
	default:
		return NULL;
	}
	if (off < (uint64_t)(u->cu_die - u->r->info.p) || off >= (uint64_t)(u->end - u->r->info.p))
		return NULL;
	return u->r->info.p + off;
}

int draw_sibling(const struct draw_unit *u, const struct draw_die *d, const uint8_t **out)
{
	const struct draw_abbrev *ab = d->ab;
	struct draw_val v;
	if (!ab || ab->sib < 0)
		return 0;
	const struct draw_attrspec *as = &u->specs[ab->first + (uint32_t)ab->sib];
	if (ab->sib_off >= 0) {
		if (draw_attr_val(u, d, d->attrs + ab->sib_off, as, &v))
			return DRAW_UNSUPPORTED;
	} else if (draw_find_attr(u, d, DW_AT_sibling, &v) != 1) {
		return DRAW_UNSUPPORTED;
	}
	const uint8_t *t = draw_ref(u, &v);
	if (!t || t < d->after)
		return DRAW_UNSUPPORTED;
	*out = t;
	return 1;
}

const uint8_t *draw_skip_subtree(const struct draw_unit *u, const struct draw_die *d,
				 const uint8_t *sibling)
{
	if (!d->ab || !d->ab->children)
		return d->after;
	if (sibling)
		return sibling;
	/* no DW_AT_sibling: walk the children */
	const uint8_t *p = d->after;
	unsigned level = 1;
	while (level) {
		struct draw_die c;
		if (p >= u->end || draw_die_at(u, p, &c))
			return NULL;
		p = c.after;
		if (!c.ab)
			level--;
		else if (c.ab->children)
			level++;
	}
	return p;
}

/* ------------------------------------------------------------- units -- */
int draw_unit_open(const struct dwarf_raw *r, uint64_t unit_off, struct draw_unit *u)
{
	memset(u, 0, sizeof(*u));
	u->r = r;
	u->off = unit_off;
	if (unit_off >= r->info.n || r->info.n - unit_off < 11)
		return -1;
	const uint8_t *p = r->info.p + unit_off, *send = r->info.p + r->info.n;
	u->start = p;
	uint64_t len = draw_rd(r, p, 4);
	p += 4;
	u->offsz = 4;
	if (len == 0xffffffffu) {
		if (send - p < 8)
			return -1;
		len = draw_rd(r, p, 8);
		p += 8;
		u->offsz = 8;
	} else if (len >= 0xfffffff0u) {
		return -1;
	}
	if (len > (uint64_t)(send - p) || len < 7)
		return -1;
	u->end = p + len;
	u->ver = (int)draw_rd(r, p, 2);
	p += 2;
	uint64_t aoff;
	if (u->ver >= 2 && u->ver <= 4) {
		if (u->end - p < u->offsz + 1)
			return -1;
		aoff = draw_rd(r, p, u->offsz);
		p += u->offsz;
		u->asz = *p++;
		u->unit_type = DW_UT_compile;
	} else if (u->ver == 5) {
		if (u->end - p < 2 + u->offsz)
			return -1;
		u->unit_type = *p++;
		u->asz = *p++;
		aoff = draw_rd(r, p, u->offsz);
		p += u->offsz;
		if (u->unit_type != DW_UT_compile && u->unit_type != DW_UT_partial)
			return DRAW_UNSUPPORTED;
	} else {
		return DRAW_UNSUPPORTED;
	}
	if (u->asz != 4 && u->asz != 8)
		return DRAW_UNSUPPORTED;
	u->cu_die = p;
	int ret = read_abbrevs(u, aoff);
	if (ret)
		goto fail;

	/* the CU DIE attributes the index needs */
	struct draw_die d;
	if (draw_die_at(u, u->cu_die, &d) || !d.ab) {
		ret = -1;
		goto fail;
	}
	const uint8_t *vp = d.attrs;
	bool has_low = false, has_entry = false;
	uint64_t low = 0, entry = 0;
	struct draw_val v;
	/* bases first: strx / addrx values depend on them */
	for (int pass = 0; pass < 2; pass++) {
		vp = d.attrs;
		for (uint32_t i = 0; i < d.ab->nattrs; i++) {
			const struct draw_attrspec *as = &u->specs[d.ab->first + i];
			int64_t sz = as->size >= 0 ? as->size : draw_form_size(u, as->form, vp);
			if (sz < 0) {
				ret = -1;
				goto fail;
			}
			bool base = as->name == DW_AT_str_offsets_base || as->name == DW_AT_addr_base ||
				    as->name == DW_AT_GNU_addr_base || as->name == DW_AT_rnglists_base;
			if (pass == 0 && base) {
				if ((ret = draw_attr_val(u, &d, vp, as, &v)))
					goto fail;
				if (as->name == DW_AT_str_offsets_base && !u->has_str_off_base) {
					u->str_off_base = v.u;
					u->has_str_off_base = true;
				} else if ((as->name == DW_AT_addr_base || as->name == DW_AT_GNU_addr_base) &&
					   !u->has_addr_base) {
					u->addr_base = v.u;
					u->has_addr_base = true;
				} else if (as->name == DW_AT_rnglists_base && !u->has_rnglists_base) {
					u->rnglists_base = v.u;
					u->has_rnglists_base = true;
				}
			} else if (pass == 1 && !base) {
				switch (as->name) {
				case DW_AT_comp_dir:
					if (u->comp_dir)
						break;
					if (draw_string_form(u, as->form) < 0) {
						ret = DRAW_UNSUPPORTED;
						goto fail;
					}
					if ((ret = draw_attr_val(u, &d, vp, as, &v)))
						goto fail;
					u->comp_dir = draw_string(u, &v);
					break;
				case DW_AT_stmt_list:
					if (u->has_stmt_list)
						break;
					if ((ret = draw_attr_val(u, &d, vp, as, &v)))
						goto fail;
					if (as->form != DW_FORM_sec_offset && as->form != DW_FORM_data4 &&
					    as->form != DW_FORM_data8) {
						ret = DRAW_UNSUPPORTED;
						goto fail;
					}
					u->stmt_list = v.u;
					u->has_stmt_list = true;
					break;
				case DW_AT_low_pc:
				case DW_AT_entry_pc:
					if ((ret = draw_attr_val(u, &d, vp, as, &v)))
						goto fail;
					if (v.form != DW_FORM_addr)
						break;
					if (as->name == DW_AT_low_pc && !has_low) {
						low = v.u;
						has_low = true;
					} else if (as->name == DW_AT_entry_pc && !has_entry) {
						entry = v.u;
						has_entry = true;
					}
					break;
				default:
					break;
				}
			}
			vp += sz;
		}
	}
	u->base_addr = has_low ? low : has_entry ? entry : 0;
	return 0;
fail:
	draw_unit_free(u);
	return ret ? ret : -1;
}

void draw_unit_free(struct draw_unit *u)
{
	free(u->abbrevs);
	free(u->specs);
	u->abbrevs = NULL;
	u->specs = NULL;
	u->nabbrevs = u->nspecs = 0;
}

/* ------------------------------------------------------------ ranges -- */
static int rnglists(const struct draw_unit *u, uint64_t off, draw_range_cb cb, void *ctx)
{
	const struct dwarf_raw *r = u->r;
	if (!r->rnglists.p || off >= r->rnglists.n)
		return DRAW_UNSUPPORTED;
	const uint8_t *p = r->rnglists.p + off, *end = r->rnglists.p + r->rnglists.n;
	uint64_t base = u->base_addr, a, b;
	int asz = u->asz;

	for (;;) {
		if (p >= end)
			return DRAW_UNSUPPORTED;
		uint8_t kind = *p++;
		switch (kind) {
		case DW_RLE_end_of_list:
			return 0;
		case DW_RLE_base_addressx:
			if (draw_uleb(&p, end, &a) || read_addrx(u, a, &base))
				return DRAW_UNSUPPORTED;
			break;
		case DW_RLE_startx_endx:
			if (draw_uleb(&p, end, &a) || draw_uleb(&p, end, &b) || read_addrx(u, a, &a) ||
			    read_addrx(u, b, &b))
				return DRAW_UNSUPPORTED;
			if (cb(a, b, ctx))
				return -1;
			break;
		case DW_RLE_startx_length:
			if (draw_uleb(&p, end, &a) || draw_uleb(&p, end, &b) || read_addrx(u, a, &a))
				return DRAW_UNSUPPORTED;
			if (cb(a, a + b, ctx))
				return -1;
			break;
		case DW_RLE_offset_pair:
			if (draw_uleb(&p, end, &a) || draw_uleb(&p, end, &b))
				return DRAW_UNSUPPORTED;
			if (cb(base + a, base + b, ctx))
				return -1;
			break;
		case DW_RLE_base_address:
			if (end - p < asz)
				return DRAW_UNSUPPORTED;
			base = draw_rd(r, p, asz);
			p += asz;
			break;
		case DW_RLE_start_end:
			if (end - p < 2 * asz)
				return DRAW_UNSUPPORTED;
			a = draw_rd(r, p, asz);
			b = draw_rd(r, p + asz, asz);
			p += 2 * asz;
			if (cb(a, b, ctx))
				return -1;
			break;
		case DW_RLE_start_length:
			if (end - p < asz)
				return DRAW_UNSUPPORTED;
			a = draw_rd(r, p, asz);
			p += asz;
			if (draw_uleb(&p, end, &b))
				return DRAW_UNSUPPORTED;
			if (cb(a, a + b, ctx))
				return -1;
			break;
		default:
			return DRAW_UNSUPPORTED;
		}
	}
}

static int ranges4(const struct draw_unit *u, uint64_t off, draw_range_cb cb, void *ctx)
{
	const struct dwarf_raw *r = u->r;
	int asz = u->asz;
	uint64_t maxa = asz == 8 ? UINT64_MAX : UINT32_MAX;
	uint64_t base = u->base_addr;
	if (!r->ranges.p || off >= r->ranges.n)
		return DRAW_UNSUPPORTED;
	const uint8_t *p = r->ranges.p + off, *end = r->ranges.p + r->ranges.n;
	for (;;) {
		if (end - p < 2 * asz)
			return DRAW_UNSUPPORTED;
		uint64_t a = draw_rd(r, p, asz), b = draw_rd(r, p + asz, asz);
		p += 2 * asz;
		if (!a && !b)
			return 0;
		if (a == maxa) {
			base = b;
			continue;
		}
		if (cb(base + a, base + b, ctx))
			return -1;
	}
}

int draw_ranges(const struct draw_unit *u, const struct draw_val *v, draw_range_cb cb, void *ctx)
{
	if (u->ver >= 5) {
		uint64_t off = v->u;
		if (v->form == DW_FORM_rnglistx) {
			if (!u->has_rnglists_base)
				return DRAW_UNSUPPORTED;
			uint64_t base = u->rnglists_base;
			uint64_t at = base + v->u * (uint64_t)u->offsz;
			if (!u->r->rnglists.p || at + (uint64_t)u->offsz > u->r->rnglists.n)
				return DRAW_UNSUPPORTED;
			off = base + draw_rd(u->r, u->r->rnglists.p + at, u->offsz);
		} else if (v->form != DW_FORM_sec_offset) {
			return DRAW_UNSUPPORTED;
		}
		return rnglists(u, off, cb, ctx);
	}
	if (v->form != DW_FORM_sec_offset && v->form != DW_FORM_data4 && v->form != DW_FORM_data8)
		return DRAW_UNSUPPORTED;
	return ranges4(u, v->u, cb, ctx);
}
