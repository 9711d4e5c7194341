/* ustack_asm.c - USTACK records kept until their session's END, and the
 * validation of USTACK and UMAPS records (see ustack_asm.h). USTACK
 * records come right before their SESSION_END, so few wait at once: a
 * small array searched linearly, the oldest evicted at the bounds. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "ustack_asm.h"

#define KNOWN_FLAGS (RS_USTACKF_SHORT | RS_USTACKF_NO_USER | RS_USTACKF_ERR)

struct rs_rec_ustack *us_rec_validate(const struct rs_rec_hdr *h, int *res)
{
	const struct rs_rec_ustack *u = (const void *)h;
	size_t fixed = sizeof(*u);
	struct rs_rec_ustack *c;

	*res = US_ADD_BAD;
	if (h->size < fixed || (u->flags & ~(rs_u32)KNOWN_FLAGS) ||
	    u->stack_len > US_MAX_STACK || u->stack_len > h->size - fixed)
		return NULL;
	if ((u->flags & (RS_USTACKF_NO_USER | RS_USTACKF_ERR)) && u->stack_len)
		return NULL;
	c = malloc(fixed + u->stack_len);
	if (!c) {
		*res = US_ADD_NOMEM;
		return NULL;
	}
	memcpy(c, u, fixed + u->stack_len);
	c->hdr.size = (rs_u32)(fixed + u->stack_len);
	*res = US_ADD_OK;
	return c;
}

/* every path inside the strings and terminated; sane ranges */
static bool umaps_ok(const struct rs_rec_umaps *u, const char *str)
{
	if (u->strings_len && str[u->strings_len - 1] != '\0')
		return false;
	for (uint32_t i = 0; i < u->nmaps; i++) {
		const struct rs_umap *m = &u->maps[i];

		if (m->start >= m->end || m->build_id_len > sizeof(m->build_id) ||
		    m->path_off >= u->strings_len)
			return false;
	}
	return true;
}

struct rs_rec_umaps *us_umaps_validate(const struct rs_rec_hdr *h, int *res)
{
	const struct rs_rec_umaps *u = (const void *)h;
	size_t fixed = sizeof(*u), need;
	struct rs_rec_umaps *c;

	*res = US_ADD_BAD;
	if (h->size < fixed || u->nmaps > US_MAX_NMAPS)
		return NULL;
	need = fixed + (size_t)u->nmaps * sizeof(u->maps[0]) + u->strings_len;
	if (need > h->size || !u->strings_len)
		return NULL;
	if (!umaps_ok(u, (const char *)&u->maps[u->nmaps]))
		return NULL;
	c = malloc(need);
	if (!c) {
		*res = US_ADD_NOMEM;
		return NULL;
	}
	memcpy(c, u, need);
	c->hdr.size = (rs_u32)need;
	*res = US_ADD_OK;
	return c;
}

/* ------------------------------------------------ waiting for their END */
struct us_pending {
	struct rs_rec_ustack *v[US_MAX_PENDING];   /* oldest first */
	size_t n;
	size_t bytes;
};

struct us_pending *us_pending_new(void)
{
	return calloc(1, sizeof(struct us_pending));
}

static void remove_at(struct us_pending *p, size_t i)
{
	p->bytes -= p->v[i]->hdr.size;
	memmove(&p->v[i], &p->v[i + 1], (p->n - i - 1) * sizeof(p->v[0]));
	p->n--;
}

struct rs_rec_ustack *us_pending_take(struct us_pending *p, uint64_t sess_id)
{
	for (size_t i = p->n; i-- > 0;) {
		struct rs_rec_ustack *u = p->v[i];

		if (u->sess_id == sess_id) {
			remove_at(p, i);
			return u;
		}
	}
	return NULL;
}

int us_pending_add(struct us_pending *p, const struct rs_rec_hdr *h)
{
	int res, over = 0;
	struct rs_rec_ustack *u = us_rec_validate(h, &res), *old;

	if (!u)
		return res;
	if ((old = us_pending_take(p, u->sess_id)))
		free(old);   /* the newer capture of the same session wins */
	while (p->n && (p->n >= US_MAX_PENDING || p->bytes + u->hdr.size > US_MAX_PENDING_BYTES)) {
		struct rs_rec_ustack *gone = p->v[0];

		remove_at(p, 0);
		free(gone);
		over = 1;
	}
	p->v[p->n++] = u;
	p->bytes += u->hdr.size;
	return over ? US_ADD_OVER : US_ADD_OK;
}

void us_pending_free(struct us_pending *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p);
}
