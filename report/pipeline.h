/* pipeline.h - the report engine behind retsnoop-report and the live
 * retsnoop: records in (from a file or the ring buffer), through the
 * session assembler (session_asm.h), the report-time filters (filters.h)
 * and the table of outputs (output.h: text, JSON, Perfetto, folded,
 * summary). It consumes the plain option structs a command's parser
 * fills. It never prints a fatal error: functions return -1 with a
 * one-line message in err, which the command prints under its name; notes,
 * warnings, -v totals and the drop table go to the msgs stream. */
#ifndef RS_PIPELINE_H
#define RS_PIPELINE_H

#include <stdbool.h>
#include <stdio.h>
#include "filters.h"
#include "report_opts.h"
#include "session.h"

struct rp_config {
	const char *prog;          /* names the command in messages on msgs */
	FILE *out;                 /* text, JSON, folded stacks, summary */
	FILE *msgs;                /* notes, warnings, -v totals, drop table */
	struct report_opts opts;
	struct rp_outsel sel;
	struct filters *filt;      /* borrowed: prepared against the recording */
	bool drop_table;           /* print the drop table at the end (the live
				    * tool's recorder prints its own) */
};

/* does stdout get the text views (no --format json, --folded, summary)? */
bool rp_sel_text(const struct rp_outsel *sel);
/* combinations of outputs that cannot work whatever the recording (two
 * outputs on stdout, a --perfetto file in a directory we cannot write):
 * 0, or -1 with a message in err. Call it before anything slow. */
int rp_sel_check(const struct rp_outsel *sel, char *err, size_t errlen);
/* the output guard: an output file that is the same file as INPUT
 * (described by WHAT) is refused: -1 with a message, else 0 */
int rp_sel_check_vs(const struct rp_outsel *sel, const char *input, const char *what,
		    char *err, size_t errlen);

struct rp;

/* with the recording's tables (T->sym ignored; all must outlive the
 * pipeline): checks the selection, resolves the filters against the
 * recording, begins the outputs. NULL with a message in err. */
struct rp *rp_new(const struct rp_config *cfg, const struct rp_env *t, char *err, size_t errlen);
/* several recordings merged into one report: T[k] (each with rec_file and
 * rec_host set) are their tables. Sessions go to the outputs in the order
 * they are fed (rp_feed_from), each with its recording's tables and
 * symbolizer; the summary is made per recording, followed by a table of
 * session counts per recording and in total. The filters are prepared
 * against the first recording. */
struct rp *rp_new_multi(const struct rp_config *cfg, const struct rp_env *t, size_t n,
			char *err, size_t errlen);
/* one record of recording K (rp_new_multi) */
int rp_feed_from(struct rp *p, size_t k, const struct rs_rec_hdr *rec);
/* the symbolizer every output shares: kallsyms, plus DWARF when a vmlinux
 * fits (-k or discovery; a note on msgs when not). -1 with a message when
 * the report must not go on (-k unreadable, build-id mismatch). */
int rp_attach_symbols(struct rp *p, char *err, size_t errlen);
/* one record; -1 when out of memory or an output could not be written
 * (also reported by rp_finish) */
int rp_feed(struct rp *p, const struct rs_rec_hdr *rec);
/* end of input (stats NULL without a trailer): drop table and totals on
 * msgs, outputs finished, stdout flushed; 0, or -1 with a message when an
 * output could not be written */
int rp_finish(struct rp *p, const struct rsf_stats *stats, char *err, size_t errlen);
void rp_free(struct rp *p);

#endif
