/* symcache.c - reads (mmap + validation) and atomically writes the
 * persistent per-build-id symbolization index file (see symcache.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "symcache.h"

#define SC_MAGIC "RSDWIX01"
/* bumped whenever the bytes of an index could change, so an older file is
 * rebuilt instead of being read (2: CUs keyed by unit header offset;
 * 3: indexes built by libdw only, the raw reader removed) */
#define SC_VERSION 3

struct sc_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_crc;    /* crc32 of header (this field 0) + ranges + cu table */
	uint64_t file_size;
	uint32_t bid_len;
	uint8_t bid[64];
	uint32_t ncus;
	uint32_t nranges;
	uint32_t pad;
};

struct sc_cu {
	uint64_t unit_off;
	uint64_t data_off;   /* 0: not cached */
	uint32_t nivals, nscopes, nlines, strs_len;
	uint32_t crc;        /* crc32 of the CU's data */
	uint32_t pad;
};

struct symcache {
	uint8_t *map;
	size_t size;
	const struct sc_hdr *hdr;
	const struct sc_range *ranges;
	const struct sc_cu *cus;
	uint8_t *verified;   /* per CU: 0 unchecked, 1 good, 2 bad */
};

static size_t align8(size_t x)
{
	return (x + 7) & ~(size_t)7;
}

static size_t cu_data_size(const struct sc_cu *c)
{
	return align8((size_t)c->nivals * sizeof(struct dwi_ival)) +
	       align8((size_t)c->nscopes * sizeof(struct dwi_scope)) +
	       align8((size_t)c->nlines * sizeof(struct dwi_line)) + align8(c->strs_len);
}

int symcache_path(const uint8_t *bid, size_t bidlen, char *out, size_t outlen)
{
	const char *x = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char dir[4096];
	char hex[129];

	if (!bidlen || bidlen > 64)
		return -1;
	if (x && *x)
		snprintf(dir, sizeof(dir), "%s/retsnoop", x);
	else if (home && *home)
		snprintf(dir, sizeof(dir), "%s/.cache/retsnoop", home);
	else
		return -1;
	for (size_t i = 0; i < bidlen; i++)
		sprintf(hex + 2 * i, "%02x", bid[i]);
	if ((size_t)snprintf(out, outlen, "%s/vmlinux-%s.idx", dir, hex) >= outlen)
		return -1;
	return 0;
}

static uint32_t hdr_crc(const uint8_t *map, const struct sc_hdr *h)
{
	struct sc_hdr tmp = *h;
	tmp.hdr_crc = 0;
	uLong c = crc32(0L, Z_NULL, 0);
	c = crc32(c, (const Bytef *)&tmp, sizeof(tmp));
	c = crc32(c, map + sizeof(*h), (uInt)((size_t)h->nranges * sizeof(struct sc_range) +
					       (size_t)h->ncus * sizeof(struct sc_cu)));
	return (uint32_t)c;
}

struct symcache *symcache_open(const char *path, const uint8_t *bid, size_t bidlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(struct sc_hdr)) {
		close(fd);
		return NULL;
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return NULL;
	struct symcache *sc = calloc(1, sizeof(*sc));
	if (!sc)
		goto bad;
	sc->map = map;
	sc->size = (size_t)st.st_size;
	const struct sc_hdr *h = map;
	if (memcmp(h->magic, SC_MAGIC, 8) || h->version != SC_VERSION ||
	    h->file_size != sc->size || h->bid_len != bidlen || bidlen > 64 ||
	    memcmp(h->bid, bid, bidlen))
		goto bad;
	size_t tables = sizeof(*h) + (size_t)h->nranges * sizeof(struct sc_range) +
			(size_t)h->ncus * sizeof(struct sc_cu);
	if (h->nranges > (1u << 26) || h->ncus > (1u << 24) || tables > sc->size)
		goto bad;
	if (hdr_crc(map, h) != h->hdr_crc)
		goto bad;
	sc->hdr = h;
	sc->ranges = (const struct sc_range *)((const uint8_t *)map + sizeof(*h));
	sc->cus = (const struct sc_cu *)(sc->ranges + h->nranges);
	for (uint32_t i = 0; i < h->nranges; i++)
		if (sc->ranges[i].cu >= h->ncus)
			goto bad;
	for (uint32_t i = 0; i < h->ncus; i++) {
		const struct sc_cu *c = &sc->cus[i];
		if (!c->data_off)
			continue;
		if (c->data_off < tables || c->data_off > sc->size ||
		    cu_data_size(c) > sc->size - c->data_off || (c->data_off & 7))
			goto bad;
	}
	sc->verified = calloc(h->ncus ? h->ncus : 1, 1);
	if (!sc->verified)
		goto bad;
	return sc;
bad:
	munmap(map, (size_t)st.st_size);
	if (sc)
		free(sc->verified);
	free(sc);
	return NULL;
}

void symcache_close(struct symcache *sc)
{
	if (!sc)
		return;
	munmap(sc->map, sc->size);
	free(sc->verified);
	free(sc);
}

const struct sc_range *symcache_ranges(const struct symcache *sc, uint32_t *n)
{
	*n = sc->hdr->nranges;
	return sc->ranges;
}

uint32_t symcache_ncus(const struct symcache *sc)
{
	return sc->hdr->ncus;
}

uint64_t symcache_cu_unit_off(const struct symcache *sc, uint32_t cu)
{
	return cu < sc->hdr->ncus ? sc->cus[cu].unit_off : 0;
}

int symcache_cu(struct symcache *sc, uint32_t cu, struct dwi_cu *out)
{
	if (cu >= sc->hdr->ncus || !sc->cus[cu].data_off)
		return 0;
	const struct sc_cu *c = &sc->cus[cu];
	uint8_t *p = sc->map + c->data_off;
	if (sc->verified[cu] == 0) {
		uLong crc = crc32(0L, Z_NULL, 0);
		crc = crc32(crc, p, (uInt)cu_data_size(c));
		sc->verified[cu] = (uint32_t)crc == c->crc ? 1 : 2;
	}
	if (sc->verified[cu] != 1)
		return -1;
	memset(out, 0, sizeof(*out));
	out->ivals = (struct dwi_ival *)p;
	p += align8((size_t)c->nivals * sizeof(struct dwi_ival));
	out->scopes = (struct dwi_scope *)p;
	p += align8((size_t)c->nscopes * sizeof(struct dwi_scope));
	out->lines = (struct dwi_line *)p;
	p += align8((size_t)c->nlines * sizeof(struct dwi_line));
	out->strs = (char *)p;
	out->nivals = c->nivals;
	out->nscopes = c->nscopes;
	out->nlines = c->nlines;
	out->strs_len = c->strs_len;
	out->owned = 0;
	/* the string pool must be NUL-terminated so lookups cannot run off */
	if (c->strs_len && out->strs[c->strs_len - 1] != '\0')
		return -1;
	return 1;
}

static int write_padded(FILE *f, const void *p, size_t n, uLong *crc)
{
	static const uint8_t zeros[8];
	size_t pad = align8(n) - n;
	if (n && fwrite(p, 1, n, f) != n)
		return -1;
	if (pad && fwrite(zeros, 1, pad, f) != pad)
		return -1;
	if (crc) {
		if (n)
			*crc = crc32(*crc, p, (uInt)n);
		if (pad)
			*crc = crc32(*crc, zeros, (uInt)pad);
	}
	return 0;
}

static void mkdirs(const char *path)
{
	char d[4096];
	snprintf(d, sizeof(d), "%s", path);
	for (char *s = d + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(d, 0755);
		*s = '/';
	}
}

int symcache_write(const char *path, const uint8_t *bid, size_t bidlen,
		   const struct sc_range *ranges, uint32_t nranges,
		   const uint64_t *cu_unit_offs, const struct dwi_cu *const *cus, uint32_t ncus)
{
	char tmp[4200];
	struct sc_hdr h;
	struct sc_cu *tab = NULL;
	FILE *f = NULL;
	int fd;

	if (bidlen > 64)
		return -1;
	mkdirs(path);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d.%lx", path, (int)getpid(), (unsigned long)random());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		goto fail;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	tab = calloc(ncus ? ncus : 1, sizeof(*tab));
	if (!tab)
		goto fail;
	size_t off = sizeof(h) + (size_t)nranges * sizeof(*ranges) + (size_t)ncus * sizeof(*tab);
	for (uint32_t i = 0; i < ncus; i++) {
		tab[i].unit_off = cu_unit_offs[i];
		const struct dwi_cu *c = cus[i];
		if (!c || (!c->nivals && !c->nlines && !c->strs_len))
			continue;
		tab[i].data_off = off;
		tab[i].nivals = c->nivals;
		tab[i].nscopes = c->nscopes;
		tab[i].nlines = c->nlines;
		tab[i].strs_len = c->strs_len;
		off += cu_data_size(&tab[i]);
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SC_MAGIC, 8);
	h.version = SC_VERSION;
	h.file_size = off;
	h.bid_len = (uint32_t)bidlen;
	memcpy(h.bid, bid, bidlen);
	h.ncus = ncus;
	h.nranges = nranges;
	/* data first (to compute each CU's crc), then seek back for tables */
	if (fseek(f, (long)(sizeof(h) + (size_t)nranges * sizeof(*ranges) + (size_t)ncus * sizeof(*tab)), SEEK_SET))
		goto fail;
	for (uint32_t i = 0; i < ncus; i++) {
		const struct dwi_cu *c = cus[i];
		if (!tab[i].data_off)
			continue;
		uLong crc = crc32(0L, Z_NULL, 0);
		if (write_padded(f, c->ivals, (size_t)c->nivals * sizeof(*c->ivals), &crc) ||
		    write_padded(f, c->scopes, (size_t)c->nscopes * sizeof(*c->scopes), &crc) ||
		    write_padded(f, c->lines, (size_t)c->nlines * sizeof(*c->lines), &crc) ||
		    write_padded(f, c->strs, c->strs_len, &crc))
			goto fail;
		tab[i].crc = (uint32_t)crc;
	}
	uLong hc = crc32(0L, Z_NULL, 0);
	hc = crc32(hc, (const Bytef *)&h, sizeof(h));
	hc = crc32(hc, (const Bytef *)ranges, (uInt)((size_t)nranges * sizeof(*ranges)));
	hc = crc32(hc, (const Bytef *)tab, (uInt)((size_t)ncus * sizeof(*tab)));
	h.hdr_crc = (uint32_t)hc;
	if (fseek(f, 0, SEEK_SET) || fwrite(&h, sizeof(h), 1, f) != 1 ||
	    (nranges && fwrite(ranges, sizeof(*ranges), nranges, f) != nranges) ||
	    (ncus && fwrite(tab, sizeof(*tab), ncus, f) != ncus))
		goto fail;
	if (fclose(f)) {
		f = NULL;
		goto fail;
	}
	f = NULL;
	free(tab);
	if (rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
fail:
	if (f)
		fclose(f);
	free(tab);
	unlink(tmp);
	return -1;
}
