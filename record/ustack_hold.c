/* ustack_hold.c - USTACK records waiting for their SESSION_END
 * (ustack_hold.h): a few slots, since only records of other CPUs can come
 * between a USTACK and its END. */
#include "record/ustack_hold.h"
#include <stdlib.h>
#include <string.h>

#define NSLOTS 64

struct held {
	struct rs_rec_hdr *rec;   /* NULL: free */
	uint64_t sess_id, seq;
};

struct ustack_hold {
	struct held v[NSLOTS];
	uint64_t seq, dropped;
};

struct ustack_hold *ustack_hold_new(void)
{
	return calloc(1, sizeof(struct ustack_hold));
}

void ustack_hold_free(struct ustack_hold *h)
{
	if (!h)
		return;
	for (int i = 0; i < NSLOTS; i++)
		free(h->v[i].rec);
	free(h);
}

uint64_t ustack_hold_dropped(const struct ustack_hold *h)
{
	uint64_t n = h->dropped;

	for (int i = 0; i < NSLOTS; i++)
		n += h->v[i].rec != NULL;
	return n;
}

static int release(struct held *e, bool keep, ustack_emit_fn emit, void *ctx)
{
	struct rs_rec_hdr *rec = e->rec;
	int r = 0;

	e->rec = NULL;
	if (keep)
		r = emit(ctx, rec, rec->size);
	free(rec);
	return r;
}

int ustack_hold_put(struct ustack_hold *h, const struct rs_rec_hdr *rec, uint32_t size,
		    ustack_emit_fn emit, void *ctx)
{
	const struct rs_rec_ustack *us = (const void *)rec;
	struct held *slot = NULL, *oldest = NULL;

	for (int i = 0; i < NSLOTS; i++) {
		struct held *e = &h->v[i];

		if (e->rec && e->sess_id == us->sess_id) {   /* its END was lost: replaced */
			h->dropped++;
			release(e, false, emit, ctx);
			slot = e;
			break;
		}
		if (!e->rec && !slot)
			slot = e;
		else if (e->rec && (!oldest || e->seq < oldest->seq))
			oldest = e;
	}
	if (!slot) {
		slot = oldest;
		if (release(slot, true, emit, ctx) < 0)
			return -1;
	}
	slot->rec = malloc(size);
	if (!slot->rec)
		return emit(ctx, rec, size);   /* no memory: written unfiltered */
	memcpy(slot->rec, rec, size);
	slot->sess_id = us->sess_id;
	slot->seq = h->seq++;
	return 0;
}

int ustack_hold_end(struct ustack_hold *h, uint64_t sess_id, bool keep, ustack_emit_fn emit,
		    void *ctx)
{
	for (int i = 0; i < NSLOTS; i++) {
		struct held *e = &h->v[i];

		if (e->rec && e->sess_id == sess_id) {
			h->dropped += !keep;
			return release(e, keep, emit, ctx);
		}
	}
	return 0;
}
