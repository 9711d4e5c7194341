/* rsf_ring_cut.c - sessions cut by a flight recording's wrap: when the
 * oldest chunks were overwritten, a traced (-T) session may have lost its
 * SESSION_START and first records. Such a session is dropped whole, not
 * rendered broken: its records are filtered out and its final SESSION_END
 * counted. A session id is "known" once its start or its cut end is seen;
 * a thread's later sessions start normally. A -B recording without -T
 * has no START: there an END is cut when its LBR record (emitted just
 * before it) was not seen, until the first END whose LBR record was. */
#include <stdlib.h>
#include "rsf_internal.h"

static uint64_t rec_sess_id(const struct rs_rec_hdr *rec, bool *has)
{
	uint64_t id = 0;

	*has = false;
	switch (rec->type) {
	case RS_REC_SESSION_START:
	case RS_REC_SESSION_END:
	case RS_REC_TRACE_ENTRY:
	case RS_REC_TRACE_EXIT:
	case RS_REC_LBR:
		/* sess_id follows the header in every session record */
		if (rec->size >= sizeof(*rec) + sizeof(id)) {
			__builtin_memcpy(&id, (const uint8_t *)rec + sizeof(*rec), sizeof(id));
			*has = true;
		}
		break;
	}
	return id;
}

static size_t slot_of(const struct rsf_cut_filter *f, uint64_t id)
{
	size_t i = (size_t)(id * 0x9e3779b97f4a7c15ull) & (f->cap - 1);

	while (f->ids[i] && f->ids[i] != id)
		i = (i + 1) & (f->cap - 1);
	return i;
}

static bool known(const struct rsf_cut_filter *f, uint64_t id)
{
	if (!id)
		return f->have_zero;
	return f->cap && f->ids[slot_of(f, id)] == id;
}

static void add(struct rsf_cut_filter *f, uint64_t id)
{
	if (!id) {
		f->have_zero = true;
		return;
	}
	if ((f->n + 1) * 2 > f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 256;
		struct rsf_cut_filter g = { .ids = calloc(cap, sizeof(uint64_t)), .cap = cap };

		if (!g.ids)
			return;         /* no memory: the id stays unknown */
		for (size_t i = 0; i < f->cap; i++)
			if (f->ids[i])
				g.ids[slot_of(&g, f->ids[i])] = f->ids[i];
		free(f->ids);
		f->ids = g.ids;
		f->cap = cap;
	}
	size_t i = slot_of(f, id);
	if (!f->ids[i]) {
		f->ids[i] = id;
		f->n++;
	}
}

static bool final_end(const struct rs_rec_hdr *rec, bool *ignored)
{
	const struct rs_rec_session_end *e = (const void *)rec;

	if (rec->type != RS_REC_SESSION_END ||
	    rec->size < offsetof(struct rs_rec_session_end, nframes))
		return false;
	*ignored = e->flags & RS_SESS_IGNORED;
	return !(e->flags & RS_SESS_INTERIM);
}

/* -B without -T: the ENDs at the start whose LBR record was overwritten */
static bool lbr_keep(struct rsf_cut_filter *f, const struct rs_rec_hdr *rec, uint64_t id)
{
	bool ignored = false, fin;

	if (f->lbr_matched)
		return true;
	if (rec->type == RS_REC_LBR) {
		add(f, id);
		return true;
	}
	if (rec->type != RS_REC_SESSION_END)
		return true;
	fin = final_end(rec, &ignored);
	if (ignored)              /* ignored sessions carry no LBR record */
		return true;
	if (known(f, id)) {
		f->lbr_matched = true;
		return true;
	}
	f->cut += fin;
	return false;
}

bool rsf_cut_keep(struct rsf_cut_filter *f, const struct rs_rec_hdr *rec)
{
	bool has;
	uint64_t id = rec_sess_id(rec, &has);

	if (has && f->lbr_mode)
		return lbr_keep(f, rec, id);
	if (!has || known(f, id))
		return true;
	if (rec->type == RS_REC_SESSION_START) {
		add(f, id);
		return true;
	}
	if (rec->type == RS_REC_SESSION_END &&
	    rec->size >= offsetof(struct rs_rec_session_end, nframes)) {
		const struct rs_rec_session_end *e = (const void *)rec;

		if (!(e->flags & RS_SESS_INTERIM)) {
			add(f, id);     /* the next session of this thread starts whole */
			if (!(e->flags & RS_SESS_IGNORED))
				f->cut++;
		}
	}
	return false;
}

void rsf_cut_free(struct rsf_cut_filter *f)
{
	free(f->ids);
	f->ids = NULL;
	f->cap = f->n = 0;
}
