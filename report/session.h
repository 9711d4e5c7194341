/* session.h - what every stage of the report pipeline sees: the
 * recording's tables (struct rp_env, with lookups by traced-function id)
 * and one assembled, validated session (struct rp_session) as the session
 * assembler (session_asm.h) hands it to the filters and the outputs. */
#ifndef RS_SESSION_H
#define RS_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../format/rsfile.h"
#include "symbolize.h"

struct us_maps;
struct ustack_res;

/* what every output needs to know about the recording */
struct rp_env {
	const struct rsf_meta *meta;
	const struct rsf_ksym *ksyms;
	size_t nksyms;
	const struct rsf_module *mods;
	size_t nmods;
	const struct rsf_func *funcs;
	size_t nfuncs;
	struct symbolizer *sym;   /* made by rp_symbolizer() or set by the pipeline */
	struct ustack_res *ures;  /* -U user stacks (ustack_res.h), set by the pipeline */
	/* several recordings merged (rp_new_multi): which one this is, for
	 * the outputs' labels; rec_file NULL when there is only one */
	const char *rec_file;
	const char *rec_host;
	int rec_index;
	/* -A: the recording's "btf" and "func_btf" blobs (NULL/0 without),
	 * and their loaded form the pipeline makes (args_render.h) */
	const void *btf_blob, *func_btf_blob;
	size_t btf_size, func_btf_size;
	struct args_btf *args_btf;
	/* -J: the recording's "probes" blob (format/probe_table.h), or NULL */
	const void *probes_blob;
	size_t probes_size;
};

/* -A: the "btf" and "func_btf" blobs of recording R into ENV */
void rp_env_read_blobs(struct rp_env *env, const struct rsf_reader *r);
/* the same from the recorder's blob list (the live tool's on_blobs) */
void rp_env_set_blobs(struct rp_env *env, const struct rsf_blob *blobs, size_t n);
/* the symbolizer (kallsyms only when made here); NULL when out of memory */
struct symbolizer *rp_symbolizer(struct rp_env *env);
/* name of traced function ID ("<func#N>" in buf when out of range) */
const char *rp_func_name(const struct rp_env *env, uint32_t id, char *buf, size_t len);
uint32_t rp_func_flags(const struct rp_env *env, uint32_t id);
const char *rp_func_module(const struct rp_env *env, uint32_t id);

/* one session snapshot (interim or final), validated by the assembler */
struct rp_session {
	const struct rs_rec_session_end *e;   /* nframes <= 64, depth <= nframes
					       * (0 unless interim) */
	uint32_t raw_depth;                   /* e->depth as recorded (bounded) */
	int nk;                               /* valid kstack entries */
	char task_comm[RS_TASK_COMM_LEN + 1];
	char proc_comm[RS_TASK_COMM_LEN + 1];
	bool started;                         /* its START was seen (state kept) */
	/* -T records since START, arrival order, each copied into a whole
	 * struct (zero-filled past hdr.size, which keeps the recorded size) */
	const struct rs_rec_trace *trace;
	size_t ntrace;
	uint64_t trace_overflow;              /* -T records not kept (bounds) */
	/* LBR records since START (each whole, hdr.size bounded by the
	 * struct), and the one that arrived since the previous snapshot */
	const struct rs_rec_lbr *const *lbrs;
	size_t nlbrs;
	const struct rs_rec_lbr *lbr_new;
	/* -U: the user stack captured with this snapshot (validated,
	 * report/ustack_asm.h) and its process's maps as of the session's
	 * end (NULL when none were recorded) */
	const struct rs_rec_ustack *ustack;
	const struct us_maps *umaps;
	/* -A FUNC_ARGS records (checked, seq_id order: args_find in
	 * args_store.h), and how many were not kept (bounds) */
	const struct rs_rec_func_args *const *args;
	size_t nargs;
	uint64_t args_overflow;
	/* -J probe hits since START, arrival (= sequence) order, validated
	 * (report/probe_store.h) */
	const struct rs_rec_probe *const *probes;
	size_t nprobes;
};

struct args_fmt;
struct args_list;
/* -A: the captured arguments of the call whose entry is SEQ_ID (function
 * FUNC_ID, or any with UINT32_MAX) rendered per FMT into L (appended);
 * the record, or NULL when there is none (or out of memory) */
const struct rs_rec_func_args *rp_call_args(const struct rp_env *env, const struct rp_session *s,
					    uint32_t seq_id, uint32_t func_id,
					    const struct args_fmt *fmt, struct args_list *l);

/* entry-function duration: frame 0's latency once it finished, else the
 * session span */
uint64_t rp_session_latency(const struct rp_session *s);

#endif
