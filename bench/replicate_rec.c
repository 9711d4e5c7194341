/* replicate_rec.c - benchmark helper: `replicate_rec IN OUT N` writes OUT
 * with IN's header and tables (the real kallsyms snapshot and function
 * table) and IN's final SESSION_END records repeated until N sessions,
 * each copy shifted 1 ms later, so the report benchmark can render real
 * kernel stacks (real DWARF lookups, repeated addresses) at any size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/rsfile.h"

#define MAX_KEPT 256

int main(int argc, char **argv)
{
	static struct rs_rec_session_end ends[MAX_KEPT];
	const struct rsf_ksym *ks;
	const struct rsf_module *ms;
	const struct rsf_func *fs;
	const struct rs_rec_hdr *h;
	struct rsf_reader *r;
	struct rsf_writer *w;
	struct rsf_stats st;
	size_t nk, nm, nf, n = 0;
	unsigned long want, done = 0;
	char err[256], *end;

	if (argc != 4 || (want = strtoul(argv[3], &end, 10)) == 0 || *end) {
		fprintf(stderr, "usage: replicate_rec IN.rsr OUT.rsr NSESSIONS\n");
		return 2;
	}
	r = rsf_reader_open(argv[1], err, sizeof(err));
	if (!r) {
		fprintf(stderr, "replicate_rec: %s\n", err);
		return 1;
	}
	while (rsf_reader_next(r, &h) == RSF_OK)
		if (h->type == RS_REC_SESSION_END && n < MAX_KEPT && h->size <= sizeof(ends[0]) &&
		    !(((const struct rs_rec_session_end *)h)->flags & (RS_SESS_INTERIM | RS_SESS_IGNORED)))
			memcpy(&ends[n++], h, h->size);
	if (!n) {
		fprintf(stderr, "replicate_rec: %s has no final session\n", argv[1]);
		return 1;
	}
	ks = rsf_reader_ksyms(r, &nk);
	ms = rsf_reader_modules(r, &nm);
	fs = rsf_reader_funcs(r, &nf);
	w = rsf_writer_open(argv[2], rsf_reader_meta(r), ks, nk, ms, nm, fs, nf, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "replicate_rec: %s\n", err);
		return 1;
	}
	while (done < want) {
		for (size_t i = 0; i < n && done < want; i++, done++) {
			ends[i].start_ts += 1000000;
			ends[i].end_ts += 1000000;
			if (rsf_writer_add(w, &ends[i], ends[i].hdr.size)) {
				fprintf(stderr, "replicate_rec: %s\n", rsf_writer_error(w));
				return 1;
			}
		}
	}
	memset(&st, 0, sizeof(st));
	st.bpf.sessions_emitted = want;
	if (rsf_writer_close(w, &st)) {
		fprintf(stderr, "replicate_rec: %s\n", rsf_writer_error(NULL));
		return 1;
	}
	rsf_reader_close(r);
	return 0;
}
