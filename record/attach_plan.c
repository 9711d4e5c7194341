/* attach_plan.c - the dry run's attach plan (attach_plan.h). */
#include "record/attach_plan.h"
#include "record/features.h"

static void print_functions(FILE *f, const struct selection *sel)
{
	for (size_t i = 0; i < sel->n; i++) {
		const struct traced_func *t = &sel->v[i];

		fprintf(f, "%s%s%s%s (addr 0x%llx%s%s)\n", t->name, t->module ? " [" : "",
			t->module ? t->module : "", t->module ? "]" : "",
			(unsigned long long)t->addr, t->flags & RS_FUNC_IS_ENTRY ? ", entry" : "",
			t->btf_id ? "" : ", no BTF");
	}
}

static void print_plan(FILE *f, const struct selection *sel, enum attach_mode mode, bool session)
{
	size_t nentry = 0;

	for (size_t i = 0; i < sel->n; i++)
		nentry += !!(sel->v[i].flags & RS_FUNC_IS_ENTRY);
	fprintf(f, "%zu functions would be attached with %s (%zu skipped: ambiguous, %zu without BTF, %zu denied).\n",
		sel->n, session ? "kprobe-session" : attach_mode_name(mode), sel->skipped_ambiguous, sel->skipped_no_btf,
		sel->skipped_denied);
	fprintf(f, "Attach plan: %zu entry and %zu other functions; ", nentry, sel->n - nentry);
	switch (mode) {
	case ATTACH_KPROBE_MULTI:
		if (session)
			fprintf(f, "1 kprobe.session link (entry and exit) covering all %zu.\n", sel->n);
		else
			fprintf(f, "2 kprobe.multi links (entry and exit) covering all %zu.\n", sel->n);
		break;
	case ATTACH_KPROBE:
		fprintf(f, "%zu kprobes and %zu kretprobes, one each per function.\n", sel->n,
			sel->n);
		break;
	default:
		fprintf(f, "%zu fentry and %zu fexit programs (%zu of each cloned from the first).\n",
			sel->n, sel->n, sel->n ? sel->n - 1 : 0);
		break;
	}
	fprintf(f, "Dry run: no tracing program was loaded or attached.\n");
}

void attach_plan_print(FILE *f, const struct selection *sel, enum attach_mode mode,
		       bool session, bool verbose)
{
	session = session && mode == ATTACH_KPROBE_MULTI;
	if (!verbose) {
		fprintf(f, "%zu functions would be attached with %s.\n", sel->n,
			session ? "kprobe-session" : attach_mode_name(mode));
		return;
	}
	print_functions(f, sel);
	print_plan(f, sel, mode, session);
}
