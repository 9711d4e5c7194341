/* info_cmd.c - `retsnoop-report info FILE`: prints what a recording
 * holds: header (recorder, command line, kernel, build-id, host, times),
 * attach mode, traced and entry function counts, features and modes,
 * attach/detach timings, session counts (END records read), every trailer
 * statistic (drops, and missed probes: BPF program runs the kernel skipped), chunks, and whether the file is complete, truncated (no
 * trailer) or damaged. Exit status 0 when complete, 1 otherwise, 2 on
 * usage errors or an unreadable header. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "info_cmd.h"
#include "../format/rsfile.h"
#include "../common/shared_opts.h"
#include "report_version.h"

#define PROG "retsnoop-report info"

static void put_time(const char *label, int64_t ns)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;
	char buf[64], zone[8];

	localtime_r(&s, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);
	printf("%-22s %s.%06ld %s\n", label, buf, (long)(ns % 1000000000 / 1000), zone);
}

static void put_flags(const char *label, uint32_t v, const char *const *names, int n)
{
	bool any = false;

	printf("%-22s", label);
	for (int i = 0; i < n; i++)
		if (v & (1u << i)) {
			printf(" %s", names[i]);
			any = true;
		}
	printf("%s\n", any ? "" : " (none)");
}

/* a flight recording: its cap and what the ring overwrote */
static void put_ring(const struct rsf_ring_info *ri)
{
	printf("%-22s flight recorder, at most %" PRIu64 " bytes on disk\n", "Max size:",
	       ri->max_size);
	if (!ri->chunks_lost && !ri->sessions_cut) {
		printf("%-22s nothing (the ring never wrapped)\n", "Overwritten:");
		return;
	}
	printf("%-22s %" PRIu64 " session(s), %" PRIu64 " record(s), %" PRIu64 " byte(s) in %"
	       PRIu64 " chunk(s) of older data\n", "Overwritten:", ri->sessions_lost + ri->sessions_cut,
	       ri->records_lost, ri->bytes_lost, ri->chunks_lost);
	if (ri->sessions_cut)
		printf("  %" PRIu64 " of these session(s) were cut by the wrap (their start was "
		       "overwritten): counted, not rendered\n", ri->sessions_cut);
}

struct info_counts {
	uint64_t nrec, final, interim, ignored, failed, starts, traces, lbrs;
	uint64_t ustacks, ustack_bytes, umaps, umaps_bytes;   /* -U */
	uint64_t fargs, fargs_bytes;   /* -A: FUNC_ARGS records and their bytes */
	uint64_t first_ts, last_ts;
};

/* reads every record; the reader's final status */
static enum rsf_status count_records(struct rsf_reader *rd, struct info_counts *c)
{
	enum rsf_status s;

	memset(c, 0, sizeof(*c));
	while (1) {
		const struct rs_rec_hdr *h;

		s = rsf_reader_next(rd, &h);
		if (s != RSF_OK)
			return s;
		c->nrec++;
		if (h->type == RS_REC_SESSION_END && h->size >= offsetof(struct rs_rec_session_end, frames)) {
			const struct rs_rec_session_end *e = (const void *)h;

			if (e->flags & RS_SESS_IGNORED)
				c->ignored++;
			else if (e->flags & RS_SESS_INTERIM)
				c->interim++;
			else {
				c->final++;
				c->failed += !!(e->flags & RS_SESS_IS_ERR);
				if (!c->first_ts || e->start_ts < c->first_ts)
					c->first_ts = e->start_ts;
				if (e->end_ts > c->last_ts)
					c->last_ts = e->end_ts;
			}
		} else if (h->type == RS_REC_SESSION_START) {
			c->starts++;
		} else if (h->type == RS_REC_TRACE_ENTRY || h->type == RS_REC_TRACE_EXIT) {
			c->traces++;
		} else if (h->type == RS_REC_LBR) {
			c->lbrs++;
		} else if (h->type == RS_REC_USTACK) {
			c->ustacks++;
			c->ustack_bytes += h->size;
		} else if (h->type == RS_REC_UMAPS) {
			c->umaps++;
			c->umaps_bytes += h->size;
		} else if (h->type == RS_REC_FUNC_ARGS) {
			c->fargs++;
			c->fargs_bytes += h->size;
		}
	}
}

static void print_header(const char *path, const struct rsf_meta *m)
{
	printf("%-22s %s\n", "File:", path);
	printf("%-22s %u (%s-endian, %u-bit recorder)\n", "Format version:", m->format_version,
	       m->endian_word == 0x01020304 ? "same" : "other", m->word_size * 8);
	printf("%-22s %s\n", "Recorder version:", m->recorder_version);
	printf("%-22s %s\n", "Command line:", m->cmdline);
	printf("%-22s %s\n", "Kernel release:", m->uts_release);
	printf("%-22s %s\n", "Kernel version:", m->uts_version);
	printf("%-22s %s\n", "Machine:", m->uts_machine);
	printf("%-22s ", "Kernel build-id:");
	for (uint32_t i = 0; i < m->build_id_len && i < sizeof(m->build_id); i++)
		printf("%02x", m->build_id[i]);
	printf("%s\n", m->build_id_len ? "" : "(unknown)");
	printf("%-22s %s\n", "Hostname:", m->hostname);
	printf("%-22s 0x%" PRIx64 "\n", "Runtime _text:", m->text_addr);
}

#define INFO_MAX_FILES 64

struct info_files {
	const char *v[INFO_MAX_FILES];
	size_t n;
};

static int word(void *ctx, const char *w, struct opt_error *e)
{
	struct info_files *f = ctx;

	if (f->n == INFO_MAX_FILES)
		return opt_fail(e, OPT_EUSAGE, "too many recordings (at most %d)", INFO_MAX_FILES);
	f->v[f->n++] = w;
	return OPT_OK;
}

/* the recordings to describe (0: none, exit with *status) */
static size_t parse_args(int argc, char **argv, struct info_files *files, int *status)
{
	struct shared_opts s;
	struct opt_group groups[1] = { { shared_opt_table, shared_opt_count, &s } };
	struct opt_cmdline c = {
		.prog = PROG, .cmd = OPT_INFO, .groups = groups, .ngroups = 1,
		.dashdash = OPT_DD_WORDS, .word = word, .word_ctx = files,
	};
	struct opt_error e;
	int r;

	files->n = 0;
	shared_opts_init(&s, OPT_INFO, NULL, NULL);
	r = opt_parse(&c, argc, argv, &e);
	if (r == OPT_OK && !s.help && !s.usage && !s.version && !files->n)
		r = opt_fail(&e, OPT_EUSAGE, "no recording file given");
	*status = 0;
	if (r < 0) {
		opt_error_print(stderr, PROG, r, &e);
		*status = 2;
	} else if (s.list) {
		opt_list(stdout, &c);
	} else if (s.help) {
		printf("Usage: " PROG " [OPTIONS] FILE...\nDescribe recordings: header, attach details, "
		       "session counts, drops and integrity.\n\n");
		opt_help(stdout, &c);
	} else if (s.usage) {
		opt_usage(stdout, &c, "FILE...");
	} else if (s.version) {
		printf(PROG " %s\n", REPORT_VERSION);
	} else {
		return files->n;
	}
	return 0;
}

static const char *const feats[] = { "btf", "kprobes", "kprobe-multi", "fentry", "ringbuf",
	"get-func-ip", "bpf-cookie", "branch-snapshot", "lbr", "kprobe-session" };
static const char *const modes[] = { "stacks", "trace", "lbr", "success", "interim" };

/* start, end, duration, first and last session */
static void print_times(const struct rsf_meta *m, const struct rsf_stats *st,
			const struct info_counts *c)
{
	put_time("Start time:", (int64_t)m->start_realtime_ns);
	if (st && st->end_realtime_ns) {
		put_time("End time:", (int64_t)st->end_realtime_ns);
		printf("%-22s %.3f s\n", "Duration:",
		       (double)(int64_t)(st->end_realtime_ns - m->start_realtime_ns) / 1e9);
	} else {
		printf("%-22s (unknown: %s)\n", "End time:", st ? "not in the trailer" : "no trailer");
	}
	if (c->final) {
		put_time("First session:", (int64_t)c->first_ts + m->mono_to_realtime_ns);
		put_time("Last session end:", (int64_t)c->last_ts + m->mono_to_realtime_ns);
	}
}

/* attach mode, tables, features and the record counts */
/* -A: the FUNC_ARGS records and the BTF blobs (only when there are any) */
static void print_args_info(struct rsf_reader *rd, const struct info_counts *c)
{
	size_t btf_sz = 0, fb_sz = 0;
	const void *btf = rsf_reader_blob(rd, "btf", &btf_sz);
	const void *fb = rsf_reader_blob(rd, "func_btf", &fb_sz);

	if (!c->fargs && !btf && !fb)
		return;
	printf("%-22s %" PRIu64 " record(s), %" PRIu64 " byte(s); \"btf\" blob %zu byte(s), "
	       "\"func_btf\" %zu byte(s)\n", "Arguments (-A):", c->fargs, c->fargs_bytes,
	       btf ? btf_sz : 0, fb ? fb_sz : 0);
}

static void print_contents(struct rsf_reader *rd, const struct info_counts *c)
{
	const struct rsf_meta *m = rsf_reader_meta(rd);
	size_t nfuncs, nksyms, nmods, nentry = 0;
	const struct rsf_func *funcs = rsf_reader_funcs(rd, &nfuncs);

	rsf_reader_ksyms(rd, &nksyms);
	rsf_reader_modules(rd, &nmods);
	for (size_t i = 0; i < nfuncs; i++)
		nentry += !!(funcs[i].flags & RS_FUNC_IS_ENTRY);
	printf("%-22s %s\n", "Attach mode:", m->attach_mode[0] ? m->attach_mode : "(unknown)");
	printf("%-22s %zu (%zu entry)\n", "Traced functions:", nfuncs, nentry);
	printf("%-22s %zu function symbol(s), %zu module(s)\n", "Kallsyms snapshot:", nksyms, nmods);
	put_flags("Features:", m->features, feats, (int)(sizeof(feats) / sizeof(feats[0])));
	put_flags("Mode:", m->mode, modes, (int)(sizeof(modes) / sizeof(modes[0])));
	if (m->mode & RSF_MODE_LBR)
		printf("%-22s flags 0x%" PRIx64 "%s%s\n", "LBR:", m->lbr_flags,
		       m->lbr_status[0] ? ", not captured: " : ", captured", m->lbr_status);
	printf("%-22s %" PRIu64 " record(s): %" PRIu64 " session(s) (%" PRIu64 " failed, %" PRIu64
	       " succeeded), %" PRIu64 " interim, %" PRIu64 " ignored, %" PRIu64 " start, %" PRIu64
	       " trace, %" PRIu64 " LBR\n", "Records:", c->nrec, c->final, c->failed,
	       c->final - c->failed, c->interim, c->ignored, c->starts, c->traces, c->lbrs);
	if (c->ustacks || c->umaps)   /* -U: bytes before compression */
		printf("%-22s %" PRIu64 " USTACK record(s), %" PRIu64 " bytes, %" PRIu64
		       " per session; %" PRIu64 " UMAPS record(s), %" PRIu64 " bytes\n",
		       "User stacks:", c->ustacks, c->ustack_bytes,
		       c->ustacks ? c->ustack_bytes / c->ustacks : 0, c->umaps, c->umaps_bytes);
	print_args_info(rd, c);
	printf("%-22s %" PRIu64 "\n", "Chunks read:", rsf_reader_chunks(rd));
	if (rsf_reader_ring(rd)->max_size)
		put_ring(rsf_reader_ring(rd));
}

/* probes the kernel skipped before any BPF program ran, per attach link
 * (nothing when the kernel does not report them: before Linux 6.7, fentry) */
static void print_link_misses(const struct rsf_stats *st)
{
	if (!st->link_misses_known)
		return;
	printf("  %-26s %" PRIu64, "missed by attach links",
	       st->link_misses_entry + st->link_misses_exit);
	if (st->link_misses_entry + st->link_misses_exit) {
		fputs(" (", stdout);
		rsf_print_link_misses(stdout, st);
		fputs(")", stdout);
	}
	fputs("\n", stdout);
}

/* the trailer: attach results and every counter, zeros included
 * (RING_LOST: a flight recording lost older chunks; BATCHED: format 3 or
 * later, whose -T batches the reader hands out as one record per call end) */
static void print_trailer(const struct rsf_stats *st, const struct info_counts *c, bool ring_lost,
			  bool batched)
{
	const struct rs_bpf_stats *b = &st->bpf;
	uint64_t in_file = c->final + c->interim + c->ignored;

	printf("%-22s %" PRIu64 " attached, %" PRIu64 " failed\n", "Attach:", st->funcs_attached,
	       st->funcs_failed);
	printf("%-22s attach %.3f ms, detach %.3f ms\n", "Timings:", st->attach_ns / 1e6,
	       st->detach_ns / 1e6);
	printf("%-22s %" PRIu64 " record(s)", "Written:", st->records_written);
	if (batched)
		printf(" as stored (-T: up to %d call ends in one)", RS_TRACE_BATCH);
	printf(", %" PRIu64 " chunk(s)\n", st->chunks_written);
	printf("Statistics:\n");
	printf("  %-26s %" PRIu64 "\n", "sessions emitted", b->sessions_emitted);
	printf("  %-26s %" PRIu64 "\n", "sessions dropped", b->sessions_dropped);
	printf("  %-26s %" PRIu64 "\n", "sessions incomplete", b->sessions_incomplete);
	printf("  %-26s %" PRIu64 "\n", "sessions table full", b->sessions_table_full);
	printf("  %-26s %" PRIu64 "\n", "sessions exited", b->sessions_exited);
	printf("  %-26s %" PRIu64 "\n", "records dropped", b->records_dropped);
	printf("  %-26s %" PRIu64 "\n", "depth overflows", b->depth_overflows);
	printf("  %-26s %" PRIu64 "\n", "exit mismatches", b->exit_mismatches);
	if (b->ustacks_dropped || st->umaps_gone)
		printf("  %-26s %" PRIu64 " dropped, %" PRIu64 " processes' maps unreadable\n",
		       "user stacks (-U)", b->ustacks_dropped, st->umaps_gone);
	if (c->fargs || b->args_dropped)   /* -A recordings only */
		printf("  %-26s %" PRIu64 "\n", "argument records dropped", b->args_dropped);
	if (b->stacks_deferred)   /* bpf/stack_defer.bpf.h */
		printf("  %-26s %" PRIu64 " deferred, %" PRIu64 " completed, %" PRIu64
		       " never needed (error swallowed: not captured)\n", "kernel stacks", b->stacks_deferred,
		       b->stacks_completed, b->stacks_deferred - b->stacks_completed);
	if (b->stacks_read)   /* bpf/ret_sites.bpf.h */
		printf("  %-26s %" PRIu64 " (return addresses read where learned unwinds found them)\n",
		       "short unwinds saved", b->stacks_read);
	if (b->tails_read)   /* bpf/stack_tails.bpf.h */
		printf("  %-26s %" PRIu64 " (frames read where learned unwinds found them)\n",
		       "completing unwinds saved", b->tails_read);
	printf("  %-26s %" PRIu64 "\n", "ring buffer lost", st->ringbuf_lost);
	if (st->prog_misses_known && (st->prog_misses_entry || st->prog_misses_exit))
		printf("  %-26s %" PRIu64 " (entry programs %" PRIu64 ", exit programs %" PRIu64 ")\n",
		       "missed probes", st->prog_misses, st->prog_misses_entry, st->prog_misses_exit);
	else if (st->prog_misses_known)
		printf("  %-26s %" PRIu64 "\n", "missed probes", st->prog_misses);
	else
		printf("  %-26s %s\n", "missed probes", "(not recorded by this recorder version)");
	print_link_misses(st);
	if (b->sessions_emitted != in_file && !ring_lost)
		printf("  note: %" PRIu64 " session record(s) emitted, %" PRIu64 " in the file\n",
		       b->sessions_emitted, in_file);
}

/* one recording; its exit status */
static int describe(const char *path)
{
	const struct rsf_stats *st;
	struct rsf_reader *rd;
	struct info_counts c;
	enum rsf_status s;
	char err[512];

	rd = rsf_reader_open(path, err, sizeof(err));
	if (!rd) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	s = count_records(rd, &c);
	st = s == RSF_END ? rsf_reader_stats(rd) : NULL;
	print_header(path, rsf_reader_meta(rd));
	print_times(rsf_reader_meta(rd), st, &c);
	print_contents(rd, &c);
	if (st)
		print_trailer(st, &c, rsf_reader_ring(rd)->chunks_lost,
			      rsf_reader_meta(rd)->format_version >= RSF_FORMAT_V3_BATCH);
	if (s == RSF_DAMAGED)
		printf("%-22s DAMAGED: %s\n", "Integrity:", rsf_reader_error(rd));
	else if (!st)
		printf("%-22s TRUNCATED: no trailer (the recorder was killed?)\n", "Integrity:");
	else
		printf("%-22s complete\n", "Integrity:");
	s = rsf_reader_complete(rd) ? RSF_OK : RSF_DAMAGED;
	rsf_reader_close(rd);
	return s == RSF_OK ? 0 : 1;
}

/* each recording in turn, a blank line between; the worst exit status */
int info_main(int argc, char **argv)
{
	struct info_files files;
	int status, worst = 0;
	size_t n = parse_args(argc, argv, &files, &status);

	if (!n)
		return status;
	for (size_t i = 0; i < n; i++) {
		if (i)
			putchar('\n');
		status = describe(files.v[i]);
		if (status > worst)
			worst = status;
	}
	return worst;
}
