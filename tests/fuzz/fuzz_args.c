/* fuzz_args.c - libFuzzer target for argument rendering (report/args_*):
 * the input is a recording's "btf" blob, its "func_btf" table and one
 * FUNC_ARGS record, laid out as u32 btf_len, u32 nfuncs (little-endian),
 * btf_len bytes of BTF, nfuncs u32 prototype ids, then the record. The
 * blob goes through args_btf_new (libbpf's parser and args_btf_check),
 * the record through args_rec_check and, when it passes, is rendered in
 * the three layouts with and without a width limit, as are the first
 * types of the BTF from the record's bytes. Seeds: mkrec_args OUTDIR seeds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "report/args_render.h"
#include "report/args_store.h"

static uint32_t le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void render_all(const struct args_btf *ab, const struct rs_rec_func_args *r,
		       const uint8_t *bytes, size_t len)
{
	static const struct args_fmt fmts[] = {
		{ ARGS_FMT_COMPACT, 0, false }, { ARGS_FMT_COMPACT, 7, true },
		{ ARGS_FMT_MULTILINE, 16, false }, { ARGS_FMT_VERBOSE, 120, false },
	};

	for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		struct args_list l = {0};

		if (r)
			args_render_rec(ab, r, &fmts[k], &l);
		for (uint32_t id = 1; id < 24; id++)
			args_list_add_typed(&l, ab, "v", id, bytes, len, k & 1, &fmts[k]);
		args_list_free(&l);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct args_btf *ab;
	struct rs_rec_func_args *r = NULL;
	uint32_t blen, nf;
	size_t off, rlen;

	if (size < 8)
		return 0;
	blen = le32(data);
	nf = le32(data + 4);
	if (blen > size - 8 || nf > (size - 8 - blen) / 4)
		return 0;
	off = 8 + (size_t)blen + 4 * (size_t)nf;
	ab = args_btf_new(data + 8, blen, data + 8 + blen, 4 * (size_t)nf);
	if (!ab)
		return 0;
	rlen = size - off;
	/* the record, aligned and with hdr.size as the reader would give it */
	if (rlen >= sizeof(struct rs_rec_hdr) && (r = calloc(1, rlen > sizeof(*r) ? rlen : sizeof(*r)))) {
		memcpy(r, data + off, rlen);
		r->hdr.type = RS_REC_FUNC_ARGS;
		r->hdr.size = (uint32_t)rlen;
		if (args_rec_check(&r->hdr)) {
			free(r);
			r = NULL;
		}
	}
	render_all(ab, r, data + off, rlen);
	free(r);
	args_btf_free(ab);
	return 0;
}
