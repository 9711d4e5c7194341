/* comm_glob.h - the -n/-N thread-name globs (`*` any run, `?` one
 * character) matched in the BPF program, over the 16-byte comm. Exact
 * names stay in the `comms` hash map; a glob is compiled by the recorder
 * (record/comm_filter.c) into bit masks over its at most 15 pattern
 * positions, and matched here as a bit-parallel NFA: no data-dependent
 * branch, loops bounded by constants, so the verifier's work is linear in
 * the number of globs given (none: nothing to verify). */
#ifndef RS_COMM_GLOB_H
#define RS_COMM_GLOB_H

#define RS_COMM_GLOBS_MAX 128   /* -n and -N, 64 each */

/* set by the recorder before load (read-only to the programs) */
const volatile __u8 comm_glob_pat[RS_COMM_GLOBS_MAX][RS_TASK_COMM_LEN]; /* literal chars */
const volatile __u32 comm_glob_any[RS_COMM_GLOBS_MAX];   /* bit j: '?' at j */
const volatile __u32 comm_glob_star[RS_COMM_GLOBS_MAX];  /* bit j: '*' at j (no "**") */
const volatile __u32 comm_glob_acc[RS_COMM_GLOBS_MAX];   /* 1 << pattern length */
const volatile __u8 comm_glob_deny[RS_COMM_GLOBS_MAX];   /* 1: -N, 0: -n */
const volatile __u32 nr_comm_globs = 0;

/* 1 when glob I matches the NUL-padded COMM */
static __noinline bool comm_glob_match(const char *comm, __u32 i)
{
	__u32 star, any, s = 1;

	if (i >= RS_COMM_GLOBS_MAX)
		return false;
	star = comm_glob_star[i];
	any = comm_glob_any[i];
	s |= (s & star) << 1;
	for (int k = 0; k < RS_TASK_COMM_LEN; k++) {
		__u64 c = (__u8)comm[k];
		__u32 m = any, next, active;

		for (int j = 0; j < RS_TASK_COMM_LEN; j++) {
			__u64 x = comm_glob_pat[i][j] ^ c;

			m |= (__u32)(((x - 1) >> 63) & 1) << j;   /* x == 0 */
		}
		m &= ~star;
		next = ((s & m) << 1) | (s & star);
		next |= (next & star) << 1;
		active = -(__u32)(1 ^ (((c - 1) >> 63) & 1));  /* all ones unless c == 0 */
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
