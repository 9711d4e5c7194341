/* lbr_view.c - relevance filtering, symbolization and printing of a
 * session's LBR branch records (see lbr_view.h). Column layout:
 * `[#NN] FROM_SYM  FROM_SRC  ->  TO_SYM  TO_SRC`, each column padded to its
 * widest cell; inlined frames continue on rows that start with 6 spaces and
 * have blanks instead of the arrow. Source columns vanish without DWARF. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "../common/errnos.h"
#include "lbr_view.h"

static void fill_src(char *buf, size_t len, const struct symb_src *src, const char *ksym_name)
{
	if (src->func[0] && ksym_name && strcmp(src->func, ksym_name))
		snprintf(buf, len, "(%s @ %s:%d)", src->func, src->file, src->line);
	else
		snprintf(buf, len, "(%s:%d)", src->file, src->line);
}

static void fill_side(struct lv_side *sd, struct symbolizer *s, uint64_t addr, const struct lv_opts *o)
{
	struct symb_info si;
	char prefix[20] = "";
	bool ok = s && symbolize(s, addr, false, &si) == 0;

	memset(sd, 0, sizeof(*sd));
	if (o->emit_addrs)
		snprintf(prefix, sizeof(prefix), "%016" PRIx64 " ", addr);
	if (!ok)
		snprintf(sd->sym, sizeof(sd->sym), "%s0x%" PRIx64, prefix, addr);
	else if (o->dec_offs)
		snprintf(sd->sym, sizeof(sd->sym), "%s%s+%" PRIu64, prefix, si.name, si.offset);
	else
		snprintf(sd->sym, sizeof(sd->sym), "%s%s+0x%" PRIx64, prefix, si.name, si.offset);
	if (!ok)
		return;
	if (si.has_src)
		fill_src(sd->src, sizeof(sd->src), &si.src, si.name);
	for (int i = 0; i < si.ninlines && i < SYMB_MAX_INLINES; i++) {
		snprintf(sd->inl_sym[i], sizeof(sd->inl_sym[i]), "%s. %s",
			 o->emit_addrs ? "                 " : "", si.inlines[i].func);
		snprintf(sd->inl_src[i], sizeof(sd->inl_src[i]), "(%s:%d)",
			 si.inlines[i].file, si.inlines[i].line);
		sd->ninl++;
	}
}

static bool in_func(struct symbolizer *s, uint64_t addr, uint64_t func_addr)
{
	struct symb_info si;

	return func_addr && s && symbolize(s, addr, false, &si) == 0 && si.sym_addr == func_addr;
}

int lbr_view_build(struct lv_table *t, struct symbolizer *s, const struct rs_lbr_entry *e, int n,
		   uint64_t func_addr, const struct lv_opts *o)
{
	int first = -1, last, k;

	memset(t, 0, sizeof(*t));
	if (n < 0)
		n = 0;
	for (int i = 0; i < n && first < 0; i++)
		if (in_func(s, e[i].from, func_addr) || in_func(s, e[i].to, func_addr))
			first = i;
	t->relevant = first >= 0;
	t->boundary = first >= 0 ? first : 0;
	if (o->unfiltered)
		first = 0;       /* keep everything, but remember whether it was relevant */
	if (first < 0)
		first = 0;
	last = n - 1;
	if (o->max_count > 0 && last - first + 1 > o->max_count)
		last = first + o->max_count - 1;
	if (last < first)
		return 0;
	t->rows = calloc((size_t)(last - first + 1), sizeof(*t->rows));
	if (!t->rows)
		return -1;
	for (k = last; k >= first; k--) {       /* oldest first */
		struct lv_row *r = &t->rows[t->n++];

		r->idx = k;
		fill_side(&r->from, s, e[k].from, o);
		fill_side(&r->to, s, e[k].to, o);
	}
	return 0;
}

static int maxlen(int cur, const char *s)
{
	int l = (int)strlen(s);

	return l > cur ? l : cur;
}

void lbr_view_print(FILE *out, const struct lv_table *t)
{
	int wfs = 0, wfc = 0, wts = 0, wtc = 0;

	for (int i = 0; i < t->n; i++) {
		const struct lv_row *r = &t->rows[i];

		wfs = maxlen(wfs, r->from.sym);
		wfc = maxlen(wfc, r->from.src);
		wts = maxlen(wts, r->to.sym);
		wtc = maxlen(wtc, r->to.src);
		for (int j = 0; j < r->from.ninl; j++) {
			wfs = maxlen(wfs, r->from.inl_sym[j]);
			wfc = maxlen(wfc, r->from.inl_src[j]);
		}
		for (int j = 0; j < r->to.ninl; j++) {
			wts = maxlen(wts, r->to.inl_sym[j]);
			wtc = maxlen(wtc, r->to.inl_src[j]);
		}
	}
	for (int i = 0; i < t->n; i++) {
		const struct lv_row *r = &t->rows[i];
		int ninl = r->from.ninl > r->to.ninl ? r->from.ninl : r->to.ninl;

		for (int j = -1; j < ninl; j++) {
			const char *fs, *fc, *ts, *tc;
			char line[2048];
			size_t len;

			if (j < 0) {
				fs = r->from.sym; fc = r->from.src;
				ts = r->to.sym; tc = r->to.src;
				len = (size_t)snprintf(line, sizeof(line), "[#%02d] ", r->idx);
			} else {
				fs = j < r->from.ninl ? r->from.inl_sym[j] : "";
				fc = j < r->from.ninl ? r->from.inl_src[j] : "";
				ts = j < r->to.ninl ? r->to.inl_sym[j] : "";
				tc = j < r->to.ninl ? r->to.inl_src[j] : "";
				len = (size_t)snprintf(line, sizeof(line), "      ");
			}
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%-*s", wfs, fs);
			if (wfc && len < sizeof(line))
				len += (size_t)snprintf(line + len, sizeof(line) - len, "  %-*s", wfc, fc);
			if (len < sizeof(line))
				len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%-*s",
							j < 0 ? "  ->  " : "      ", wts, ts);
			if (wtc && len < sizeof(line))
				len += (size_t)snprintf(line + len, sizeof(line) - len, "  %s", tc);
			if (len >= sizeof(line))
				len = sizeof(line) - 1;
			while (len && line[len - 1] == ' ')   /* no padding after the last cell */
				len--;
			line[len] = '\0';
			fprintf(out, "%s\n", line);
		}
	}
	if (!t->relevant)
		fprintf(out, "[LBR] No relevant LBR data were captured, showing unfiltered LBR stack!\n");
}

void lv_table_free(struct lv_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

void lbr_view_render(FILE *out, struct symbolizer *s, const struct rs_rec_lbr *rec,
		     uint64_t func_addr, const struct lv_opts *o)
{
	struct lv_table t;
	size_t avail;
	int n;

	if (!rec) {
		fprintf(out, "LBR data was dropped and is missing in this sample!\n");
		return;
	}
	if (rec->lbrs_sz < 0) {
		const char *name = errno_name(-rec->lbrs_sz);

		if (name)
			fprintf(out, "Failed to capture LBR entries: -%s\n", name);
		else
			fprintf(out, "Failed to capture LBR entries: %d\n", rec->lbrs_sz);
		return;
	}
	avail = rec->hdr.size > offsetof(struct rs_rec_lbr, lbrs) ?
		(rec->hdr.size - offsetof(struct rs_rec_lbr, lbrs)) / sizeof(rec->lbrs[0]) : 0;
	n = rec->lbrs_sz / (int)sizeof(rec->lbrs[0]);
	if (n > RS_MAX_LBR_ENTRIES)
		n = RS_MAX_LBR_ENTRIES;
	if ((size_t)n > avail)
		n = (int)avail;
	if (lbr_view_build(&t, s, rec->lbrs, n, func_addr, o)) {
		fprintf(out, "(out of memory rendering the LBR stack)\n");
		return;
	}
	lbr_view_print(out, &t);
	lv_table_free(&t);
}
