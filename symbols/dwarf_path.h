/* dwarf_path.h - turns the source paths DWARF records (absolute build
 * paths, paths relative to a relative DW_AT_comp_dir, "../" detours) into
 * paths relative to the kernel source tree root, e.g. "kernel/bpf/syscall.c". */
#ifndef RS_DWARF_PATH_H
#define RS_DWARF_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the kernel-relative form of `path` into out (always NUL-terminated,
 * truncated to outlen). comp_dir may be NULL. Steps: lexical normalization
 * ("." and "x/.." removed, duplicate slashes collapsed), strip comp_dir when
 * the path lies under it, then strip everything before the first component
 * that names a top-level kernel directory (arch, kernel, include, ...) if
 * the result does not already start with one. Returns the length written. */
size_t dwarf_path_relative(const char *path, const char *comp_dir, char *out, size_t outlen);

/* true when `name` is one of the kernel tree's top-level directories */
bool dwarf_path_is_topdir(const char *name, size_t len);

#endif
