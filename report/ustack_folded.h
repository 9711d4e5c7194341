/* ustack_folded.h - a session's user frames as the root part of a
 * --folded stack ("_start;__libc_start_main;main;f;g"): outermost first,
 * inlined frames after the function they are inlined in, function names
 * without offsets (a frame whose binary was not found: path+0xOFFSET). */
#ifndef RS_USTACK_FOLDED_H
#define RS_USTACK_FOLDED_H

#include <stddef.h>
#include "ustack_res.h"

/* appends the frames to *buf at *len (grown with realloc, *cap its size;
 * NUL-terminated), ';' between them; 0, or -1 out of memory */
int ustack_folded(const struct us_stack *st, char **buf, size_t *cap, size_t *len);

#endif
