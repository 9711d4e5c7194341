/* errfilter.h - the -x/-X error filters: which sessions to keep by the
 * errors their frames returned. Shared by the recorder (record time) and
 * the report (report time). Compares signed values: only real error
 * returns (-4095..-1, NULL pointers) match, a positive 22 never matches
 * EINVAL. */
#ifndef RS_ERRFILTER_H
#define RS_ERRFILTER_H

#include <stdbool.h>
#include <stdint.h>
#include "bpf/retsnoop_abi.h"

#define ERRFILTER_MAX 4096   /* errno values 1..4095, bit 0 = NULL */

struct err_filter {
	uint64_t allow[ERRFILTER_MAX / 64];
	uint64_t deny[ERRFILTER_MAX / 64];
	bool has_allow, has_deny;
};

/* adds "EINVAL", "-EINVAL", "NULL", a number, or "any" (allow only).
 * Returns 0, or -1 for an unknown name. */
int err_filter_add(struct err_filter *f, const char *name, bool deny);
bool err_filter_active(const struct err_filter *f);
/* the error code a frame's result stands for: errno (1..4095), 0 for a
 * NULL pointer, -1 if the result is not a failure */
int frame_error_code(uint32_t func_flags, int64_t res);
/* func_flags_of(id) gives the flags of a traced function */
bool err_filter_keep(const struct err_filter *f, const struct rs_rec_session_end *s,
		     uint32_t (*func_flags_of)(void *ctx, uint32_t id), void *ctx);

#endif
