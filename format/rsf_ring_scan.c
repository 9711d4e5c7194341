/* rsf_ring_scan.c - a reader's view of a flight recording's ring: finds
 * every intact ring block header (block header and ring prefix checksums)
 * between the ring base and the end of the ring or the file, walking from
 * block to block and scanning 8-byte steps only across bytes that are no
 * block (the tail of a block partly overwritten, a block cut short by a
 * kill); then keeps the newest block's live range in recording order.
 * Payloads are not read here: each chunk is verified when it is loaded. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rsf_internal.h"

#define PROBE   (RSF_BLOCK_HDR_SIZE + RSF_RING_PREFIX_SIZE)
#define WINDOW  (64u << 10)

struct scan {
	int fd;
	uint64_t base, end;
	struct rsf_ring_ent *v;
	size_t n, cap;
};

/* a ring block header and prefix at OFF (PROBE bytes at P), fully inside the ring */
static bool probe_ok(const struct scan *s, const uint8_t *p, uint64_t off, struct rsf_ring_ent *e)
{
	struct rsf_block_hdr h;

	memcpy(&h, p, sizeof(h));
	if (h.magic != RSF_BLOCK_MAGIC || rsf_block_check_hdr(&h))
		return false;
	if (h.type != RSF_BLK_RCHUNK && h.type != RSF_BLK_RTRAILER)
		return false;
	if (h.comp_size < RSF_RING_PREFIX_SIZE || off + sizeof(h) + h.comp_size > s->end)
		return false;
	memcpy(&e->pre, p + sizeof(h), sizeof(e->pre));
	if (!rsf_ring_prefix_ok(&e->pre))
		return false;
	e->off = off;
	e->type = h.type;
	return true;
}

static uint64_t block_end(const uint8_t *p, uint64_t off)
{
	uint64_t comp = rsf_get32(p + offsetof(struct rsf_block_hdr, comp_size));
	uint64_t end = off + RSF_BLOCK_HDR_SIZE + comp;

	return (end + RSF_RING_ALIGN - 1) & ~(uint64_t)(RSF_RING_ALIGN - 1);
}

static int keep(struct scan *s, const struct rsf_ring_ent *e)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct rsf_ring_ent *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = *e;
	return 0;
}

/* scans from *pos in windows for the next intact block; *pos = its offset
 * (or the end). 1 found, 0 none, -1 read error */
static int scan_forward(struct scan *s, uint8_t *win, uint64_t *pos)
{
	struct rsf_ring_ent e;

	while (*pos + PROBE <= s->end) {
		uint64_t want = s->end - *pos < WINDOW ? s->end - *pos : WINDOW;
		ssize_t got = rsf_pread_full(s->fd, win, want, *pos);

		if (got < 0)
			return -1;
		if (got < PROBE)
			break;
		for (uint64_t i = 0; i + PROBE <= (uint64_t)got; i += RSF_RING_ALIGN)
			if (probe_ok(s, win + i, *pos + i, &e)) {
				*pos += i;
				return 1;
			}
		/* the next window overlaps the last PROBE bytes of this one */
		uint64_t step = ((uint64_t)got - PROBE + RSF_RING_ALIGN) & ~(uint64_t)(RSF_RING_ALIGN - 1);
		*pos += step ? step : RSF_RING_ALIGN;
	}
	*pos = s->end;
	return 0;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct rsf_ring_ent *x = a, *y = b;

	return x->pre.seq < y->pre.seq ? -1 : x->pre.seq > y->pre.seq;
}

/* the newest block's live range, sorted; a trailer only as the newest */
static void keep_live(struct scan *s)
{
	size_t newest = 0, k = 0;

	for (size_t i = 1; i < s->n; i++)
		if (s->v[i].pre.seq > s->v[newest].pre.seq)
			newest = i;
	uint64_t lo = s->v[newest].pre.oldest_seq, hi = s->v[newest].pre.seq;
	for (size_t i = 0; i < s->n; i++) {
		const struct rsf_ring_ent *e = &s->v[i];

		if (e->pre.seq < lo || e->pre.seq > hi)
			continue;
		if (e->type == RSF_BLK_RTRAILER && i != newest)
			continue;
		s->v[k++] = *e;
	}
	s->n = k;
	qsort(s->v, s->n, sizeof(*s->v), cmp_seq);
	/* the same seq twice cannot be written; keep the first if it is there */
	k = 0;
	for (size_t i = 0; i < s->n; i++)
		if (!k || s->v[i].pre.seq != s->v[k - 1].pre.seq)
			s->v[k++] = s->v[i];
	s->n = k;
}

const char *rsf_ring_scan(int fd, uint64_t base, uint64_t end,
			  struct rsf_ring_ent **out, size_t *n)
{
	struct scan s = { .fd = fd, .base = base, .end = end };
	uint8_t *win = malloc(WINDOW);
	uint8_t p[PROBE];
	uint64_t pos = base;
	const char *err = NULL;

	if (!win)
		return "out of memory";
	while (pos + PROBE <= end) {
		struct rsf_ring_ent e;
		ssize_t got = rsf_pread_full(fd, p, PROBE, pos);

		if (got < 0) {
			err = strerror(errno);
			break;
		}
		if (got == PROBE && probe_ok(&s, p, pos, &e)) {
			if (keep(&s, &e)) {
				err = "out of memory";
				break;
			}
			pos = block_end(p, pos);
			continue;
		}
		int k = scan_forward(&s, win, &pos);
		if (k < 0) {
			err = strerror(errno);
			break;
		}
	}
	free(win);
	if (err) {
		free(s.v);
		return err;
	}
	if (s.n)
		keep_live(&s);
	*out = s.v;
	*n = s.n;
	return NULL;
}
