/* text_out.h - the text views as a report output (output.h): per session
 * the header line, then the -T trace view, the -B LBR view and the stack
 * view as upstream retsnoop prints them, with per-session warnings. */
#ifndef RS_TEXT_OUT_H
#define RS_TEXT_OUT_H

#include "output.h"

extern const struct rp_output rp_out_text;

#endif
