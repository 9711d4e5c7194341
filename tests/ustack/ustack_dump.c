/* ustack_dump.c - test helper for -U (tests/vm/ustack.sh): prints the
 * USTACK and UMAPS records of a recording, one line each, so that shell
 * checks can compare them with the traced programs (readelf -n build-ids,
 * registers inside the recorded mappings). Installed nowhere.
 *
 *   USTACK sess=N pid=P tid=T flags=F err=E ip=0x.. sp=0x.. stack_addr=0x.. stack_len=N size=N
 *   UMAPS pid=P ts=N nmaps=N
 *   MAP pid=P start=0x.. end=0x.. pgoff=0x.. build_id=HEX|- path=PATH
 *   END sess=N pid=P flags=F
 * A malformed record prints "BAD ..." and makes the exit status 1. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "format/rsfile.h"

static int dump_ustack(const struct rs_rec_hdr *h)
{
	const struct rs_rec_ustack *u = (const void *)h;

	if (h->size < sizeof(*u) || sizeof(*u) + RS_REC_ALIGN(u->stack_len) != h->size) {
		printf("BAD USTACK size=%u\n", h->size);
		return 1;
	}
	printf("USTACK sess=%" PRIu64 " pid=%u tid=%u flags=%u err=%d ip=0x%" PRIx64 " sp=0x%" PRIx64
	       " stack_addr=0x%" PRIx64 " stack_len=%u size=%u\n", u->sess_id, u->pid, u->tid,
	       u->flags, u->err, u->regs[16], u->regs[19], u->stack_addr, u->stack_len, h->size);
	return 0;
}

static int dump_umaps(const struct rs_rec_hdr *h)
{
	const struct rs_rec_umaps *m = (const void *)h;
	const char *strs;

	if (h->size < sizeof(*m) ||
	    sizeof(*m) + (uint64_t)m->nmaps * sizeof(m->maps[0]) + m->strings_len > h->size) {
		printf("BAD UMAPS size=%u\n", h->size);
		return 1;
	}
	strs = (const char *)&m->maps[m->nmaps];
	printf("UMAPS pid=%u ts=%" PRIu64 " nmaps=%u\n", m->pid, m->ts, m->nmaps);
	for (uint32_t i = 0; i < m->nmaps; i++) {
		const struct rs_umap *e = &m->maps[i];
		char id[41] = "-";

		if (e->path_off >= m->strings_len || !memchr(strs + e->path_off, 0,
							     m->strings_len - e->path_off)) {
			printf("BAD MAP path_off=%u\n", e->path_off);
			return 1;
		}
		for (unsigned k = 0; k < e->build_id_len && k < 20; k++)
			sprintf(id + 2 * k, "%02x", e->build_id[k]);
		printf("MAP pid=%u start=0x%" PRIx64 " end=0x%" PRIx64 " pgoff=0x%" PRIx64
		       " build_id=%s path=%s\n", m->pid, e->start, e->end, e->pgoff, id,
		       strs + e->path_off);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct rs_rec_hdr *h;
	struct rsf_reader *r;
	enum rsf_status s;
	char err[512];
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: ustack_dump FILE\n");
		return 2;
	}
	r = rsf_reader_open(argv[1], err, sizeof(err));
	if (!r) {
		fprintf(stderr, "ustack_dump: %s\n", err);
		return 1;
	}
	while ((s = rsf_reader_next(r, &h)) == RSF_OK) {
		if (h->type == RS_REC_USTACK)
			bad |= dump_ustack(h);
		else if (h->type == RS_REC_UMAPS)
			bad |= dump_umaps(h);
		else if (h->type == RS_REC_SESSION_END) {
			const struct rs_rec_session_end *e = (const void *)h;

			printf("END sess=%" PRIu64 " pid=%u flags=%u\n", e->sess_id, e->pid, e->flags);
		}
	}
	if (s == RSF_DAMAGED) {
		printf("BAD file: %s\n", rsf_reader_error(r));
		bad = 1;
	}
	rsf_reader_close(r);
	return bad;
}
