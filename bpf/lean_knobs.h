/* lean_knobs.h - the knobs the lean BPF object has compiled in. The
 * recorder carries two builds of bpf/retsnoop.bpf.c: the general one,
 * where every knob is a .rodata value the recorder sets, and the lean one
 * (-DRS_LEAN), where the knobs below are these constants. The lean one
 * serves the common recording (a call-stack view of failures: no -T, -A,
 * -S, -I, -B or -U, deferred stacks on, the default depth): clang then
 * leaves out what those modes add to every call, the knob loads the
 * verifier keeps and the registers their paths cost (about 30
 * instructions per traced call).
 * Both objects keep every knob in .rodata, in the same layout (the
 * Makefile compares their skeletons), so that one skeleton opens either.
 * The recorder prepares the lean one first (record/attach.c) and keeps it
 * where the knobs it set there are these values, else prepares the
 * general one: the choice follows the knobs, never a second rule. */
#ifndef RS_LEAN_KNOBS_H
#define RS_LEAN_KNOBS_H

#include "retsnoop_abi.h"   /* RS_MAX_FSTACK_DEPTH */

#define RS_LEAN_emit_success   0
#define RS_LEAN_success_stacks 0
#define RS_LEAN_emit_trace     0
#define RS_LEAN_emit_interim   0
#define RS_LEAN_use_lbr        0
#define RS_LEAN_lean_calls     1
#define RS_LEAN_defer_stacks   1
#define RS_LEAN_capture_args   0
#define RS_LEAN_probe_ctx      0
#define RS_LEAN_emit_ustack    0
#define RS_LEAN_max_fstack_depth RS_MAX_FSTACK_DEPTH   /* the default -C bpf.max-depth */

/* X(knob) for each of them */
#define RS_LEAN_KNOBS(X) \
	X(emit_success) X(success_stacks) X(emit_trace) X(emit_interim) X(use_lbr) \
	X(lean_calls) X(defer_stacks) X(capture_args) X(probe_ctx) X(emit_ustack) \
	X(max_fstack_depth)

#endif
