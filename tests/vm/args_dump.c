/* args_dump.c - test helper for tests/vm/args.sh: prints every FUNC_ARGS
 * record (-A) of a recording in a raw, stable form, one line per record
 * and one per argument, so the VM test can check what was captured
 * independently of the report's rendering:
 *   FUNC_ARGS sess=S seq=N func=NAME nargs=N flags=0xF data=N
 *     arg I kind=K flags=0xF err=E len=N str='...' | val=DEC | hex=..
 * Exit status 2 when the file cannot be read or a record is malformed. */
#include <stdio.h>
#include <string.h>
#include <inttypes.h>
#include <stddef.h>
#include "format/rsfile.h"

static const char *const kinds[] = { "NONE", "VALUE", "STR", "PTR_DATA", "PTR", "VARARG", "RAW" };

static void print_arg(const struct rs_rec_func_args *r, int i)
{
	const struct rs_arg_desc *d = &r->args[i];
	const uint8_t *p = r->data + d->off;
	uint64_t v = 0;

	printf("  arg %d kind=%s flags=0x%x err=%d len=%u", i, d->kind < 7 ? kinds[d->kind] : "?",
	       d->flags, d->err, d->len);
	if (d->kind == RS_ARG_STR) {
		printf(" str='%.*s'", (int)d->len, (const char *)p);
	} else if (d->kind == RS_ARG_VARARG && (d->flags & RS_ARGF_STRISH)) {
		memcpy(&v, p, 8);
		printf(" val=%" PRIu64 " str='%.*s'", v, (int)(d->len - 8), (const char *)p + 8);
	} else if (d->len && d->len <= 8) {
		memcpy(&v, p, d->len);
		printf(" val=%" PRIu64, v);
	} else if (d->len) {
		printf(" hex=");
		for (unsigned j = 0; j < d->len; j++)
			printf("%02x", p[j]);
	}
	printf("\n");
}

/* the record is whole: descriptors and data inside hdr.size */
static int valid(const struct rs_rec_func_args *r)
{
	if (r->hdr.size < sizeof(*r) || r->hdr.size != RS_REC_ALIGN(sizeof(*r) + r->data_len) ||
	    r->nargs > RS_MAX_FUNC_ARGS)
		return 0;
	for (int i = 0; i < r->nargs; i++)
		if ((uint32_t)r->args[i].off + r->args[i].len > r->data_len)
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	const struct rsf_func *funcs;
	const struct rs_rec_hdr *h;
	struct rsf_reader *rd;
	enum rsf_status s;
	size_t nfuncs;
	char err[512];
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: args_dump FILE\n");
		return 2;
	}
	rd = rsf_reader_open(argv[1], err, sizeof(err));
	if (!rd) {
		fprintf(stderr, "args_dump: %s\n", err);
		return 2;
	}
	funcs = rsf_reader_funcs(rd, &nfuncs);
	while ((s = rsf_reader_next(rd, &h)) == RSF_OK) {
		const struct rs_rec_func_args *r = (const void *)h;

		if (h->type != RS_REC_FUNC_ARGS)
			continue;
		if (!valid(r)) {
			printf("MALFORMED FUNC_ARGS size=%u\n", h->size);
			bad = 1;
			continue;
		}
		printf("FUNC_ARGS sess=%" PRIu64 " seq=%u func=%s nargs=%u flags=0x%x data=%u\n",
		       r->sess_id, r->seq_id, r->func_id < nfuncs ? funcs[r->func_id].name : "?",
		       r->nargs, r->flags, r->data_len);
		for (int i = 0; i < r->nargs; i++)
			print_arg(r, i);
	}
	rsf_reader_close(rd);
	return bad || s == RSF_DAMAGED ? 2 : 0;
}
