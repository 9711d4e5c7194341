/* rsf_internal.h - private to format/: the on-disk constants and structures
 * of the recording file (see docs/format.md) and the helpers the writer and
 * the reader share: growable buffers, block framing, key/value sections and
 * the symbol/module/function tables. */
#ifndef RSF_INTERNAL_H
#define RSF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>
#include "rsfile.h"

/* ------------------------------------------------------------ file header */
#define RSF_MAGIC            "RETSNOOP"       /* 8 bytes, no NUL on disk */
#define RSF_MAGIC_LEN        8
#define RSF_ENDIAN_WORD      0x01020304u
#define RSF_ENDIAN_SWAPPED   0x04030201u
#define RSF_FILE_HDR_SIZE    32

struct rsf_file_hdr {                    /* 32 bytes at offset 0 */
	char magic[RSF_MAGIC_LEN];
	uint32_t version;                /* RSF_FORMAT_VERSION */
	uint32_t endian;                 /* RSF_ENDIAN_WORD in the writer's byte order */
	uint32_t word_size;              /* sizeof(long) of the writer */
	uint32_t hdr_size;               /* RSF_FILE_HDR_SIZE */
	uint32_t flags;                  /* 0 */
	uint32_t crc;                    /* crc32 of bytes [0, 28) */
};

/* ---------------------------------------------------------------- blocks */
#define RSF_BLOCK_MAGIC      0x4b425352u     /* "RSBK" read as little-endian */
#define RSF_BLOCK_HDR_SIZE   32

enum rsf_block_type {
	RSF_BLK_META    = 1,
	RSF_BLK_KSYMS   = 2,
	RSF_BLK_MODULES = 3,
	RSF_BLK_FUNCS   = 4,
	RSF_BLK_CHUNK   = 5,
	RSF_BLK_TRAILER = 6,
};

struct rsf_block_hdr {                   /* 32 bytes before every block */
	uint32_t magic;                  /* RSF_BLOCK_MAGIC */
	uint32_t type;                   /* enum rsf_block_type */
	uint32_t comp_size;              /* bytes of zstd payload that follow */
	uint32_t raw_size;               /* bytes once decompressed */
	uint32_t count;                  /* entries / records in the block */
	uint32_t flags;                  /* 0 */
	uint32_t payload_crc;            /* crc32 of the comp_size payload bytes */
	uint32_t hdr_crc;                /* crc32 of bytes [0, 28) of this header */
};

/* sanity limits a reader applies before allocating anything */
#define RSF_TABLE_MAX        (256u << 20)    /* raw or compressed size of a header block */
#define RSF_TRAILER_MAX      (64u << 10)
#define RSF_CHUNK_COMP_MAX   ZSTD_COMPRESSBOUND(RSF_CHUNK_MAX)
#define RSF_ZSTD_LEVEL       3
#define RSF_REC_ALIGN        8

#define RSF_NO_STR           0xffffffffu     /* string offset meaning NULL */

_Static_assert(sizeof(struct rsf_file_hdr) == RSF_FILE_HDR_SIZE, "file header size");
_Static_assert(sizeof(struct rsf_block_hdr) == RSF_BLOCK_HDR_SIZE, "block header size");

/* ---------------------------------------------------------------- buffer */
struct rsf_buf {
	uint8_t *data;
	size_t len, cap;
};

int rsf_buf_reserve(struct rsf_buf *b, size_t extra);   /* 0 or -1 (ENOMEM) */
int rsf_buf_append(struct rsf_buf *b, const void *p, size_t n);
void rsf_buf_free(struct rsf_buf *b);

/* ------------------------------------------------------------- framing */
uint32_t rsf_crc32(const void *p, size_t n);
/* crc of a file/block header: everything but its last 4 bytes */
uint32_t rsf_hdr_crc(const void *hdr, size_t hdr_size);

/* Compresses RAW into OUT (replacing its content) as one framed block:
 * header followed by the zstd payload. Returns NULL or a problem text. */
const char *rsf_block_build(ZSTD_CCtx *cctx, uint32_t type, uint32_t count,
			    const void *raw, size_t raw_size, struct rsf_buf *out);
/* Checks magic and header checksum; NULL if fine, else a problem text. */
const char *rsf_block_check_hdr(const struct rsf_block_hdr *h);
/* Verifies the payload checksum and decompresses it into RAW, which has
 * room for h->raw_size bytes. Returns false with a problem text in MSG. */
bool rsf_block_decode(const struct rsf_block_hdr *h, const void *payload,
		      ZSTD_DCtx *dctx, void *raw, char *msg, size_t msglen);
const char *rsf_block_type_name(uint32_t type);

/* ---------------------------------------------------- key/value sections */
enum rsf_kv_type {
	RSF_KV_U64   = 1,    /* 8 bytes, unsigned */
	RSF_KV_I64   = 2,    /* 8 bytes, signed */
	RSF_KV_STR   = 3,    /* text without NUL */
	RSF_KV_BYTES = 4,    /* opaque bytes */
};

struct rsf_kv_field {
	const char *key;
	uint8_t type;        /* enum rsf_kv_type */
	uint16_t size;       /* of the struct member (integers: 4 or 8) */
	size_t off;          /* offsetof the member */
	size_t len_off;      /* RSF_KV_BYTES: offsetof the uint32_t length member */
};

extern const struct rsf_kv_field rsf_meta_fields[];
extern const size_t rsf_meta_nfields;
extern const struct rsf_kv_field rsf_stats_fields[];
extern const size_t rsf_stats_nfields;

/* Appends one entry per field of OBJ to OUT; *count = entries written. */
int rsf_kv_encode(const struct rsf_kv_field *fields, size_t nfields,
		  const void *obj, struct rsf_buf *out, uint32_t *count);
/* Parses COUNT entries filling known fields of OBJ (left zero when absent,
 * unknown keys skipped). Returns NULL or a problem text. */
const char *rsf_kv_decode(const struct rsf_kv_field *fields, size_t nfields,
			  const uint8_t *data, size_t len, uint32_t count, void *obj);

/* ---------------------------------------------------------------- tables */
#define RSF_TABLE_HDR_SIZE   16      /* u32 count, entry_size, strtab_size, reserved */
#define RSF_KSYM_ENT_SIZE    24
#define RSF_MODULE_ENT_SIZE  96   /* 88 before the sections field */
#define RSF_MODULE_ENT_V0    88
#define RSF_FUNC_ENT_SIZE    24

/* Encoders return NULL or a problem text; the raw table goes to OUT. */
const char *rsf_table_encode_ksyms(const struct rsf_ksym *k, size_t n, struct rsf_buf *out);
const char *rsf_table_encode_modules(const struct rsf_module *m, size_t n, struct rsf_buf *out);
const char *rsf_table_encode_funcs(const struct rsf_func *f, size_t n, struct rsf_buf *out);

/* Decoders parse the raw table RAW (which stays alive: strings point into
 * it) into a malloc'ed array. Return NULL or a problem text. */
const char *rsf_table_decode_ksyms(const uint8_t *raw, size_t len, uint32_t count,
				   struct rsf_ksym **out, size_t *n);
const char *rsf_table_decode_modules(const uint8_t *raw, size_t len, uint32_t count,
				     struct rsf_module **out, size_t *n);
const char *rsf_table_decode_funcs(const uint8_t *raw, size_t len, uint32_t count,
				   struct rsf_func **out, size_t *n);

/* unaligned native-endian accessors */
static inline uint32_t rsf_get32(const uint8_t *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t rsf_get64(const uint8_t *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline void rsf_put32(uint8_t *p, uint32_t v) { __builtin_memcpy(p, &v, sizeof(v)); }
static inline void rsf_put64(uint8_t *p, uint64_t v) { __builtin_memcpy(p, &v, sizeof(v)); }

#endif
