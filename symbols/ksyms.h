/* ksyms.h - kallsyms function symbols: parsing /proc/kallsyms (or a
 * recorded snapshot), address -> name+offset, name(+module) -> address.
 * Used by retsnoop-record (selection, snapshot) and retsnoop-report. */
#ifndef RS_KSYMS_H
#define RS_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	uint64_t size;     /* distance to the next function symbol (0 for the last) */
	char type;
	const char *name;
	const char *module; /* NULL for vmlinux */
};

struct ksyms;

/* all function symbols (t T w W) of a kallsyms-format file */
struct ksyms *ksyms_load_file(const char *path, char *err, size_t errlen);
/* only the function symbols of one module ("bpf" for the [bpf] JIT
 * images: trampolines and programs, which appear as BPF is loaded) */
struct ksyms *ksyms_load_module(const char *path, const char *module, char *err, size_t errlen);
/* takes V (N symbols of any type, in kallsyms order, whose names and
 * modules point into POOL) and POOL, both malloc'ed: keeps the function
 * symbols, as ksyms_load_file would of the same lines; NULL when out of
 * memory (V and POOL freed either way) */
struct ksyms *ksyms_adopt(struct ksym *v, size_t n, char *pool);
/* from a recorded snapshot (copies the strings) */
struct ksyms *ksyms_from_array(const struct ksym *v, size_t n);
void ksyms_free(struct ksyms *ks);
/* a BPF trampoline image's [bpf] symbol: "bpf_trampoline_" and its key's
 * digits (the recorder's ranges, the report's hidden frames) */
bool ksym_is_bpf_tramp(const char *name);

size_t ksyms_count(const struct ksyms *ks);
const struct ksym *ksyms_at(const struct ksyms *ks, size_t i);  /* sorted by address */
/* largest function symbol <= addr (and addr < addr+size when size known), or NULL */
const struct ksym *ksyms_lookup(const struct ksyms *ks, uint64_t addr);
/* first symbol with this name (module NULL = any); *count = how many */
const struct ksym *ksyms_find(const struct ksyms *ks, const char *name, const char *module, size_t *count);
/* the symbols named NAME in exactly MODULE (NULL: vmlinux), in address
 * order: the first MAX into OUT; returns how many there are */
size_t ksyms_find_exact(const struct ksyms *ks, const char *name, const char *module,
			const struct ksym **out, size_t max);
/* the symbols named NAME in vmlinux and every module, in address order
 * per module: the first MAX into OUT; returns how many there are */
size_t ksyms_find_all(const struct ksyms *ks, const char *name, const struct ksym **out,
		      size_t max);
/* any symbol, not only functions: used for _text/_stext */
uint64_t ksyms_find_any_addr(const char *kallsyms_path, const char *name);

#endif
