/* comm_glob.h - the -n/-N thread-name globs (`*` any run, `?` one
 * character) matched in the BPF program, over the 16-byte comm. Exact
 * names stay in the `comms` hash map; a glob is compiled by the recorder
 * (record/comm_filter.c) into, per character value, the bit mask of the
 * pattern positions it matches, and matched here as a bit-parallel NFA:
 * one table read per comm character, no data-dependent branch, loops
 * bounded by constants, so the verifier's work is linear in the number of
 * globs given (none: nothing to verify). */
#ifndef RS_COMM_GLOB_H
#define RS_COMM_GLOB_H

#define RS_COMM_GLOBS_MAX 128   /* -n and -N, 64 each */

/* set by the recorder before load: bit j of masks[i][c] is set when
 * position j of glob i is character c or '?' (never for c == 0) */
__u16 comm_glob_masks[RS_COMM_GLOBS_MAX][256];
const volatile __u32 comm_glob_star[RS_COMM_GLOBS_MAX];  /* bit j: '*' at j (no "**") */
const volatile __u32 comm_glob_acc[RS_COMM_GLOBS_MAX];   /* 1 << pattern length */
const volatile __u8 comm_glob_deny[RS_COMM_GLOBS_MAX];   /* 1: -N, 0: -n */
const volatile __u32 nr_comm_globs = 0;

/* 1 when glob I matches the NUL-padded COMM */
static __noinline bool comm_glob_match(const char *comm, __u32 i)
{
	__u32 star, s = 1;

	if (i >= RS_COMM_GLOBS_MAX)
		return false;
	star = comm_glob_star[i];
	s |= (s & star) << 1;
	for (int k = 0; k < RS_TASK_COMM_LEN; k++) {
		__u8 c = comm[k];
		__u32 m = comm_glob_masks[i][c] & ~star, next, active;

		next = ((s & m) << 1) | (s & star);
		next |= (next & star) << 1;
		/* all ones while the name goes on (c != 0), without a branch */
		active = -(__u32)(1 ^ ((((__u64)c) - 1) >> 63));
		s = (next & active) | (s & ~active);
	}
	return (s & comm_glob_acc[i]) != 0;
}

/* does any -N (DENY) or -n glob match COMM? */
static __always_inline bool comm_glob_any_match(const char *comm, __u8 deny)
{
	for (__u32 i = 0; i < RS_COMM_GLOBS_MAX; i++) {
		if (i >= nr_comm_globs)
			break;
		if (comm_glob_deny[i] == deny && comm_glob_match(comm, i))
			return true;
	}
	return false;
}

#endif
