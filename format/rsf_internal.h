/* rsf_internal.h - private to format/: the on-disk constants and structures
 * of the recording file (see docs/format.md) and the helpers the writer and
 * the reader share: growable buffers, block framing, key/value sections and
 * the symbol/module/function tables. */
#ifndef RSF_INTERNAL_H
#define RSF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
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
	uint32_t flags;                  /* RSF_FILE_RING (version 2) or 0 */
	uint32_t crc;                    /* crc32 of bytes [0, 28) */
};

#define RSF_FILE_RING        0x1u            /* records in a ring (flight recording) */

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
	RSF_BLK_RCHUNK  = 7,     /* version 2 ring: a chunk behind a ring prefix */
	RSF_BLK_RTRAILER = 8,    /* version 2 ring: the trailer behind a ring prefix */
	RSF_BLK_BLOB    = 9,     /* optional named header blob (after the function table) */
};

/* version 2 (flight recording): the first RSF_RING_PREFIX_SIZE payload
 * bytes of a ring block (not compressed; payload_crc covers them too) say
 * where the block stands in the recording */
struct rsf_ring_prefix {
	uint64_t seq;                    /* block number since the start (0, 1, ...) */
	uint64_t oldest_seq;             /* oldest block still in the ring once this one is written */
	uint64_t bytes_before;           /* ring bytes (block + padding) written before this block */
	uint64_t records_before;         /* records written before this block */
	uint64_t sessions_before;        /* final, not ignored SESSION_END records before it */
	uint32_t reserved;               /* 0 */
	uint32_t crc;                    /* crc32 of bytes [0, 44) */
};
#define RSF_RING_PREFIX_SIZE 48
#define RSF_RING_ALIGN       8        /* ring blocks start at multiples of 8 from the ring base */
_Static_assert(sizeof(struct rsf_ring_prefix) == RSF_RING_PREFIX_SIZE, "ring prefix size");

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
#define RSF_MAX_BLOBS        32             /* header blobs a reader keeps */
#define RSF_TABLE_MAX        (256u << 20)    /* raw or compressed size of a header block */
#define RSF_TRAILER_MAX      (64u << 10)
/* a chunk's records once a reader expanded its -T batches into one record
 * per entry (TRACE_BATCH: 40 bytes an entry, TRACE_PACKED: about 10, both
 * 56 expanded): the writer flushes a chunk before it would expand past it */
#define RSF_CHUNK_XMAX (RSF_CHUNK_MAX + RSF_CHUNK_MAX / 2)
#define RSF_CHUNK_COMP_MAX   (ZSTD_COMPRESSBOUND(RSF_CHUNK_MAX) + RSF_RING_PREFIX_SIZE)
/* records: zstd's first fast level. The recorder compresses every byte it
 * captures, its main CPU cost per record. Against level 3 on the record
 * chunks of bench/record_overhead.sh's failing workload (callgrind of the
 * zstd CLI): -T chunks 24% fewer instructions and a 6% smaller frame,
 * stack-only chunks 15% fewer for a 6% larger one */
#define RSF_ZSTD_LEVEL       (-1)
/* the header's tables (the kallsyms snapshot: ~6 MB raw, compressed once at
 * start-up, on the recorder's start-up path): a faster level */
#define RSF_ZSTD_LEVEL_TABLES 1
#define RSF_REC_ALIGN        8

/* a record's bytes in a chunk: its size padded to RSF_REC_ALIGN */
static inline uint64_t rsf_rec_padded(uint64_t size)
{
	return (size + RSF_REC_ALIGN - 1) & ~(uint64_t)(RSF_REC_ALIGN - 1);
}

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
/* The same with PRE_LEN bytes of PRE before the zstd frame (ring blocks). */
const char *rsf_block_build_pre(ZSTD_CCtx *cctx, uint32_t type, uint32_t count,
				const void *pre, size_t pre_len,
				const void *raw, size_t raw_size, struct rsf_buf *out);
/* Checks magic and header checksum; NULL if fine, else a problem text. */
const char *rsf_block_check_hdr(const struct rsf_block_hdr *h);
/* Verifies the payload checksum and decompresses it into RAW, which has
 * room for h->raw_size bytes. Returns false with a problem text in MSG. */
bool rsf_block_decode(const struct rsf_block_hdr *h, const void *payload,
		      ZSTD_DCtx *dctx, void *raw, char *msg, size_t msglen);
/* The same for a payload whose zstd frame starts at PRE_LEN (ring blocks). */
bool rsf_block_decode_pre(const struct rsf_block_hdr *h, const void *payload, size_t pre_len,
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
	bool omit_zero;      /* not written when zero (keys newer writers add only when used) */
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

/* ------------------------------------------------------------------ ring */
/* Where the ring writer puts blocks (rsf_ring_place.c): the blocks still in
 * the ring, oldest first, so that each new block knows which ones it
 * overwrites. Offsets are relative to the ring base. */
struct rsf_ring_slot {
	uint64_t off;
	uint64_t size;                   /* padded to RSF_RING_ALIGN */
};

struct rsf_ring_place {
	uint64_t size;                   /* bytes of the ring */
	uint64_t wpos;                   /* where the next block goes unless it wraps */
	struct rsf_ring_slot *q;         /* circular queue of live blocks */
	size_t qcap, qhead, qlen;
	uint64_t next_seq;
};

/* Picks the offset of the next block of SIZE padded bytes (at most
 * place->size), drops the blocks it overwrites; *oldest_seq = the oldest
 * block left once it is written, *seq = its own number. -1: no memory. */
int rsf_ring_place_next(struct rsf_ring_place *p, uint64_t size, uint64_t *off,
			uint64_t *seq, uint64_t *oldest_seq);
void rsf_ring_place_free(struct rsf_ring_place *p);
void rsf_ring_prefix_seal(struct rsf_ring_prefix *p);
bool rsf_ring_prefix_ok(const struct rsf_ring_prefix *p);

/* What a reader finds in the ring (rsf_ring_scan.c). */
struct rsf_ring_ent {
	uint64_t off;                    /* absolute file offset of the block header */
	uint32_t type;                   /* RSF_BLK_RCHUNK or RSF_BLK_RTRAILER */
	struct rsf_ring_prefix pre;
};

/* Finds every intact ring block header in [base, end) of FD and keeps
 * those of the newest block's live range, in recording order (the trailer,
 * if any, last). Returns NULL or a problem text (read error, no memory). */
const char *rsf_ring_scan(int fd, uint64_t base, uint64_t end,
			  struct rsf_ring_ent **out, size_t *n);

/* Records of sessions whose start was overwritten (rsf_ring_cut.c): with
 * -T a session begins with SESSION_START; records of a session never seen
 * starting are dropped, its final SESSION_END counted. Without -T but with
 * -B, each SESSION_END follows its session's LBR record: ENDs at the start
 * of the data whose LBR record was overwritten are dropped and counted. */
struct rsf_cut_filter {
	bool lbr_mode;                   /* set before use: -B without -T */
	bool lbr_matched;                /* an END with its LBR record was seen */
	uint64_t *ids;                   /* open-addressing set of session ids seen */
	size_t cap, n;
	bool have_zero;                  /* id 0 (the empty-slot marker) seen */
	uint64_t cut;                    /* sessions dropped */
};
/* false: drop REC. -1 on no memory is treated as keep. */
bool rsf_cut_keep(struct rsf_cut_filter *f, const struct rs_rec_hdr *rec);
void rsf_cut_free(struct rsf_cut_filter *f);

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

/* reads up to N bytes at OFF (fewer only at the end of the file), retrying
 * on EINTR: the count, or -1 on an I/O error (rsf_pread.c) */
ssize_t rsf_pread_full(int fd, void *buf, size_t n, uint64_t off);

#endif
