/* result_fmt.c - renders raw return values the way upstream retsnoop
 * does (see result_fmt.h) and mirrors the BPF error heuristic. */
#include <inttypes.h>
#include <stdio.h>
#include "../bpf/retsnoop_abi.h"
#include "../common/errnos.h"
#include "result_fmt.h"

int64_t result_normalize(int64_t res, uint32_t func_flags)
{
	if (func_flags & RS_FUNC_NEEDS_SIGN_EXT)
		return (int64_t)(int32_t)(uint32_t)(uint64_t)res;
	return res;
}

char *result_fmt(char *buf, size_t len, int64_t raw, uint32_t func_flags)
{
	int64_t res = result_normalize(raw, func_flags);

	if (!len)
		return buf;
	if (func_flags & RS_FUNC_RET_VOID) {
		snprintf(buf, len, "[void]");
	} else if (func_flags & RS_FUNC_RET_BOOL) {
		/* a bool lives in the low byte; the rest of the register is junk */
		snprintf(buf, len, "[%s]", ((uint64_t)raw & 0xff) ? "true" : "false");
	} else if (res >= 0 || res < -4095) {
		if (func_flags & RS_FUNC_RET_PTR) {
			if (res == 0)
				snprintf(buf, len, "[NULL]");
			else
				snprintf(buf, len, "[0x%" PRIx64 "]", (uint64_t)res);
		} else if (res >= -1073741824LL && res < 1048576LL) {
			snprintf(buf, len, "[%" PRId64 "]", res);
		} else {
			snprintf(buf, len, "[0x%" PRIx64 "]", (uint64_t)res);
		}
	} else {
		const char *name = errno_name((int)-res);

		if (name)
			snprintf(buf, len, "[-%s]", name);
		else
			snprintf(buf, len, "[%" PRId64 "]", res);
	}
	return buf;
}

bool result_is_error(int64_t raw, uint32_t func_flags)
{
	if (func_flags & RS_FUNC_CANT_FAIL)
		return false;
	if ((func_flags & RS_FUNC_RET_PTR) && raw == 0)
		return true;
	if (func_flags & RS_FUNC_NEEDS_SIGN_EXT) {
		uint32_t lo = (uint32_t)(uint64_t)raw;

		return lo >= 0xfffff001u;
	}
	return (uint64_t)raw >= (uint64_t)-4095;
}
