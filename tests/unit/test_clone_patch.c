/* test_clone_patch.c - unit tests of record/clone_patch.c: finding the
 * fentry/fexit templates' magic immediates (every copy of the cookie's, the
 * one return and flags moves) and patching a clone's cookie into each copy. */
#include "record/clone_patch.h"
#include "testlib.h"

#define LD_DW_IMM (BPF_LD | BPF_DW | BPF_IMM)
#define MOV64_K (BPF_ALU64 | BPF_MOV | BPF_K)

/* a 16-byte immediate load of val into r1, at v[at] and v[at + 1] */
static void ldimm(struct bpf_insn *v, int at, uint64_t val)
{
	v[at] = (struct bpf_insn){ .code = LD_DW_IMM, .dst_reg = 1, .imm = (int32_t)(uint32_t)val };
	v[at + 1] = (struct bpf_insn){ .imm = (int32_t)(uint32_t)(val >> 32) };
}

static void mov(struct bpf_insn *v, int at, int32_t imm)
{
	v[at] = (struct bpf_insn){ .code = MOV64_K, .dst_reg = 2, .imm = imm };
}

/* a template as clang may lay one out: the cookie's load copied into two
 * paths, the return read's move and load, the flags' and the argument
 * registers' moves, a 16-byte load of another value between them */
static int template(struct bpf_insn *v)
{
	int n = 0;

	mov(v, n++, 7);
	ldimm(v, n, RS_CLONE_COOKIE_MAGIC);
	n += 2;
	mov(v, n++, (int32_t)RS_CLONE_RET_MAGIC);
	v[n++] = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = 3, .src_reg = 1,
				    .off = RS_CLONE_RET_OFF_MAGIC };
	ldimm(v, n, 0x1234567800000000ULL | (uint32_t)RS_CLONE_FLAGS_MAGIC);
	n += 2;
	mov(v, n++, (int32_t)RS_CLONE_FLAGS_MAGIC);
	ldimm(v, n, RS_CLONE_COOKIE_MAGIC);
	n += 2;
	mov(v, n++, (int32_t)RS_CLONE_ARGS_MAGIC);
	v[n++] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	return n;
}

static void test_cookie_copies_found_and_set(void)
{
	struct bpf_insn v[32];
	int n = template(v);
	struct cookie_sites cs;
	uint64_t cookie = RS_FUNC_COOKIE(17, RS_FUNC_RET_PTR);

	CHECK(cookie_sites_find(v, (size_t)n, &cs));
	CHECK_INT(cs.n, 2);
	CHECK_INT(cs.at[0], 1);
	CHECK_INT(cs.at[1], 8);
	cookie_sites_set(v, &cs, cookie);
	CHECK(ldimm_is(v, (size_t)n, 1, cookie));
	CHECK(ldimm_is(v, (size_t)n, 8, cookie));
	/* nothing else changed: no copy of the magic is left */
	CHECK(!cookie_sites_find(v, (size_t)n, &cs));
	CHECK_INT(v[0].imm, 7);
	CHECK(ldimm_is(v, (size_t)n, 5, 0x1234567800000000ULL | (uint32_t)RS_CLONE_FLAGS_MAGIC));
}

/* none, and more copies than RS_COOKIE_SITES, are refused; exactly that
 * many are taken */
static void test_cookie_site_limits(void)
{
	struct bpf_insn v[2 * (RS_COOKIE_SITES + 1) + 1];
	struct cookie_sites cs;
	int n = 0;

	mov(v, n++, 0);
	CHECK(!cookie_sites_find(v, (size_t)n, &cs));
	for (int k = 0; k < RS_COOKIE_SITES; k++, n += 2)
		ldimm(v, n, RS_CLONE_COOKIE_MAGIC);
	CHECK(cookie_sites_find(v, (size_t)n, &cs));
	CHECK_INT(cs.n, RS_COOKIE_SITES);
	ldimm(v, n, RS_CLONE_COOKIE_MAGIC);
	n += 2;
	CHECK(!cookie_sites_find(v, (size_t)n, &cs));
}

/* a load cut short by the end of the array is not one */
static void test_ldimm_at_the_end(void)
{
	struct bpf_insn v[3];

	mov(v, 0, 0);
	ldimm(v, 1, RS_CLONE_COOKIE_MAGIC);
	CHECK(ldimm_is(v, 3, 1, RS_CLONE_COOKIE_MAGIC));
	CHECK(!ldimm_is(v, 2, 1, RS_CLONE_COOKIE_MAGIC));
	CHECK(!ldimm_is(v, 3, -1, RS_CLONE_COOKIE_MAGIC));
	CHECK(!ldimm_is(v, 3, 1, RS_CLONE_COOKIE_MAGIC + 1));
}

/* the direct read's loads: one per form, both found and patched, the
 * other fields of each left as they were; none, and more than
 * RS_RET_OFF_SITES, are refused; a patched one is no longer intact */
static void test_ret_off_sites(void)
{
	struct bpf_insn v[32];
	struct ret_off_sites rs;
	int n = template(v);

	CHECK(ret_off_sites_find(v, (size_t)n, &rs));
	CHECK_INT(rs.n, 1);
	CHECK_INT(rs.at[0], 4);
	v[n - 1] = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = 5,
				      .src_reg = 1, .off = RS_CLONE_RET_OFF_MAGIC };
	v[n++] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	CHECK(ret_off_sites_find(v, (size_t)n, &rs));
	CHECK_INT(rs.n, 2);
	CHECK_INT(rs.at[1], n - 2);
	CHECK(ret_off_sites_intact(v, (size_t)n, &rs));
	CHECK(!ret_off_sites_intact(v, (size_t)n - 2, &rs));   /* a site past the end */
	ret_off_sites_set(v, &rs, 24);
	CHECK_INT(v[4].off, 24);
	CHECK_INT(v[n - 2].off, 24);
	CHECK_INT(v[n - 2].dst_reg, 5);
	CHECK_INT(v[4].dst_reg, 3);
	CHECK(!ret_off_sites_intact(v, (size_t)n, &rs));
	CHECK(!ret_off_sites_find(v, (size_t)n, &rs));
	for (int k = 0; k < RS_RET_OFF_SITES + 1; k++)
		v[k] = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW,
					  .off = RS_CLONE_RET_OFF_MAGIC };
	CHECK(!ret_off_sites_find(v, (size_t)n, &rs));
}

/* the return and flags moves: the one of each, not a 16-byte load that
 * holds the same 32 bits; a second move is refused */
static void test_one_move_each(void)
{
	struct bpf_insn v[32];
	int n = template(v);

	CHECK_INT(insn_at(v, (size_t)n, is_ret_magic), 3);
	CHECK_INT(insn_at(v, (size_t)n, is_ret_off_magic), 4);
	CHECK_INT(insn_at(v, (size_t)n, is_flags_magic), 7);
	CHECK_INT(insn_at(v, (size_t)n, is_args_magic), 10);
	CHECK(is_ret_mov(&v[7]));
	CHECK(is_ret_mov(&v[10]));
	CHECK(!is_ret_mov(&v[4]));
	mov(v, 0, (int32_t)RS_CLONE_ARGS_MAGIC);
	CHECK_INT(insn_at(v, (size_t)n, is_args_magic), -1);
	mov(v, n - 1, (int32_t)RS_CLONE_FLAGS_MAGIC);
	CHECK_INT(insn_at(v, (size_t)n, is_flags_magic), -1);
	CHECK_INT(insn_at(v, 1, is_ret_magic), -1);
}

int main(void)
{
	RUN(test_cookie_copies_found_and_set);
	RUN(test_cookie_site_limits);
	RUN(test_ldimm_at_the_end);
	RUN(test_one_move_each);
	RUN(test_ret_off_sites);
	return TEST_REPORT("test_clone_patch");
}
