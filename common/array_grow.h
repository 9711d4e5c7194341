/* array_grow.h - one growth step for the (pointer, count, capacity)
 * arrays the tools append to: doubles the capacity when full. */
#ifndef RS_ARRAY_GROW_H
#define RS_ARRAY_GROW_H

#include <stdlib.h>

/* makes room for one more element in *v (n used, *cap allocated);
 * returns 0, or -1 (array unchanged) when out of memory */
static inline int array_grow(void **v, size_t n, size_t *cap, size_t elem, size_t first)
{
	size_t nc;
	void *nv;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : first;
	nv = realloc(*v, nc * elem);
	if (!nv)
		return -1;
	*v = nv;
	*cap = nc;
	return 0;
}

#endif
