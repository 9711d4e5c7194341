/* buildid_cache.h - -U: GNU build-ids of mapped files, read once per file
 * version: cached by (device, inode, mtime), read through libelf
 * (symbols/ elf_file_build_id). */
#ifndef RS_BUILDID_CACHE_H
#define RS_BUILDID_CACHE_H

#include <stdint.h>
#include <sys/stat.h>

struct buildid_cache;

struct buildid_cache *buildid_cache_new(void);
void buildid_cache_free(struct buildid_cache *c);
/* the build-id of the file PATH whose stat is ST (cached by its device,
 * inode and mtime): its length (0: none or unreadable), copied to id */
int buildid_cache_get(struct buildid_cache *c, const char *path, const struct stat *st,
		      uint8_t id[20]);

#endif
