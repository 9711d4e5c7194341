/* dwarf_module.c - opens a kernel module's debug file (an ET_REL .ko) for
 * the symbolizer (see dwarf_sym.h): libdwfl applies the file's relocations
 * with every code section placed where the kernel loaded it (the recorded
 * per-section addresses), so the module's DWARF and symbol table speak
 * runtime addresses;
 * its compile units are then indexed and looked up like vmlinux's
 * (dwarf_index_build.c), on one thread: libdwfl owns the one relocated
 * Dwarf handle. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <elfutils/libdwfl.h>
#include "dwarf_sym.h"
#include "dwarf_sym_internal.h"

struct modctx {
	const char *path;
	struct dwarf_sect_addr *v;
	size_t n;
};

static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct modctx *c = *userdata;
	(void)mod;
	(void)modname;
	(void)base;
	*elfp = NULL;
	int fd = open(c->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		*file_name = strdup(c->path);
	return fd;
}

/* the debug file carries its own DWARF: no separate debuginfo */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod; (void)userdata; (void)modname; (void)base; (void)file_name;
	(void)debuglink_file; (void)debuglink_crc;
	*debuginfo_file_name = NULL;
	return -1;
}

static int section_address(Dwfl_Module *mod, void **userdata, const char *modname,
			   Dwarf_Addr base, const char *secname, GElf_Word shndx,
			   const GElf_Shdr *shdr, Dwarf_Addr *addr)
{
	struct modctx *c = *userdata;
	(void)mod; (void)modname; (void)base; (void)shndx; (void)shdr;
	for (size_t i = 0; i < c->n; i++) {
		if (!strcmp(c->v[i].name, secname)) {
			*addr = c->v[i].addr;
			return 0;
		}
	}
	*addr = (Dwarf_Addr)-1; /* not loaded: libdwfl leaves it unrelocated */
	return 0;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = section_address,
};

/* the default layout: code sections one after the other from 0, .text
 * first (so .text addresses are the section offsets other tools use) */
static int default_layout(const char *path, struct modctx *c, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	size_t shstrndx, cap = 0;
	uint64_t next = 0;
	int ret = -1;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		snprintf(err, errlen, "%s: %s", path, fd < 0 ? strerror(errno) : "not an ELF file");
		goto out;
	}
	for (int pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
			    !(sh.sh_flags & SHF_EXECINSTR))
				continue;
			const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (!name || (pass == 0) != !strcmp(name, ".text"))
				continue;
			uint64_t al = sh.sh_addralign > 1 ? sh.sh_addralign : 1;
			next = (next + al - 1) / al * al;
			if (c->n == cap) {
				cap = cap ? cap * 2 : 16;
				void *nv = realloc(c->v, cap * sizeof(*c->v));
				if (!nv) {
					snprintf(err, errlen, "out of memory");
					goto out;
				}
				c->v = nv;
			}
			c->v[c->n].name = strdup(name);
			c->v[c->n++].addr = next;
			next += sh.sh_size;
		}
	}
	ret = 0;
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return ret;
}

static void free_ctx(struct modctx *c)
{
	for (size_t i = 0; c && i < c->n; i++)
		free((char *)c->v[i].name);
	if (c)
		free(c->v);
	free(c);
}

/* the module's code symbols at their relocated addresses (names like
 * "foo.constprop.0" as the symbol table has them); none on failure */
static void load_symbols(Dwfl_Module *m, uint64_t bias, struct elf_funcs *out)
{
	int n = dwfl_module_getsymtab(m);
	memset(out, 0, sizeof(*out));
	if (n <= 0 || !(out->v = malloc((size_t)n * sizeof(*out->v))))
		return;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		Dwarf_Addr b;
		const char *name = dwfl_module_getsym_info(m, i, &sym, &addr, &shndx, &elf, &b);
		int type = name ? GELF_ST_TYPE(sym.st_info) : STT_NUM;
		if (!name || !*name || (type != STT_FUNC && type != STT_NOTYPE) || !elf ||
		    shndx == SHN_UNDEF || (shndx >= SHN_LORESERVE && shndx != SHN_XINDEX) ||
		    shndx == (GElf_Word)-1)
			continue;
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(elf, shndx);
		if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		out->v[out->n++] = (struct elf_func){ addr - bias, sym.st_size, name,
						      elf_funcs_bind_rank(GELF_ST_BIND(sym.st_info)),
						      (uint32_t)i };
	}
	elf_funcs_sort(out);
}

struct dwarf_sym *dwarf_sym_open_module(const char *path, const char *modname,
					const struct dwarf_sect_addr *secs, size_t nsecs,
					char *err, size_t errlen)
{
	struct modctx *c = calloc(1, sizeof(*c));
	Dwfl *dwfl = NULL;

	elf_version(EV_CURRENT);
	if (!c)
		goto oom;
	c->path = path;
	if (secs && nsecs) {
		c->v = calloc(nsecs, sizeof(*c->v));
		if (!c->v)
			goto oom;
		for (size_t i = 0; i < nsecs; i++) {
			c->v[i].addr = secs[i].addr;
			if (!(c->v[i].name = strdup(secs[i].name)))
				goto oom;
			c->n++;
		}
	} else if (default_layout(path, c, err, errlen)) {
		free_ctx(c);
		return NULL;
	}
	uint64_t lo = UINT64_MAX;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].addr < lo)
			lo = c->v[i].addr;
	if (lo == UINT64_MAX)
		lo = 0;

	dwfl = dwfl_begin(&callbacks);
	if (!dwfl)
		goto dwfl_fail;
	dwfl_report_begin(dwfl);
	Dwfl_Module *m = dwfl_report_module(dwfl, modname && *modname ? modname : path, lo, lo + 1);
	void **ud = NULL;
	if (!m || !dwfl_module_info(m, &ud, NULL, NULL, NULL, NULL, NULL, NULL) || !ud)
		goto dwfl_fail;
	*ud = c;
	if (dwfl_report_end(dwfl, NULL, NULL))
		goto dwfl_fail;
	Dwarf_Addr bias = 0;
	Dwarf *dbg = dwfl_module_getdwarf(m, &bias);
	if (!dbg) {
		snprintf(err, errlen, "%s: no usable DWARF (%s)", path, dwfl_errmsg(-1));
		goto fail;
	}
	Elf *elf = dwarf_getelf(dbg);
	struct dwarf_sym *ds = dwarf_sym_from_dwarf(path, elf, dbg, bias, err, errlen);
	if (!ds)
		goto fail;
	load_symbols(m, bias, &ds->funcs);
	ds->dwfl = dwfl;
	ds->dwfl_ctx = c;
	ds->free_dwfl_ctx = (void (*)(void *))free_ctx;
	return ds;
oom:
	snprintf(err, errlen, "out of memory");
	goto fail;
dwfl_fail:
	snprintf(err, errlen, "%s: %s", path, dwfl_errmsg(-1));
fail:
	if (dwfl)
		dwfl_end(dwfl);
	free_ctx(c);
	return NULL;
}
