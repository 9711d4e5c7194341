/* args_render.h - captured function arguments (-A) and probe contexts
 * rendered from the BTF the recording keeps (the "btf" and "func_btf"
 * header blobs), never from the host's kernel: the recording's BTF is
 * loaded once (args_btf_new), a FUNC_ARGS record becomes a list of named,
 * typed, rendered values (args_render_rec) by its function's FUNC_PROTO
 * (parameter names from BTF; vararg slots after the named ones; raw
 * registers as argN when there is no BTF), and one value of any BTF type
 * can be rendered from its bytes (args_list_add_typed, for -J contexts).
 * The text views print a list in the three -C args.fmt-mode layouts. */
#ifndef RS_ARGS_RENDER_H
#define RS_ARGS_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "../bpf/retsnoop_abi.h"

enum args_fmt_mode {
	ARGS_FMT_COMPACT = 0,     /* name=value name=value on one line */
	ARGS_FMT_MULTILINE = 1,   /* one `› name = value` row per argument */
	ARGS_FMT_VERBOSE = 2,     /* rows, structs pretty-printed over several lines */
};

#define ARGS_FMT_DEFAULT_WIDTH 120

struct args_fmt {
	enum args_fmt_mode mode;  /* -C args.fmt-mode */
	int max_width;            /* -C args.fmt-max-arg-width: columns per value,
				   * 0 = no limit (verbose mode never cuts) */
	bool ascii;               /* plain ASCII (JSON): "..." for `…`, bytes >= 0x80
				   * of strings escaped as \xNN */
};

/* the recording's BTF and per-function prototype table */
struct args_btf;

/* From the blobs (either may be NULL/0). NULL only when out of memory;
 * a "btf" blob libbpf refuses leaves the object without BTF and
 * args_btf_error() saying why (every argument then renders raw). */
struct args_btf *args_btf_new(const void *btf, size_t btf_size, const void *func_btf,
			      size_t func_btf_size);
void args_btf_free(struct args_btf *ab);
/* why the recording's BTF could not be loaded, or NULL */
const char *args_btf_error(const struct args_btf *ab);
/* BTF id of traced function FUNC_ID's FUNC_PROTO, 0 when unknown */
uint32_t args_btf_proto(const struct args_btf *ab, uint32_t func_id);
/* the loaded BTF (a struct btf *), NULL without one */
const void *args_btf_btf(const struct args_btf *ab);

enum args_state {
	ARGS_OK,          /* value holds the rendering */
	ARGS_NULL,        /* a NULL pointer */
	ARGS_ERR,         /* reading it failed: err */
	ARGS_UNAVAIL,     /* passed on the stack, which fentry cannot read */
	ARGS_CUT,         /* not captured: the per-call budget ran out */
};

struct args_item {
	char *name;        /* BTF parameter name, argN, varargN, or a field name */
	char *type;        /* C type ("struct file *"), NULL when unknown (raw) */
	char *value;       /* text per the mode (ARGS_OK), else the state's text:
			    * `NULL`, `<ERR:-EFAULT>`, `(unavailable: on the
			    * stack, fentry)`, `(trunc)` */
	enum args_state state;
	int err;           /* -errno with ARGS_ERR */
	bool trunc;        /* the captured bytes were cut (shown with `…`) */
	bool user;         /* read from user memory */
};

struct args_list {
	struct args_item *items;
	size_t n, cap;
};

/* REC's arguments into L (appended), rendered per FMT from AB (NULL: no
 * BTF). The record must have been validated (args_store.h). 0, or -1
 * when out of memory. */
int args_render_rec(const struct args_btf *ab, const struct rs_rec_func_args *rec,
		    const struct args_fmt *fmt, struct args_list *l);
/* one value of BTF type TYPE_ID from DATA[0, LEN) appended to L as NAME
 * (LEN shorter than the type: rendered as far as it goes, then `…`;
 * TRUNC marks a capture cut to a budget). For probe contexts and fields.
 * 0, or -1 when out of memory. */
int args_list_add_typed(struct args_list *l, const struct args_btf *ab, const char *name,
			uint32_t type_id, const void *data, size_t len, bool trunc,
			const struct args_fmt *fmt);
/* an item whose value is given as text (STATE ARGS_OK) or is a state */
int args_list_add_text(struct args_list *l, const char *name, const char *type,
		       const char *value, enum args_state state, int err);
void args_list_free(struct args_list *l);

/* the value of TYPE_ID in DATA[0, LEN) as a malloc'd string per FMT (no
 * name), NULL when out of memory */
char *args_render_value(const struct args_btf *ab, uint32_t type_id, const void *data,
			size_t len, bool trunc, const struct args_fmt *fmt);
/* the C name of TYPE_ID ("struct file *"), malloc'd; NULL when unknown */
char *args_type_name(const struct args_btf *ab, uint32_t type_id);

/* compact: "name=value name=value" (no leading or trailing blank) */
void args_print_compact(FILE *f, const struct args_list *l);
/* multiline / verbose: one `› name = value` row per item, each row (and
 * each continuation line of a verbose value) prefixed by INDENT spaces */
void args_print_rows(FILE *f, const struct args_list *l, int indent);

#endif
