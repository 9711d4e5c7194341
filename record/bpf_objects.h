/* bpf_objects.h - the two builds of bpf/retsnoop.bpf.c the recorder
 * carries, the general one and the lean one (bpf/lean_knobs.h): which
 * one fits a recording, opening it through the one skeleton, its bytes. */
#ifndef RS_BPF_OBJECTS_H
#define RS_BPF_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>

struct retsnoop_bpf;

/* the skeleton over the lean object's bytes when lean, else over the
 * general object's own; NULL with errno on failure */
struct retsnoop_bpf *bpf_objects_open(bool lean);
/* the ELF bytes of the object bpf_objects_open(lean) opens */
const void *bpf_objects_bytes(bool lean, size_t *sz);
/* NULL when every knob the lean object has compiled in holds that value
 * in s's .rodata, else the name of the first that does not (the lean
 * object must not serve then: it would ignore the recorder's setting) */
const char *bpf_objects_lean_mismatch(const struct retsnoop_bpf *s);

#endif
