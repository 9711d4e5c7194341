/* runsort.h - a natural merge sort for arrays that are already sorted or
 * made of a few sorted runs (DWARF line rows, scope ranges): linear time
 * on sorted input, O(n log runs) otherwise, where qsort pays n log n
 * indirect comparisons regardless. Not stable; callers sort by unique keys. */
#ifndef RS_RUNSORT_H
#define RS_RUNSORT_H

#include <stddef.h>

/* Sorts n elements of size elsz at base by cmp. Returns 0, or -1 when the
 * temporary buffer cannot be allocated (base is then left unchanged). */
int runsort(void *base, size_t n, size_t elsz, int (*cmp)(const void *, const void *));

#endif
