/* rsf_block.c - block framing of the recording file: the 32-byte block
 * header (magic, type, sizes, count, checksums) around a zstd payload,
 * built by the writer and verified/decompressed by the reader. */
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#include "rsf_internal.h"

uint32_t rsf_crc32(const void *p, size_t n)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	const Bytef *b = p;
	while (n) {     /* zlib takes uInt lengths */
		uInt step = n > (1u << 30) ? (1u << 30) : (uInt)n;
		crc = crc32(crc, b, step);
		b += step;
		n -= step;
	}
	return (uint32_t)crc;
}

uint32_t rsf_hdr_crc(const void *hdr, size_t hdr_size)
{
	return rsf_crc32(hdr, hdr_size - sizeof(uint32_t));
}

const char *rsf_block_build_pre(ZSTD_CCtx *cctx, uint32_t type, uint32_t count,
				const void *pre, size_t pre_len,
				const void *raw, size_t raw_size, struct rsf_buf *out)
{
	int level = type == RSF_BLK_KSYMS ? RSF_ZSTD_LEVEL_TABLES : RSF_ZSTD_LEVEL;
	if (raw_size > UINT32_MAX)
		return "block too large";
	size_t bound = ZSTD_compressBound(raw_size);
	size_t head = RSF_BLOCK_HDR_SIZE + pre_len;
	out->len = 0;
	if (rsf_buf_reserve(out, head + bound))
		return "out of memory";
	if (pre_len)
		memcpy(out->data + RSF_BLOCK_HDR_SIZE, pre, pre_len);
	size_t csz = ZSTD_compressCCtx(cctx, out->data + head, bound, raw, raw_size, level);
	if (ZSTD_isError(csz))
		return ZSTD_getErrorName(csz);
	if (csz + pre_len > UINT32_MAX)
		return "compressed block too large";

	struct rsf_block_hdr h = {
		.magic = RSF_BLOCK_MAGIC,
		.type = type,
		.comp_size = (uint32_t)(csz + pre_len),
		.raw_size = (uint32_t)raw_size,
		.count = count,
		.flags = 0,
		.payload_crc = rsf_crc32(out->data + RSF_BLOCK_HDR_SIZE, csz + pre_len),
	};
	h.hdr_crc = rsf_hdr_crc(&h, sizeof(h));
	memcpy(out->data, &h, sizeof(h));
	out->len = head + csz;
	return NULL;
}

const char *rsf_block_build(ZSTD_CCtx *cctx, uint32_t type, uint32_t count,
			    const void *raw, size_t raw_size, struct rsf_buf *out)
{
	return rsf_block_build_pre(cctx, type, count, NULL, 0, raw, raw_size, out);
}

const char *rsf_block_check_hdr(const struct rsf_block_hdr *h)
{
	if (h->magic != RSF_BLOCK_MAGIC)
		return "bad block magic";
	if (h->hdr_crc != rsf_hdr_crc(h, sizeof(*h)))
		return "block header checksum mismatch";
	return NULL;
}

bool rsf_block_decode_pre(const struct rsf_block_hdr *h, const void *payload, size_t pre_len,
			  ZSTD_DCtx *dctx, void *raw, char *msg, size_t msglen)
{
	if (rsf_crc32(payload, h->comp_size) != h->payload_crc) {
		snprintf(msg, msglen, "checksum mismatch");
		return false;
	}
	if (h->comp_size < pre_len) {
		snprintf(msg, msglen, "bad lengths (payload of %u bytes)", h->comp_size);
		return false;
	}
	const uint8_t *frame = (const uint8_t *)payload + pre_len;
	size_t flen = h->comp_size - pre_len;
	unsigned long long fcs = ZSTD_getFrameContentSize(frame, flen);
	if (fcs == ZSTD_CONTENTSIZE_ERROR || fcs == ZSTD_CONTENTSIZE_UNKNOWN) {
		snprintf(msg, msglen, "bad zstd frame (no content size)");
		return false;
	}
	if (fcs != h->raw_size) {
		snprintf(msg, msglen, "bad lengths (zstd frame holds %llu bytes, header says %u)",
			 fcs, h->raw_size);
		return false;
	}
	size_t got = ZSTD_decompressDCtx(dctx, raw, h->raw_size, frame, flen);
	if (ZSTD_isError(got)) {
		snprintf(msg, msglen, "bad zstd frame (%s)", ZSTD_getErrorName(got));
		return false;
	}
	if (got != h->raw_size) {
		snprintf(msg, msglen, "bad lengths (decompressed %zu bytes, header says %u)",
			 got, h->raw_size);
		return false;
	}
	return true;
}

bool rsf_block_decode(const struct rsf_block_hdr *h, const void *payload,
		      ZSTD_DCtx *dctx, void *raw, char *msg, size_t msglen)
{
	return rsf_block_decode_pre(h, payload, 0, dctx, raw, msg, msglen);
}

const char *rsf_block_type_name(uint32_t type)
{
	switch (type) {
	case RSF_BLK_META:    return "metadata";
	case RSF_BLK_KSYMS:   return "kallsyms";
	case RSF_BLK_MODULES: return "module table";
	case RSF_BLK_FUNCS:   return "function table";
	case RSF_BLK_CHUNK:   return "record chunk";
	case RSF_BLK_TRAILER: return "trailer";
	case RSF_BLK_RCHUNK:  return "ring chunk";
	case RSF_BLK_RTRAILER: return "ring trailer";
	case RSF_BLK_BLOB:    return "header blob";
	default:              return "unknown";
	}
}
