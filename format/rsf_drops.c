/* rsf_drops.c - the drop / missed-probe table (rsfile.h): the labels the
 * recorder, the live tool and retsnoop-report all print for a recording's
 * loss counters, and which attach links missed probes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rsfile.h"

static void line(FILE *f, const char *label, uint64_t v)
{
	if (v)
		fprintf(f, "%-20s%" PRIu64 "\n", label, v);
}

/* kprobe mode: "name=count,..." printed as "name count, ..." and the
 * functions left out of the list summed up */
static void print_funcs(FILE *f, const struct rsf_stats *st, uint64_t total)
{
	const char *s = st->link_misses_funcs;
	const char *end = s + strnlen(s, sizeof(st->link_misses_funcs));
	uint64_t listed = 0, nlisted = 0;

	fputs("kprobe links: ", f);
	while (s < end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *stop = comma ? comma : end;
		const char *eq = stop;

		while (eq > s && eq[-1] != '=')
			eq--;
		if (eq > s) {   /* a well-formed "name=count" */
			uint64_t n = strtoull(eq, NULL, 10);

			fprintf(f, "%s%.*s %" PRIu64, nlisted ? ", " : "", (int)(eq - 1 - s), s, n);
			listed += n;
			nlisted++;
		}
		s = comma ? comma + 1 : end;
	}
	if (st->link_misses_nfuncs > nlisted && total > listed) {
		uint64_t others = st->link_misses_nfuncs - nlisted;

		fprintf(f, "%s%" PRIu64 " other function%s %" PRIu64, nlisted ? ", " : "", others,
			others == 1 ? "" : "s", total - listed);
	}
}

bool rsf_print_link_misses(FILE *f, const struct rsf_stats *st)
{
	uint64_t total = st->link_misses_entry + st->link_misses_exit;

	if (!st->link_misses_known || !total)
		return false;
	if (st->link_misses_funcs[0])
		print_funcs(f, st, total);
	else   /* kprobe.multi, or kprobe links without their list (several files summed) */
		fprintf(f, "%s links: entry %" PRIu64 ", exit %" PRIu64,
			st->link_misses_nfuncs ? "kprobe" : "kprobe.multi",
			st->link_misses_entry, st->link_misses_exit);
	return true;
}

/* "MISSED PROBES: N (entry programs E, exit programs X, -J probe programs
 * P; <links>)" */
static void print_missed(FILE *f, const struct rsf_stats *st, uint64_t links)
{
	uint64_t ee = st->prog_misses_entry + st->prog_misses_exit;
	uint64_t probes = st->prog_misses_probes;   /* -J programs, apart from entry/exit */
	bool progs = ee || probes;

	fprintf(f, "%-20s%" PRIu64, "MISSED PROBES:", st->prog_misses + links);
	if (progs || links)
		fputs(" (", f);
	if (ee)
		fprintf(f, "entry programs %" PRIu64 ", exit programs %" PRIu64,
			st->prog_misses_entry, st->prog_misses_exit);
	if (ee && probes)
		fputs(", ", f);
	if (probes)
		fprintf(f, "-J probe programs %" PRIu64, probes);
	if (progs && links)
		fputs("; ", f);
	if (links)
		rsf_print_link_misses(f, st);
	if (progs || links)
		fputs(")", f);
	if (st->prog_misses > probes || links)
		fprintf(f, "\n%-20s(traced calls the kernel ran without retsnoop's BPF program, which "
			"it skips while another BPF program%s runs on that CPU: their sessions may "
			"lack frames or be missing)", "", links ? " or probe" : "");
	if (probes)
		fprintf(f, "\n%-20s(-J probe hits skipped the same way lose only their "
			"trace rows and -I snapshots)", "");
	fputc('\n', f);
}

void rsf_print_drops(FILE *f, const struct rsf_stats *st)
{
	const struct rs_bpf_stats *b = &st->bpf;
	uint64_t links = st->link_misses_known ? st->link_misses_entry + st->link_misses_exit : 0;

	if (!b->sessions_dropped && !b->sessions_incomplete && !b->sessions_table_full &&
	    !b->sessions_exited && !b->records_dropped && !b->depth_overflows &&
	    !b->exit_mismatches && !st->ringbuf_lost && !st->prog_misses && !links &&
	    !b->ustacks_dropped && !st->umaps_gone && !b->args_dropped)
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
	line(f, "DROPPED USTACKS:", b->ustacks_dropped);
	line(f, "MAPS UNREADABLE:", st->umaps_gone);   /* the process had exited */
	line(f, "DROPPED ARGS:", b->args_dropped);
	if (st->prog_misses || links)
		print_missed(f, st, links);
}
