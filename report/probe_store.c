/* probe_store.c - validation and keeping of RS_REC_PROBE records
 * (probe_store.h). */
#include <stdlib.h>
#include <string.h>
#include "../common/array_grow.h"
#include "probe_store.h"

size_t rp_probe_kept_size(const struct rs_rec_hdr *h)
{
	struct rs_rec_probe p;

	if (h->size < sizeof(p))
		return 0;
	memcpy(&p, h, sizeof(p));
	if (p.depth > RS_MAX_FSTACK_DEPTH)
		return 0;
	if (!(p.flags & RS_PROBEF_CTX))
		return sizeof(p);
	if (p.ctx_len < 0 || (uint32_t)p.ctx_len > RP_PROBE_CTX_MAX ||
	    sizeof(p) + (uint32_t)p.ctx_len > h->size)
		return 0;
	return sizeof(p) + (uint32_t)p.ctx_len;
}

int rp_probe_store_add(struct rp_probe_store *s, const struct rs_rec_hdr *h)
{
	size_t n = rp_probe_kept_size(h);
	struct rs_rec_probe *p;

	if (!n)
		return 1;
	if (array_grow((void **)&s->v, s->n, &s->cap, sizeof(*s->v), 8) || !(p = malloc(n)))
		return -1;
	memcpy(p, h, n);
	p->hdr.size = (uint32_t)n;
	if (!(p->flags & RS_PROBEF_CTX) && !(p->flags & RS_PROBEF_CTX_ERR))
		p->ctx_len = 0;
	s->v[s->n++] = p;
	s->bytes += n;
	return 0;
}

void rp_probe_store_free(struct rp_probe_store *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
