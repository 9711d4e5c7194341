/* ustack_maps.c - the per-recording store of process memory maps (UMAPS
 * records, see ustack_asm.h): per pid up to US_MAX_MAPS_VERSIONS
 * versions in arrival order, US_MAX_MAPS_BYTES in all (the oldest
 * version of the pid being added to goes first, then any pid's oldest). */
#include <stdlib.h>
#include <string.h>
#include "../common/array_grow.h"
#include "ustack_asm.h"

struct pid_maps {
	uint32_t pid;
	size_t n;
	struct us_maps v[US_MAX_MAPS_VERSIONS];   /* arrival order */
};

struct us_mapstore {
	struct pid_maps *pids;   /* sorted by pid */
	size_t n, cap;
	size_t bytes;
};

/* unique over every store of the process: the resolver (ustack_res.c),
 * shared by several recordings' assemblers, keys its caches on it */
static uint64_t serial_next(void)
{
	static uint64_t serial;

	return __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED);
}

struct us_mapstore *us_mapstore_new(void)
{
	return calloc(1, sizeof(struct us_mapstore));
}

static struct pid_maps *find_pid(const struct us_mapstore *m, uint32_t pid, size_t *pos)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->pids[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (pos)
		*pos = lo;
	return lo < m->n && m->pids[lo].pid == pid ? &m->pids[lo] : NULL;
}

static void drop_oldest(struct us_mapstore *m, struct pid_maps *pm)
{
	m->bytes -= pm->v[0].rec->hdr.size;
	free((void *)pm->v[0].rec);
	memmove(&pm->v[0], &pm->v[1], (pm->n - 1) * sizeof(pm->v[0]));
	pm->n--;
}

/* room for size more bytes: this pid's older versions first, then the
 * oldest version of the first pid that has one */
static bool make_room(struct us_mapstore *m, struct pid_maps *pm, size_t size)
{
	bool over = false;

	while (m->bytes + size > US_MAX_MAPS_BYTES) {
		struct pid_maps *victim = pm->n ? pm : NULL;

		for (size_t i = 0; !victim && i < m->n; i++)
			if (m->pids[i].n)
				victim = &m->pids[i];
		if (!victim)
			break;
		drop_oldest(m, victim);
		over = true;
	}
	return over;
}

static struct pid_maps *add_pid(struct us_mapstore *m, uint32_t pid)
{
	size_t pos;
	struct pid_maps *pm = find_pid(m, pid, &pos);

	if (pm)
		return pm;
	if (array_grow((void **)&m->pids, m->n, &m->cap, sizeof(*m->pids), 16))
		return NULL;
	memmove(&m->pids[pos + 1], &m->pids[pos], (m->n - pos) * sizeof(*m->pids));
	m->n++;
	pm = &m->pids[pos];
	memset(pm, 0, sizeof(*pm));
	pm->pid = pid;
	return pm;
}

int us_mapstore_add(struct us_mapstore *m, const struct rs_rec_hdr *h)
{
	int res;
	struct rs_rec_umaps *u = us_umaps_validate(h, &res);
	struct pid_maps *pm;
	bool over;

	if (!u)
		return res;
	if (!(pm = add_pid(m, u->pid))) {
		free(u);
		return US_ADD_NOMEM;
	}
	over = pm->n >= US_MAX_MAPS_VERSIONS;
	if (over)
		drop_oldest(m, pm);
	over |= make_room(m, pm, u->hdr.size);
	pm->v[pm->n++] = (struct us_maps){ serial_next(), u, (const char *)&u->maps[u->nmaps] };
	m->bytes += u->hdr.size;
	return over ? US_ADD_OVER : US_ADD_OK;
}

static bool covers(const struct us_maps *v, uint64_t ip)
{
	for (uint32_t i = 0; i < v->rec->nmaps; i++)
		if (ip >= v->rec->maps[i].start && ip < v->rec->maps[i].end)
			return true;
	return false;
}

/* the newest version at or before ts, else the oldest after it, among
 * those covering ip (any when need_cover is false) */
static const struct us_maps *pick(const struct pid_maps *pm, uint64_t ts, uint64_t ip,
				  bool need_cover)
{
	const struct us_maps *before = NULL, *after = NULL;

	for (size_t i = 0; i < pm->n; i++) {
		const struct us_maps *v = &pm->v[i];

		if (need_cover && !covers(v, ip))
			continue;
		if (v->rec->ts <= ts && (!before || v->rec->ts >= before->rec->ts))
			before = v;
		else if (v->rec->ts > ts && (!after || v->rec->ts < after->rec->ts))
			after = v;
	}
	return before ? before : after;
}

const struct us_maps *us_mapstore_find(const struct us_mapstore *m, uint32_t pid, uint64_t ts,
				       uint64_t ip)
{
	const struct pid_maps *pm = find_pid(m, pid, NULL);
	const struct us_maps *v;

	if (!pm || !pm->n)
		return NULL;
	v = pick(pm, ts, ip, true);
	return v ? v : pick(pm, ts, ip, false);
}

void us_mapstore_free(struct us_mapstore *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < m->pids[i].n; j++)
			free((void *)m->pids[i].v[j].rec);
	free(m->pids);
	free(m);
}
