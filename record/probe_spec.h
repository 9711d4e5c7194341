/* probe_spec.h - the -J/--inject-probe specs: parsing one spec
 * (kprobe:NAME[+OFF], kretprobe:NAME, rawtp:NAME, tp:CATEGORY:NAME with
 * * and ? globs in the tracepoint's category and name), and expanding the
 * tracepoint globs over the kernel's tracepoint list (tracefs
 * available_events). Pure string work: attaching is probe_attach.h. */
#ifndef RS_PROBE_SPEC_H
#define RS_PROBE_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/probe_table.h"

struct probe_spec {
	enum rsf_probe_kind kind;
	char *text;          /* the spec as given */
	char *category;      /* tp: the event's category (may be a glob), else NULL */
	char *name;          /* function, raw tracepoint or event name (tp: may be a glob) */
	uint64_t offset;     /* kprobe: +OFF */
};

/* Parses TEXT. 0, or -1 with a one-line reason in err (naming the forms
 * when the kind is unknown). */
int probe_spec_parse(const char *text, struct probe_spec *out, char *err, size_t errlen);
void probe_spec_free(struct probe_spec *s);
/* does a tp spec hold a glob (* or ?) */
bool probe_spec_is_glob(const struct probe_spec *s);
/* the row name of a resolved probe: "kprobe:NAME+0xOFF", "kretprobe:NAME",
 * "rawtp:NAME", "tp:CAT:NAME"; CAT is used for tp only */
void probe_display_name(enum rsf_probe_kind kind, const char *cat, const char *name,
			uint64_t offset, char *buf, size_t len);

/* the kernel's tracepoints as "CATEGORY:NAME" strings */
struct tp_list {
	char **v;
	size_t n, cap;
};
/* reads tracefs available_events (PATH NULL: the usual mount points).
 * 0, or -1 with the reason in err. */
int tp_list_load(struct tp_list *l, const char *path, char *err, size_t errlen);
int tp_list_add(struct tp_list *l, const char *cat_name);
void tp_list_free(struct tp_list *l);

/* the tracepoints a tp spec names, in list order, as indexes into L
 * (*out malloc'ed, *n how many). 0 with *n >= 1, or -1 with a one-line
 * reason in err (no such tracepoint, a glob that matches none). */
int probe_spec_match_tp(const struct probe_spec *s, const struct tp_list *l,
			size_t **out, size_t *n, char *err, size_t errlen);

#endif
