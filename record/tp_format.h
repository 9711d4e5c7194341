/* tp_format.h - a classic tracepoint's record layout from its tracefs
 * format file (events/CATEGORY/NAME/format): the fields' names, offsets
 * and sizes, which are __data_loc (dynamic strings or arrays stored after
 * the fixed part), and the fixed part's size. */
#ifndef RS_TP_FORMAT_H
#define RS_TP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TP_FORMAT_MAX_FIELDS 64

struct tp_field {
	char name[64];
	uint32_t offset, size;
	bool data_loc;
	bool is_signed;
	bool is_ptr;             /* declared as a pointer */
	bool is_array;           /* declared with [N] */
	bool common;             /* the common_* header fields */
};

struct tp_format {
	struct tp_field f[TP_FORMAT_MAX_FIELDS];
	size_t n;
	uint32_t fixed_size;     /* end of the last field */
	bool has_data_loc;
};

/* parses the text of a format file; 0, or -1 when it has no field */
int tp_format_parse(const char *text, struct tp_format *out);
/* reads and parses CATEGORY/NAME's format under tracefs (ROOT NULL: the
 * usual mount points); 0, or -1 with the reason in err */
int tp_format_load(const char *root, const char *cat, const char *name, struct tp_format *out,
		   char *err, size_t errlen);

/* a struct named NAME in BTF with the format's fields (common ones as one
 * `ent` byte array, integers by size and signedness, pointers as unsigned
 * long, arrays as bytes, __data_loc fields as u32 __data_loc_NAME): for
 * events whose kernel BTF has no trace_event_raw_<class> struct (syscall
 * events). Returns its id, or -1. */
struct btf;
int tp_format_btf(const struct tp_format *f, const char *name, struct btf *btf);

#endif
