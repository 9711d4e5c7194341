/* output.h - the one interface every report output implements (text
 * views, JSON, Perfetto, folded stacks, summary): begin with the
 * recording's tables, one call per kept session snapshot (interim ones
 * included: an output that wants final sessions only skips them), finish
 * at the end of input, free. The pipeline (pipeline.c) holds the table of
 * outputs and calls them in its order; outputs never call the pipeline. */
#ifndef RS_OUTPUT_H
#define RS_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "report_opts.h"
#include "session.h"

/* records an output needs the assembler to keep */
#define RP_NEED_TRACE 1u
#define RP_NEED_LBR   2u

/* what an output starts with; everything outlives it */
struct rp_setup {
	struct rp_env *env;             /* env->sym may be set after begin */
	const struct report_opts *opts;
	const struct rp_outsel *sel;
	FILE *out;                      /* stdout of the command */
};

struct rp_output {
	const char *name;
	/* does this selection ask for the output? */
	bool (*wanted)(const struct rp_setup *su);
	/* RP_NEED_* */
	unsigned (*needs)(const struct rp_setup *su);
	/* its state, or NULL with a message in err */
	void *(*begin)(const struct rp_setup *su, char *err, size_t errlen);
	/* 0, or -1 when it could not be written (or out of memory) */
	int (*session)(void *o, const struct rp_session *s);
	/* writes what it aggregated; 0, or -1 with a message in err */
	int (*finish)(void *o, char *err, size_t errlen);
	void (*free)(void *o);
};

#endif
