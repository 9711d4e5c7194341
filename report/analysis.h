/* analysis.h - the glue between retsnoop-report's CLI/read loop and the
 * analysis features (report-time filters, JSON, Perfetto, folded stacks,
 * summary): one environment shared by the outputs, one normalized session
 * handed to each, and the four hooks main.c calls. */
#ifndef RS_ANALYSIS_H
#define RS_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "../format/rsfile.h"
#include "report.h"
#include "symbolize.h"

/* what every output needs to know about the recording */
struct anl_env {
	const struct rsf_meta *meta;
	const struct rsf_ksym *ksyms;
	size_t nksyms;
	const struct rsf_module *mods;
	size_t nmods;
	const struct rsf_func *funcs;
	size_t nfuncs;
	struct symbolizer *sym;   /* created on first use by anl_symbolizer() */
};

/* NULL when out of memory */
struct symbolizer *anl_symbolizer(struct anl_env *env);
/* name of traced function ID ("<func#N>" in buf when out of range) */
const char *anl_func_name(const struct anl_env *env, uint32_t id, char *buf, size_t len);
uint32_t anl_func_flags(const struct anl_env *env, uint32_t id);
const char *anl_func_module(const struct anl_env *env, uint32_t id);

/* one session, validated: frames/depth/kstack bounded, comms terminated */
struct anl_session {
	const struct rs_rec_session_end *e;   /* nframes <= 64, depth <= nframes */
	int nk;                               /* valid kstack entries */
	char task_comm[RS_TASK_COMM_LEN + 1];
	char proc_comm[RS_TASK_COMM_LEN + 1];
	const struct rs_rec_hdr *const *recs; /* START/trace/LBR records, in order */
	size_t nrecs;
};

/* entry-function duration: frame 0's latency once it finished, else the
 * session span */
uint64_t anl_session_latency(const struct anl_session *s);

/* -------- hooks for report/main.c and the live tool (live/main.c) */
struct anl;   /* options + outputs; opaque */

/* PROG names the command in messages */
struct anl *anl_new(const char *prog);
/* argv[i] is one of ours: returns the number of arguments consumed (>0),
 * 0 when it is not ours, -1 with a one-line message in err */
int anl_parse_arg(struct anl *a, int argc, char **argv, int i, char *err, size_t errlen);
void anl_usage(FILE *f);
/* after parsing, before anything slow: combinations of outputs that
 * cannot work whatever the recording (two outputs on stdout, a --perfetto
 * file in a directory we cannot write). 0, or -1 with a message in err. */
int anl_check_args(struct anl *a, char *err, size_t errlen);
/* does stdout get the text views (no --format json, --folded, summary)? */
bool anl_text(const struct anl *a);
/* an output file that is the same file as INPUT (the output guard):
 * "--perfetto 'X'" style words in err and -1, else 0 */
int anl_check_output_vs(const struct anl *a, const char *input, const char *what,
			char *err, size_t errlen);
/* with the recording's header and tables (valid until anl_free): resolves
 * filters against them, checks impossible combinations, opens outputs.
 * Returns 0, or -1 with a message in err. May clear opts->show_stack when
 * text is not wanted. A note worth saying (a filter that keeps everything
 * of this recording) goes to stderr. */
int anl_start_tables(struct anl *a, const struct rsf_meta *meta,
		     const struct rsf_ksym *ksyms, size_t nksyms,
		     const struct rsf_module *mods, size_t nmods,
		     const struct rsf_func *funcs, size_t nfuncs,
		     struct report_opts *opts, char *err, size_t errlen);
/* the same, with the tables of an open recording */
int anl_start(struct anl *a, struct rsf_reader *rd, struct report_opts *opts,
	      char *err, size_t errlen);
/* the outputs symbolize with SYM (borrowed: the text report's, DWARF
 * attached when available) instead of a kallsyms-only one of their own */
void anl_set_symbolizer(struct anl *a, struct symbolizer *sym);
/* one record: filtered, passed to the text report (when text is on) and to
 * the analysis outputs */
int anl_feed(struct anl *a, struct report *rep, const struct rs_rec_hdr *rec);
/* end of input (stats NULL without a trailer): finishes the text report
 * and the outputs; returns 0 or -1 when an output could not be written */
int anl_finish(struct anl *a, struct report *rep, const struct rsf_stats *stats);
void anl_free(struct anl *a);

#endif
