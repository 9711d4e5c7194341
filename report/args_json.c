/* args_json.c - writes a list of rendered arguments as a JSON array
 * (args_json.h); the value text is the compact rendering, the error a
 * name ("-EFAULT") or why the value is missing. */
#include <stdio.h>
#include "../common/errnos.h"
#include "args_json.h"

const char *args_state_name(enum args_state st)
{
	switch (st) {
	case ARGS_OK: return "ok";
	case ARGS_NULL: return "null";
	case ARGS_ERR: return "error";
	case ARGS_UNAVAIL: return "unavailable";
	case ARGS_CUT: return "not_captured";
	}
	return "?";
}

static void put_error(struct json_writer *w, const struct args_item *it)
{
	const char *n;

	switch (it->state) {
	case ARGS_ERR:
		n = errno_name(-it->err);
		if (n)
			jw_strf(w, "-%s", n);
		else
			jw_strf(w, "%d", it->err);
		break;
	case ARGS_UNAVAIL:
		jw_str(w, "passed on the stack, which fentry mode cannot read");
		break;
	case ARGS_CUT:
		jw_str(w, "the per-call budget (args.max-total-args-size) ran out");
		break;
	default:
		jw_null(w);
	}
}

void args_json_put(struct json_writer *w, const struct args_list *l)
{
	if (!l) {
		jw_null(w);
		return;
	}
	jw_arr_begin(w);
	for (size_t i = 0; i < l->n; i++) {
		const struct args_item *it = &l->items[i];
		bool has_value = it->state == ARGS_OK || it->state == ARGS_NULL;

		jw_obj_begin(w);
		jw_key(w, "name");
		jw_str(w, it->name);
		jw_key(w, "type");
		jw_str_or_null(w, it->type);
		jw_key(w, "value");
		jw_str_or_null(w, has_value ? it->value : NULL);
		jw_key(w, "error");
		put_error(w, it);
		jw_key(w, "state");
		jw_str(w, args_state_name(it->state));
		jw_key(w, "truncated");
		jw_bool(w, it->trunc);
		jw_key(w, "user");
		jw_bool(w, it->user);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}
