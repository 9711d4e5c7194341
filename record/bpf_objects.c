/* bpf_objects.c - the two builds of bpf/retsnoop.bpf.c (bpf_objects.h):
 * the general object comes with its skeleton; the lean one's bytes are
 * embedded here whole and opened through the same skeleton, whose maps,
 * programs and data layout the Makefile checked to be the same. */
#include "record/bpf_objects.h"
#include "bpf/retsnoop_abi.h"   /* before the skeleton: its .bss has struct rs_bpf_stats */
#include "retsnoop.skel.h"
#include "bpf/lean_knobs.h"

#include <errno.h>
#include <stdint.h>

/* the lean object's file, RS_LEAN_OBJ (the Makefile names it, and makes
 * this file depend on it) */
__asm__(".section .rodata\n"
	".balign 8\n"
	"rs_lean_obj:\n"
	".incbin \"" RS_LEAN_OBJ "\"\n"
	"rs_lean_obj_end:\n"
	".previous\n");
extern const char rs_lean_obj[], rs_lean_obj_end[];

const void *bpf_objects_bytes(bool lean, size_t *sz)
{
	if (!lean)
		return retsnoop_bpf__elf_bytes(sz);
	*sz = (size_t)(rs_lean_obj_end - rs_lean_obj);
	return rs_lean_obj;
}

struct retsnoop_bpf *bpf_objects_open(bool lean)
{
	struct retsnoop_bpf *obj = calloc(1, sizeof(*obj));
	int err;

	if (!obj) {
		errno = ENOMEM;
		return NULL;
	}
	err = retsnoop_bpf__create_skeleton(obj);
	if (!err) {
		obj->skeleton->data = (void *)bpf_objects_bytes(lean, &obj->skeleton->data_sz);
		err = bpf_object__open_skeleton(obj->skeleton, NULL);
	}
	if (err) {
		retsnoop_bpf__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

const char *bpf_objects_lean_mismatch(const struct retsnoop_bpf *s)
{
#define RS_LEAN_CHECK(k) if ((uint64_t)s->rodata->k != (uint64_t)RS_LEAN_##k) return #k;
	RS_LEAN_KNOBS(RS_LEAN_CHECK)
#undef RS_LEAN_CHECK
	return NULL;
}
