/* recorder.h - one recording as an object, shared by retsnoop-record and
 * the live retsnoop: create, preflight (root, BTF, ring buffer, kallsyms,
 * traceable list), select (functions and attach mode), attach (load the
 * BPF programs, spawn `-- CMD`, open the file, hooks' on_start), run
 * (capture until Ctrl-C or the command exits, records to the file and the
 * hooks), finish (detach, statistics, trailer, drop table), free.
 *
 * A failed step returns -1 and leaves a one-line reason in
 * recorder_error() for the command to print under its name (empty when a
 * hook already reported). Progress ("Recording ...", "Detaching...",
 * "DONE in N ms."), -v details, warnings (prefixed with the command name)
 * and the drop table go to the log stream; nothing else is printed. */
#ifndef RS_RECORDER_H
#define RS_RECORDER_H

#include <stdio.h>
#include "record/header_blobs.h"
#include "record/options.h"
#include "record/record_hooks.h"

struct recorder;

/* o is copied; hooks (may be NULL) must outlive the recorder; prog names
 * the command in warnings; log is usually stderr */
struct recorder *recorder_new(const struct record_opts *o, const char *prog,
			      const struct record_hooks *hooks, FILE *log);
int recorder_preflight(struct recorder *r);
int recorder_select(struct recorder *r);
/* --dry-run: what recorder_attach would attach, on f */
void recorder_print_plan(const struct recorder *r, FILE *f);
int recorder_attach(struct recorder *r);
/* captures until a stop is requested or the spawned command exits */
int recorder_run(struct recorder *r);
int recorder_finish(struct recorder *r);
void recorder_free(struct recorder *r);

const char *recorder_error(const struct recorder *r);
/* the named header blobs (header_blobs.h) written with the file header:
 * record components add theirs before recorder_attach opens the file */
struct header_blobs *recorder_blobs(struct recorder *r);
/* the process exit status after finish: 1 after an error, else the
 * spawned command's status, else 0 */
int recorder_exit_status(const struct recorder *r);

/* every step in order (a dry run stops after select and prints the plan
 * on stdout); returns the exit status */
int recorder_execute(struct recorder *r);

#endif
