/* dwarf_sym.h - the DWARF symbolizer library linked by retsnoop-report
 * (stack view, `addr2line`) and retsnoop-record (`:path` globs):
 * link-time address -> innermost-first frames (function, kernel-relative
 * file:line, inline flag), GNU build-id, ELF symbol addresses for the KASLR
 * slide, vmlinux discovery / debuginfod, and compile-unit path globs.
 *
 * Speed: nothing is parsed up front except .debug_aranges (read straight
 * from the section, touching no compile unit); each compile unit is
 * indexed (dwarf_index.h) through libdw the first time an address inside
 * it is looked up, in parallel for batches (dwarf_sym_prefetch), and the indexes
 * are kept in a per-build-id cache file (symcache.h) so a later run over
 * the same vmlinux parses no DWARF. */
#ifndef RS_DWARF_SYM_H
#define RS_DWARF_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dwarf_index.h"   /* struct sym_frame */

struct dwarf_sym;

enum {
	DWARF_SYM_NO_CACHE = 1 << 0,   /* neither read nor write the index cache */
	DWARF_SYM_NO_WRITE = 1 << 1,   /* read the cache, never update it */
};

/* Opens an ELF file with DWARF (a vmlinux or module debug file). Returns
 * NULL with a one-line reason in err when it cannot be read or has no
 * DWARF. The environment variable RETSNOOP_NO_SYMCACHE=1 acts like
 * DWARF_SYM_NO_CACHE. */
struct dwarf_sym *dwarf_sym_open(const char *path, unsigned flags, char *err, size_t errlen);
/* where the kernel loaded one section of a module */
struct dwarf_sect_addr {
	const char *name;
	uint64_t addr;
};

/* Opens a kernel module's debug file (ET_REL .ko with DWARF) relocated to
 * the given section load addresses (secs NULL: code sections laid out one
 * after the other from 0, .text first, so .text addresses are .text
 * offsets). Sections not listed stay unrelocated. Lookups then take
 * addresses in that layout (runtime addresses for recorded ones), symbol
 * names included. No index cache. NULL with a
 * one-line reason in err when the file cannot be used. */
struct dwarf_sym *dwarf_sym_open_module(const char *path, const char *modname,
					const struct dwarf_sect_addr *secs, size_t nsecs,
					char *err, size_t errlen);

/* Writes the cache file if new compile units were indexed, frees all.
 * Strings returned by lookups are invalid afterwards. */
void dwarf_sym_close(struct dwarf_sym *ds);

/* Symbolizes one link-time address (exact semantics: pass ret_addr - 1
 * for return addresses). Fills up to max_frames frames, innermost first:
 * frames[0] is the innermost (possibly inlined) function with the line of
 * addr; each next frame is its caller with the call site's file:line; the
 * last frame is the real (out-of-line) function, is_inline == 0. When no
 * DWARF function covers addr, one frame whose name comes from the ELF
 * symbol table (or "??") and whose line comes from the line table (or
 * "??", 0). Returns the number of frames (>= 1), 0 when max_frames <= 0. */
int dwarf_sym_lookup(struct dwarf_sym *ds, uint64_t addr, struct sym_frame *frames, int max_frames);

/* Optional batch hint before looking up many addresses: indexes the
 * compile units they need that are not cached yet, with one thread per
 * online CPU (at most 4; RETSNOOP_SYM_THREADS=N overrides), each with its
 * own libdw handle, when there are many (vmlinux only; a module's are
 * indexed on this thread). Lookups work without it. Not to be called concurrently with other
 * calls on the same ds. */
void dwarf_sym_prefetch(struct dwarf_sym *ds, const uint64_t *addrs, size_t n);

/* The ELF .symtab function symbol covering addr (global names preferred
 * over local aliases; clone names like "foo.isra.0" as the linker sees
 * them), or NULL. */
const char *dwarf_sym_elf_name(struct dwarf_sym *ds, uint64_t addr);

/* The file's GNU build-id (NULL, *len 0 when it has none). */
const uint8_t *dwarf_sym_build_id(const struct dwarf_sym *ds, size_t *len);

/* Address of an ELF symbol of any type (e.g. "_text", "_stext") in the
 * file's symbol table. Returns 0 and sets *addr, or -1 if absent. */
int dwarf_sym_symbol_addr(struct dwarf_sym *ds, const char *name, uint64_t *addr);

/* Reads the GNU build-id of an ELF file into buf. Returns its length,
 * 0 when the file has none, -1 when the file cannot be read as ELF. */
int elf_file_build_id(const char *path, uint8_t *buf, size_t bufsz);

/* KASLR slide: runtime address of _text (or _stext) minus its link-time
 * address; a runtime address maps to link time as addr - slide. Prefers
 * _text; returns 0 and sets *slide, or -1 when neither pair is known. */
int dwarf_kaslr_slide(struct dwarf_sym *ds, uint64_t rt_text, uint64_t rt_stext, int64_t *slide);

/* Finds a vmlinux with DWARF for a kernel release. Search order:
 * $RETSNOOP_DEBUG_ROOT (a directory prefixed to every standard place, for
 * tests), then /usr/lib/debug/boot/vmlinux-REL, /boot/vmlinux-REL,
 * /lib/modules/REL/build/vmlinux, /usr/lib/debug/lib/modules/REL/vmlinux;
 * when build_id is given (len > 0) a candidate must match it. If none
 * matches and DEBUGINFOD_URLS is set, fetches by build-id through
 * libdebuginfod. Returns a malloc'ed path, or NULL with a one-line reason
 * in err (naming both ids when only a mismatching file was found; then
 * *mismatch_path, if non-NULL, gets a malloc'ed copy of that file's path). */
char *dwarf_find_vmlinux(const char *release, const uint8_t *build_id, size_t len,
			 char **mismatch_path, char *err, size_t errlen);

/* Finds kernel modules' debug files for a kernel release: NAME.ko or
 * NAME.ko.debug ('-' and '_' alike) with DWARF under
 * /usr/lib/debug/lib/modules/REL/ then /lib/modules/REL/ (both first
 * under $RETSNOOP_DEBUG_ROOT, like dwarf_find_vmlinux), the trees walked
 * once on first use; a file must have the module's build-id when one is
 * given (len > 0). If none matches and DEBUGINFOD_URLS is set, fetches by
 * build-id through libdebuginfod. dwarf_modfind_path returns a malloc'ed
 * path, or NULL with a one-line reason naming the module (and both ids
 * when only a mismatching file exists). */
struct dwarf_modfind;
struct dwarf_modfind *dwarf_modfind_new(const char *release);
char *dwarf_modfind_path(struct dwarf_modfind *mf, const char *module, const uint8_t *build_id,
			 size_t len, char *err, size_t errlen);
void dwarf_modfind_free(struct dwarf_modfind *mf);

/* Hex form of a build-id ("" when len == 0); out needs 2*len+1 bytes. */
void dwarf_build_id_hex(const uint8_t *id, size_t len, char *out);
/* the debug file with this build-id from the servers in $DEBUGINFOD_URLS
 * (malloc'ed path in debuginfod's cache), or NULL if unset or not found;
 * then why (may be NULL) says why in a few words when the servers were
 * asked ("" when they were not) */
char *dwarf_debuginfod_fetch(const uint8_t *build_id, size_t len, char *why, size_t whylen);

/* Source-path globs (record-time ":kernel/bpf/ *.c", without the space): calls cb once for
 * every out-of-line function (DW_TAG_subprogram with code) of every CU whose
 * kernel-relative DW_AT_name matches glob (glob_match semantics, '*' also
 * crosses '/'). Returns the number of matching CUs, or -1 on DWARF error;
 * stops early when cb returns non-zero. */
typedef int (*dwarf_cu_func_cb)(const char *func, uint64_t addr, const char *cu_path, void *ctx);
int dwarf_sym_cu_glob(struct dwarf_sym *ds, const char *glob, dwarf_cu_func_cb cb, void *ctx);

#endif
