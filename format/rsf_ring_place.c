/* rsf_ring_place.c - where a flight recording's writer puts the next ring
 * block: after the newest one, or back at the ring base when it would pass
 * the ring's end; the blocks it overwrites (and, at a wrap, the older ones
 * beyond the end of the lap just finished) leave the live set, so every
 * block can record the oldest one still in the ring. Also the ring
 * prefix's checksum. */
#include <stdlib.h>
#include <string.h>
#include "rsf_internal.h"

void rsf_ring_prefix_seal(struct rsf_ring_prefix *p)
{
	p->reserved = 0;
	p->crc = rsf_crc32(p, offsetof(struct rsf_ring_prefix, crc));
}

bool rsf_ring_prefix_ok(const struct rsf_ring_prefix *p)
{
	return p->crc == rsf_crc32(p, offsetof(struct rsf_ring_prefix, crc)) &&
	       p->oldest_seq <= p->seq;
}

static struct rsf_ring_slot *front(struct rsf_ring_place *p)
{
	return p->qlen ? &p->q[p->qhead] : NULL;
}

static void pop(struct rsf_ring_place *p)
{
	p->qhead = (p->qhead + 1) % p->qcap;
	p->qlen--;
}

static int push(struct rsf_ring_place *p, uint64_t off, uint64_t size)
{
	if (p->qlen == p->qcap) {
		size_t cap = p->qcap ? p->qcap * 2 : 64;
		struct rsf_ring_slot *q = malloc(cap * sizeof(*q));

		if (!q)
			return -1;
		for (size_t i = 0; i < p->qlen; i++)
			q[i] = p->q[(p->qhead + i) % p->qcap];
		free(p->q);
		p->q = q;
		p->qcap = cap;
		p->qhead = 0;
	}
	p->q[(p->qhead + p->qlen) % p->qcap] = (struct rsf_ring_slot){ off, size };
	p->qlen++;
	return 0;
}

int rsf_ring_place_next(struct rsf_ring_place *p, uint64_t size, uint64_t *off,
			uint64_t *seq, uint64_t *oldest_seq)
{
	struct rsf_ring_slot *f;

	if (p->wpos + size > p->size) {
		/* wrap: blocks past the end of the lap just finished are older
		 * than the ones at the ring base, which are overwritten first */
		while ((f = front(p)) && f->off >= p->wpos)
			pop(p);
		p->wpos = 0;
	}
	/* blocks starting inside [wpos, wpos + size) are overwritten; a live
	 * block never starts before wpos and ends after it */
	while ((f = front(p)) && f->off >= p->wpos && f->off < p->wpos + size)
		pop(p);
	if (push(p, p->wpos, size))
		return -1;
	*off = p->wpos;
	*seq = p->next_seq++;
	*oldest_seq = *seq + 1 - p->qlen;
	p->wpos += size;
	return 0;
}

void rsf_ring_place_free(struct rsf_ring_place *p)
{
	free(p->q);
	memset(p, 0, sizeof(*p));
}
