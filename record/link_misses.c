/* link_misses.c - reads each attach link's missed count before detaching
 * (link_misses.h): struct bpf_link_info as far as link_info_ext.h spells it,
 * entry and exit links summed, and in kprobe mode the functions that missed
 * most, named in the trailer. */
#include "record/link_misses.h"
#include "record/link_info_ext.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdlib.h>
#include <string.h>

/* the link's missed count; false when the kernel does not report one */
static bool link_fd_missed(int fd, uint64_t *missed)
{
	struct rs_link_info_ext info;
	__u32 len = sizeof(info);

	if (fd < 0)
		return false;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || len < RS_LINK_INFO_MISSED_END)
		return false;
	if (info.type == BPF_LINK_TYPE_KPROBE_MULTI) {
		*missed = info.kprobe_multi.missed;
		return true;
	}
	if (info.type == BPF_LINK_TYPE_PERF_EVENT &&
	    (info.perf_event.type == RS_PERF_EVENT_KPROBE ||
	     info.perf_event.type == RS_PERF_EVENT_KRETPROBE)) {
		*missed = info.perf_event.kprobe.missed;
		return true;
	}
	return false;
}

static bool link_missed(struct bpf_link *l, uint64_t *missed)
{
	return link_fd_missed(l ? bpf_link__fd(l) : -1, missed);
}

struct func_missed {
	uint32_t func;
	uint64_t n;
};

static int by_count_desc(const void *a, const void *b)
{
	const struct func_missed *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* "name=count,..." of the top functions that fit the field */
static void name_top(struct rsf_stats *st, struct func_missed *v, size_t n,
		     const struct selection *sel)
{
	char *out = st->link_misses_funcs;
	size_t cap = sizeof(st->link_misses_funcs), len = 0, named = 0;

	qsort(v, n, sizeof(*v), by_count_desc);
	for (size_t i = 0; i < n && named < LINK_MISSES_TOP; i++) {
		int w = snprintf(out + len, cap - len, "%s%s=%llu", len ? "," : "",
				 sel->v[v[i].func].name, (unsigned long long)v[i].n);

		if (w < 0 || (size_t)w >= cap - len) {   /* does not fit: summed up instead */
			out[len] = '\0';
			break;
		}
		len += (size_t)w;
		named++;
	}
}

/* kprobe mode: links[2k] exit, links[2k+1] entry of function link_funcs[k] */
static void kprobe_links(const struct tracer *t, const struct selection *sel,
			 struct rsf_stats *st)
{
	struct func_missed *v = calloc(t->nlinks / 2 + 1, sizeof(*v));
	size_t n = 0;

	for (size_t k = 0; k + 1 < t->nlinks; k += 2) {
		uint64_t mx = 0, me = 0;

		if (!link_missed(t->links[k], &mx) || !link_missed(t->links[k + 1], &me))
			continue;
		st->link_misses_known = 1;
		st->link_misses_exit += mx;
		st->link_misses_entry += me;
		if (mx + me && v && t->link_funcs[k / 2] < sel->n)
			v[n++] = (struct func_missed){ t->link_funcs[k / 2], mx + me };
	}
	st->link_misses_nfuncs = n;
	if (v)
		name_top(st, v, n, sel);
	free(v);
}

void tracer_link_misses(const struct tracer *t, const struct selection *sel,
			struct rsf_stats *st)
{
	uint64_t mx = 0, me = 0;

	st->link_misses_known = 0;
	st->link_misses_entry = st->link_misses_exit = st->link_misses_nfuncs = 0;
	st->link_misses_funcs[0] = '\0';
	if (t->mode == ATTACH_KPROBE && t->link_funcs) {
		kprobe_links(t, sel, st);
	} else if (t->mode == ATTACH_KPROBE_MULTI && t->nlinks >= 2 &&
		   link_missed(t->links[0], &mx) && link_missed(t->links[1], &me)) {
		/* attach_multi pushes the exit link, then the entry link */
		st->link_misses_known = 1;
		st->link_misses_exit = mx;
		st->link_misses_entry = me;
	} else if (t->session && t->session_fd >= 0 && link_fd_missed(t->session_fd, &me)) {
		/* one kprobe.session link: its misses, at either end, as entry's */
		st->link_misses_known = 1;
		st->link_misses_entry = me;
	}
}
