/* ustack_asm.h - the session assembler's side of -U user stacks: USTACK
 * records validated and kept until their session's SESSION_END (which
 * follows them), and the per-recording store of each process's memory
 * maps (UMAPS records), from which a session takes its process's maps as
 * of its end time. Bounded; what exceeds a bound or is malformed is
 * counted by the caller (session_asm.c), never trusted. */
#ifndef RS_USTACK_ASM_H
#define RS_USTACK_ASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../bpf/retsnoop_abi.h"

#define US_MAX_PENDING      1024u          /* USTACK records waiting for their END */
#define US_MAX_PENDING_BYTES (64u << 20)
#define US_MAX_STACK        (1u << 20)     /* a record is at most a chunk anyway */
#define US_MAX_MAPS_VERSIONS 8u            /* UMAPS kept per pid (newest win) */
#define US_MAX_MAPS_BYTES   (64u << 20)    /* UMAPS bytes kept in all */
#define US_MAX_NMAPS        65536u

/* one process's maps as recorded (validated: every path_off points to a
 * NUL-terminated string inside the record's strings, start < end) */
struct us_maps {
	uint64_t serial;                  /* unique in the process: caches key on it */
	const struct rs_rec_umaps *rec;
	const char *strings;              /* rec's strings (after maps[]) */
};

/* a map's path ("" when empty) */
static inline const char *us_map_path(const struct us_maps *m, uint32_t i)
{
	return m->strings + m->rec->maps[i].path_off;
}

enum us_add_result { US_ADD_OK = 0, US_ADD_BAD = 1, US_ADD_OVER = 2, US_ADD_NOMEM = -1 };

/* validated copy of a USTACK record (hdr.size = fixed part + stack_len,
 * unpadded); NULL with *res = US_ADD_BAD when malformed or US_ADD_NOMEM */
struct rs_rec_ustack *us_rec_validate(const struct rs_rec_hdr *h, int *res);
/* validated copy of a UMAPS record, or NULL (same *res) */
struct rs_rec_umaps *us_umaps_validate(const struct rs_rec_hdr *h, int *res);

struct us_pending;
struct us_pending *us_pending_new(void);
/* a USTACK record: validated and kept (a second one of the same session
 * replaces the first); US_ADD_OVER when the oldest kept one had to go */
int us_pending_add(struct us_pending *p, const struct rs_rec_hdr *h);
/* the one kept for sess_id, now the caller's (free()), or NULL */
struct rs_rec_ustack *us_pending_take(struct us_pending *p, uint64_t sess_id);
void us_pending_free(struct us_pending *p);

struct us_mapstore;
struct us_mapstore *us_mapstore_new(void);
/* a UMAPS record: validated and kept as its pid's newest version */
int us_mapstore_add(struct us_mapstore *m, const struct rs_rec_hdr *h);
/* pid's maps as of time ts for a stack at ip: among the versions with a
 * mapping covering ip (all of them when none does), the newest read at
 * or before ts, else the oldest read after it (a recorder reads the maps
 * again when a captured IP falls outside the ones it has, i.e. after the
 * session: an exec); NULL when the pid has none */
const struct us_maps *us_mapstore_find(const struct us_mapstore *m, uint32_t pid, uint64_t ts,
				       uint64_t ip);
void us_mapstore_free(struct us_mapstore *m);

#endif
