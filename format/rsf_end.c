/* rsf_end.c - SESSION_END records in either layout, expanded into the full
 * struct rs_rec_session_end every reader uses: the full layout (frames[64]
 * and kstack[96] at fixed offsets; every recorder before the compact one)
 * or the compact one the BPF side emits now (frames[nframes], then the
 * kernel stack's kstack_sz bytes). A record shorter than the full struct
 * is compact; at full size both layouts are the same bytes. */
#include <stddef.h>
#include <string.h>
#include "rsfile.h"

#define END_FIXED offsetof(struct rs_rec_session_end, frames)
#define END_KSTACK offsetof(struct rs_rec_session_end, kstack)

size_t rsf_end_expand(const struct rs_rec_hdr *h, struct rs_rec_session_end *e)
{
	size_t size = h->size, fb, kb;

	if (size >= sizeof(*e)) {
		memcpy(e, h, sizeof(*e));
		return sizeof(*e);
	}
	memset(e, 0, sizeof(*e));
	memcpy(e, h, size < END_FIXED ? size : END_FIXED);
	if (size <= END_FIXED)
		return size;
	/* frames present (bounded by nframes and the record), then the stack */
	fb = (size_t)(e->nframes < RS_MAX_FSTACK_DEPTH ? e->nframes : RS_MAX_FSTACK_DEPTH) *
	     sizeof(struct rs_frame);
	if (fb > size - END_FIXED) {
		/* frames cut short: no stack follows them */
		fb = (size - END_FIXED) / sizeof(struct rs_frame) * sizeof(struct rs_frame);
		memcpy(e->frames, (const char *)h + END_FIXED, fb);
		return END_FIXED + fb;
	}
	memcpy(e->frames, (const char *)h + END_FIXED, fb);
	kb = size - END_FIXED - fb;
	if (kb > sizeof(e->kstack))
		kb = sizeof(e->kstack);
	memcpy(e->kstack, (const char *)h + END_FIXED + fb, kb);
	/* as many bytes as a full-layout record holding the same data */
	return kb ? END_KSTACK + kb : END_FIXED + fb;
}
