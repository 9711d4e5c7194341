/* rsf_kv.c - self-describing key/value sections (metadata block and
 * trailer): the field tables naming every struct rsf_meta / rsf_stats
 * member, and their encoder and tolerant decoder (unknown keys skipped,
 * missing keys left zero). */
#include <stddef.h>
#include <string.h>
#include "rsf_internal.h"

#define KV_ENT_HDR 8    /* u16 key_len, u8 type, u8 reserved, u32 val_len */
#define NO_LEN ((size_t)-1)

#define M_U(key, m)   { key, RSF_KV_U64, sizeof(((struct rsf_meta *)0)->m), offsetof(struct rsf_meta, m), NO_LEN, false }
#define M_I(key, m)   { key, RSF_KV_I64, sizeof(((struct rsf_meta *)0)->m), offsetof(struct rsf_meta, m), NO_LEN, false }
#define M_S(key, m)   { key, RSF_KV_STR, sizeof(((struct rsf_meta *)0)->m), offsetof(struct rsf_meta, m), NO_LEN, false }
#define M_B(key, m, l) { key, RSF_KV_BYTES, sizeof(((struct rsf_meta *)0)->m), offsetof(struct rsf_meta, m), offsetof(struct rsf_meta, l), false }
#define M_UZ(key, m)  { key, RSF_KV_U64, sizeof(((struct rsf_meta *)0)->m), offsetof(struct rsf_meta, m), NO_LEN, true }
#define S_U(key, m)   { key, RSF_KV_U64, sizeof(((struct rsf_stats *)0)->m), offsetof(struct rsf_stats, m), NO_LEN, false }
#define S_UZ(key, m)  { key, RSF_KV_U64, sizeof(((struct rsf_stats *)0)->m), offsetof(struct rsf_stats, m), NO_LEN, true }
#define S_S(key, m)   { key, RSF_KV_STR, sizeof(((struct rsf_stats *)0)->m), offsetof(struct rsf_stats, m), NO_LEN, false }

const struct rsf_kv_field rsf_meta_fields[] = {
	M_S("recorder_version", recorder_version),
	M_S("cmdline", cmdline),
	M_S("uts.release", uts_release),
	M_S("uts.version", uts_version),
	M_S("uts.machine", uts_machine),
	M_S("hostname", hostname),
	M_B("kernel.build_id", build_id, build_id_len),
	M_U("kernel.stext", stext_addr),
	M_U("kernel.text", text_addr),
	M_I("clock.mono_to_realtime_ns", mono_to_realtime_ns),
	M_U("start_realtime_ns", start_realtime_ns),
	M_S("attach_mode", attach_mode),
	M_U("features", features),
	M_U("mode", mode),
	M_U("lbr.flags", lbr_flags),
	M_S("lbr.status", lbr_status),
	M_UZ("ring.max_size", max_size),    /* flight recordings only: v1 files keep their keys */
};
const size_t rsf_meta_nfields = sizeof(rsf_meta_fields) / sizeof(rsf_meta_fields[0]);

const struct rsf_kv_field rsf_stats_fields[] = {
	S_U("bpf.sessions_emitted", bpf.sessions_emitted),
	S_U("bpf.sessions_dropped", bpf.sessions_dropped),
	S_U("bpf.sessions_incomplete", bpf.sessions_incomplete),
	S_U("bpf.sessions_table_full", bpf.sessions_table_full),
	S_U("bpf.sessions_exited", bpf.sessions_exited),
	S_U("bpf.records_dropped", bpf.records_dropped),
	S_U("bpf.depth_overflows", bpf.depth_overflows),
	S_U("bpf.exit_mismatches", bpf.exit_mismatches),
	S_U("bpf.args_dropped", bpf.args_dropped),
	S_U("records_written", records_written),
	S_U("chunks_written", chunks_written),
	S_U("ringbuf_lost", ringbuf_lost),
	S_U("attach_ns", attach_ns),
	S_U("detach_ns", detach_ns),
	S_U("funcs_attached", funcs_attached),
	S_U("funcs_failed", funcs_failed),
	S_U("end_realtime_ns", end_realtime_ns),
	S_U("bpf.prog_misses", prog_misses),
	S_U("bpf.prog_misses_known", prog_misses_known),
	S_U("bpf.prog_misses.entry", prog_misses_entry),
	S_U("bpf.prog_misses.exit", prog_misses_exit),
	S_U("bpf.link_misses_known", link_misses_known),
	S_U("bpf.link_misses.entry", link_misses_entry),
	S_U("bpf.link_misses.exit", link_misses_exit),
	S_U("bpf.link_misses.nfuncs", link_misses_nfuncs),
	S_S("bpf.link_misses.funcs", link_misses_funcs),
	S_UZ("bpf.ustacks_dropped", bpf.ustacks_dropped),   /* -U only */
	S_UZ("umaps_gone", umaps_gone),
	S_UZ("bpf.stacks_deferred", bpf.stacks_deferred),
	S_UZ("bpf.stacks_completed", bpf.stacks_completed),
	S_UZ("bpf.stacks_read", bpf.stacks_read),
	S_UZ("bpf.tails_read", bpf.tails_read),
	S_UZ("bpf.prog_misses.probes", prog_misses_probes),   /* -J only */
};
const size_t rsf_stats_nfields = sizeof(rsf_stats_fields) / sizeof(rsf_stats_fields[0]);

static int put_entry(struct rsf_buf *out, const char *key, uint8_t type,
		     const void *val, uint32_t val_len)
{
	size_t klen = strlen(key);
	uint8_t h[KV_ENT_HDR];
	uint16_t kl = (uint16_t)klen;

	memcpy(h, &kl, 2);
	h[2] = type;
	h[3] = 0;
	rsf_put32(h + 4, val_len);
	if (rsf_buf_append(out, h, sizeof(h)) || rsf_buf_append(out, key, klen) ||
	    rsf_buf_append(out, val, val_len))
		return -1;
	return 0;
}

int rsf_kv_encode(const struct rsf_kv_field *fields, size_t nfields,
		  const void *obj, struct rsf_buf *out, uint32_t *count)
{
	const uint8_t *base = obj;

	*count = 0;
	for (size_t i = 0; i < nfields; i++) {
		const struct rsf_kv_field *f = &fields[i];
		const uint8_t *m = base + f->off;
		uint64_t v = 0;
		uint32_t len;

		switch (f->type) {
		case RSF_KV_U64:
			if (f->size == 4) {
				uint32_t v32;
				memcpy(&v32, m, 4);
				v = v32;
			} else {
				memcpy(&v, m, 8);
			}
			if (f->omit_zero && !v)
				continue;
			if (put_entry(out, f->key, f->type, &v, 8))
				return -1;
			break;
		case RSF_KV_I64:
			memcpy(&v, m, 8);
			if (put_entry(out, f->key, f->type, &v, 8))
				return -1;
			break;
		case RSF_KV_STR:
			if (put_entry(out, f->key, f->type, m, (uint32_t)strnlen((const char *)m, f->size)))
				return -1;
			break;
		case RSF_KV_BYTES:
			memcpy(&len, base + f->len_off, 4);
			if (len > f->size)
				len = f->size;
			if (put_entry(out, f->key, f->type, m, len))
				return -1;
			break;
		}
		(*count)++;
	}
	return 0;
}

static void store_field(const struct rsf_kv_field *f, uint8_t *base,
			const uint8_t *val, uint32_t vlen)
{
	uint8_t *m = base + f->off;

	switch (f->type) {
	case RSF_KV_U64:
	case RSF_KV_I64: {
		uint64_t v = rsf_get64(val);
		if (f->size == 4) {
			uint32_t v32 = (uint32_t)v;
			memcpy(m, &v32, 4);
		} else {
			memcpy(m, &v, 8);
		}
		break;
	}
	case RSF_KV_STR: {
		size_t n = vlen < (size_t)f->size - 1 ? vlen : (size_t)f->size - 1;
		memset(m, 0, f->size);
		memcpy(m, val, n);
		break;
	}
	case RSF_KV_BYTES: {
		uint32_t n = vlen < f->size ? vlen : f->size;
		memset(m, 0, f->size);
		memcpy(m, val, n);
		memcpy(base + f->len_off, &n, 4);
		break;
	}
	}
}

const char *rsf_kv_decode(const struct rsf_kv_field *fields, size_t nfields,
			  const uint8_t *data, size_t len, uint32_t count, void *obj)
{
	size_t pos = 0;
	uint32_t seen = 0;

	while (pos < len) {
		if (len - pos < KV_ENT_HDR)
			return "key/value entry header overflows the block";
		uint16_t klen;
		memcpy(&klen, data + pos, 2);
		uint8_t type = data[pos + 2];
		uint32_t vlen = rsf_get32(data + pos + 4);
		pos += KV_ENT_HDR;
		if (len - pos < klen || len - pos - klen < vlen)
			return "key/value entry overflows the block";
		const char *key = (const char *)data + pos;
		const uint8_t *val = data + pos + klen;
		pos += (size_t)klen + vlen;
		seen++;

		for (size_t i = 0; i < nfields; i++) {
			const struct rsf_kv_field *f = &fields[i];
			if (strlen(f->key) != klen || memcmp(f->key, key, klen))
				continue;
			/* a known key with another type is treated as unknown */
			if (f->type != type)
				break;
			if ((type == RSF_KV_U64 || type == RSF_KV_I64) && vlen != 8)
				break;
			store_field(f, obj, val, vlen);
			break;
		}
	}
	if (seen != count)
		return "key/value entry count mismatch";
	return NULL;
}
