/* dwarf_rawline.c - decodes a unit's .debug_line program (DWARF 2-5)
 * into the rows and file names libdw's dwarf_getsrclines would give (see
 * dwarf_rawline.h). Where libdw would reject the table or behaves in a
 * way not reproduced here, DRAW_UNSUPPORTED sends the caller to libdw. */
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include "dwarf_rawline.h"
#include "../common/runsort.h"

#define UNSUP DRAW_UNSUPPORTED

struct lhdr {
	int ver, offsz;
	const uint8_t *prog, *end;      /* line program, unit end */
	uint8_t min_inst, max_ops, default_is_stmt, line_range, opcode_base;
	int8_t line_base;
	const uint8_t *oplen;           /* oplen[i]: operands of standard opcode i */
};

static int grow_files(struct draw_lines *l, size_t need, size_t *cap)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 64;
	while (nc < need)
		nc *= 2;
	const char **a = realloc(l->fname, nc * sizeof(*a));
	if (!a)
		return -1;
	l->fname = a;
	const char **b = realloc(l->fdir, nc * sizeof(*b));
	if (!b)
		return -1;
	l->fdir = b;
	*cap = nc;
	return 0;
}

/* one DWARF 5 entry-format value: string (path) or constant (index) */
static int lnct_value(const struct draw_unit *u, unsigned form, int offsz, const uint8_t **pp,
		      const uint8_t *end, const char **str, uint64_t *num)
{
	const struct dwarf_raw *r = u->r;
	const uint8_t *p = *pp;
	uint64_t v;
	*str = NULL;
	switch (form) {
	case DW_FORM_string: {
		const uint8_t *z = memchr(p, 0, (size_t)(end - p));
		if (!z)
			return UNSUP;
		*str = (const char *)p;
		p = z + 1;
		break;
	}
	case DW_FORM_line_strp:
	case DW_FORM_strp: {
		if (end - p < offsz)
			return UNSUP;
		v = draw_rd(r, p, offsz);
		p += offsz;
		const struct draw_sect *s = form == DW_FORM_strp ? &r->str : &r->line_str;
		if (!s->p || v >= s->n || !memchr(s->p + v, 0, s->n - v))
			return UNSUP;
		*str = (const char *)s->p + v;
		break;
	}
	case DW_FORM_udata:
		if (draw_uleb(&p, end, &v))
			return UNSUP;
		*num = v;
		break;
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8: {
		int n = form == DW_FORM_data1 ? 1 : form == DW_FORM_data2 ? 2 :
			form == DW_FORM_data4 ? 4 : 8;
		if (end - p < n)
			return UNSUP;
		*num = draw_rd(r, p, n);
		p += n;
		break;
	}
	case DW_FORM_data16:
		if (end - p < 16)
			return UNSUP;
		p += 16;
		break;
	case DW_FORM_block:
		if (draw_uleb(&p, end, &v) || v > (uint64_t)(end - p))
			return UNSUP;
		p += v;
		break;
	default:
		return UNSUP; /* strx and friends: not resolved like libdw here */
	}
	*pp = p;
	return 0;
}

/* DWARF 5 directory or file table; dirs NULL when reading directories */
static int v5_table(const struct draw_unit *u, struct lhdr *h, const uint8_t **pp,
		    const uint8_t *end, const char ***dirs, size_t *ndirs, struct draw_lines *l,
		    size_t *fcap)
{
	const uint8_t *p = *pp;
	uint64_t desc[64], form[64], n;
	int path_i = -1, idx_i = -1;
	bool files = l != NULL;

	if (p >= end)
		return UNSUP;
	unsigned nf = *p++;
	if (nf > 64)
		return UNSUP;
	for (unsigned i = 0; i < nf; i++) {
		if (draw_uleb(&p, end, &desc[i]) || draw_uleb(&p, end, &form[i]))
			return UNSUP;
		if (desc[i] == DW_LNCT_path)
			path_i = (int)i;
		else if (desc[i] == DW_LNCT_directory_index)
			idx_i = (int)i;
	}
	if (draw_uleb(&p, end, &n))
		return UNSUP;
	if (nf && (path_i < 0 || (files && idx_i < 0)))
		return UNSUP;
	if (!nf && n)
		return UNSUP;
	if (nf && n > (uint64_t)(end - p) / nf)
		return UNSUP;
	if (!files) {
		*dirs = malloc((n ? n : 1) * sizeof(**dirs));
		if (!*dirs)
			return -1;
		*ndirs = n;
	} else if (grow_files(l, n ? n : 1, fcap)) {
		return -1;
	}
	for (uint64_t k = 0; k < n; k++) {
		const char *path = NULL;
		uint64_t di = UINT64_MAX;
		for (unsigned i = 0; i < nf; i++) {
			const char *s;
			uint64_t num = UINT64_MAX;
			int rc = lnct_value(u, (unsigned)form[i], h->offsz, &p, end, &s, &num);
			if (rc)
				return rc;
			if ((int)i == path_i)
				path = s;
			else if ((int)i == idx_i)
				di = num;
		}
		if (!path)
			return UNSUP;
		if (!files) {
			(*dirs)[k] = path;
			continue;
		}
		if (di >= *ndirs)
			return UNSUP;
		l->fname[k] = path;
		l->fdir[k] = path[0] == '/' ? NULL : (*dirs)[di];
	}
	if (files)
		l->nfiles = n ? n : 1;
	if (files && !n) {
		/* libdw keeps its "???" placeholder at index 0 */
		l->fname[0] = "???";
		l->fdir[0] = NULL;
	}
	*pp = p;
	return 0;
}

static int read_header(const struct draw_unit *u, struct lhdr *h, struct draw_lines *l)
{
	const struct dwarf_raw *r = u->r;
	const char **dirs = NULL;
	size_t ndirs = 0, fcap = 0;
	int rc = UNSUP;

	if (!r->line.p || u->stmt_list >= r->line.n)
		return UNSUP;
	const uint8_t *p = r->line.p + u->stmt_list, *send = r->line.p + r->line.n;
	if (send - p < 4)
		return UNSUP;
	uint64_t len = draw_rd(r, p, 4);
	p += 4;
	h->offsz = 4;
	if (len == 0xffffffffu) {
		if (send - p < 8)
			return UNSUP;
		len = draw_rd(r, p, 8);
		p += 8;
		h->offsz = 8;
	}
	if (len > (uint64_t)(send - p))
		return UNSUP;
	h->end = p + len;
	if (h->end - p < 2)
		return UNSUP;
	h->ver = (int)draw_rd(r, p, 2);
	p += 2;
	if (h->ver < 2 || h->ver > 5)
		return UNSUP;
	if (h->ver >= 5) {
		if (h->end - p < 2 || p[0] != u->asz || p[1] != 0)
			return UNSUP;
		p += 2;
	}
	if (h->end - p < h->offsz)
		return UNSUP;
	uint64_t hlen = draw_rd(r, p, h->offsz);
	p += h->offsz;
	if (hlen > (uint64_t)(h->end - p))
		return UNSUP;
	const uint8_t *hend = p + hlen;
	h->prog = hend;
	if (hend - p < (h->ver >= 4 ? 6 : 5))
		return UNSUP;
	h->min_inst = *p++;
	h->max_ops = h->ver >= 4 ? *p++ : 1;
	if (!h->max_ops)
		return UNSUP;
	h->default_is_stmt = *p++;
	h->line_base = (int8_t)*p++;
	h->line_range = *p++;
	h->opcode_base = *p++;
	/* opcodes libdw validates by their operand counts must exist */
	if (h->opcode_base <= DW_LNS_set_isa || h->default_is_stmt > 1 || !h->line_range)
		return UNSUP;
	h->oplen = p - 1;
	if (hend - p < h->opcode_base - 1)
		return UNSUP;
	p += h->opcode_base - 1;

	if (h->ver < 5) {
		/* directories: 0 is the compilation directory */
		size_t cap = 16;
		dirs = malloc(cap * sizeof(*dirs));
		if (!dirs)
			return -1;
		dirs[ndirs++] = u->comp_dir;
		while (p < hend && *p) {
			const uint8_t *z = memchr(p, 0, (size_t)(hend - p));
			if (!z)
				goto out;
			if (ndirs == cap) {
				const char **nd = realloc(dirs, 2 * cap * sizeof(*dirs));
				if (!nd) {
					rc = -1;
					goto out;
				}
				dirs = nd;
				cap *= 2;
			}
			dirs[ndirs++] = (const char *)p;
			p = z + 1;
		}
		if (p >= hend)
			goto out;
		p++;
		/* files: index 0 is libdw's "???" placeholder */
		if (grow_files(l, 16, &fcap)) {
			rc = -1;
			goto out;
		}
		l->fname[0] = "???";
		l->fdir[0] = NULL;
		l->nfiles = 1;
		if (p >= hend)
			goto out;
		while (p < hend && *p) {
			const uint8_t *z = memchr(p, 0, (size_t)(hend - p));
			uint64_t di, skip;
			if (!z)
				goto out;
			const char *name = (const char *)p;
			p = z + 1;
			if (draw_uleb(&p, hend, &di) || di >= ndirs || draw_uleb(&p, hend, &skip) ||
			    draw_uleb(&p, hend, &skip))
				goto out;
			if (grow_files(l, l->nfiles + 1, &fcap)) {
				rc = -1;
				goto out;
			}
			l->fname[l->nfiles] = name;
			l->fdir[l->nfiles] = name[0] == '/' ? NULL : dirs[di];
			l->nfiles++;
		}
		if (p >= hend)
			goto out;
		p++;
	} else {
		if ((rc = v5_table(u, h, &p, hend, &dirs, &ndirs, NULL, NULL)) ||
		    (rc = v5_table(u, h, &p, hend, &dirs, &ndirs, l, &fcap)))
			goto out;
		rc = UNSUP;
	}
	if (p != hend)
		goto out;
	l->joined = calloc(l->nfiles ? l->nfiles : 1, sizeof(*l->joined));
	rc = l->joined ? 0 : -1;
out:
	free(dirs);
	return rc;
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct draw_row *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->end != b->end)
		return a->end ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

struct state {
	uint64_t addr;
	uint32_t op_index, file, discr;
	int64_t line;
	uint64_t column, isa;
	uint8_t is_stmt;
};

static void reset(struct state *s, const struct lhdr *h)
{
	memset(s, 0, sizeof(*s));
	s->file = 1;
	s->line = 1;
	s->is_stmt = h->default_is_stmt;
}

/* libdw computes the advance in unsigned int arithmetic */
static void advance(struct state *s, const struct lhdr *h, uint32_t adv)
{
	uint32_t t = s->op_index + adv;
	s->addr += (uint32_t)(h->min_inst * (t / h->max_ops));
	s->op_index = t % h->max_ops;
}

static int add_row(struct draw_lines *l, size_t *cap, const struct state *s, int end)
{
	/* libdw stores these in narrow fields and rejects the table when a
	 * value does not fit */
	if (s->line < INT32_MIN || s->line > INT32_MAX || s->column > 0xffff ||
	    s->op_index > 0xff || s->isa > 0xff || s->discr > 0xffffff || l->nrows >= UINT32_MAX)
		return UNSUP;
	if (l->nrows == *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		struct draw_row *nr = realloc(l->rows, nc * sizeof(*nr));
		if (!nr)
			return -1;
		l->rows = nr;
		*cap = nc;
	}
	l->rows[l->nrows] = (struct draw_row){ s->addr, (uint32_t)l->nrows, s->file,
					       (int32_t)s->line, (uint32_t)end };
	l->nrows++;
	return 0;
}

static int run_program(const struct draw_unit *u, const struct lhdr *h, struct draw_lines *l)
{
	const uint8_t *p = h->prog, *end = h->end;
	struct state s;
	size_t cap = 0;
	uint64_t v;
	int64_t sv;
	int rc;

	reset(&s, h);
	while (p < end) {
		uint8_t op = *p++;
		if (op >= h->opcode_base) {
			unsigned adj = op - h->opcode_base;
			s.line += h->line_base + (int)(adj % h->line_range);
			advance(&s, h, adj / h->line_range);
			if ((rc = add_row(l, &cap, &s, 0)))
				return rc;
			s.discr = 0;
		} else if (op == 0) {
			if (end - p < 2 || (p[0] & 0x80))
				return UNSUP;
			uint8_t len = *p++;
			if ((size_t)(end - p) < len)
				return UNSUP;
			uint8_t eop = *p++;
			switch (eop) {
			case DW_LNE_end_sequence:
				if ((rc = add_row(l, &cap, &s, 1)))
					return rc;
				reset(&s, h);
				break;
			case DW_LNE_set_address:
				s.op_index = 0;
				if (end - p < u->asz)
					return UNSUP;
				s.addr = draw_rd(u->r, p, u->asz);
				p += u->asz;
				break;
			case DW_LNE_set_discriminator:
				if (h->oplen[eop] != 1 || draw_uleb(&p, end, &v) || v > UINT32_MAX)
					return UNSUP;
				s.discr = (uint32_t)v;
				break;
			case DW_LNE_define_file:
			case 0x80: /* vendor extensions libdw versions treat differently */
			case 0x81:
			case 0x82:
				return UNSUP;
			default:
				if (!len || (size_t)(end - (p - 1)) < len)
					return UNSUP;
				p += len - 1;
				break;
			}
		} else if (op <= DW_LNS_set_isa) {
			static const uint8_t want[] = { 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
			if (h->oplen[op] != want[op])
				return UNSUP;
			switch (op) {
			case DW_LNS_copy:
				if ((rc = add_row(l, &cap, &s, 0)))
					return rc;
				s.discr = 0;
				break;
			case DW_LNS_advance_pc:
				if (draw_uleb(&p, end, &v) || v > UINT32_MAX)
					return UNSUP;
				advance(&s, h, (uint32_t)v);
				break;
			case DW_LNS_advance_line:
				if (draw_sleb(&p, end, &sv) || sv < INT32_MIN || sv > INT32_MAX)
					return UNSUP;
				s.line += sv;
				break;
			case DW_LNS_set_file:
				if (draw_uleb(&p, end, &v) || v > UINT32_MAX)
					return UNSUP;
				s.file = (uint32_t)v;
				break;
			case DW_LNS_set_column:
				if (draw_uleb(&p, end, &v) || v > UINT32_MAX)
					return UNSUP;
				s.column = v;
				break;
			case DW_LNS_negate_stmt:
				s.is_stmt = 1 - s.is_stmt;
				break;
			case DW_LNS_set_basic_block:
			case DW_LNS_set_prologue_end:
			case DW_LNS_set_epilogue_begin:
				break;
			case DW_LNS_const_add_pc:
				advance(&s, h, (255u - h->opcode_base) / h->line_range);
				break;
			case DW_LNS_fixed_advance_pc:
				if (end - p < 2)
					return UNSUP;
				s.addr += draw_rd(u->r, p, 2);
				p += 2;
				s.op_index = 0;
				break;
			case DW_LNS_set_isa:
				if (draw_uleb(&p, end, &v) || v > UINT32_MAX)
					return UNSUP;
				s.isa = v;
				break;
			}
		} else {
			for (int n = h->oplen[op]; n > 0; n--)
				if (draw_uleb(&p, end, &v))
					return UNSUP;
		}
	}
	return 0;
}

int draw_lines_read(const struct draw_unit *u, struct draw_lines *out)
{
	struct lhdr h;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!u->has_stmt_list)
		return 0;
	if ((rc = read_header(u, &h, out)) || (rc = run_program(u, &h, out))) {
		draw_lines_free(out);
		return rc;
	}
	/* sequences come mostly in address order: a run-aware sort */
	if (runsort(out->rows, out->nrows, sizeof(*out->rows), row_cmp)) {
		draw_lines_free(out);
		return -1;
	}
	if (out->nrows)
		out->rows[out->nrows - 1].end = 1;
	return 0;
}

const char *draw_file_name(struct draw_lines *l, size_t i)
{
	if (i >= l->nfiles)
		return NULL;
	if (!l->fdir[i])
		return l->fname[i];
	if (!l->joined[i]) {
		size_t a = strlen(l->fdir[i]), b = strlen(l->fname[i]);
		char *s = malloc(a + b + 2);
		if (!s)
			return NULL;
		memcpy(s, l->fdir[i], a);
		s[a] = '/';
		memcpy(s + a + 1, l->fname[i], b + 1);
		l->joined[i] = s;
	}
	return l->joined[i];
}

void draw_lines_free(struct draw_lines *l)
{
	for (size_t i = 0; l->joined && i < l->nfiles; i++)
		free(l->joined[i]);
	free(l->joined);
	free(l->rows);
	free(l->fname);
	free(l->fdir);
	memset(l, 0, sizeof(*l));
}
