/* rsfile.h - public API of the recording file library (format/).
 * One header for both tools: retsnoop-record writes through rsf_writer,
 * retsnoop-report (and the live tool) read through rsf_reader.
 * The on-disk layout is documented in docs/format.md. */
#ifndef RSFILE_H
#define RSFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "../bpf/retsnoop_abi.h"

#define RSF_FORMAT_VERSION 4      /* newest version this library reads */
#define RSF_FORMAT_V1      1      /* what an unbounded recording is written as */
#define RSF_FORMAT_V2_RING 2      /* a flight recording (RSF_FILE_RING) */
#define RSF_FORMAT_V3_BATCH 3     /* -T: may hold TRACE_BATCH records (ring or not) */
#define RSF_FORMAT_V4_PACKED 4    /* -T: TRACE_BATCH records stored packed (TRACE_PACKED) */

/* feature-detection results (rsf_meta.features) */
enum rsf_feature {
	RSF_FEAT_BTF            = 1u << 0,
	RSF_FEAT_KPROBES        = 1u << 1,
	RSF_FEAT_KPROBE_MULTI   = 1u << 2,
	RSF_FEAT_FENTRY         = 1u << 3,
	RSF_FEAT_RINGBUF        = 1u << 4,
	RSF_FEAT_GET_FUNC_IP    = 1u << 5,
	RSF_FEAT_BPF_COOKIE     = 1u << 6,
	RSF_FEAT_BRANCH_SNAPSHOT= 1u << 7,
	RSF_FEAT_LBR            = 1u << 8,  /* perf LBR events could be opened */
	RSF_FEAT_KPROBE_SESSION = 1u << 9,  /* kprobe.session links (Linux 6.10+) */
};

/* recording mode flags (rsf_meta.mode) */
enum rsf_mode {
	RSF_MODE_STACKS         = 1u << 0,  /* call-stack capture (-E, default) */
	RSF_MODE_TRACE          = 1u << 1,  /* -T */
	RSF_MODE_LBR            = 1u << 2,  /* -B requested */
	RSF_MODE_SUCCESS        = 1u << 3,  /* success stacks allowed */
	RSF_MODE_INTERIM        = 1u << 4,  /* -I */
};

/* the file header: who recorded what, where, when */
struct rsf_meta {
	uint32_t format_version;        /* filled by the library */
	char recorder_version[32];
	char cmdline[4096];             /* argv joined by spaces, shell-quoted where needed */
	char uts_release[65];
	char uts_version[65];
	char uts_machine[65];
	char hostname[65];
	uint8_t build_id[64];           /* GNU build-id of the running kernel */
	uint32_t build_id_len;
	uint64_t stext_addr;            /* runtime _stext (0: unknown) */
	uint64_t text_addr;             /* runtime _text (0: unknown) */
	int64_t mono_to_realtime_ns;    /* realtime = bpf_ktime_get_ns() + this */
	uint64_t start_realtime_ns;     /* when recording started */
	char attach_mode[16];           /* "kprobe-session", "kprobe-multi", "kprobe", "fentry" */
	uint32_t features;              /* enum rsf_feature */
	uint32_t mode;                  /* enum rsf_mode */
	uint64_t lbr_flags;             /* perf branch sample type requested */
	char lbr_status[1024];          /* "" if captured, else why not (whole, never cut) */
	uint64_t max_size;              /* flight recorder: the file never grows past this
					 * many bytes, oldest chunks overwritten (0: unbounded) */
	uint32_t endian_word;           /* filled by the library (0x01020304 as written) */
	uint32_t word_size;             /* filled by the library: sizeof(long) of the recorder */
};

struct rsf_ksym {                       /* one function symbol of the kallsyms snapshot */
	uint64_t addr;
	char type;                      /* 't', 'T', 'w', 'W' */
	const char *name;
	const char *module;             /* NULL for vmlinux */
};

struct rsf_modsect {                    /* where the kernel loaded one module section */
	const char *name;               /* ".text", ".init.text", ... */
	uint64_t addr;                  /* runtime address (/sys/module/NAME/sections/) */
};

struct rsf_module {
	const char *name;
	uint64_t base;
	uint64_t size;
	uint8_t build_id[64];
	uint32_t build_id_len;          /* 0: unknown */
	const struct rsf_modsect *sects; /* code sections; NULL/0 when not recorded */
	uint32_t nsects;
};

struct rsf_func {                       /* traced function; id = index in the table */
	uint64_t addr;
	uint32_t flags;                 /* enum rs_func_flags */
	const char *name;
	const char *module;             /* NULL for vmlinux */
};

/* trailer: written when the recorder stops cleanly */
struct rsf_stats {
	struct rs_bpf_stats bpf;
	uint64_t records_written;
	uint64_t chunks_written;
	uint64_t ringbuf_lost;          /* user-side detected losses */
	uint64_t attach_ns;
	uint64_t detach_ns;
	uint64_t funcs_attached;
	uint64_t funcs_failed;
	uint64_t end_realtime_ns;
	uint64_t prog_misses;           /* BPF program runs the kernel skipped (recursion) */
	uint64_t prog_misses_known;     /* 1 when the recorder measured prog_misses */
	uint64_t prog_misses_entry;     /* of prog_misses: the entry programs' (kprobe, fentry) */
	uint64_t prog_misses_exit;      /* of prog_misses: the exit programs' (kretprobe, fexit) */
	/* probes the kernel skipped before running any BPF program (kprobe
	 * recursion, kretprobe instances exhausted), from the attach links'
	 * missed counts (Linux 6.7+); not part of prog_misses */
	uint64_t link_misses_known;     /* 1 when the kernel reported them per link */
	uint64_t link_misses_entry;     /* of the entry links (kprobe, kprobe.multi) */
	uint64_t link_misses_exit;      /* of the exit links (kretprobe, kretprobe.multi) */
	uint64_t link_misses_nfuncs;    /* kprobe mode: functions whose links missed */
	char link_misses_funcs[256];    /* kprobe mode: "name=count,..." of the
					 * functions that missed most, by count */
	uint64_t umaps_gone;            /* -U: processes that exited before the recorder
					 * read their mappings (record/umaps.c) */
	uint64_t prog_misses_probes;    /* of prog_misses: the -J probe programs' */
};

/* ---------------------------------------------------------------- writer */
struct rsf_writer;

/* Creates PATH with mode 0600 (fails if it cannot). Writes the file header,
 * metadata, kallsyms snapshot, module and function tables at once.
 * meta->max_size > 0 makes a flight recording (format version 2): the
 * records go into a ring that ends at max_size bytes, the newest chunk
 * overwriting the oldest; the open fails when the header blocks leave less
 * than RSF_RING_MIN bytes for the ring. */
struct rsf_writer *rsf_writer_open(const char *path, const struct rsf_meta *meta,
				   const struct rsf_ksym *ksyms, size_t nksyms,
				   const struct rsf_module *mods, size_t nmods,
				   const struct rsf_func *funcs, size_t nfuncs,
				   char *err, size_t errlen);
/* Optional named blobs of the header, written after the function table
 * (one RSF_BLK_BLOB block each; see docs/format.md for the names in use:
 * "btf", "func_btf", "probes"). Names are at most RSF_BLOB_NAME_MAX bytes,
 * unique, without NUL. */
#define RSF_BLOB_NAME_MAX 63
struct rsf_blob {
	const char *name;
	const void *data;
	size_t size;
};
/* rsf_writer_open with header blobs (BLOBS may be NULL when NBLOBS is 0). */
struct rsf_writer *rsf_writer_open_blobs(const char *path, const struct rsf_meta *meta,
					 const struct rsf_ksym *ksyms, size_t nksyms,
					 const struct rsf_module *mods, size_t nmods,
					 const struct rsf_func *funcs, size_t nfuncs,
					 const struct rsf_blob *blobs, size_t nblobs,
					 char *err, size_t errlen);
/* Appends one record (starts with struct rs_rec_hdr; hdr.size bytes).
 * Buffered; a full chunk (RSF_CHUNK_MAX) is compressed and written. */
int rsf_writer_add(struct rsf_writer *w, const void *rec, uint32_t size);
/* Compresses and writes the pending chunk (if any); the recorder calls this
 * at least once a second. */
int rsf_writer_flush(struct rsf_writer *w);
/* Flushes, writes the trailer, closes. stats may be NULL (no trailer).
 * stats->records_written/chunks_written are replaced by the writer's own
 * counts. Frees W even on failure (-1): the message is then
 * rsf_writer_error(NULL). */
int rsf_writer_close(struct rsf_writer *w, const struct rsf_stats *stats);
/* Last error of W; with W == NULL, of this thread's last failed close. */
const char *rsf_writer_error(const struct rsf_writer *w);

#define RSF_CHUNK_MAX (1u << 20)
#define RSF_RING_MIN  (64u << 10)       /* smallest ring a flight recording accepts */

/* ---------------------------------------------------------------- reader */
struct rsf_reader;

enum rsf_status {
	RSF_OK = 0,          /* record returned */
	RSF_END = 1,         /* clean end of data (trailer seen or plain EOF at a chunk boundary) */
	RSF_DAMAGED = -1,    /* truncated/corrupt chunk: rsf_reader_error() says where and why */
};

/* Opens and reads header, metadata and tables. NULL on error with a
 * one-line message in err (not a recording, bad version, truncated header). */
/* a SESSION_END record of either layout (full, or compact: frames[nframes]
 * then kstack_sz bytes; docs/format.md) as the full struct, zero-filled
 * past what the record holds; returns the bytes a full-layout record with
 * the same data would have (what bounds checks against the record size use) */
size_t rsf_end_expand(const struct rs_rec_hdr *h, struct rs_rec_session_end *e);

struct rsf_reader *rsf_reader_open(const char *path, char *err, size_t errlen);
const struct rsf_meta *rsf_reader_meta(const struct rsf_reader *r);
const struct rsf_ksym *rsf_reader_ksyms(const struct rsf_reader *r, size_t *n);
const struct rsf_module *rsf_reader_modules(const struct rsf_reader *r, size_t *n);
const struct rsf_func *rsf_reader_funcs(const struct rsf_reader *r, size_t *n);
/* The header blob NAME (8-byte aligned, valid until close), or NULL when the
 * recording has none; *size gets its length. */
const void *rsf_reader_blob(const struct rsf_reader *r, const char *name, size_t *size);
/* Next record, streamed chunk by chunk (memory does not grow with the file).
 * *rec points into the reader's buffer, valid until the next call. Records
 * are 8-byte aligned in that buffer. */
enum rsf_status rsf_reader_next(struct rsf_reader *r, const struct rs_rec_hdr **rec);
/* After RSF_END: the trailer, or NULL when the recorder was killed. */
const struct rsf_stats *rsf_reader_stats(const struct rsf_reader *r);
bool rsf_reader_complete(const struct rsf_reader *r);   /* trailer present and no damage */
const char *rsf_reader_error(const struct rsf_reader *r); /* after RSF_DAMAGED */
uint64_t rsf_reader_chunks(const struct rsf_reader *r);    /* chunks read so far */

/* A flight recording (rsf_meta.max_size > 0) keeps only its newest data:
 * what was overwritten, as recorded in the oldest chunk still present. */
struct rsf_ring_info {
	uint64_t max_size;              /* 0: not a flight recording (all else 0) */
	uint64_t chunks_lost;           /* chunks overwritten */
	uint64_t bytes_lost;            /* bytes of those chunks on disk */
	uint64_t records_lost;
	uint64_t sessions_lost;         /* final, not ignored SESSION_END records among them */
	uint64_t sessions_cut;          /* sessions whose start was overwritten: their
					 * remaining records are not returned (known after RSF_END) */
	uint64_t chunks_missing;        /* chunks the ring should hold but did not (damage) */
};
const struct rsf_ring_info *rsf_reader_ring(const struct rsf_reader *r);
void rsf_reader_close(struct rsf_reader *r);

/* ----------------------------------------------------------- drop table */
/* The one drop / missed-probe table of all three commands (the recorder
 * at exit, retsnoop-report at the end of a recording): a WARNING line and
 * one "LABEL: N" line per non-zero counter of ST; nothing when all are
 * zero. */
void rsf_print_drops(FILE *f, const struct rsf_stats *st);
/* Which attach links missed probes, e.g. "kprobe links: vfs_read 30, 2
 * other functions 5" or "kprobe.multi links: entry 10, exit 2"; prints
 * nothing when no link missed. Returns whether it printed. */
bool rsf_print_link_misses(FILE *f, const struct rsf_stats *st);

#endif
