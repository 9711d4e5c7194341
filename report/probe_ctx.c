/* probe_ctx.c - a probe hit's captured context as rendered values
 * (probe_ctx.h). The record was validated by probe_store.c: ctx_len bytes
 * of data[] are there. */
#include <bpf/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../format/probe_table.h"
#include "args_value.h"
#include "probe_ctx.h"


const struct rs_rec_probe *rp_probe_find(const struct rp_session *s, uint32_t seq_id)
{
	size_t lo = 0, hi = s->nprobes;

	while (lo < hi) {   /* the hits are in sequence order */
		size_t mid = lo + (hi - lo) / 2;

		if (s->probes[mid]->seq_id < seq_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nprobes && s->probes[lo]->seq_id == seq_id ? s->probes[lo] : NULL;
}

/* 'text' with non-printable bytes as \xNN, cut to WIDTH columns (0: no
 * limit) or marked cut when TRUNC */
static int add_string(struct args_list *l, const char *name, const uint8_t *s, size_t len,
		      bool trunc, int width, bool ascii)
{
	char *buf = malloc(len * 4 + 16), *p = buf;
	int cols = 1, ret;

	if (!buf)
		return -1;
	*p++ = '\'';
	for (size_t i = 0; i < len && s[i]; i++) {
		if (width > 0 && cols >= width - 1) {
			trunc = true;
			break;
		}
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\' && s[i] != '\'')
			*p++ = (char)s[i], cols++;
		else
			p += sprintf(p, "\\x%02x", s[i]), cols += 4;
	}
	*p++ = '\'';
	*p = '\0';
	if (trunc)
		strcat(p, av_cut_mark(ascii));
	ret = args_list_add_text(l, name, "char[]", buf, ARGS_OK, 0);
	if (!ret)
		l->items[l->n - 1].trunc = trunc;
	free(buf);
	return ret;
}

/* a __data_loc field: u32 offset | length << 16, inside the record */
static int add_data_loc(struct args_list *l, const char *name, const uint8_t *data, size_t len,
			size_t off, const struct args_fmt *fmt)
{
	uint32_t dl, doff, dlen;

	if (off + 4 > len)
		return args_list_add_text(l, name, "char[]", NULL, ARGS_CUT, 0);
	memcpy(&dl, data + off, 4);
	doff = dl & 0xffff;
	dlen = dl >> 16;
	if (doff >= len)
		return args_list_add_text(l, name, "char[]", NULL, ARGS_CUT, 0);
	return add_string(l, name, data + doff, doff + dlen > len ? len - doff : dlen,
			  doff + dlen > len, fmt->mode == ARGS_FMT_VERBOSE ? 0 : fmt->max_width,
			  fmt->ascii);
}

/* struct trace_event_raw_<class>: its fields after `ent`, before `__data` */
static int tp_fields(struct args_list *l, const struct args_btf *ab, const struct btf *btf,
		     uint32_t id, const uint8_t *data, size_t len, bool trunc,
		     const struct args_fmt *fmt)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	int ret = 0;

	if (!t || !btf_is_struct(t))
		return 1;
	m = btf_members(t);
	for (unsigned i = 0; i < btf_vlen(t) && !ret; i++) {
		const char *name = btf__name_by_offset(btf, m[i].name_off);
		uint32_t bits = btf_member_bit_offset(t, i), off = bits / 8;
		int64_t size = btf__resolve_size(btf, m[i].type);

		if (!name || !strcmp(name, "ent") || !strcmp(name, "__data") ||
		    btf_member_bitfield_size(t, i) || bits % 8 || size <= 0)
			continue;
		if (!strncmp(name, "__data_loc_", 11))
			ret = add_data_loc(l, name + 11, data, len, off, fmt);
		else if (off >= len)
			ret = args_list_add_text(l, name, NULL, NULL, ARGS_CUT, 0);
		else
			ret = args_list_add_typed(l, ab, name, m[i].type, data + off,
						  off + (size_t)size > len ? len - off : (size_t)size,
						  trunc && off + (size_t)size > len, fmt);
	}
	return ret;
}

/* a raw tracepoint's prototype: (void *__data, args...), each arg in a u64 */
static int rawtp_args(struct args_list *l, const struct args_btf *ab, const struct btf *btf,
		      uint32_t id, const uint8_t *data, size_t len, const struct args_fmt *fmt)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_param *p;
	int ret = 0;

	if (!t || !btf_is_func_proto(t))
		return 1;
	p = btf_params(t);
	for (unsigned i = 1; i < btf_vlen(t) && !ret; i++) {
		const char *name = btf__name_by_offset(btf, p[i].name_off);
		size_t off = (i - 1) * 8u;
		int64_t size = btf__resolve_size(btf, p[i].type);
		char nb[16];

		if (!name || !*name) {
			snprintf(nb, sizeof(nb), "arg%u", i - 1);
			name = nb;
		}
		if (off + 8 > len)
			ret = args_list_add_text(l, name, NULL, NULL, ARGS_CUT, 0);
		else
			ret = args_list_add_typed(l, ab, name, p[i].type, data + off,
						  size > 0 && size < 8 ? (size_t)size : 8, false, fmt);
	}
	return ret;
}

bool rp_probe_ctx(const struct rp_env *env, const struct rs_rec_probe *p,
		  const struct args_fmt *fmt, struct args_list *l)
{
	const struct btf *btf = args_btf_btf(env->args_btf);
	bool trunc = p->flags & RS_PROBEF_TRUNC;
	size_t len = p->ctx_len > 0 ? (size_t)p->ctx_len : 0;
	struct rsf_probe pr = { 0 };
	int ret = 1;
	char buf[64];

	if (p->flags & RS_PROBEF_CTX_ERR)
		return args_list_add_text(l, "ctx", NULL, NULL, ARGS_ERR, p->ctx_len) == 0;
	if (!(p->flags & RS_PROBEF_CTX))
		return false;
	if (btf && rsf_probes_get(env->probes_blob, env->probes_size, p->probe_id, &pr) == 0 &&
	    pr.btf_id) {
		if (pr.kind == RSF_PROBE_KPROBE || pr.kind == RSF_PROBE_KRETPROBE)
			ret = args_list_add_typed(l, env->args_btf, "regs", pr.btf_id, p->data, len,
						  trunc, fmt);
		else if (pr.kind == RSF_PROBE_RAWTP)
			ret = rawtp_args(l, env->args_btf, btf, pr.btf_id, p->data, len, fmt);
		else
			ret = tp_fields(l, env->args_btf, btf, pr.btf_id, p->data, len, trunc, fmt);
	}
	if (ret > 0) {   /* no type for it: its size */
		snprintf(buf, sizeof(buf), "<%zu bytes%s, no BTF>", len, trunc ? ", cut" : "");
		ret = args_list_add_text(l, "ctx", NULL, buf, ARGS_OK, 0);
	}
	return ret == 0;
}
