/* result_fmt.h - rendering of a traced function's raw return value
 * (`[-ENOMEM]`, `[NULL]`, `[0x…]`, `[true]`, `[void]`, decimal) from its
 * rs_func_flags, and the matching "is this an error?" heuristic. */
#ifndef RS_RESULT_FMT_H
#define RS_RESULT_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* enough for "[0xffffffffffffffff]" and "[-ERESTART_RESTARTBLOCK]" */
#define RESULT_FMT_MAX 32

/* res as the function's type sees it: sign-extended from 32 bits when
 * RS_FUNC_NEEDS_SIGN_EXT is set */
int64_t result_normalize(int64_t res, uint32_t func_flags);
/* formats into buf (always NUL-terminated); returns buf */
char *result_fmt(char *buf, size_t len, int64_t res, uint32_t func_flags);
/* the BPF side's error heuristic (void/bool/unsigned never fail; int:
 * -4095..-1; pointer: NULL or ERR_PTR; long: IS_ERR_VALUE) */
bool result_is_error(int64_t res, uint32_t func_flags);

#endif
