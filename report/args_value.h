/* args_value.h - one captured value rendered by its BTF type (the walker
 * behind args_render.h): structs `{.field=value}` with zero members
 * omitted below the top level, enums by name, char arrays `'text'`,
 * integers below 4 MiB in decimal and larger in hex, pointers in hex,
 * `…` where the bytes end before the type does. */
#ifndef RS_ARGS_VALUE_H
#define RS_ARGS_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct btf;
struct btf_dump;

struct av_ctx {
	const struct btf *btf;
	struct btf_dump *dump;   /* av_dump_new(btf, dump_out): enums, floats */
	FILE **dump_out;
	bool verbose;            /* structs over several lines, 4-space indents */
	bool ascii;              /* "..." for `…`, bytes >= 0x80 in strings escaped */
};

/* libbpf's dumper over BTF printing to *OUT (set per call); NULL on error */
struct btf_dump *av_dump_new(const struct btf *btf, FILE **out);
/* TYPE_ID's value in DATA[0, LEN) written to F; returns true when the
 * bytes ended before the type did (a `…` was written) */
bool av_render(const struct av_ctx *c, FILE *f, uint32_t type_id, const void *data, size_t len);
/* integer V "smart": decimal below 4 MiB (and when negative), else hex */
void av_smart_int(FILE *f, uint64_t v, bool is_signed);
/* S[0, LEN) as a single-quoted string, non-printable bytes escaped (and
 * bytes >= 0x80 with ASCII) */
void av_quoted(FILE *f, const char *s, size_t len, bool ascii);
/* the mark of cut data: `…`, or "..." with ASCII */
const char *av_cut_mark(bool ascii);
/* TYPE_ID without typedefs and modifiers (0 for void / bad ids) */
uint32_t av_skip_mods(const struct btf *btf, uint32_t type_id);

#endif
