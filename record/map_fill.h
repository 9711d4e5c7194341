/* map_fill.h - filling a BPF array map's first entries from a C array in
 * one BPF_MAP_UPDATE_BATCH call (one syscall, not one per entry: 10k
 * functions' tables fill in one go). */
#ifndef RS_MAP_FILL_H
#define RS_MAP_FILL_H

#include <stdint.h>

/* entries 0..n-1 of the array map fd get values[0..n-1] (each the map's
 * value size); 0, or -1 with errno set */
int array_map_fill(int fd, const void *values, uint32_t n);

#endif
