/* umaps.h - -U: the executable mappings of the processes that appear in
 * sessions, as RS_REC_UMAPS records written into the recording (their
 * layout: bpf/retsnoop_abi.h, docs/format.md). A process's mappings are
 * read from /proc/PID/maps the first time it is seen (its first USTACK,
 * or its SESSION_START with -T) and again when they may have changed: an
 * exec counted by the BPF side (bpf/ustack.bpf.h exec_gen), a user IP
 * outside the known executable mappings, or a stack word pointing next to
 * the code but outside every known mapping (dlopen). A record is written
 * only when the executable mappings differ from the last one written for
 * that process. Build-ids come from the mapped files' ELF notes
 * (symbols/ elf_file_build_id), cached by (device, inode, mtime). */
#ifndef RS_UMAPS_H
#define RS_UMAPS_H

#include <stdint.h>
#include "bpf/retsnoop_abi.h"

struct umaps;

/* writes one record; <0 stops the capture */
typedef int (*umaps_emit_fn)(void *ctx, const struct rs_rec_hdr *rec, uint32_t size);

/* EXEC_GEN_FD: the BPF map of execs per process, or -1 */
struct umaps *umaps_new(int exec_gen_fd);
void umaps_free(struct umaps *u);
/* a USTACK record arrived (before it is written): the process's UMAPS
 * record when it is new or changed; <0: emit failed */
int umaps_on_ustack(struct umaps *u, const struct rs_rec_ustack *us, umaps_emit_fn emit,
		    void *ctx);
/* a process started a session (-T SESSION_START): read early, while it lives */
int umaps_on_pid(struct umaps *u, uint32_t pid, umaps_emit_fn emit, void *ctx);

struct umaps_counts {
	uint64_t procs;       /* processes seen */
	uint64_t reads;       /* /proc/PID/maps reads */
	uint64_t records;     /* UMAPS records written */
	uint64_t gone;        /* processes that had exited before their maps were read */
	uint64_t no_build_id; /* mapped files without a readable build-id */
};
void umaps_counts(const struct umaps *u, struct umaps_counts *c);

#endif
