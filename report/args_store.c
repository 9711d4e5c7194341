/* args_store.c - validation, keeping and lookup of a session's FUNC_ARGS
 * records (args_store.h). A record is checked once, against its own
 * hdr.size, before anything reads its descriptors. */
#include <stdlib.h>
#include <string.h>
#include "../common/array_grow.h"
#include "args_store.h"

int args_rec_check(const struct rs_rec_hdr *h)
{
	const struct rs_rec_func_args *r = (const struct rs_rec_func_args *)h;
	size_t fixed = sizeof(*r);

	if (h->size < fixed || r->nargs > RS_MAX_FUNC_ARGS || h->size - fixed < r->data_len)
		return -1;
	for (int i = 0; i < r->nargs; i++) {
		const struct rs_arg_desc *d = &r->args[i];

		if ((size_t)d->off + d->len > r->data_len)
			return -1;
	}
	return 0;
}

size_t args_rec_bytes(const struct rs_rec_hdr *h)
{
	return sizeof(struct rs_rec_func_args) + ((const struct rs_rec_func_args *)h)->data_len;
}

int args_store_add(struct rp_args_store *s, const struct rs_rec_hdr *h)
{
	size_t n = args_rec_bytes(h);
	struct rs_rec_func_args *c;

	if (array_grow((void **)&s->recs, s->n, &s->cap, sizeof(*s->recs), 16) || !(c = malloc(n)))
		return -1;
	memcpy(c, h, n);
	c->hdr.size = (uint32_t)n;
	if (s->n && s->recs[s->n - 1]->seq_id > c->seq_id)
		s->unsorted = true;
	s->recs[s->n++] = c;
	s->bytes += n;
	return 0;
}

static int by_seq(const void *a, const void *b)
{
	uint32_t x = (*(struct rs_rec_func_args *const *)a)->seq_id;
	uint32_t y = (*(struct rs_rec_func_args *const *)b)->seq_id;

	return x < y ? -1 : x > y;
}

void args_store_sort(struct rp_args_store *s)
{
	if (s->unsorted)
		qsort(s->recs, s->n, sizeof(*s->recs), by_seq);
	s->unsorted = false;
}

void args_store_free(struct rp_args_store *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->recs[i]);
	free(s->recs);
	memset(s, 0, sizeof(*s));
}

const struct rs_rec_func_args *args_find(const struct rs_rec_func_args *const *recs, size_t n,
					 uint32_t seq_id, uint32_t func_id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (recs[mid]->seq_id < seq_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the first of equal seq_ids (a duplicate is a malformed recording) */
	for (; lo < n && recs[lo]->seq_id == seq_id; lo++)
		if (func_id == UINT32_MAX || recs[lo]->func_id == func_id)
			return recs[lo];
	return NULL;
}
