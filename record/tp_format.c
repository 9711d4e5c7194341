/* tp_format.c - parser of tracefs tracepoint format files (tp_format.h).
 * A field line reads "\tfield:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:X;". */
#include "record/tp_format.h"
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the field's name: the last identifier of the declaration, before any [N] */
static void decl_name(const char *decl, size_t len, char *out, size_t outlen)
{
	size_t end = len, start;

	while (end > 0 && decl[end - 1] == ']') {
		while (end > 0 && decl[end - 1] != '[')
			end--;
		if (end > 0)
			end--;
	}
	while (end > 0 && decl[end - 1] == ' ')
		end--;
	start = end;
	while (start > 0 && decl[start - 1] != ' ' && decl[start - 1] != '*')
		start--;
	snprintf(out, outlen, "%.*s", (int)(end - start), decl + start);
}

static int parse_line(const char *line, struct tp_field *f)
{
	const char *decl = strstr(line, "field:"), *semi, *o, *s;

	if (!decl)
		return -1;
	decl += 6;
	semi = strchr(decl, ';');
	o = strstr(line, "offset:");
	s = strstr(line, "size:");
	if (!semi || !o || !s)
		return -1;
	memset(f, 0, sizeof(*f));
	decl_name(decl, (size_t)(semi - decl), f->name, sizeof(f->name));
	f->offset = (uint32_t)strtoul(o + 7, NULL, 10);
	f->size = (uint32_t)strtoul(s + 5, NULL, 10);
	f->data_loc = strstr(decl, "__data_loc") && strstr(decl, "__data_loc") < semi;
	f->is_signed = strstr(line, "signed:1") != NULL;
	f->is_ptr = memchr(decl, '*', (size_t)(semi - decl)) != NULL;
	f->is_array = memchr(decl, '[', (size_t)(semi - decl)) != NULL;
	f->common = !strncmp(f->name, "common_", 7);
	return f->name[0] ? 0 : -1;
}

int tp_format_parse(const char *text, struct tp_format *out)
{
	const char *p = text;

	memset(out, 0, sizeof(*out));
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];
		struct tp_field f;

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p = nl ? nl + 1 : NULL;
		if (parse_line(line, &f) || out->n >= TP_FORMAT_MAX_FIELDS)
			continue;
		out->f[out->n++] = f;
		if (f.offset + f.size > out->fixed_size)
			out->fixed_size = f.offset + f.size;
		if (f.data_loc)
			out->has_data_loc = true;
	}
	return out->n ? 0 : -1;
}

/* an integer type of SIZE bytes (1, 2, 4, 8) */
static int int_type(struct btf *btf, uint32_t size, bool sgn)
{
	static const char *const names[2][4] = {
		{ "unsigned char", "short unsigned int", "unsigned int", "long unsigned int" },
		{ "signed char", "short int", "int", "long int" },
	};
	int k = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;

	return btf__add_int(btf, names[sgn][k], (size_t)size, sgn ? BTF_INT_SIGNED : 0);
}

int tp_format_btf(const struct tp_format *f, const char *name, struct btf *btf)
{
	uint32_t common_end = 0;
	int u8 = int_type(btf, 1, false), u32 = int_type(btf, 4, false), id, ent;
	int types[TP_FORMAT_MAX_FIELDS];

	if (u8 < 0 || u32 < 0)
		return -1;
	/* the member types first: a struct's members follow it directly */
	for (size_t i = 0; i < f->n; i++) {
		const struct tp_field *x = &f->f[i];
		bool scalar = !x->is_array && (x->size == 1 || x->size == 2 || x->size == 4 ||
					       x->size == 8);

		if (x->common) {
			if (x->offset + x->size > common_end)
				common_end = x->offset + x->size;
			types[i] = 0;
		} else if (x->data_loc)
			types[i] = u32;
		else if (x->is_ptr && x->size == 8)
			types[i] = int_type(btf, 8, false);
		else if (scalar)
			types[i] = int_type(btf, x->size, x->is_signed);
		else
			types[i] = btf__add_array(btf, u32, u8, x->size);
		if (types[i] < 0)
			return -1;
	}
	ent = common_end ? btf__add_array(btf, u32, u8, common_end) : 0;   /* the common fields */
	if (ent < 0)
		return -1;
	id = btf__add_struct(btf, name, (f->fixed_size + 7) & ~7u);
	if (id < 0 || (common_end && btf__add_field(btf, "ent", ent, 0, 0)))
		return -1;
	for (size_t i = 0; i < f->n; i++) {
		char dl[96];
		const struct tp_field *x = &f->f[i];

		if (x->common)
			continue;
		snprintf(dl, sizeof(dl), "__data_loc_%s", x->name);
		if (btf__add_field(btf, x->data_loc ? dl : x->name, types[i], x->offset * 8, 0))
			return -1;
	}
	return id;
}

int tp_format_load(const char *root, const char *cat, const char *name, struct tp_format *out,
		   char *err, size_t errlen)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[512], *text = NULL;
	size_t len = 0;
	FILE *f = NULL, *m;

	for (size_t i = 0; !f && i < (root ? 1 : sizeof(roots) / sizeof(roots[0])); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", root ? root : roots[i], cat, name);
		f = fopen(path, "r");
	}
	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	m = open_memstream(&text, &len);
	if (m) {
		char buf[4096];
		size_t n;

		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, m);
		fclose(m);
	}
	fclose(f);
	if (!m || !text || tp_format_parse(text, out)) {
		snprintf(err, errlen, "%s lists no field", path);
		free(text);
		return -1;
	}
	free(text);
	return 0;
}
