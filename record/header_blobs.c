/* header_blobs.c - the recorder's list of named header blobs
 * (header_blobs.h): copies of what record components hand in. */
#include "record/header_blobs.h"
#include "common/array_grow.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const struct rsf_blob *header_blobs_find(const struct header_blobs *b, const char *name)
{
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->v[i].name, name))
			return &b->v[i];
	return NULL;
}

int header_blobs_add(struct header_blobs *b, const char *name, const void *data, size_t size)
{
	struct rsf_blob *old = (struct rsf_blob *)header_blobs_find(b, name);
	size_t len = strlen(name);
	void *copy;

	if (!len || len > RSF_BLOB_NAME_MAX)
		return -EINVAL;
	copy = malloc(size ? size : 1);
	if (!copy)
		return -ENOMEM;
	if (size)
		memcpy(copy, data, size);
	if (old) {
		free((void *)old->data);
		old->data = copy;
		old->size = size;
		return 0;
	}
	if (array_grow((void **)&b->v, b->n, &b->cap, sizeof(*b->v), 4) ||
	    !(b->v[b->n].name = strdup(name))) {
		free(copy);
		return -ENOMEM;
	}
	b->v[b->n].data = copy;
	b->v[b->n].size = size;
	b->n++;
	return 0;
}

void header_blobs_free(struct header_blobs *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free((void *)b->v[i].name);
		free((void *)b->v[i].data);
	}
	free(b->v);
	memset(b, 0, sizeof(*b));
}
