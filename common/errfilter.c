/* errfilter.c - the -x/-X session filters by error code (errfilter.h). */
#include "common/errfilter.h"
#include "common/errnos.h"
#include <string.h>
#include <strings.h>

static void set_bit(uint64_t *m, int b) { m[b / 64] |= 1ULL << (b % 64); }
static bool test_bit(const uint64_t *m, int b) { return m[b / 64] >> (b % 64) & 1; }

int err_filter_add(struct err_filter *f, const char *name, bool deny)
{
	int e;

	if (!deny && strcasecmp(name, "any") == 0) {
		memset(f->allow, 0, sizeof(f->allow));
		f->has_allow = false;
		return 0;
	}
	e = errno_parse(name);
	if (e < 0 || e >= ERRFILTER_MAX)
		return -1;
	if (deny) {
		set_bit(f->deny, e);
		f->has_deny = true;
	} else {
		set_bit(f->allow, e);
		f->has_allow = true;
	}
	return 0;
}

bool err_filter_active(const struct err_filter *f)
{
	return f->has_allow || f->has_deny;
}

int frame_error_code(uint32_t flags, int64_t res)
{
	if (flags & RS_FUNC_CANT_FAIL)
		return -1;
	if ((flags & RS_FUNC_RET_PTR) && res == 0)
		return 0;
	if (flags & RS_FUNC_NEEDS_SIGN_EXT)
		res = (int32_t)res;
	if (res >= -4095 && res <= -1)
		return (int)-res;
	return -1;
}

bool err_filter_keep(const struct err_filter *f, const struct rs_rec_session_end *s,
		     uint32_t (*func_flags_of)(void *ctx, uint32_t id), void *ctx)
{
	bool allowed = !f->has_allow;
	unsigned n = s->nframes < RS_MAX_FSTACK_DEPTH ? s->nframes : RS_MAX_FSTACK_DEPTH;

	if (!err_filter_active(f))
		return true;
	for (unsigned i = 0; i < n; i++) {
		const struct rs_frame *fr = &s->frames[i];
		int e;

		if (i < s->depth)   /* still running: no result yet */
			continue;
		e = frame_error_code(func_flags_of(ctx, fr->func_id), fr->res);
		if (e < 0)
			continue;
		if (f->has_deny && test_bit(f->deny, e))
			return false;
		if (f->has_allow && test_bit(f->allow, e))
			allowed = true;
	}
	return allowed;
}
