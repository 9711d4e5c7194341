/* merge_feed.c - time-ordered merge of several recordings (merge_feed.h):
 * each recording has its own session assembler, and a session is output
 * only when its SESSION_END is fed, so every other record goes straight
 * to its recording's assembler (which bounds what it buffers) and only
 * the next SESSION_END of each recording waits here. The recording whose
 * waiting END is the earliest (end_ts + its clock offset) feeds it, then
 * reads on. Each recording's own order is kept; memory held here is one
 * END record per recording. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "merge_feed.h"

struct pending {
	uint8_t *buf;                   /* the waiting SESSION_END */
	size_t len, cap;
	bool has_end, done;
	int64_t end_real;               /* of the buffered END */
};

static int push(struct pending *q, const struct rs_rec_hdr *h)
{
	size_t padded = ((size_t)h->size + 7) & ~(size_t)7;

	if (q->len + padded > q->cap) {
		size_t cap = q->cap ? q->cap : 65536;
		uint8_t *b;

		while (cap < q->len + padded)
			cap *= 2;
		if (!(b = realloc(q->buf, cap)))
			return -1;
		q->buf = b;
		q->cap = cap;
	}
	memcpy(q->buf + q->len, h, h->size);
	q->len += padded;
	return 0;
}

/* feeds recording K's records up to its next SESSION_END, which waits in Q */
static int refill(struct rp *p, size_t k, struct pending *q, struct rsf_reader *rd,
		  enum rsf_status *st)
{
	const struct rs_rec_hdr *h;
	int64_t m2r = rsf_reader_meta(rd)->mono_to_realtime_ns;

	q->has_end = false;
	while (!q->done) {
		*st = rsf_reader_next(rd, &h);
		if (*st != RSF_OK) {
			q->done = true;
			break;
		}
		if (h->type != RS_REC_SESSION_END ||
		    h->size < offsetof(struct rs_rec_session_end, task_comm)) {
			if (rp_feed_from(p, k, h))
				return -1;
			continue;
		}
		if (push(q, h))
			return -1;
		q->has_end = true;
		q->end_real = (int64_t)((const struct rs_rec_session_end *)h)->end_ts + m2r;
		break;
	}
	return 0;
}

static int drain(struct rp *p, size_t k, struct pending *q)
{
	int ret = 0;

	for (size_t off = 0; off < q->len;) {
		const struct rs_rec_hdr *h = (const void *)(q->buf + off);

		if (rp_feed_from(p, k, h))
			ret = -1;
		off += ((size_t)h->size + 7) & ~(size_t)7;
	}
	q->len = 0;
	return ret;
}

int merge_feed(struct rp *p, struct rsf_reader **rd, size_t n, enum rsf_status *st)
{
	struct pending *q = calloc(n, sizeof(*q));
	int ret = 0;

	if (!q)
		return -1;
	for (size_t k = 0; k < n && !ret; k++)
		ret = refill(p, k, &q[k], rd[k], &st[k]);
	while (!ret) {
		size_t best = n;

		for (size_t k = 0; k < n; k++)
			if (q[k].has_end && (best == n || q[k].end_real < q[best].end_real))
				best = k;
		if (best == n)
			break;
		if (drain(p, best, &q[best]) || refill(p, best, &q[best], rd[best], &st[best]))
			ret = -1;
	}
	for (size_t k = 0; k < n; k++)   /* the loop ends when no END waits */
		free(q[k].buf);
	free(q);
	return ret;
}
