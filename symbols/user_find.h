/* user_find.h - finds the files of a user-space mapping by its GNU
 * build-id (for -U user stacks): the binary (the ELF whose CFI unwinds
 * and whose symbols name frames) and the file with its DWARF (the binary
 * itself, or a separate debug file). A file whose build-id differs from
 * the recorded one is never used. */
#ifndef RS_USER_FIND_H
#define RS_USER_FIND_H

#include <stddef.h>
#include <stdint.h>

struct user_files {
	char *bin;        /* the binary, NULL when not found */
	char *dbg;        /* ELF with .debug_info of the same build-id, or NULL */
	char why[300];    /* bin NULL: why, in one line */
};

/* Search order for the binary: SYMFS/PATH (symfs non-NULL), PATH. For
 * its DWARF: the binary itself, then .build-id/xx/rest.debug under
 * SYMFS/usr/lib/debug and /usr/lib/debug (RETSNOOP_DEBUG_ROOT prefixed
 * first when set, as for the kernel), then debuginfod when
 * DEBUGINFOD_URLS is set (never a network request otherwise). With no
 * recorded build-id (len 0) nothing is searched. Fills out (free with
 * user_files_free); returns 0 when the binary was found, else -1. */
int user_find_files(const char *path, const uint8_t *build_id, size_t len, const char *symfs,
		    struct user_files *out);
void user_files_free(struct user_files *f);

/* true when the ELF file at path has a .debug_info with contents */
int user_elf_has_dwarf(const char *path);

#endif
