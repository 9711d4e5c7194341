/* helper_kinds.h - what BPF helpers really return. Their kernel-side
 * implementations are declared through BPF_CALL_x as `u64 f(u64 x 5)`,
 * which the BTF rule would read as "cannot fail"; this table gives the
 * kinds of the helpers that do not return a long error (pointers, getters
 * that cannot fail, void, 32-bit ints). */
#ifndef RS_HELPER_KINDS_H
#define RS_HELPER_KINDS_H

#include <stdbool.h>
#include <stdint.h>

/* rs_func_flags of the helper implementation NAME when the table knows it
 * (true); false: not in the table (a helper then returns a long error) */
bool helper_kind_flags(const char *name, uint32_t *flags);
/* the table is sorted by name without duplicates (unit test) */
bool helper_kinds_sorted(void);

#endif
