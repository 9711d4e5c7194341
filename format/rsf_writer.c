/* rsf_writer.c - writes a recording file: file header, metadata, kallsyms,
 * module and function tables at open, then records buffered into chunks of
 * up to RSF_CHUNK_MAX bytes, each compressed and written as one block, and
 * the statistics trailer at close. A flight recording (meta->max_size)
 * writes its chunks and trailer into a ring after the header blocks
 * instead (placement in rsf_ring_place.c), each block written so that a
 * kill at any point leaves every earlier block readable. */
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

struct rsf_writer {
	int fd;
	char *path;
	ZSTD_CCtx *cctx;
	uint8_t *chunk;                 /* RSF_CHUNK_MAX bytes of pending records */
	size_t chunk_len;
	size_t chunk_xlen;              /* chunk_len once a reader expanded its -T batches */
	uint32_t chunk_recs;
	struct rsf_buf out;             /* framed block being written */
	uint64_t off;                   /* file offset of the next write */
	uint64_t records, chunks;
	size_t chunk_max;               /* RSF_CHUNK_MAX, less for a small ring */
	/* flight recording */
	bool ring;
	uint64_t max_size;
	uint64_t ring_base;             /* file offset of the ring */
	uint64_t extent;                /* file size so far */
	struct rsf_ring_place place;
	uint64_t ring_bytes;            /* ring bytes written (blocks + padding) */
	uint64_t sessions, chunk_sessions; /* final SESSION_ENDs flushed / pending */
	bool failed;                    /* an I/O error happened: refuse to go on */
	char err[512];
};

/* message of the last failed rsf_writer_close() of this thread */
static __thread char close_err[512];

static void set_err(struct rsf_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_err(struct rsf_writer *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
}

static int write_all(struct rsf_writer *w, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(w->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			set_err(w, "%s: write failed at offset %llu: %s", w->path,
				(unsigned long long)w->off, n < 0 ? strerror(errno) : "no progress");
			w->failed = true;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		w->off += (uint64_t)n;
	}
	return 0;
}

static int pwrite_all(struct rsf_writer *w, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = pwrite(w->fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			set_err(w, "%s: write failed at offset %llu: %s", w->path,
				(unsigned long long)off, n < 0 ? strerror(errno) : "no progress");
			w->failed = true;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* the ring prefix of the block built in w->out, and its checksums */
static void seal_ring_block(struct rsf_writer *w, const struct rsf_ring_prefix *pre)
{
	struct rsf_block_hdr h;

	memcpy(&h, w->out.data, sizeof(h));
	memcpy(w->out.data + sizeof(h), pre, sizeof(*pre));
	h.payload_crc = rsf_crc32(w->out.data + sizeof(h), h.comp_size);
	h.hdr_crc = rsf_hdr_crc(&h, sizeof(h));
	memcpy(w->out.data, &h, sizeof(h));
}

/* A ring block: placed (maybe back at the ring base), then written so that
 * a kill never leaves a valid header before a partial payload: the old
 * header at the spot is zeroed, the payload written, the header last. */
static int write_ring_block(struct rsf_writer *w, uint32_t type, uint32_t count,
			    const void *raw, size_t raw_size, uint64_t records_before)
{
	static const uint8_t zero[RSF_BLOCK_HDR_SIZE];
	struct rsf_ring_prefix pre = { .records_before = records_before,
				       .sessions_before = w->sessions };
	const char *e = rsf_block_build_pre(w->cctx, type, count, &pre, sizeof(pre), raw,
					    raw_size, &w->out);
	uint64_t off, size, old_extent = w->extent;

	if (e) {
		set_err(w, "%s: cannot encode %s block: %s", w->path, rsf_block_type_name(type), e);
		w->failed = true;
		return -1;
	}
	size = (w->out.len + RSF_RING_ALIGN - 1) & ~(uint64_t)(RSF_RING_ALIGN - 1);
	if (size > w->place.size) {
		set_err(w, "%s: a %s block of %llu bytes does not fit the ring of %llu bytes",
			w->path, rsf_block_type_name(type), (unsigned long long)size,
			(unsigned long long)w->place.size);
		w->failed = true;
		return -1;
	}
	if (rsf_ring_place_next(&w->place, size, &off, &pre.seq, &pre.oldest_seq)) {
		set_err(w, "%s: out of memory", w->path);
		w->failed = true;
		return -1;
	}
	pre.bytes_before = w->ring_bytes;
	rsf_ring_prefix_seal(&pre);
	seal_ring_block(w, &pre);
	off += w->ring_base;
	if ((off < w->extent && pwrite_all(w, zero, sizeof(zero), off)) ||
	    pwrite_all(w, w->out.data + RSF_BLOCK_HDR_SIZE, w->out.len - RSF_BLOCK_HDR_SIZE,
		       off + RSF_BLOCK_HDR_SIZE) ||
	    pwrite_all(w, w->out.data, RSF_BLOCK_HDR_SIZE, off)) {
		if (off >= old_extent && ftruncate(w->fd, (off_t)old_extent) == 0)
			w->extent = old_extent;
		return -1;
	}
	if (off + w->out.len > w->extent)
		w->extent = off + w->out.len;
	w->ring_bytes += size;
	return 0;
}

static int write_block(struct rsf_writer *w, uint32_t type, uint32_t count,
		       const void *raw, size_t raw_size)
{
	const char *e = rsf_block_build(w->cctx, type, count, raw, raw_size, &w->out);
	uint64_t start = w->off;

	if (e) {
		set_err(w, "%s: cannot encode %s block: %s", w->path, rsf_block_type_name(type), e);
		w->failed = true;
		return -1;
	}
	if (write_all(w, w->out.data, w->out.len)) {
		/* a block cut short (e.g. the disk filled up) would make the file
		 * look damaged: cut it off, so the file ends with the last complete
		 * block and reads as truncated */
		if (ftruncate(w->fd, (off_t)start) == 0)
			w->off = start;
		return -1;
	}
	return 0;
}

static void writer_free(struct rsf_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	ZSTD_freeCCtx(w->cctx);
	rsf_ring_place_free(&w->place);
	rsf_buf_free(&w->out);
	free(w->chunk);
	free(w->path);
	free(w);
}

/* a blob block's payload: the name, NUL, zeros up to 8 bytes, the data */
static int encode_blob(const struct rsf_blob *b, struct rsf_buf *out)
{
	size_t nlen = strlen(b->name), doff = (nlen + 1 + 7) & ~(size_t)7;
	static const uint8_t zeros[8];

	out->len = 0;
	if (rsf_buf_append(out, b->name, nlen) || rsf_buf_append(out, zeros, doff - nlen) ||
	    rsf_buf_append(out, b->data, b->size))
		return -1;
	return 0;
}

static int write_header(struct rsf_writer *w, const struct rsf_meta *meta,
			const struct rsf_ksym *ksyms, size_t nksyms,
			const struct rsf_module *mods, size_t nmods,
			const struct rsf_func *funcs, size_t nfuncs,
			const struct rsf_blob *blobs, size_t nblobs)
{
	struct rsf_file_hdr fh = {
		.version = (meta->mode & RSF_MODE_TRACE) ? RSF_FORMAT_V4_PACKED :
			   w->ring ? RSF_FORMAT_V2_RING : RSF_FORMAT_V1,
		.flags = w->ring ? RSF_FILE_RING : 0,
		.endian = RSF_ENDIAN_WORD,
		.word_size = (uint32_t)sizeof(long),
		.hdr_size = RSF_FILE_HDR_SIZE,
	};
	memcpy(fh.magic, RSF_MAGIC, RSF_MAGIC_LEN);
	fh.crc = rsf_hdr_crc(&fh, sizeof(fh));
	if (write_all(w, &fh, sizeof(fh)))
		return -1;

	struct rsf_buf raw = {};
	uint32_t count;
	const char *e = NULL;
	int ret = -1;

	if (rsf_kv_encode(rsf_meta_fields, rsf_meta_nfields, meta, &raw, &count)) {
		set_err(w, "%s: out of memory", w->path);
		goto out;
	}
	if (write_block(w, RSF_BLK_META, count, raw.data, raw.len))
		goto out;

	if ((e = rsf_table_encode_ksyms(ksyms, nksyms, &raw)) ||
	    write_block(w, RSF_BLK_KSYMS, (uint32_t)nksyms, raw.data, raw.len))
		goto out;
	if ((e = rsf_table_encode_modules(mods, nmods, &raw)) ||
	    write_block(w, RSF_BLK_MODULES, (uint32_t)nmods, raw.data, raw.len))
		goto out;
	if ((e = rsf_table_encode_funcs(funcs, nfuncs, &raw)) ||
	    write_block(w, RSF_BLK_FUNCS, (uint32_t)nfuncs, raw.data, raw.len))
		goto out;
	for (size_t i = 0; i < nblobs; i++) {
		if (encode_blob(&blobs[i], &raw)) {
			set_err(w, "%s: out of memory", w->path);
			goto out;
		}
		if (write_block(w, RSF_BLK_BLOB, 1, raw.data, raw.len))
			goto out;
	}
	ret = 0;
out:
	if (e)
		set_err(w, "%s: cannot encode tables: %s", w->path, e);
	rsf_buf_free(&raw);
	return ret;
}

/* the ring: from the end of the header blocks (8-byte aligned) to
 * max_size (rounded down to 8); chunks a quarter of it at most, so that a
 * wrap never has to overwrite more than a part of the ring */
static int ring_setup(struct rsf_writer *w)
{
	uint64_t base = (w->off + RSF_RING_ALIGN - 1) & ~(uint64_t)(RSF_RING_ALIGN - 1);
	uint64_t end = w->max_size & ~(uint64_t)(RSF_RING_ALIGN - 1);

	if (end < base || end - base < RSF_RING_MIN) {
		set_err(w, "%s: maximum size %llu bytes is too small: the recording's header "
			"(kallsyms snapshot and tables) takes %llu bytes and the ring needs at "
			"least %u more (%llu in all)", w->path, (unsigned long long)w->max_size,
			(unsigned long long)w->off, RSF_RING_MIN,
			(unsigned long long)(base + RSF_RING_MIN));
		return -1;
	}
	w->ring_base = base;
	w->extent = w->off;
	w->place.size = end - base;
	if (w->place.size / 4 < w->chunk_max)
		w->chunk_max = (size_t)(w->place.size / 4);
	return 0;
}

struct rsf_writer *rsf_writer_open(const char *path, const struct rsf_meta *meta,
				   const struct rsf_ksym *ksyms, size_t nksyms,
				   const struct rsf_module *mods, size_t nmods,
				   const struct rsf_func *funcs, size_t nfuncs,
				   char *err, size_t errlen)
{
	return rsf_writer_open_blobs(path, meta, ksyms, nksyms, mods, nmods, funcs, nfuncs,
				     NULL, 0, err, errlen);
}

static bool blobs_valid(const struct rsf_blob *blobs, size_t nblobs)
{
	if (nblobs > RSF_MAX_BLOBS || (nblobs && !blobs))
		return false;
	for (size_t i = 0; i < nblobs; i++) {
		if (!blobs[i].name || !blobs[i].name[0] ||
		    strlen(blobs[i].name) > RSF_BLOB_NAME_MAX || (blobs[i].size && !blobs[i].data))
			return false;
		for (size_t j = 0; j < i; j++)
			if (strcmp(blobs[i].name, blobs[j].name) == 0)
				return false;
	}
	return true;
}

struct rsf_writer *rsf_writer_open_blobs(const char *path, const struct rsf_meta *meta,
					 const struct rsf_ksym *ksyms, size_t nksyms,
					 const struct rsf_module *mods, size_t nmods,
					 const struct rsf_func *funcs, size_t nfuncs,
					 const struct rsf_blob *blobs, size_t nblobs,
					 char *err, size_t errlen)
{
	if (!path || !meta || (nksyms && !ksyms) || (nmods && !mods) || (nfuncs && !funcs) ||
	    !blobs_valid(blobs, nblobs)) {
		snprintf(err, errlen, "rsf_writer_open: invalid arguments");
		return NULL;
	}
	struct rsf_writer *w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	w->fd = -1;
	w->path = strdup(path);
	w->cctx = ZSTD_createCCtx();
	w->chunk = malloc(RSF_CHUNK_MAX);
	if (!w->path || !w->cctx || !w->chunk) {
		snprintf(err, errlen, "%s: out of memory", path);
		writer_free(w);
		return NULL;
	}
	w->fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
		writer_free(w);
		return NULL;
	}
	/* the umask cannot widen 0600, but an existing file keeps its mode */
	if (fchmod(w->fd, 0600)) {
		snprintf(err, errlen, "%s: cannot set mode 0600: %s", path, strerror(errno));
		writer_free(w);
		return NULL;
	}
	w->chunk_max = RSF_CHUNK_MAX;
	w->ring = meta->max_size > 0;
	w->max_size = meta->max_size;
	if (write_header(w, meta, ksyms, nksyms, mods, nmods, funcs, nfuncs, blobs, nblobs) ||
	    (w->ring && ring_setup(w))) {
		snprintf(err, errlen, "%s", w->err);
		unlink(path);
		writer_free(w);
		return NULL;
	}
	return w;
}

int rsf_writer_flush(struct rsf_writer *w)
{
	if (w->failed)
		return -1;
	if (!w->chunk_recs)
		return 0;
	if (w->ring ? write_ring_block(w, RSF_BLK_RCHUNK, w->chunk_recs, w->chunk, w->chunk_len,
				       w->records - w->chunk_recs)
		    : write_block(w, RSF_BLK_CHUNK, w->chunk_recs, w->chunk, w->chunk_len))
		return -1;
	w->chunks++;
	w->sessions += w->chunk_sessions;
	w->chunk_sessions = 0;
	w->chunk_len = 0;
	w->chunk_xlen = 0;
	w->chunk_recs = 0;
	return 0;
}

int rsf_writer_add(struct rsf_writer *w, const void *rec, uint32_t size)
{
	uint8_t packed[RSF_TRACE_PACKED_MAX];
	struct rs_rec_hdr hdr;
	uint32_t psize;
	size_t xsize;

	if (w->failed)
		return -1;
	if (!rec || size < sizeof(hdr)) {
		set_err(w, "record of %u bytes rejected: shorter than its header", size);
		return -1;
	}
	memcpy(&hdr, rec, sizeof(hdr));
	if (hdr.size != size) {
		set_err(w, "record rejected: header says %u bytes, given %u", hdr.size, size);
		return -1;
	}
	/* a -T batch is stored packed (one that is not valid, as it is); a
	 * reader expands it to one record per entry, and a chunk must stay
	 * within what a reader expands */
	if (hdr.type == RS_REC_TRACE_BATCH && rsf_trace_batch_shape_ok(rec, size) &&
	    (psize = rsf_trace_pack(rec, packed))) {
		xsize = rsf_trace_batch_count(rec) * rsf_rec_padded(sizeof(struct rs_rec_trace));
		size = psize;
		rec = packed;
	} else {
		xsize = (size_t)rsf_rec_padded(size);
	}
	size_t padded = (size_t)rsf_rec_padded(size);
	if (padded > w->chunk_max) {
		set_err(w, "record of %u bytes rejected: larger than a chunk", size);
		return -1;
	}
	if ((w->chunk_len + padded > w->chunk_max || w->chunk_xlen + xsize > RSF_CHUNK_XMAX) &&
	    rsf_writer_flush(w))
		return -1;
	memcpy(w->chunk + w->chunk_len, rec, size);
	if (padded > size)
		memset(w->chunk + w->chunk_len + size, 0, padded - size);
	w->chunk_len += padded;
	w->chunk_xlen += xsize;
	w->chunk_recs++;
	w->records++;
	if (hdr.type == RS_REC_SESSION_END && size >= offsetof(struct rs_rec_session_end, nframes)) {
		uint32_t fl;

		memcpy(&fl, (const uint8_t *)rec + offsetof(struct rs_rec_session_end, flags),
		       sizeof(fl));
		w->chunk_sessions += !(fl & (RS_SESS_INTERIM | RS_SESS_IGNORED));
	}
	return 0;
}

int rsf_writer_close(struct rsf_writer *w, const struct rsf_stats *stats)
{
	if (!w)
		return 0;
	int ret = rsf_writer_flush(w);

	if (!ret && stats) {
		struct rsf_stats s = *stats;
		struct rsf_buf raw = {};
		uint32_t count;

		s.records_written = w->records;
		s.chunks_written = w->chunks;
		if (rsf_kv_encode(rsf_stats_fields, rsf_stats_nfields, &s, &raw, &count)) {
			set_err(w, "%s: out of memory", w->path);
			ret = -1;
		} else if (w->ring ? write_ring_block(w, RSF_BLK_RTRAILER, count, raw.data, raw.len,
						      w->records)
				   : write_block(w, RSF_BLK_TRAILER, count, raw.data, raw.len)) {
			ret = -1;
		}
		rsf_buf_free(&raw);
	}
	if (w->fd >= 0) {
		if (close(w->fd) && !ret) {
			set_err(w, "%s: close failed: %s", w->path, strerror(errno));
			ret = -1;
		}
		w->fd = -1;
	}
	if (ret)
		snprintf(close_err, sizeof(close_err), "%s", w->err);
	writer_free(w);
	return ret;
}

const char *rsf_writer_error(const struct rsf_writer *w)
{
	if (!w)
		return close_err;
	return w->err;
}
