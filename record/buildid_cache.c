/* buildid_cache.c - build-ids of mapped files by (device, inode, mtime)
 * (buildid_cache.h): a chained hash table, bounded (cleared when full). */
#include "record/buildid_cache.h"
#include "symbols/dwarf_sym.h"
#include <stdlib.h>
#include <string.h>

#define NBUCKETS 1024
#define MAX_ENTRIES 65536

struct bid_entry {
	struct bid_entry *next;
	uint64_t dev, ino;
	int64_t mtime_s, mtime_ns;
	uint8_t id[20];
	uint8_t len;
};

struct buildid_cache {
	struct bid_entry *b[NBUCKETS];
	size_t n;
};

struct buildid_cache *buildid_cache_new(void)
{
	return calloc(1, sizeof(struct buildid_cache));
}

static void clear(struct buildid_cache *c)
{
	for (size_t i = 0; i < NBUCKETS; i++) {
		while (c->b[i]) {
			struct bid_entry *e = c->b[i];

			c->b[i] = e->next;
			free(e);
		}
	}
	c->n = 0;
}

void buildid_cache_free(struct buildid_cache *c)
{
	if (!c)
		return;
	clear(c);
	free(c);
}

int buildid_cache_get(struct buildid_cache *c, const char *path, const struct stat *st,
		      uint8_t id[20])
{
	size_t h = (size_t)((st->st_ino * 0x9e3779b97f4a7c15ULL) ^ st->st_dev) % NBUCKETS;
	struct bid_entry *e;
	int n;

	for (e = c->b[h]; e; e = e->next)
		if (e->ino == st->st_ino && e->dev == st->st_dev &&
		    e->mtime_s == st->st_mtim.tv_sec && e->mtime_ns == st->st_mtim.tv_nsec) {
			memcpy(id, e->id, 20);
			return e->len;
		}
	if (c->n >= MAX_ENTRIES)
		clear(c);
	e = calloc(1, sizeof(*e));
	n = elf_file_build_id(path, id, 20);
	if (n < 0)
		n = 0;
	if (!e)
		return n;
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->mtime_s = st->st_mtim.tv_sec;
	e->mtime_ns = st->st_mtim.tv_nsec;
	memcpy(e->id, id, 20);
	e->len = (uint8_t)n;
	e->next = c->b[h];
	c->b[h] = e;
	c->n++;
	return n;
}
