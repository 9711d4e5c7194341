/* rsf_trace_pack.c - packs TRACE_BATCH records into TRACE_PACKED and back
 * (see rsf_trace_pack.h; the layout is in docs/format.md). Per entry: a
 * flags byte (exit, result not 0, latency not 0), then varints: the time
 * and the sequence id as zigzag deltas from the entry before (a sequence
 * id's delta less one: usually 0), the function id, the depth's zigzag
 * delta, and the result (zigzag) and latency when flagged. */
#include "rsf_trace_pack.h"
#include <string.h>

#define PACKED_FIXED offsetof(struct rs_rec_trace_packed, data)
#define BATCH_FIXED offsetof(struct rs_rec_trace_batch, e)

enum { F_EXIT = 1, F_RES = 2, F_LAT = 4 };

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static uint8_t *put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* one varint from [*p, end): false past the end or past 10 bytes, or when
 * a 10th byte holds more than the 64th bit */
static int get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;

	for (unsigned i = 0; i < 10; i++) {
		if (*p >= end)
			return 0;
		uint8_t b = *(*p)++;

		if (i == 9 && b > 1)
			return 0;
		r |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = r;
			return 1;
		}
	}
	return 0;
}

uint32_t rsf_trace_pack(const struct rs_rec_hdr *batch, void *out)
{
	const uint8_t *in = (const uint8_t *)batch, *ent;
	struct rs_rec_trace_packed hdr;
	uint8_t *base = out, *p = base + PACKED_FIXED;   /* at most 46 bytes an entry */
	uint64_t prev_ts = 0, ts, lat;
	uint32_t n, prev_seq = UINT32_MAX, prev_depth = 0, size, seq, func;
	uint16_t depth, type;
	int64_t res;

	memcpy(&n, in + offsetof(struct rs_rec_trace_batch, n), sizeof(n));
	if (n > RS_TRACE_BATCH)
		n = RS_TRACE_BATCH;
	ent = in + BATCH_FIXED;
	/* each field read on its own (unaligned-safe), not the whole entry */
	for (uint32_t i = 0; i < n; i++, ent += sizeof(struct rs_trace_ent)) {
		memcpy(&type, ent + offsetof(struct rs_trace_ent, type), sizeof(type));
		memcpy(&ts, ent + offsetof(struct rs_trace_ent, ts), sizeof(ts));
		memcpy(&seq, ent + offsetof(struct rs_trace_ent, seq_id), sizeof(seq));
		memcpy(&func, ent + offsetof(struct rs_trace_ent, func_id), sizeof(func));
		memcpy(&depth, ent + offsetof(struct rs_trace_ent, depth), sizeof(depth));
		memcpy(&res, ent + offsetof(struct rs_trace_ent, res), sizeof(res));
		memcpy(&lat, ent + offsetof(struct rs_trace_ent, lat_ns), sizeof(lat));
		if (type != RS_REC_TRACE_ENTRY && type != RS_REC_TRACE_EXIT)
			return 0;
		*p++ = (uint8_t)((type == RS_REC_TRACE_EXIT ? F_EXIT : 0) | (res ? F_RES : 0) |
				 (lat ? F_LAT : 0));
		p = put(p, zz((int64_t)(ts - prev_ts)));
		p = put(p, zz((int32_t)(seq - prev_seq - 1)));
		p = put(p, func);
		p = put(p, zz((int32_t)(depth - prev_depth)));
		if (res)
			p = put(p, zz(res));
		if (lat)
			p = put(p, lat);
		prev_ts = ts;
		prev_seq = seq;
		prev_depth = depth;
	}
	memset(&hdr, 0, sizeof(hdr));
	hdr.hdr.type = RS_REC_TRACE_PACKED;
	memcpy(&hdr.sess_id, in + offsetof(struct rs_rec_trace_batch, sess_id), sizeof(hdr.sess_id));
	hdr.n = n;
	hdr.nbytes = (uint32_t)(p - (base + PACKED_FIXED));
	size = (uint32_t)(p - base);
	hdr.hdr.size = size;
	memcpy(base, &hdr, PACKED_FIXED);
	memset(p, 0, RS_REC_ALIGN(size) - size);
	return size;
}

int rsf_trace_unpack(const struct rs_rec_hdr *rec, size_t size, struct rs_rec_trace_batch *batch)
{
	const uint8_t *in = (const uint8_t *)rec, *p, *end;
	struct rs_rec_trace_packed hdr;
	uint64_t prev_ts = 0, v;
	uint32_t prev_seq = UINT32_MAX, prev_depth = 0;

	if (size < PACKED_FIXED || rec->type != RS_REC_TRACE_PACKED || rec->size > size ||
	    rec->size < PACKED_FIXED)
		return 1;
	memcpy(&hdr, in, PACKED_FIXED);
	if (hdr.n == 0 || hdr.n > RS_TRACE_BATCH || hdr.nbytes != rec->size - PACKED_FIXED)
		return 1;
	/* the padding up to 8 is zero (the record's bytes are all defined) */
	for (size_t i = rec->size; i < RS_REC_ALIGN(rec->size) && i < size; i++)
		if (in[i])
			return 1;
	memset(batch, 0, sizeof(*batch));
	batch->hdr.type = RS_REC_TRACE_BATCH;
	batch->hdr.size = (uint32_t)(BATCH_FIXED + hdr.n * sizeof(struct rs_trace_ent));
	batch->sess_id = hdr.sess_id;
	batch->n = hdr.n;
	p = in + PACKED_FIXED;
	end = p + hdr.nbytes;
	for (uint32_t i = 0; i < hdr.n; i++) {
		struct rs_trace_ent *e = &batch->e[i];
		uint8_t fl;

		if (p >= end)
			return 1;
		fl = *p++;
		if (fl & ~(F_EXIT | F_RES | F_LAT))
			return 1;
		e->type = (fl & F_EXIT) ? RS_REC_TRACE_EXIT : RS_REC_TRACE_ENTRY;
		if (!get(&p, end, &v))
			return 1;
		e->ts = prev_ts + (uint64_t)unzz(v);
		if (!get(&p, end, &v) || (int64_t)unzz(v) != (int32_t)unzz(v))
			return 1;
		e->seq_id = prev_seq + 1 + (uint32_t)unzz(v);
		if (!get(&p, end, &v) || v > UINT32_MAX)
			return 1;
		e->func_id = (uint32_t)v;
		if (!get(&p, end, &v) || (int64_t)unzz(v) != (int32_t)unzz(v))
			return 1;
		uint32_t d = prev_depth + (uint32_t)unzz(v);
		if (d > UINT16_MAX)
			return 1;
		e->depth = (uint16_t)d;
		if ((fl & F_RES) && (!get(&p, end, &v) || !v))
			return 1;
		e->res = (fl & F_RES) ? unzz(v) : 0;
		if ((fl & F_LAT) && (!get(&p, end, &v) || !v))
			return 1;
		e->lat_ns = (fl & F_LAT) ? v : 0;
		prev_ts = e->ts;
		prev_seq = e->seq_id;
		prev_depth = e->depth;
	}
	return p == end ? 0 : 1;
}
