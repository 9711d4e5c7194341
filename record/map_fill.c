/* map_fill.c - one batch update fills an array map (map_fill.h). */
#include "record/map_fill.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>

int array_map_fill(int fd, const void *values, uint32_t n)
{
	uint32_t *keys, count = n;
	int ret;

	if (!n)
		return 0;
	keys = malloc(n * sizeof(*keys));
	if (!keys) {
		errno = ENOMEM;
		return -1;
	}
	for (uint32_t k = 0; k < n; k++)
		keys[k] = k;
	ret = bpf_map_update_batch(fd, keys, values, &count, NULL) ? -1 : 0;
	free(keys);
	return ret;
}
