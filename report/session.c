/* session.c - lookups in the recording's tables for the pipeline's
 * stages (session.h): function names, flags and modules by id, the lazily
 * made symbolizer, a session's entry latency, and a call's captured
 * arguments (-A) rendered. */
#include <stdio.h>
#include <string.h>
#include "args_render.h"
#include "args_store.h"
#include "session.h"

struct symbolizer *rp_symbolizer(struct rp_env *env)
{
	if (!env->sym)
		env->sym = symbolizer_new(env->ksyms, env->nksyms, env->mods, env->nmods);
	return env->sym;
}

const char *rp_func_name(const struct rp_env *env, uint32_t id, char *buf, size_t len)
{
	if (id < env->nfuncs && env->funcs[id].name)
		return env->funcs[id].name;
	snprintf(buf, len, "<func#%u>", id);
	return buf;
}

uint32_t rp_func_flags(const struct rp_env *env, uint32_t id)
{
	return id < env->nfuncs ? env->funcs[id].flags : 0;
}

const char *rp_func_module(const struct rp_env *env, uint32_t id)
{
	return id < env->nfuncs ? env->funcs[id].module : NULL;
}

uint64_t rp_session_latency(const struct rp_session *s)
{
	const struct rs_rec_session_end *e = s->e;
	bool unfinished = (e->flags & RS_SESS_INTERIM) && e->depth > 0;

	if (e->nframes && !unfinished)
		return e->frames[0].lat_ns;
	return e->end_ts > e->start_ts ? e->end_ts - e->start_ts : 0;
}

void rp_env_set_blobs(struct rp_env *env, const struct rsf_blob *blobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(blobs[i].name, "btf")) {
			env->btf_blob = blobs[i].data;
			env->btf_size = blobs[i].size;
		} else if (!strcmp(blobs[i].name, "func_btf")) {
			env->func_btf_blob = blobs[i].data;
			env->func_btf_size = blobs[i].size;
		} else if (!strcmp(blobs[i].name, "probes")) {
			env->probes_blob = blobs[i].data;
			env->probes_size = blobs[i].size;
		}
	}
}

void rp_env_read_blobs(struct rp_env *env, const struct rsf_reader *r)
{
	env->btf_blob = rsf_reader_blob(r, "btf", &env->btf_size);
	env->func_btf_blob = rsf_reader_blob(r, "func_btf", &env->func_btf_size);
	env->probes_blob = rsf_reader_blob(r, "probes", &env->probes_size);
}

const struct rs_rec_func_args *rp_call_args(const struct rp_env *env, const struct rp_session *s,
					    uint32_t seq_id, uint32_t func_id,
					    const struct args_fmt *fmt, struct args_list *l)
{
	const struct rs_rec_func_args *r = args_find(s->args, s->nargs, seq_id, func_id);

	if (r && args_render_rec(env->args_btf, r, fmt, l))
		return NULL;
	return r;
}
