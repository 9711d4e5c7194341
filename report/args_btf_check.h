/* args_btf_check.h - a recording's BTF blob checked before it is walked:
 * every type reference names an existing type, every name lies in the
 * string section, and no type contains itself other than through a
 * pointer to a named type (what libbpf's walkers recurse over). */
#ifndef RS_ARGS_BTF_CHECK_H
#define RS_ARGS_BTF_CHECK_H

#include <stddef.h>

struct btf;

/* 0, or -1 with the reason in err */
int args_btf_check(const struct btf *btf, char *err, size_t errlen);

#endif
