/* probe_spec.c - parsing of -J specs and expansion of tracepoint globs
 * over tracefs available_events (probe_spec.h). */
#include "record/probe_spec.h"
#include "common/array_grow.h"
#include "common/glob.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMS "kprobe:NAME[+OFF], kretprobe:NAME, rawtp:NAME or tp:CATEGORY:NAME"

static const struct { const char *prefix; enum rsf_probe_kind kind; } kinds[] = {
	{ "kprobe:", RSF_PROBE_KPROBE }, { "kretprobe:", RSF_PROBE_KRETPROBE },
	{ "rawtp:", RSF_PROBE_RAWTP }, { "tp:", RSF_PROBE_TP },
};

/* symbol names: letters, digits, '_' and (kprobes: GCC clones like
 * foo.isra.0) '.'; tracepoint parts: '*' and '?' globs too */
static bool name_ok(const char *s, size_t len, bool dots, bool globs)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '_' || (dots && c == '.') || (globs && (c == '*' || c == '?')))
			continue;
		return false;
	}
	return true;
}

static int bad(char *err, size_t errlen, const char *text, const char *why)
{
	snprintf(err, errlen, "bad probe '%s': %s", text, why);
	return -1;
}

/* "NAME[+OFF]" of a kprobe */
static int parse_kprobe(const char *text, const char *rest, struct probe_spec *out,
			char *err, size_t errlen)
{
	const char *plus = strchr(rest, '+');
	size_t len = plus ? (size_t)(plus - rest) : strlen(rest);

	if (!name_ok(rest, len, true, false))
		return bad(err, errlen, text, "expected a function name (letters, digits, '_', '.')");
	if (plus) {
		char *end;

		if (out->kind != RSF_PROBE_KPROBE)
			return bad(err, errlen, text, "only kprobe: takes a +OFFSET");
		errno = 0;
		out->offset = strtoull(plus + 1, &end, 0);
		if (errno || end == plus + 1 || *end || plus[1] == '-' || plus[1] == '+')
			return bad(err, errlen, text, "expected +OFFSET as a decimal or 0x hex number");
	}
	out->name = strndup(rest, len);
	return out->name ? 0 : bad(err, errlen, text, "out of memory");
}

int probe_spec_parse(const char *text, struct probe_spec *out, char *err, size_t errlen)
{
	const char *rest = NULL;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(text, kinds[i].prefix, strlen(kinds[i].prefix))) {
			out->kind = kinds[i].kind;
			rest = text + strlen(kinds[i].prefix);
			break;
		}
	if (!rest) {
		snprintf(err, errlen, "bad probe '%s': expected " FORMS, text);
		return -1;
	}
	if (out->kind == RSF_PROBE_KPROBE || out->kind == RSF_PROBE_KRETPROBE) {
		if (parse_kprobe(text, rest, out, err, errlen))
			goto fail;
	} else if (out->kind == RSF_PROBE_RAWTP) {
		if (!name_ok(rest, strlen(rest), false, false)) {
			bad(err, errlen, text, "expected a tracepoint name (letters, digits, '_')");
			goto fail;
		}
		out->name = strdup(rest);
	} else {
		const char *colon = strchr(rest, ':');

		if (!colon || !name_ok(rest, (size_t)(colon - rest), false, true) ||
		    !name_ok(colon + 1, strlen(colon + 1), false, true)) {
			bad(err, errlen, text, "expected tp:CATEGORY:NAME (letters, digits, '_', "
			    "with * and ? globs)");
			goto fail;
		}
		out->category = strndup(rest, (size_t)(colon - rest));
		out->name = strdup(colon + 1);
	}
	out->text = strdup(text);
	if (!out->text || !out->name || (out->kind == RSF_PROBE_TP && !out->category)) {
		bad(err, errlen, text, "out of memory");
		goto fail;
	}
	return 0;
fail:
	probe_spec_free(out);
	return -1;
}

void probe_spec_free(struct probe_spec *s)
{
	free(s->text);
	free(s->category);
	free(s->name);
	memset(s, 0, sizeof(*s));
}

bool probe_spec_is_glob(const struct probe_spec *s)
{
	return s->kind == RSF_PROBE_TP &&
	       (strpbrk(s->category, "*?") != NULL || strpbrk(s->name, "*?") != NULL);
}

void probe_display_name(enum rsf_probe_kind kind, const char *cat, const char *name,
			uint64_t offset, char *buf, size_t len)
{
	switch (kind) {
	case RSF_PROBE_KPROBE:
		snprintf(buf, len, "kprobe:%s+0x%" PRIx64, name, offset);
		break;
	case RSF_PROBE_TP:
		snprintf(buf, len, "tp:%s:%s", cat, name);
		break;
	default:
		snprintf(buf, len, "%s:%s", rsf_probe_kind_name(kind), name);
	}
}

/* ------------------------------------------------------- tracepoint list */
int tp_list_add(struct tp_list *l, const char *cat_name)
{
	char *s;

	if (array_grow((void **)&l->v, l->n, &l->cap, sizeof(*l->v), 256) ||
	    !(s = strdup(cat_name)))
		return -1;
	l->v[l->n++] = s;
	return 0;
}

int tp_list_load(struct tp_list *l, const char *path, char *err, size_t errlen)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/available_events",
		"/sys/kernel/debug/tracing/available_events",
	};
	char line[512];
	FILE *f = NULL;

	for (size_t i = 0; !path && i < sizeof(paths) / sizeof(paths[0]) && !f; i++)
		f = fopen(paths[i], "r");
	if (path)
		f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "cannot read the tracepoint list (%s: %s; is tracefs mounted?)",
			 path ? path : paths[0], strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] && strchr(line, ':') && tp_list_add(l, line)) {
			fclose(f);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	fclose(f);
	return 0;
}

void tp_list_free(struct tp_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int probe_spec_match_tp(const struct probe_spec *s, const struct tp_list *l,
			size_t **out, size_t *n, char *err, size_t errlen)
{
	size_t *v = NULL, cnt = 0, cap = 0;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < l->n; i++) {
		const char *colon = strchr(l->v[i], ':');
		char cat[256];
		size_t cl = (size_t)(colon - l->v[i]);

		if (cl >= sizeof(cat))
			continue;
		memcpy(cat, l->v[i], cl);
		cat[cl] = '\0';
		if (!glob_match(s->category, cat) || !glob_match(s->name, colon + 1))
			continue;
		if (array_grow((void **)&v, cnt, &cap, sizeof(*v), 16)) {
			free(v);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		v[cnt++] = i;
	}
	if (!cnt) {
		snprintf(err, errlen, probe_spec_is_glob(s) ?
			 "probe '%s' matches no tracepoint (see tracefs available_events)" :
			 "probe '%s': no such tracepoint (see tracefs available_events)", s->text);
		return -1;
	}
	*out = v;
	*n = cnt;
	return 0;
}
