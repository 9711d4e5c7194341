/* runsort.c - natural merge sort (see runsort.h): finds the ascending
 * runs, then merges neighbouring runs pairwise until one is left,
 * alternating between the array and one temporary buffer. */
#include <stdlib.h>
#include <string.h>
#include "runsort.h"

int runsort(void *base, size_t n, size_t elsz, int (*cmp)(const void *, const void *))
{
	char *a = base;
	size_t nruns = 1;

	for (size_t i = 1; i < n; i++)
		if (cmp(a + (i - 1) * elsz, a + i * elsz) > 0)
			nruns++;
	if (n < 2 || nruns == 1)
		return 0;
	/* run starts, terminated by n */
	size_t *runs = malloc((nruns + 1) * sizeof(*runs));
	char *tmp = malloc(n * elsz);
	if (!runs || !tmp) {
		free(runs);
		free(tmp);
		return -1;
	}
	size_t k = 0;
	runs[k++] = 0;
	for (size_t i = 1; i < n; i++)
		if (cmp(a + (i - 1) * elsz, a + i * elsz) > 0)
			runs[k++] = i;
	runs[k] = n;

	char *src = a, *dst = tmp;
	while (nruns > 1) {
		size_t out = 0;
		for (size_t r = 0; r < nruns; r += 2) {
			size_t lo = runs[r];
			if (r + 1 == nruns) {
				/* odd run out: copy it over */
				memcpy(dst + lo * elsz, src + lo * elsz, (n - lo) * elsz);
				runs[out++] = lo;
				break;
			}
			size_t mid = runs[r + 1], hi = runs[r + 2];
			size_t i = lo, j = mid, o = lo;
			while (i < mid && j < hi) {
				if (cmp(src + j * elsz, src + i * elsz) < 0)
					memcpy(dst + o++ * elsz, src + j++ * elsz, elsz);
				else
					memcpy(dst + o++ * elsz, src + i++ * elsz, elsz);
			}
			memcpy(dst + o * elsz, src + i * elsz, (mid - i) * elsz);
			o += mid - i;
			memcpy(dst + o * elsz, src + j * elsz, (hi - j) * elsz);
			runs[out++] = lo;
		}
		nruns = out;
		runs[nruns] = n;
		char *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * elsz);
	free(runs);
	free(tmp);
	return 0;
}
