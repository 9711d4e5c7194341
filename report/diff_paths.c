/* diff_paths.c - the table of failing call paths `diff` compares
 * (diff_paths.h): the key is the path plus the error, hashed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff_paths.h"
#include "result_fmt.h"

static uint64_t hash_str(const char *s, const char *t)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (; *t; t++)
		h = (h ^ (uint8_t)*t) * 1099511628211ull;
	return h;
}

static int rehash(struct fail_paths *fp)
{
	size_t n = fp->nslot ? fp->nslot * 2 : 256;
	size_t *slot = malloc(n * sizeof(*slot));

	if (!slot)
		return -1;
	memset(slot, 0xff, n * sizeof(*slot));
	for (size_t i = 0; i < fp->n; i++) {
		size_t k = hash_str(fp->v[i].path, fp->v[i].error) & (n - 1);

		while (slot[k] != SIZE_MAX)
			k = (k + 1) & (n - 1);
		slot[k] = i;
	}
	free(fp->slot);
	fp->slot = slot;
	fp->nslot = n;
	return 0;
}

static struct fail_path *lookup(struct fail_paths *fp, const char *path, const char *error,
				const char *deepest)
{
	if ((fp->n + 1) * 2 > fp->nslot && rehash(fp))
		return NULL;
	size_t k = hash_str(path, error) & (fp->nslot - 1);

	for (; fp->slot[k] != SIZE_MAX; k = (k + 1) & (fp->nslot - 1)) {
		struct fail_path *f = &fp->v[fp->slot[k]];

		if (!strcmp(f->path, path) && !strcmp(f->error, error))
			return f;
	}
	if (fp->n == fp->cap) {
		size_t cap = fp->cap ? fp->cap * 2 : 64;
		struct fail_path *v = realloc(fp->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		fp->v = v;
		fp->cap = cap;
	}
	struct fail_path *f = &fp->v[fp->n];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	f->deepest = strdup(deepest);
	if (!f->path || !f->deepest) {
		free(f->path);
		free(f->deepest);
		return NULL;
	}
	snprintf(f->error, sizeof(f->error), "%s", error);
	fp->slot[k] = fp->n++;
	return f;
}

static const char *fname(const struct rsf_func *funcs, size_t nfuncs, uint32_t id, char *buf,
			 size_t len)
{
	if (id < nfuncs && funcs[id].name)
		return funcs[id].name;
	snprintf(buf, len, "<func#%u>", id);
	return buf;
}

int fail_paths_add(struct fail_paths *fp, int side, const struct rs_rec_session_end *e,
		   const struct rsf_func *funcs, size_t nfuncs)
{
	unsigned nframes = e->nframes < RS_MAX_FSTACK_DEPTH ? e->nframes : RS_MAX_FSTACK_DEPTH;
	char path[RS_MAX_FSTACK_DEPTH * 72], res[RESULT_FMT_MAX], nb[32];
	int deepest = -1;
	size_t len = 0;

	fp->sessions[side]++;
	for (int i = (int)nframes - 1; i >= 0 && deepest < 0; i--) {
		uint32_t id = e->frames[i].func_id;

		if (result_is_error(e->frames[i].res, id < nfuncs ? funcs[id].flags : 0))
			deepest = i;
	}
	if (deepest < 0)
		return 0;
	fp->failing[side]++;
	path[0] = '\0';
	for (int i = 0; i <= deepest; i++)
		len += (size_t)snprintf(path + len, sizeof(path) - len, "%s%.64s", i ? " > " : "",
					fname(funcs, nfuncs, e->frames[i].func_id, nb, sizeof(nb)));
	uint32_t id = e->frames[deepest].func_id;
	result_fmt(res, sizeof(res), e->frames[deepest].res, id < nfuncs ? funcs[id].flags : 0);
	/* "[-ENOMEM]" -> "-ENOMEM" */
	size_t rl = strlen(res);
	if (rl >= 2 && res[0] == '[' && res[rl - 1] == ']') {
		memmove(res, res + 1, rl - 2);
		res[rl - 2] = '\0';
	}
	struct fail_path *f = lookup(fp, path, res, fname(funcs, nfuncs, id, nb, sizeof(nb)));
	if (!f)
		return -1;
	f->count[side]++;
	return 0;
}

void fail_paths_free(struct fail_paths *fp)
{
	for (size_t i = 0; i < fp->n; i++) {
		free(fp->v[i].path);
		free(fp->v[i].deepest);
	}
	free(fp->v);
	free(fp->slot);
	memset(fp, 0, sizeof(*fp));
}
