/* ustack_json.c - the "user_stack" object of the JSON output (see
 * ustack_json.h and docs/json-schema.md): capture flags, why the walk
 * stopped, and the frames innermost first, each with its address,
 * mapping (path, build-id, file offset) and, when the binary was found,
 * its function, file:line and inlined frames. */
#include "ustack_json.h"

static void str_or_null(struct json_writer *w, const char *key, const char *s, bool have)
{
	jw_key(w, key);
	jw_str_or_null(w, have && s && s[0] ? s : NULL);
}

static void put_inline(struct json_writer *w, const struct symb_src *s)
{
	jw_obj_begin(w);
	str_or_null(w, "function", s->func, true);
	str_or_null(w, "file", s->file, true);
	jw_key(w, "line");
	jw_int(w, s->line);
	jw_obj_end(w);
}

static void put_frame(struct json_writer *w, const struct us_frame *f)
{
	jw_obj_begin(w);
	jw_key(w, "ip");
	jw_hex(w, f->ip);
	str_or_null(w, "module", f->module, true);
	str_or_null(w, "build_id", f->build_id, true);
	jw_key(w, "offset");
	if (f->module)
		jw_uint(w, f->offset);
	else
		jw_null(w);
	jw_key(w, "found");
	jw_bool(w, f->found);
	str_or_null(w, "function", f->name, f->has_name);
	jw_key(w, "function_offset");
	if (f->has_name && f->has_off)
		jw_uint(w, f->name_off);
	else
		jw_null(w);
	str_or_null(w, "file", f->src.file, f->has_src);
	jw_key(w, "line");
	if (f->has_src)
		jw_int(w, f->src.line);
	else
		jw_null(w);
	jw_key(w, "inlines");
	jw_arr_begin(w);
	for (int i = 0; i < f->ninlines; i++)
		put_inline(w, &f->inlines[i]);
	jw_arr_end(w);
	jw_obj_end(w);
}

void ustack_json_put(struct json_writer *w, const struct us_stack *st)
{
	jw_obj_begin(w);
	jw_key(w, "short");
	jw_bool(w, st->flags & RS_USTACKF_SHORT);
	jw_key(w, "kernel_thread");
	jw_bool(w, st->flags & RS_USTACKF_NO_USER);
	jw_key(w, "error");
	if (st->flags & RS_USTACKF_ERR)
		jw_int(w, st->err);
	else
		jw_null(w);
	jw_key(w, "maps_recorded");
	jw_bool(w, !st->no_maps);
	jw_key(w, "stopped");
	jw_str_or_null(w, st->truncated ? "frame limit reached" : st->note[0] ? st->note : NULL);
	jw_key(w, "frames");
	jw_arr_begin(w);
	for (int i = 0; i < st->n; i++)
		put_frame(w, &st->f[i]);
	jw_arr_end(w);
	jw_obj_end(w);
}
