/* clone_patch.h - the immediates the recorder finds in the fentry and fexit
 * templates' instructions and patches into each function's clone
 * (bpf/retsnoop_abi.h RS_CLONE_*_MAGIC; record/attach.c loads the clones):
 * pure functions over an instruction array, so that they are tested alone. */
#ifndef RS_RECORD_CLONE_PATCH_H
#define RS_RECORD_CLONE_PATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>
#include "bpf/retsnoop_abi.h"

/* the indices of every copy of the cookie's 16-byte immediate load
 * (RS_CLONE_COOKIE_MAGIC in the template as built): the source reads it
 * once, clang may copy that read into the paths after it */
struct cookie_sites {
	long at[RS_COOKIE_SITES];
	int n;
};

/* whether v[at] is a 16-byte immediate load of val */
bool ldimm_is(const struct bpf_insn *v, size_t cnt, long at, uint64_t val);

/* the index of the one instruction of v[0, cnt) that op says is one, or
 * -1: none, or more than one (the second half of a 16-byte immediate load
 * is not looked at) */
long insn_at(const struct bpf_insn *v, size_t cnt,
	     bool (*op)(const struct bpf_insn *v, size_t cnt, size_t i));

/* every copy of RS_CLONE_COOKIE_MAGIC's immediate in v[0, cnt) into cs:
 * false when there is none, or more than RS_COOKIE_SITES */
bool cookie_sites_find(const struct bpf_insn *v, size_t cnt, struct cookie_sites *cs);

/* each of cs's immediates set to val */
void cookie_sites_set(struct bpf_insn *v, const struct cookie_sites *cs, uint64_t val);

/* the indices of RS_CLONE_RET_OFF_MAGIC's loads: one per form of the
 * direct read (bpf/retsnoop.bpf.c fexit_ret: an integer's, a pointer's),
 * each patched to the clone's return slot */
#define RS_RET_OFF_SITES 2
struct ret_off_sites {
	long at[RS_RET_OFF_SITES];
	int n;
};

/* every RS_CLONE_RET_OFF_MAGIC load of v[0, cnt) into rs: false when
 * there is none, or more than RS_RET_OFF_SITES */
bool ret_off_sites_find(const struct bpf_insn *v, size_t cnt, struct ret_off_sites *rs);

/* whether every one of rs's loads is still RS_CLONE_RET_OFF_MAGIC's */
bool ret_off_sites_intact(const struct bpf_insn *v, size_t cnt, const struct ret_off_sites *rs);

/* each of rs's loads given offset off */
void ret_off_sites_set(struct bpf_insn *v, const struct ret_off_sites *rs, int16_t off);

/* a 64-bit move of an immediate: the form of RS_CLONE_RET_MAGIC's,
 * RS_CLONE_FLAGS_MAGIC's and RS_CLONE_ARGS_MAGIC's (whatever value each
 * has been patched to) */
bool is_ret_mov(const struct bpf_insn *in);

/* insn_at's tests: RS_CLONE_RET_MAGIC's move, RS_CLONE_RET_OFF_MAGIC's
 * load, RS_CLONE_FLAGS_MAGIC's and RS_CLONE_ARGS_MAGIC's moves, as built */
bool is_ret_magic(const struct bpf_insn *v, size_t cnt, size_t i);
bool is_ret_off_magic(const struct bpf_insn *v, size_t cnt, size_t i);
bool is_flags_magic(const struct bpf_insn *v, size_t cnt, size_t i);
bool is_args_magic(const struct bpf_insn *v, size_t cnt, size_t i);

#endif
