/* ustack_view.c - the user frames' rows of the stack view (see
 * ustack_view.h). */
#include <inttypes.h>
#include <string.h>
#include "ustack_view.h"

/* the separator's label: what kind of user stack follows */
static void sep_label(char *buf, size_t len, const struct us_stack *st)
{
	const char *what = "";
	char tmp[64];

	if (st->flags & RS_USTACKF_NO_USER)
		what = ": none (a kernel thread)";
	else if (st->flags & RS_USTACKF_ERR) {
		snprintf(tmp, sizeof(tmp), ": not captured (error %d)", st->err);
		what = tmp;
	} else if (st->no_maps)
		what = ": no memory maps recorded, addresses only";
	else if ((st->flags & RS_USTACKF_SHORT) && (st->note[0] || st->truncated))
		what = " (copy cut short at an unreadable page)";   /* else it held every frame */
	snprintf(buf, len, "----- user stack%s", what);
}

static void frame_src(char *buf, size_t len, const struct us_frame *f)
{
	if (!f->found && f->module && f->build_id[0])
		snprintf(buf, len, "(build-id %s)", f->build_id);
	else if (!f->has_src)
		buf[0] = '\0';
	else if (f->src.func[0] && strcmp(f->src.func, f->name))
		snprintf(buf, len, "(%s @ %s:%d)", f->src.func, f->src.file, f->src.line);
	else
		snprintf(buf, len, "(%s:%d)", f->src.file, f->src.line);
}

static int add_frame(struct sv_table *t, const struct us_frame *f, const struct sv_opts *o)
{
	struct sv_row *r = sv_add_row(t, SV_ROW_USER);
	const char *pad = o->emit_addrs ? "                  " : "";
	char label[sizeof(r->sym) - 20];

	if (!r)
		return -1;
	r->has_addr = true;
	r->addr = f->ip;
	us_frame_label(f, o->dec_offs, label, sizeof(label));
	if (o->emit_addrs)
		snprintf(r->sym, sizeof(r->sym), " %016" PRIx64 " %s", f->ip, label);
	else
		snprintf(r->sym, sizeof(r->sym), "%s", label);
	frame_src(r->src, sizeof(r->src), f);
	for (int i = 0; i < f->ninlines; i++) {
		if (!(r = sv_add_row(t, SV_ROW_INLINE)))
			return -1;
		snprintf(r->sym, sizeof(r->sym), "%s. %s", pad, f->inlines[i].func);
		snprintf(r->src, sizeof(r->src), "(%s:%d)", f->inlines[i].file, f->inlines[i].line);
	}
	return 0;
}

int ustack_view_rows(struct sv_table *t, const struct us_stack *st, const struct sv_opts *o)
{
	struct sv_row *r = sv_add_row(t, SV_ROW_SEP);

	if (!r)
		return -1;
	sep_label(r->sym, sizeof(r->sym), st);
	if (st->note[0] || st->truncated) {   /* the outermost end is missing */
		if (!(r = sv_add_row(t, SV_ROW_USER)))
			return -1;
		snprintf(r->sym, sizeof(r->sym), "%s... (unwinding stopped: %.150s)",
			 o->emit_addrs ? "                  " : "",
			 st->truncated ? "frame limit reached" : st->note);
	}
	for (int i = st->n - 1; i >= 0; i--)   /* outermost first */
		if (add_frame(t, &st->f[i], o))
			return -1;
	return 0;
}

void ustack_view_print(FILE *out, const struct us_stack *st, const struct sv_opts *o)
{
	struct sv_table t = {0};

	if (ustack_view_rows(&t, st, o) == 0)
		stack_view_print(out, &t);
	else
		fprintf(out, "(out of memory rendering the user stack)\n");
	sv_table_free(&t);
}
