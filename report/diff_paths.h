/* diff_paths.h - the failing call paths of a recording, as `diff`
 * compares them: for each final session with a failing frame, the path
 * from the entry function to the deepest failing function (names joined
 * by " > "), that function and its error; counted per side (0 OLD, 1 NEW). */
#ifndef RS_DIFF_PATHS_H
#define RS_DIFF_PATHS_H

#include <stddef.h>
#include <stdint.h>
#include "../format/rsfile.h"

struct fail_path {
	char *path;                     /* "entry > ... > deepest" */
	char *deepest;                  /* name of the deepest failing function */
	char error[40];                 /* its result, e.g. "-ENOMEM", "NULL" */
	uint64_t count[2];
};

struct fail_paths {
	struct fail_path *v;
	size_t n, cap;
	size_t *slot;                   /* open-addressing index into v (SIZE_MAX: empty) */
	size_t nslot;
	uint64_t sessions[2], failing[2];
};

/* adds the failing path of END (a final, not ignored session) to SIDE;
 * funcs is the recording's traced-function table. -1: out of memory */
int fail_paths_add(struct fail_paths *fp, int side, const struct rs_rec_session_end *end,
		   const struct rsf_func *funcs, size_t nfuncs);
void fail_paths_free(struct fail_paths *fp);

#endif
