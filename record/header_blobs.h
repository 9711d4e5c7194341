/* header_blobs.h - the named header blobs of a recording ("btf",
 * "func_btf" for -A, "probes" for -J): record components add them while
 * the recorder attaches, the recorder writes them with the header
 * (rsf_writer_open_blobs) and hands them to the hooks' on_blobs. */
#ifndef RS_HEADER_BLOBS_H
#define RS_HEADER_BLOBS_H

#include <stddef.h>
#include "format/rsfile.h"

struct header_blobs {
	struct rsf_blob *v;       /* name and data owned by the list */
	size_t n, cap;
};

/* Adds a copy of DATA (SIZE bytes) under NAME, replacing a blob of the
 * same name; -EINVAL for a name that is empty or longer than
 * RSF_BLOB_NAME_MAX, -ENOMEM. */
int header_blobs_add(struct header_blobs *b, const char *name, const void *data, size_t size);
/* the blob NAME or NULL */
const struct rsf_blob *header_blobs_find(const struct header_blobs *b, const char *name);
void header_blobs_free(struct header_blobs *b);

#endif
