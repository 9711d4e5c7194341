/* ustack_view.h - user-space frames (ustack_res.h) as rows of the stack
 * view (stack_view.h): a separator line, then the frames outermost first
 * (the same direction as the kernel rows above it), each with its
 * inlined frames; a binary that was not found shows path+0xOFFSET and
 * its build-id. */
#ifndef RS_USTACK_VIEW_H
#define RS_USTACK_VIEW_H

#include <stdio.h>
#include "stack_view.h"
#include "ustack_res.h"

/* appends the separator and the user rows; 0, or -1 out of memory */
int ustack_view_rows(struct sv_table *t, const struct us_stack *st, const struct sv_opts *o);
/* the same rows as a table of their own (the trace view's session end) */
void ustack_view_print(FILE *out, const struct us_stack *st, const struct sv_opts *o);

#endif
