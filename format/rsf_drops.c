/* rsf_drops.c - the drop / missed-probe table (rsfile.h): the labels the
 * recorder, the live tool and retsnoop-report all print for a recording's
 * loss counters. */
#include <inttypes.h>
#include <stdio.h>
#include "rsfile.h"

static void line(FILE *f, const char *label, uint64_t v)
{
	if (v)
		fprintf(f, "%-20s%" PRIu64 "\n", label, v);
}

void rsf_print_drops(FILE *f, const struct rsf_stats *st)
{
	const struct rs_bpf_stats *b = &st->bpf;

	if (!b->sessions_dropped && !b->sessions_incomplete && !b->sessions_table_full &&
	    !b->sessions_exited && !b->records_dropped && !b->depth_overflows &&
	    !b->exit_mismatches && !st->ringbuf_lost && !st->prog_misses)
		return;
	fprintf(f, "WARNING! There were dropped or incomplete data. Output might be incomplete!\n");
	line(f, "DROPPED SAMPLES:", b->sessions_dropped);
	line(f, "INCOMPLETE SAMPLES:", b->sessions_incomplete);
	line(f, "SESSIONS TABLE FULL:", b->sessions_table_full);
	line(f, "EXITED MID-SESSION:", b->sessions_exited);
	line(f, "DROPPED RECORDS:", b->records_dropped);
	line(f, "RINGBUF LOST:", st->ringbuf_lost);
	line(f, "DEPTH OVERFLOWS:", b->depth_overflows);
	line(f, "EXIT MISMATCHES:", b->exit_mismatches);
	if (st->prog_misses) {
		fprintf(f, "%-20s%" PRIu64, "MISSED PROBES:", st->prog_misses);
		if (st->prog_misses_entry || st->prog_misses_exit)
			fprintf(f, " (entry programs %" PRIu64 ", exit programs %" PRIu64 ")",
				st->prog_misses_entry, st->prog_misses_exit);
		fprintf(f, "\n%-20s(traced calls the kernel ran without retsnoop's BPF program, which "
			"it skips while another BPF program runs on that CPU: their sessions may "
			"lack frames or be missing)\n", "");
	}
}
