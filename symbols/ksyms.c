/* ksyms.c - kallsyms function symbols: fast in-place parsing of
 * /proc/kallsyms-format files, sizes, address lookup by binary search and
 * name(+module) lookup through a hash index of the names (see ksyms.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ksyms.h"

struct ksyms {
	struct ksym *syms;     /* sorted by address (file order among equals) */
	size_t n;
	char *pool;            /* file contents or copied strings; names point here */
	/* names hashed into nbuckets chains (a power of two): head[h] and
	 * next[i] hold a symbol's index + 1 (0 ends a chain), each chain in
	 * address order; cheaper to build than a sorted index (no compare of
	 * ~100k names n log n times), and a lookup reads one short chain */
	uint32_t *head, *next;
	size_t nbuckets;
};

static bool is_func_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* __pfx_X: the call padding in front of X (6.2+ with CALL_PADDING), nearly
 * half of a distribution kernel's function symbols; no call returns or
 * probe fires there, so they are left out of the table */
static bool is_padding(const char *name)
{
	return !strncmp(name, "__pfx_", 6);
}

/* reads the whole file (procfs reports size 0, so read until EOF) */
static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	size_t cap = 1 << 20, n = 0;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(cap + 1);
	while (buf) {
		ssize_t r;

		if (n == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	if (!buf) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* a hex digit's value + 1; 0 for any other byte */
static const unsigned char hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* tie-break on the original position, stashed in size's low half
	 * before sorting (the name's hash is in the high half) */
	return (uint32_t)x->size < (uint32_t)y->size ? -1 : (uint32_t)x->size > (uint32_t)y->size;
}

static int cmp_mod(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);   /* vmlinux first */
	return strcmp(a, b);
}

/* a name's hash, 8 bytes at a time: computed for every symbol while
 * parsing, so bytewise hashing (FNV) was a fifth of the parse */
static uint32_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w = 0;
	const char *end = s + n;

	for (; end - s >= 8; s += 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (s == end)
		return (uint32_t)(h ^ (h >> 29));
	if (n >= 8) {   /* the last 8 bytes, overlapping the ones hashed */
		memcpy(&w, end - 8, 8);
	} else {
		for (w = 0; s < end; s++)
			w = w << 8 | (uint8_t)*s;
	}
	h = (h ^ w) * 0xff51afd7ed558ccdull;
	h ^= h >> 32;
	return (uint32_t)(h ^ (h >> 29));
}

static uint32_t name_hash(const char *s)
{
	return hash_bytes(s, strlen(s));
}

/* the name index (see struct ksyms); -1 when out of memory */
static int build_name_index(struct ksyms *ks)
{
	size_t nb = 64;

	while (nb < ks->n)
		nb <<= 1;
	ks->head = calloc(nb, sizeof(*ks->head));
	ks->next = malloc((ks->n ? ks->n : 1) * sizeof(*ks->next));
	if (!ks->head || !ks->next)
		return -1;
	ks->nbuckets = nb;
	for (size_t i = ks->n; i-- > 0;) {
		uint32_t h = (uint32_t)(ks->syms[i].size >> 32) & (uint32_t)(nb - 1);

		ks->next[i] = ks->head[h];
		ks->head[h] = (uint32_t)(i + 1);
	}
	return 0;
}

/* sorts by (address, position): kallsyms lists vmlinux in address order
 * and then the modules, so only the part after the sorted prefix is sorted
 * and then merged in from the end, in place (the modules' addresses are
 * mostly above vmlinux's: little moves); -1 when out of memory */
static int sort_by_addr(struct ksyms *ks)
{
	size_t p = 1, nb;
	struct ksym *tail;

	for (size_t i = 0; i < ks->n; i++)   /* the position: the tie-break */
		ks->syms[i].size = (ks->syms[i].size & ~(uint64_t)UINT32_MAX) | i;
	while (p < ks->n && ks->syms[p - 1].addr <= ks->syms[p].addr)
		p++;
	if (p >= ks->n)
		return 0;
	nb = ks->n - p;
	qsort(ks->syms + p, nb, sizeof(*ks->syms), cmp_addr);
	tail = malloc(nb * sizeof(*tail));
	if (!tail)
		return -1;
	memcpy(tail, ks->syms + p, nb * sizeof(*tail));
	for (size_t a = p, b = nb, k = ks->n; b > 0;) {
		if (a > 0 && cmp_addr(&ks->syms[a - 1], &tail[b - 1]) > 0)
			ks->syms[--k] = ks->syms[--a];
		else
			ks->syms[--k] = tail[--b];
	}
	free(tail);
	return 0;
}

/* sorts by address, computes sizes, builds the name index; each
 * symbol's size holds its name's hash (high half) until then */
static int finalize(struct ksyms *ks)
{
	if (ks->n > UINT32_MAX - 1)
		return -1;
	if (ks->n && sort_by_addr(ks))
		return -1;
	if (build_name_index(ks))
		return -1;
	for (size_t i = 0; i < ks->n; i++) {
		size_t j = i + 1;

		while (j < ks->n && ks->syms[j].addr == ks->syms[i].addr)
			j++;
		ks->syms[i].size = j < ks->n ? ks->syms[j].addr - ks->syms[i].addr : 0;
	}
	return 0;
}

/* 8 hex digits (either case) at S: their value, or -1 if one is not a hex
 * digit; all 8 bytes at once */
static int64_t hex8(const char *s)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones * 0x80;
	uint64_t w, l, digit, letter, x;

	memcpy(&w, s, 8);
	l = w | ones * 0x20;
	/* per byte (all below 0x80): in '0'..'9', or in 'a'..'f' once lowered */
	digit = (w + ones * (0x80 - '0')) & ~(w + ones * (0x80 - '9' - 1));
	letter = (l + ones * (0x80 - 'a')) & ~(l + ones * (0x80 - 'f' - 1));
	if ((w & high) || ((digit | letter) & high) != high)
		return -1;
	x = (w & ones * 0x0f) + ((letter & high) >> 7) * 9;
	/* the first character is the most significant nibble */
	x = ((x & 0x0f000f000f000f00ull) >> 8) | ((x & 0x000f000f000f000full) << 4);
	x = ((x & 0x00ff000000ff0000ull) >> 16) | ((x & 0x000000ff000000ffull) << 8);
	x = ((x & 0x0000ffff00000000ull) >> 32) | ((x & 0x000000000000ffffull) << 16);
	return (int64_t)x;
}

/* the address at P (1 to 16 hex digits, then a space) of a line ending at
 * EOL; P moves past the digits. -1: not an address */
static int parse_addr(char **pp, const char *eol, uint64_t *addr)
{
	char *p = *pp;
	int digits = 0, h;

	if (eol - p > 16 && p[16] == ' ') {   /* 64-bit: 16 digits */
		int64_t hi = hex8(p), lo = hi < 0 ? -1 : hex8(p + 8);

		if (lo >= 0) {
			*addr = (uint64_t)hi << 32 | (uint64_t)lo;
			*pp = p + 16;
			return 0;
		}
	}
	*addr = 0;
	while ((h = hex1[(uint8_t)*p] - 1) >= 0) {
		*addr = *addr << 4 | (uint64_t)h;
		p++;
		digits++;
	}
	*pp = p;
	return digits == 0 || digits > 16 ? -1 : 0;
}

/* only_mod: keep only that module's symbols (NULL: all) */
static struct ksyms *load_file(const char *path, const char *only_mod, char *err, size_t errlen)
{
	struct ksyms *ks;
	size_t len, cap = 0, lineno = 0;
	char *p, *end;

	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ks->pool = slurp(path, &len, err, errlen);
	if (!ks->pool) {
		free(ks);
		return NULL;
	}
	p = ks->pool;
	end = p + len;
	while (p < end) {
		char *nl = memchr(p, '\n', end - p), *name, *mod = NULL;
		uint64_t addr;
		uint32_t hash;
		char type;

		if (!nl)
			nl = end;
		*nl = '\0';
		lineno++;
		if (p == nl) {          /* empty line */
			p = nl + 1;
			continue;
		}
		if (parse_addr(&p, nl, &addr) || *p != ' ' || !p[1] || p[2] != ' ' || !p[3]) {
			snprintf(err, errlen, "%s:%zu: not in kallsyms format", path, lineno);
			ksyms_free(ks);
			return NULL;
		}
		type = p[1];
		if (!is_func_type(type)) {
			p = nl + 1;
			continue;
		}
		name = p + 3;
		if (is_padding(name)) {
			p = nl + 1;
			continue;
		}
		p = name + strcspn(name, "\t ");   /* the line ends in a NUL */
		hash = hash_bytes(name, (size_t)(p - name));
		if (*p) {
			*p++ = '\0';
			while (*p == '\t' || *p == ' ')
				p++;
			if (*p == '[') {
				char *rb = strchr(p, ']');

				if (rb) {
					*rb = '\0';
					mod = p + 1;
				}
			}
		}
		p = nl + 1;
		if (only_mod && (!mod || strcmp(mod, only_mod)))
			continue;
		if (ks->n == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			struct ksym *nv = realloc(ks->syms, ncap * sizeof(*nv));

			if (!nv) {
				snprintf(err, errlen, "out of memory");
				ksyms_free(ks);
				return NULL;
			}
			ks->syms = nv;
			cap = ncap;
		}
		ks->syms[ks->n++] = (struct ksym){ .addr = addr, .type = type, .name = name, .module = mod,
						   .size = (uint64_t)hash << 32 };
	}
	if (finalize(ks)) {
		snprintf(err, errlen, "out of memory");
		ksyms_free(ks);
		return NULL;
	}
	return ks;
}

struct ksyms *ksyms_load_file(const char *path, char *err, size_t errlen)
{
	return load_file(path, NULL, err, errlen);
}

struct ksyms *ksyms_load_module(const char *path, const char *module, char *err, size_t errlen)
{
	struct ksyms *all = load_file(path, module, err, errlen), *ks;

	if (!all)
		return NULL;
	/* a copy of the few symbols kept: the whole file stays in all's pool */
	ks = ksyms_from_array(all->syms, all->n);
	ksyms_free(all);
	if (!ks)
		snprintf(err, errlen, "out of memory");
	return ks;
}

struct ksyms *ksyms_adopt(struct ksym *v, size_t n, char *pool)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	size_t m = 0;

	if (!ks) {
		free(v);
		free(pool);
		return NULL;
	}
	ks->syms = v;
	ks->pool = pool;
	for (size_t i = 0; i < n; i++) {
		if (!is_func_type(v[i].type) || is_padding(v[i].name))
			continue;
		v[m] = v[i];
		v[m++].size = (uint64_t)name_hash(v[i].name) << 32;   /* for finalize */
	}
	ks->n = m;
	if (finalize(ks)) {
		ksyms_free(ks);
		return NULL;
	}
	return ks;
}

struct ksyms *ksyms_from_array(const struct ksym *v, size_t n)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	size_t total = 1, off = 0;

	if (!ks)
		return NULL;
	for (size_t i = 0; i < n; i++)
		total += strlen(v[i].name ? v[i].name : "") + 1 + (v[i].module ? strlen(v[i].module) + 1 : 0);
	ks->pool = malloc(total);
	ks->syms = malloc((n ? n : 1) * sizeof(*ks->syms));
	if (!ks->pool || !ks->syms) {
		ksyms_free(ks);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const char *nm = v[i].name ? v[i].name : "";
		size_t l = strlen(nm) + 1;

		ks->syms[i] = v[i];
		ks->syms[i].size = (uint64_t)hash_bytes(nm, l - 1) << 32;   /* for finalize */
		memcpy(ks->pool + off, nm, l);
		ks->syms[i].name = ks->pool + off;
		off += l;
		if (v[i].module) {
			l = strlen(v[i].module) + 1;
			memcpy(ks->pool + off, v[i].module, l);
			ks->syms[i].module = ks->pool + off;
			off += l;
		}
	}
	ks->n = n;
	if (finalize(ks)) {
		ksyms_free(ks);
		return NULL;
	}
	return ks;
}

bool ksym_is_bpf_tramp(const char *name)
{
	return name && strncmp(name, "bpf_trampoline_", 15) == 0 && name[15] >= '0' && name[15] <= '9';
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->pool);
	free(ks->head);
	free(ks->next);
	free(ks);
}

size_t ksyms_count(const struct ksyms *ks)
{
	return ks ? ks->n : 0;
}

const struct ksym *ksyms_at(const struct ksyms *ks, size_t i)
{
	return ks && i < ks->n ? &ks->syms[i] : NULL;
}

const struct ksym *ksyms_lookup(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi;
	const struct ksym *s;

	if (!ks || !ks->n)
		return NULL;
	hi = ks->n;
	/* first index with syms[i].addr > addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &ks->syms[lo - 1];
	while (s > ks->syms && s[-1].addr == s->addr)
		s--;    /* the first alias, in file order */
	if (s->size && addr - s->addr >= s->size)
		return NULL;
	return s;
}

/* the first index + 1 of NAME's hash chain */
static uint32_t chain(const struct ksyms *ks, const char *name)
{
	return ks->head[name_hash(name) & (uint32_t)(ks->nbuckets - 1)];
}

const struct ksym *ksyms_find(const struct ksyms *ks, const char *name, const char *module, size_t *count)
{
	const struct ksym *first = NULL;
	size_t cnt = 0;

	if (count)
		*count = 0;
	if (!ks || !name || !ks->n)
		return NULL;
	/* the first in (module with vmlinux first, address) order */
	for (uint32_t i = chain(ks, name); i; i = ks->next[i - 1]) {
		const struct ksym *s = &ks->syms[i - 1];

		if (strcmp(s->name, name))
			continue;
		if (module && (!s->module || strcmp(s->module, module)))
			continue;
		if (!first || cmp_mod(s->module, first->module) < 0)
			first = s;
		cnt++;
	}
	if (count)
		*count = cnt;
	return first;
}

size_t ksyms_find_exact(const struct ksyms *ks, const char *name, const char *module,
			const struct ksym **out, size_t max)
{
	size_t cnt = 0;

	if (!ks || !name || !ks->n)
		return 0;
	for (uint32_t i = chain(ks, name); i; i = ks->next[i - 1]) {
		const struct ksym *s = &ks->syms[i - 1];

		if (strcmp(s->name, name) || cmp_mod(s->module, module))
			continue;
		if (cnt < max)
			out[cnt] = s;
		cnt++;
	}
	return cnt;
}

size_t ksyms_find_all(const struct ksyms *ks, const char *name, const struct ksym **out,
		      size_t max)
{
	size_t cnt = 0;

	if (!ks || !name || !ks->n)
		return 0;
	for (uint32_t i = chain(ks, name); i; i = ks->next[i - 1]) {
		const struct ksym *s = &ks->syms[i - 1];

		if (strcmp(s->name, name))
			continue;
		if (cnt < max)
			out[cnt] = s;
		cnt++;
	}
	return cnt;
}

uint64_t ksyms_find_any_addr(const char *kallsyms_path, const char *name)
{
	FILE *f = fopen(kallsyms_path, "re");
	char line[512], sym[256], type;
	unsigned long long addr;
	uint64_t res = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3)
			continue;
		if (strcmp(sym, name) == 0) {
			res = addr;
			break;
		}
	}
	fclose(f);
	return res;
}
