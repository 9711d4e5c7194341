/* rsf_buf.c - the growable byte buffer the format library builds blocks,
 * tables and key/value sections in. */
#include <stdlib.h>
#include <string.h>
#include "rsf_internal.h"

int rsf_buf_reserve(struct rsf_buf *b, size_t extra)
{
	if (extra > SIZE_MAX - b->len)
		return -1;
	size_t need = b->len + extra;
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	uint8_t *p = realloc(b->data, cap);
	if (!p)
		return -1;
	b->data = p;
	b->cap = cap;
	return 0;
}

int rsf_buf_append(struct rsf_buf *b, const void *p, size_t n)
{
	if (rsf_buf_reserve(b, n))
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

void rsf_buf_free(struct rsf_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
