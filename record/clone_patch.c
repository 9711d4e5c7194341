/* clone_patch.c - finds and sets the immediates patched into each fentry and
 * fexit clone's copy of its template's instructions (clone_patch.h). */
#include "record/clone_patch.h"

/* whether v[at] is a 16-byte immediate load of val */
bool ldimm_is(const struct bpf_insn *v, size_t cnt, long at, uint64_t val)
{
	return at >= 0 && (size_t)at + 1 < cnt && v[at].code == (BPF_LD | BPF_DW | BPF_IMM) &&
	       v[at].src_reg == 0 && (uint32_t)v[at].imm == (uint32_t)val &&
	       (uint32_t)v[at + 1].imm == (uint32_t)(val >> 32);
}

/* the indices of the instructions of v[0, cnt) that op says are ones,
 * into at[0, max): how many, or -1 when there are more than max (the
 * second half of a 16-byte immediate load is not looked at) */
static int insns_where(const struct bpf_insn *v, size_t cnt,
		       bool (*op)(const struct bpf_insn *v, size_t cnt, size_t i), long *at, int max)
{
	int n = 0;

	for (size_t i = 0; i < cnt; i++) {
		if (op(v, cnt, i)) {
			if (n == max)
				return -1;
			at[n++] = (long)i;
		}
		if (v[i].code == (BPF_LD | BPF_DW | BPF_IMM))
			i++;
	}
	return n;
}

long insn_at(const struct bpf_insn *v, size_t cnt,
	     bool (*op)(const struct bpf_insn *v, size_t cnt, size_t i))
{
	long at;

	return insns_where(v, cnt, op, &at, 1) == 1 ? at : -1;
}

/* RS_CLONE_COOKIE_MAGIC's immediate (bpf/retsnoop.bpf.c fentry_func_cookie) */
static bool is_cookie_magic(const struct bpf_insn *v, size_t cnt, size_t i)
{
	return ldimm_is(v, cnt, (long)i, RS_CLONE_COOKIE_MAGIC);
}

bool cookie_sites_find(const struct bpf_insn *v, size_t cnt, struct cookie_sites *cs)
{
	cs->n = insns_where(v, cnt, is_cookie_magic, cs->at, RS_COOKIE_SITES);
	return cs->n > 0;
}

static void ldimm_set(struct bpf_insn *v, long at, uint64_t val)
{
	v[at].imm = (int32_t)(uint32_t)val;
	v[at + 1].imm = (int32_t)(uint32_t)(val >> 32);
}

/* each of cs's immediates set to val */
void cookie_sites_set(struct bpf_insn *v, const struct cookie_sites *cs, uint64_t val)
{
	for (int j = 0; j < cs->n; j++)
		ldimm_set(v, cs->at[j], val);
}

/* RS_CLONE_RET_MAGIC's move (its value as patched: 0 or 1 also) */
bool is_ret_mov(const struct bpf_insn *in)
{
	return in->code == (BPF_ALU64 | BPF_MOV | BPF_K) && in->src_reg == 0 && in->off == 0;
}

bool is_ret_magic(const struct bpf_insn *v, size_t cnt, size_t i)
{
	(void)cnt;
	return is_ret_mov(&v[i]) && (uint32_t)v[i].imm == RS_CLONE_RET_MAGIC;
}

bool is_ret_off_magic(const struct bpf_insn *v, size_t cnt, size_t i)
{
	(void)cnt;
	return v[i].code == (BPF_LDX | BPF_MEM | BPF_DW) && v[i].off == RS_CLONE_RET_OFF_MAGIC;
}

bool ret_off_sites_find(const struct bpf_insn *v, size_t cnt, struct ret_off_sites *rs)
{
	rs->n = insns_where(v, cnt, is_ret_off_magic, rs->at, RS_RET_OFF_SITES);
	return rs->n > 0;
}

bool ret_off_sites_intact(const struct bpf_insn *v, size_t cnt, const struct ret_off_sites *rs)
{
	if (rs->n <= 0)
		return false;
	for (int j = 0; j < rs->n; j++)
		if (rs->at[j] < 0 || (size_t)rs->at[j] >= cnt || !is_ret_off_magic(v, cnt, (size_t)rs->at[j]))
			return false;
	return true;
}

void ret_off_sites_set(struct bpf_insn *v, const struct ret_off_sites *rs, int16_t off)
{
	for (int j = 0; j < rs->n; j++)
		v[rs->at[j]].off = off;
}

/* RS_CLONE_ARGS_MAGIC's move (bpf/retsnoop.bpf.c fexit_frame_fast) */
bool is_args_magic(const struct bpf_insn *v, size_t cnt, size_t i)
{
	(void)cnt;
	return is_ret_mov(&v[i]) && (uint32_t)v[i].imm == RS_CLONE_ARGS_MAGIC;
}

/* RS_CLONE_FLAGS_MAGIC's move (bpf/retsnoop.bpf.c fexit_fast_of) */
bool is_flags_magic(const struct bpf_insn *v, size_t cnt, size_t i)
{
	(void)cnt;
	return is_ret_mov(&v[i]) && (uint32_t)v[i].imm == RS_CLONE_FLAGS_MAGIC;
}
