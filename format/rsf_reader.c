/* rsf_reader.c - reads a recording file: validates the file header, loads
 * metadata and tables at open, then streams the records chunk by chunk
 * (one chunk in memory at a time) and reports truncation or corruption
 * with the chunk number and byte offset. A flight recording's ring is
 * read in recording order (blocks found by rsf_ring_scan.c), what was
 * overwritten said by rsf_reader_ring(), sessions cut by the wrap dropped
 * (rsf_ring_cut.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rsf_internal.h"
#include "rsf_trace_batch.h"
#include "rsf_trace_pack.h"

struct rsf_reader {
	int fd;
	uint64_t off;                   /* offset of the next block */
	struct rsf_meta meta;
	uint8_t *tab_raw[4];            /* decompressed header blocks (string arenas) */
	struct rsf_ksym *ksyms;
	size_t nksyms;
	struct rsf_module *mods;
	size_t nmods;
	struct rsf_func *funcs;
	size_t nfuncs;
	struct reader_blob {
		const char *name;
		const uint8_t *data;
		size_t size;
		uint8_t *raw;           /* the block's payload: name, NUL, padding, data */
	} blobs[RSF_MAX_BLOBS];
	size_t nblobs;

	ZSTD_DCtx *dctx;
	uint8_t *comp;                  /* RSF_CHUNK_COMP_MAX: compressed chunk */
	uint8_t *raw;                   /* RSF_CHUNK_MAX: decompressed chunk */
	uint8_t *xraw;                  /* XRAW_MAX: a chunk with its TRACE_BATCHes expanded */
	const uint8_t *cur;             /* the records read: raw or xraw */
	struct rs_rec_trace_batch xbatch; /* a TRACE_PACKED record unpacked */
	size_t pos;                     /* next record in cur */
	uint32_t left;                  /* records left in cur */
	uint64_t chunks, records;       /* records: as stored (a TRACE_BATCH is one) */

	struct rsf_stats stats;
	bool have_stats, damaged, ended;
	/* flight recording */
	bool ring;
	struct rsf_ring_ent *ents;      /* live ring blocks in recording order */
	size_t nents, next_ent;
	struct rsf_ring_info rinfo;
	bool cut_active;
	struct rsf_cut_filter cut;
	char err[512];
};

static void reader_free(struct rsf_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	for (size_t i = 0; i < sizeof(r->tab_raw) / sizeof(r->tab_raw[0]); i++)
		free(r->tab_raw[i]);
	for (size_t i = 0; i < r->nblobs; i++)
		free(r->blobs[i].raw);
	free(r->ksyms);
	free(r->mods);
	free(r->funcs);
	ZSTD_freeDCtx(r->dctx);
	free(r->comp);
	free(r->raw);
	free(r->xraw);
	free(r->ents);
	rsf_cut_free(&r->cut);
	free(r);
}

/* ------------------------------------------------------------------ open */
static bool check_file_hdr(int fd, const char *path, struct rsf_file_hdr *fh,
			   char *err, size_t errlen)
{
	ssize_t n = rsf_pread_full(fd, fh, sizeof(*fh), 0);

	if (n < 0) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return false;
	}
	if (n == 0) {
		snprintf(err, errlen, "%s: empty file, not a retsnoop recording", path);
		return false;
	}
	if (n < RSF_MAGIC_LEN || memcmp(fh->magic, RSF_MAGIC, RSF_MAGIC_LEN)) {
		snprintf(err, errlen, "%s: not a retsnoop recording (bad magic)", path);
		return false;
	}
	if (n < (ssize_t)sizeof(*fh)) {
		snprintf(err, errlen, "%s: truncated: file ends inside the file header (%zd bytes)",
			 path, n);
		return false;
	}
	if (fh->endian == RSF_ENDIAN_SWAPPED) {
		snprintf(err, errlen, "%s: recorded on a machine of the other byte order, "
			 "which this reader does not support", path);
		return false;
	}
	if (fh->endian != RSF_ENDIAN_WORD) {
		snprintf(err, errlen, "%s: corrupt file header (bad byte-order mark 0x%08x)",
			 path, fh->endian);
		return false;
	}
	if (fh->version < RSF_FORMAT_V1 || fh->version > RSF_FORMAT_VERSION) {
		snprintf(err, errlen, "%s: unsupported format version %u (this reader supports %d to %d)",
			 path, fh->version, RSF_FORMAT_V1, RSF_FORMAT_VERSION);
		return false;
	}
	if (fh->crc != rsf_hdr_crc(fh, sizeof(*fh)) || fh->hdr_size != RSF_FILE_HDR_SIZE) {
		snprintf(err, errlen, "%s: corrupt file header (checksum mismatch)", path);
		return false;
	}
	if (fh->version >= 2 && (fh->flags & ~RSF_FILE_RING)) {
		snprintf(err, errlen, "%s: unsupported file flags 0x%x", path, fh->flags);
		return false;
	}
	if (fh->word_size != sizeof(long)) {
		snprintf(err, errlen, "%s: recorded with %u-byte words, this reader uses %zu-byte "
			 "words (not supported)", path, fh->word_size, sizeof(long));
		return false;
	}
	return true;
}

/* Reads the next header block, which must be of type WANT (unknown block
 * types are skipped). *raw gets the decompressed payload (malloc'ed). */
static bool read_table_block(struct rsf_reader *r, const char *path, uint64_t fsize,
			     uint32_t want, uint8_t **raw, uint32_t *raw_size,
			     uint32_t *count, char *err, size_t errlen)
{
	const char *what = rsf_block_type_name(want);
	struct rsf_block_hdr h;
	char msg[256];

	for (;;) {
		ssize_t n = rsf_pread_full(r->fd, &h, sizeof(h), r->off);
		if (n < 0) {
			snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
			return false;
		}
		if (n < (ssize_t)sizeof(h)) {
			snprintf(err, errlen, "%s: truncated: file ends %s the %s block at offset %llu",
				 path, n ? "inside the header of" : "before", what,
				 (unsigned long long)r->off);
			return false;
		}
		const char *e = rsf_block_check_hdr(&h);
		if (e) {
			snprintf(err, errlen, "%s: corrupt %s block at offset %llu: %s",
				 path, what, (unsigned long long)r->off, e);
			return false;
		}
		uint64_t end = r->off + sizeof(h) + h.comp_size;
		if (h.type == want)
			break;
		if (h.type >= RSF_BLK_META && h.type <= RSF_BLK_TRAILER) {
			snprintf(err, errlen, "%s: corrupt header: expected the %s block at offset %llu, "
				 "found a %s block", path, what, (unsigned long long)r->off,
				 rsf_block_type_name(h.type));
			return false;
		}
		if (end > fsize) {
			snprintf(err, errlen, "%s: truncated: file ends inside a block at offset %llu",
				 path, (unsigned long long)r->off);
			return false;
		}
		r->off = end;   /* a block type from a newer writer: skip it */
	}

	if (h.comp_size > RSF_TABLE_MAX || h.raw_size > RSF_TABLE_MAX || h.comp_size == 0) {
		snprintf(err, errlen, "%s: corrupt %s block at offset %llu: bad lengths "
			 "(compressed %u, raw %u)", path, what, (unsigned long long)r->off,
			 h.comp_size, h.raw_size);
		return false;
	}
	if (r->off + sizeof(h) + h.comp_size > fsize) {
		snprintf(err, errlen, "%s: truncated: file ends inside the %s block at offset %llu",
			 path, what, (unsigned long long)r->off);
		return false;
	}
	uint8_t *comp = malloc(h.comp_size);
	uint8_t *out = malloc((size_t)h.raw_size + 1);
	if (!comp || !out) {
		free(comp);
		free(out);
		snprintf(err, errlen, "%s: out of memory reading the %s block", path, what);
		return false;
	}
	ssize_t n = rsf_pread_full(r->fd, comp, h.comp_size, r->off + sizeof(h));
	if (n != (ssize_t)h.comp_size) {
		snprintf(err, errlen, "%s: truncated: file ends inside the %s block at offset %llu",
			 path, what, (unsigned long long)r->off);
		goto fail;
	}
	if (!rsf_block_decode(&h, comp, r->dctx, out, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s: corrupt %s block at offset %llu: %s",
			 path, what, (unsigned long long)r->off, msg);
		goto fail;
	}
	free(comp);
	out[h.raw_size] = 0;
	*raw = out;
	*raw_size = h.raw_size;
	*count = h.count;
	r->off += sizeof(h) + h.comp_size;
	return true;
fail:
	free(comp);
	free(out);
	return false;
}

static bool load_header_blocks(struct rsf_reader *r, const char *path, uint64_t fsize,
			       char *err, size_t errlen)
{
	static const uint32_t order[] = { RSF_BLK_META, RSF_BLK_KSYMS, RSF_BLK_MODULES, RSF_BLK_FUNCS };

	for (size_t i = 0; i < 4; i++) {
		uint32_t len, count;
		const char *e = NULL;

		if (!read_table_block(r, path, fsize, order[i], &r->tab_raw[i], &len, &count,
				      err, errlen))
			return false;
		switch (order[i]) {
		case RSF_BLK_META:
			e = rsf_kv_decode(rsf_meta_fields, rsf_meta_nfields, r->tab_raw[i],
					  len, count, &r->meta);
			break;
		case RSF_BLK_KSYMS:
			e = rsf_table_decode_ksyms(r->tab_raw[i], len, count, &r->ksyms, &r->nksyms);
			break;
		case RSF_BLK_MODULES:
			e = rsf_table_decode_modules(r->tab_raw[i], len, count, &r->mods, &r->nmods);
			break;
		case RSF_BLK_FUNCS:
			e = rsf_table_decode_funcs(r->tab_raw[i], len, count, &r->funcs, &r->nfuncs);
			break;
		}
		if (e) {
			snprintf(err, errlen, "%s: corrupt %s block: %s", path,
				 rsf_block_type_name(order[i]), e);
			return false;
		}
	}
	return true;
}

/* the optional named blobs right after the function table */
static bool load_blobs(struct rsf_reader *r, const char *path, uint64_t fsize,
		       char *err, size_t errlen)
{
	for (;;) {
		struct rsf_block_hdr h;
		uint32_t len, count;
		uint8_t *raw;

		if (rsf_pread_full(r->fd, &h, sizeof(h), r->off) != (ssize_t)sizeof(h) ||
		    h.type != RSF_BLK_BLOB)
			return true;    /* no more blobs: the next block is read later */
		if (r->nblobs == RSF_MAX_BLOBS) {
			snprintf(err, errlen, "%s: corrupt header: more than %d header blobs",
				 path, RSF_MAX_BLOBS);
			return false;
		}
		if (!read_table_block(r, path, fsize, RSF_BLK_BLOB, &raw, &len, &count,
				      err, errlen))
			return false;
		size_t nlen = strnlen((const char *)raw, len);
		size_t doff = (nlen + 1 + 7) & ~(size_t)7;
		if (nlen == 0 || nlen > RSF_BLOB_NAME_MAX || doff > len) {
			free(raw);
			snprintf(err, errlen, "%s: corrupt header blob %zu: bad name", path,
				 r->nblobs);
			return false;
		}
		r->blobs[r->nblobs++] = (struct reader_blob){
			.name = (const char *)raw, .data = raw + doff, .size = len - doff, .raw = raw,
		};
	}
}

/* the ring's live blocks, and what the oldest of them says was overwritten */
static bool ring_open(struct rsf_reader *r, const char *path, uint64_t fsize,
		      char *err, size_t errlen)
{
	uint64_t base = (r->off + RSF_RING_ALIGN - 1) & ~(uint64_t)(RSF_RING_ALIGN - 1);
	uint64_t end = r->meta.max_size & ~(uint64_t)(RSF_RING_ALIGN - 1);

	if (!r->meta.max_size || end < base + RSF_RING_MIN) {
		snprintf(err, errlen, "%s: corrupt metadata: flight recording with a maximum size "
			 "of %llu bytes, its header ends at offset %llu", path,
			 (unsigned long long)r->meta.max_size, (unsigned long long)base);
		return false;
	}
	const char *e = rsf_ring_scan(r->fd, base, end < fsize ? end : fsize, &r->ents, &r->nents);
	if (e) {
		snprintf(err, errlen, "%s: cannot read the ring: %s", path, e);
		return false;
	}
	r->ring = true;
	r->rinfo.max_size = r->meta.max_size;
	if (r->nents) {
		const struct rsf_ring_prefix *p = &r->ents[0].pre;

		r->rinfo.chunks_lost = p->seq;
		r->rinfo.bytes_lost = p->bytes_before;
		r->rinfo.records_lost = p->records_before;
		r->rinfo.sessions_lost = p->sessions_before;
		r->cut_active = p->seq > 0 && (r->meta.mode & (RSF_MODE_TRACE | RSF_MODE_LBR));
		r->cut.lbr_mode = !(r->meta.mode & RSF_MODE_TRACE);
	}
	return true;
}

struct rsf_reader *rsf_reader_open(const char *path, char *err, size_t errlen)
{
	struct rsf_file_hdr fh;
	struct stat st;

	struct rsf_reader *r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(r->fd, &st)) {
		snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a directory, not a retsnoop recording", path);
		goto fail;
	}
	if (!check_file_hdr(r->fd, path, &fh, err, errlen))
		goto fail;
	r->dctx = ZSTD_createDCtx();
	r->comp = malloc(RSF_CHUNK_COMP_MAX);
	r->raw = malloc(RSF_CHUNK_MAX);
	if (!r->dctx || !r->comp || !r->raw) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	r->off = RSF_FILE_HDR_SIZE;
	if (!load_header_blocks(r, path, (uint64_t)st.st_size, err, errlen) ||
	    !load_blobs(r, path, (uint64_t)st.st_size, err, errlen))
		goto fail;
	r->meta.format_version = fh.version;
	r->meta.endian_word = fh.endian;
	r->meta.word_size = fh.word_size;
	if (fh.version >= 2 && (fh.flags & RSF_FILE_RING) &&
	    !ring_open(r, path, (uint64_t)st.st_size, err, errlen))
		goto fail;
	if (!r->ring)
		r->meta.max_size = 0;
	return r;
fail:
	reader_free(r);
	return NULL;
}

const struct rsf_meta *rsf_reader_meta(const struct rsf_reader *r)
{
	return &r->meta;
}

const struct rsf_ksym *rsf_reader_ksyms(const struct rsf_reader *r, size_t *n)
{
	*n = r->nksyms;
	return r->ksyms;
}

const struct rsf_module *rsf_reader_modules(const struct rsf_reader *r, size_t *n)
{
	*n = r->nmods;
	return r->mods;
}

const struct rsf_func *rsf_reader_funcs(const struct rsf_reader *r, size_t *n)
{
	*n = r->nfuncs;
	return r->funcs;
}

/* --------------------------------------------------------------- records */
const void *rsf_reader_blob(const struct rsf_reader *r, const char *name, size_t *size)
{
	for (size_t i = 0; i < r->nblobs; i++) {
		if (strcmp(r->blobs[i].name, name) == 0) {
			if (size)
				*size = r->blobs[i].size;
			return r->blobs[i].data;
		}
	}
	if (size)
		*size = 0;
	return NULL;
}

static enum rsf_status damage(struct rsf_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static enum rsf_status damage(struct rsf_reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->damaged = true;
	return RSF_DAMAGED;
}

/* every record must start inside the chunk, be at least a header long and
 * end (padded to 8 bytes) inside it; the last one must end the chunk */
static bool check_records(const uint8_t *raw, uint32_t raw_size, uint32_t count,
			  char *msg, size_t msglen)
{
	uint64_t pos = 0;

	for (uint32_t i = 0; i < count; i++) {
		if (raw_size - pos < sizeof(struct rs_rec_hdr)) {
			snprintf(msg, msglen, "record %u header overflows the chunk", i);
			return false;
		}
		uint32_t size = rsf_get32(raw + pos + offsetof(struct rs_rec_hdr, size));
		if (size < sizeof(struct rs_rec_hdr)) {
			snprintf(msg, msglen, "record %u has size %u, smaller than its header", i, size);
			return false;
		}
		uint64_t padded = rsf_rec_padded(size);
		if (padded > raw_size - pos) {
			snprintf(msg, msglen, "record %u size %u overflows the chunk", i, size);
			return false;
		}
		pos += padded;
	}
	if (pos != raw_size) {
		snprintf(msg, msglen, "%llu bytes after the last record",
			 (unsigned long long)(raw_size - pos));
		return false;
	}
	return true;
}

/* a chunk expanded: a TRACE_BATCH of n entries (24 + 40n bytes) takes
 * 56n; the writer keeps a chunk of TRACE_PACKED records within it too */
#define XRAW_MAX RSF_CHUNK_XMAX

struct xout {
	uint8_t *buf;
	size_t len;
	uint32_t count;
};

static int xout_add(void *ctx, const struct rs_rec_hdr *rec, size_t size)
{
	struct xout *x = ctx;
	size_t padded = (size_t)rsf_rec_padded(size);

	if (padded > XRAW_MAX - x->len)
		return -1;
	memcpy(x->buf + x->len, rec, size);
	memset(x->buf + x->len + size, 0, padded - size);
	x->len += padded;
	x->count++;
	return 0;
}

/* the chunk's records to read: raw itself, or (format version 3, -T) a
 * copy with each TRACE_BATCH replaced by its TRACE_ENTRY/EXIT records;
 * *count becomes theirs. False (msg set) for a malformed batch. */
static bool expand_batches(struct rsf_reader *r, uint32_t raw_size, uint32_t *count, char *msg,
			   size_t msglen)
{
	struct xout x = {};
	size_t pos = 0;
	uint32_t i;

	r->cur = r->raw;
	for (i = 0; i < *count; i++) {   /* sizes were checked by check_records */
		const struct rs_rec_hdr *h = (const void *)(r->raw + pos);

		if (h->type == RS_REC_TRACE_BATCH || h->type == RS_REC_TRACE_PACKED)
			break;
		pos += rsf_rec_padded(h->size);
	}
	if (i == *count)
		return true;
	if (!r->xraw && !(r->xraw = malloc(XRAW_MAX))) {
		snprintf(msg, msglen, "out of memory");
		return false;
	}
	x.buf = r->xraw;
	pos = 0;
	for (i = 0; i < *count; i++) {
		const struct rs_rec_hdr *h = (const void *)(r->raw + pos);
		int ret;

		if (h->type == RS_REC_TRACE_PACKED) {
			ret = rsf_trace_unpack(h, raw_size - pos, &r->xbatch);
			if (!ret)
				ret = rsf_trace_batch_expand(&r->xbatch.hdr, sizeof(r->xbatch), xout_add,
							     &x);
		} else if (h->type == RS_REC_TRACE_BATCH) {
			ret = rsf_trace_batch_expand(h, raw_size - pos, xout_add, &x);
		} else {
			ret = xout_add(&x, h, h->size);
		}
		if (ret) {
			snprintf(msg, msglen, "record %u: %s", i, ret < 0 ? "expanded chunk too large" :
				 h->type == RS_REC_TRACE_PACKED ? "malformed TRACE_PACKED" :
				 "malformed TRACE_BATCH");
			return false;
		}
		pos += rsf_rec_padded(h->size);
	}
	r->cur = r->xraw;
	*count = x.count;
	return true;
}

/* ring blocks carry their ring prefix before the zstd frame */
static size_t pre_len(const struct rsf_block_hdr *h)
{
	return h->type == RSF_BLK_RCHUNK || h->type == RSF_BLK_RTRAILER ? RSF_RING_PREFIX_SIZE : 0;
}

static enum rsf_status load_chunk(struct rsf_reader *r, const struct rsf_block_hdr *h)
{
	unsigned long long off = r->off, idx = r->chunks;
	char msg[256];

	if (h->comp_size <= pre_len(h) || h->comp_size > RSF_CHUNK_COMP_MAX ||
	    h->raw_size < sizeof(struct rs_rec_hdr) || h->raw_size > RSF_CHUNK_MAX ||
	    h->count == 0 || h->count > h->raw_size / RSF_REC_ALIGN)
		return damage(r, "chunk %llu at offset %llu: bad lengths (compressed %u, raw %u, "
			      "%u records)", idx, off, h->comp_size, h->raw_size, h->count);
	ssize_t n = rsf_pread_full(r->fd, r->comp, h->comp_size, r->off + sizeof(*h));
	if (n < 0)
		return damage(r, "chunk %llu at offset %llu: read error: %s", idx, off, strerror(errno));
	if (n < h->comp_size)
		return damage(r, "truncated: file ends inside chunk %llu at offset %llu "
			      "(%zd of %u bytes present)", idx, off, n, h->comp_size);
	if (!rsf_block_decode_pre(h, r->comp, pre_len(h), r->dctx, r->raw, msg, sizeof(msg)))
		return damage(r, "chunk %llu at offset %llu: %s", idx, off, msg);
	uint32_t count = h->count;
	if (!check_records(r->raw, h->raw_size, count, msg, sizeof(msg)) ||
	    !expand_batches(r, h->raw_size, &count, msg, sizeof(msg)))
		return damage(r, "chunk %llu at offset %llu: %s", idx, off, msg);
	r->pos = 0;
	r->left = count;
	r->records += h->count;   /* as stored, for the trailer's count */
	r->chunks++;
	r->off += sizeof(*h) + h->comp_size;
	return RSF_OK;
}

static enum rsf_status load_trailer(struct rsf_reader *r, const struct rsf_block_hdr *h)
{
	unsigned long long off = r->off;
	struct rsf_stats s = {};
	char msg[256];

	if (h->comp_size <= pre_len(h) || h->comp_size > RSF_TRAILER_MAX ||
	    h->raw_size > RSF_TRAILER_MAX)
		return damage(r, "trailer at offset %llu: bad lengths (compressed %u, raw %u)",
			      off, h->comp_size, h->raw_size);
	ssize_t n = rsf_pread_full(r->fd, r->comp, h->comp_size, r->off + sizeof(*h));
	if (n < 0)
		return damage(r, "trailer at offset %llu: read error: %s", off, strerror(errno));
	if (n < h->comp_size)
		return damage(r, "truncated: file ends inside the trailer at offset %llu", off);
	if (!rsf_block_decode_pre(h, r->comp, pre_len(h), r->dctx, r->raw, msg, sizeof(msg)))
		return damage(r, "trailer at offset %llu: %s", off, msg);
	const char *e = rsf_kv_decode(rsf_stats_fields, rsf_stats_nfields, r->raw,
				      h->raw_size, h->count, &s);
	if (e)
		return damage(r, "trailer at offset %llu: %s", off, e);
	/* a flight recording holds what was written after what it lost */
	if (s.chunks_written != r->chunks + r->rinfo.chunks_lost ||
	    s.records_written != r->records + r->rinfo.records_lost)
		return damage(r, "trailer at offset %llu: %llu chunks / %llu records were written, "
			      "the file holds %llu / %llu", off,
			      (unsigned long long)s.chunks_written, (unsigned long long)s.records_written,
			      (unsigned long long)(r->chunks + r->rinfo.chunks_lost),
			      (unsigned long long)(r->records + r->rinfo.records_lost));
	r->stats = s;
	r->have_stats = true;
	r->ended = true;
	r->off += sizeof(*h) + h->comp_size;
	return RSF_END;
}

/* reads blocks until a chunk is loaded, the end or damage */
static enum rsf_status next_block(struct rsf_reader *r)
{
	for (;;) {
		struct rsf_block_hdr h;
		unsigned long long off = r->off, idx = r->chunks;
		ssize_t n = rsf_pread_full(r->fd, &h, sizeof(h), r->off);

		if (n < 0)
			return damage(r, "chunk %llu at offset %llu: read error: %s", idx, off,
				      strerror(errno));
		if (n == 0) {   /* killed recorder, cut at a chunk boundary */
			r->ended = true;
			return RSF_END;
		}
		if (n < (ssize_t)sizeof(h))
			return damage(r, "truncated: file ends inside the block header at offset %llu "
				      "(after %llu chunks)", off, idx);
		const char *e = rsf_block_check_hdr(&h);
		if (e)
			return damage(r, "chunk %llu at offset %llu: %s", idx, off, e);
		switch (h.type) {
		case RSF_BLK_CHUNK:
			return load_chunk(r, &h);
		case RSF_BLK_TRAILER:
			return load_trailer(r, &h);
		case RSF_BLK_META:
		case RSF_BLK_KSYMS:
		case RSF_BLK_MODULES:
		case RSF_BLK_FUNCS:
			return damage(r, "chunk %llu at offset %llu: unexpected %s block", idx, off,
				      rsf_block_type_name(h.type));
		default: {      /* a block type from a newer writer: skip it */
			struct stat st;
			if (fstat(r->fd, &st))
				return damage(r, "block at offset %llu: cannot stat: %s", off,
					      strerror(errno));
			uint64_t end = r->off + sizeof(h) + h.comp_size;
			if (end > (uint64_t)st.st_size)
				return damage(r, "truncated: file ends inside block at offset %llu "
					      "(type %u)", off, h.type);
			r->off = end;
			break;
		}
		}
	}
}

/* a flight recording: the next live ring block in recording order; a
 * block missing from the live range is damage */
static enum rsf_status ring_next_block(struct rsf_reader *r)
{
	struct rsf_block_hdr h;

	if (r->next_ent == r->nents) {
		r->ended = true;
		return RSF_END;
	}
	const struct rsf_ring_ent *e = &r->ents[r->next_ent];
	unsigned long long idx = r->chunks + r->rinfo.chunks_lost;

	if (r->next_ent && e->pre.seq != e[-1].pre.seq + 1)
		return damage(r, "ring chunk %llu missing (the ring holds chunk %llu at offset %llu "
			      "next)", idx, (unsigned long long)e->pre.seq,
			      (unsigned long long)e->off);
	/* a clean stop: every block its trailer counts as live must be there */
	if (e->type == RSF_BLK_RTRAILER && r->ents[0].pre.seq > e->pre.oldest_seq)
		return damage(r, "ring chunks %llu to %llu missing (the file was cut or damaged)",
			      (unsigned long long)e->pre.oldest_seq,
			      (unsigned long long)r->ents[0].pre.seq - 1);
	r->next_ent++;
	r->off = e->off;
	if (rsf_pread_full(r->fd, &h, sizeof(h), r->off) != (ssize_t)sizeof(h) ||
	    rsf_block_check_hdr(&h) || h.type != e->type)
		return damage(r, "chunk %llu at offset %llu: block changed while reading", idx,
			      (unsigned long long)r->off);
	return h.type == RSF_BLK_RCHUNK ? load_chunk(r, &h) : load_trailer(r, &h);
}

static enum rsf_status next_record(struct rsf_reader *r, const struct rs_rec_hdr **rec)
{
	if (!r->left) {
		if (r->damaged)
			return RSF_DAMAGED;
		if (r->ended)
			return RSF_END;
		enum rsf_status st = r->ring ? ring_next_block(r) : next_block(r);
		if (st != RSF_OK)
			return st;
	}
	const struct rs_rec_hdr *h = (const struct rs_rec_hdr *)(r->cur + r->pos);
	r->pos += rsf_rec_padded(h->size);
	r->left--;
	*rec = h;
	return RSF_OK;
}

enum rsf_status rsf_reader_next(struct rsf_reader *r, const struct rs_rec_hdr **rec)
{
	for (;;) {
		enum rsf_status st = next_record(r, rec);

		if (st != RSF_OK || !r->cut_active || rsf_cut_keep(&r->cut, *rec))
			return st;
		r->rinfo.sessions_cut = r->cut.cut;
	}
}

const struct rsf_ring_info *rsf_reader_ring(const struct rsf_reader *r)
{
	return &r->rinfo;
}

const struct rsf_stats *rsf_reader_stats(const struct rsf_reader *r)
{
	return r->have_stats ? &r->stats : NULL;
}

bool rsf_reader_complete(const struct rsf_reader *r)
{
	return r->have_stats && !r->damaged;
}

const char *rsf_reader_error(const struct rsf_reader *r)
{
	return r->err;
}

uint64_t rsf_reader_chunks(const struct rsf_reader *r)
{
	return r->chunks;
}

void rsf_reader_close(struct rsf_reader *r)
{
	reader_free(r);
}
