/* diff_cmd.c - `retsnoop-report diff [--format text|json] OLD NEW`: the
 * question "what started failing after the upgrade?". Each recording's
 * failing call paths (diff_paths.h) are counted; printed are the paths
 * only in NEW, only in OLD, and in both with a changed count, the largest
 * first. Exit status 0; 2 on usage errors, an unreadable recording, or
 * a damaged one (its paths up to the damage are still compared). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/json_writer.h"
#include "../format/rsfile.h"
#include "diff_cmd.h"
#include "diff_paths.h"
#include "report_version.h"
#include "../common/shared_opts.h"

#define PROG "retsnoop-report diff"

struct side {
	const char *path;
	char host[65], release[65];
	bool damaged, complete;
};

struct diff_args {
	const char *paths[2];
	int npaths;
	bool json;
};

static int diff_opt(void *ctx, int id, const char *v, struct opt_error *e)
{
	struct diff_args *d = ctx;

	(void)id;
	if (strcmp(v, "text") && strcmp(v, "json"))
		return opt_fail(e, OPT_EUSAGE, "--format: expected 'text' or 'json', got '%s'", v);
	d->json = !strcmp(v, "json");
	return OPT_OK;
}

static const struct opt_spec diff_table[] = {
	{ "Options", "format", 0, OPT_REQUIRED, "text|json", 0, diff_opt, OPT_DIFF, 0,
	  "text (default) or one JSON object" },
};

static int diff_word(void *ctx, const char *w, struct opt_error *e)
{
	struct diff_args *d = ctx;

	if (d->npaths == 2)
		return opt_fail(e, OPT_EUSAGE, "expected two recordings (OLD NEW), got another: %s", w);
	d->paths[d->npaths++] = w;
	return OPT_OK;
}

/* 0 to compare D->paths, else the exit status (help, usage error) */
static int parse_args(struct diff_args *d, int argc, char **argv, int *status)
{
	struct shared_opts s;
	struct opt_group groups[2] = {
		OPT_GROUP(diff_table, d),
		{ shared_opt_table, shared_opt_count, &s },
	};
	struct opt_cmdline c = {
		.prog = PROG, .cmd = OPT_DIFF, .groups = groups, .ngroups = 2,
		.dashdash = OPT_DD_WORDS, .word = diff_word, .word_ctx = d,
	};
	struct opt_error e;
	int r;

	memset(d, 0, sizeof(*d));
	shared_opts_init(&s, OPT_DIFF, NULL, NULL);
	r = opt_parse(&c, argc, argv, &e);
	if (r == OPT_OK && !s.help && !s.usage && !s.version && d->npaths != 2)
		r = opt_fail(&e, OPT_EUSAGE, "expected two recordings: OLD NEW");
	*status = 0;
	if (r < 0) {
		opt_error_print(stderr, PROG, r, &e);
		*status = 2;
	} else if (s.list) {
		opt_list(stdout, &c);
	} else if (s.help) {
		printf("Usage: " PROG " [--format text|json] OLD NEW\n"
		       "Failing call paths (entry function to the deepest failing function, "
		       "and its error)\nthat appear only in NEW, only in OLD, or in both with "
		       "a changed count.\n\n");
		opt_help(stdout, &c);
	} else if (s.usage) {
		opt_usage(stdout, &c, "OLD NEW");
	} else if (s.version) {
		printf(PROG " %s\n", REPORT_VERSION);
	} else {
		return 0;
	}
	return -1;
}

/* every final, not ignored session of PATH into side K; -1 unreadable */
static int load(struct fail_paths *fp, int k, struct side *sd)
{
	char err[512];
	struct rsf_reader *r = rsf_reader_open(sd->path, err, sizeof(err));
	const struct rs_rec_hdr *h;
	const struct rsf_func *funcs;
	struct rs_rec_session_end full;
	size_t nfuncs;
	enum rsf_status st;
	int ret = 0;

	if (!r) {
		fprintf(stderr, PROG ": %s\n", err);
		return -1;
	}
	snprintf(sd->host, sizeof(sd->host), "%s", rsf_reader_meta(r)->hostname);
	snprintf(sd->release, sizeof(sd->release), "%s", rsf_reader_meta(r)->uts_release);
	funcs = rsf_reader_funcs(r, &nfuncs);
	while ((st = rsf_reader_next(r, &h)) == RSF_OK) {
		const struct rs_rec_session_end *e = (const void *)h;

		if (h->type != RS_REC_SESSION_END || h->size < offsetof(struct rs_rec_session_end, frames) ||
		    (e->flags & (RS_SESS_INTERIM | RS_SESS_IGNORED)))
			continue;
		if (rsf_end_expand(h, &full) < offsetof(struct rs_rec_session_end, frames) +
		    (size_t)(full.nframes < RS_MAX_FSTACK_DEPTH ? full.nframes : RS_MAX_FSTACK_DEPTH) *
		    sizeof(struct rs_frame))
			continue;   /* frames cut short: not a session to compare */
		if (fail_paths_add(fp, k, &full, funcs, nfuncs)) {
			fprintf(stderr, PROG ": out of memory\n");
			ret = -1;
			break;
		}
	}
	if (st == RSF_DAMAGED) {
		fprintf(stderr, PROG ": %s: %s (paths up to the damage are compared)\n", sd->path,
			rsf_reader_error(r));
		sd->damaged = true;
	}
	sd->complete = rsf_reader_complete(r);
	rsf_reader_close(r);
	return ret;
}

enum kind { ONLY_NEW, ONLY_OLD, CHANGED, SAME };

static enum kind kind_of(const struct fail_path *f)
{
	if (!f->count[0])
		return ONLY_NEW;
	if (!f->count[1])
		return ONLY_OLD;
	return f->count[0] != f->count[1] ? CHANGED : SAME;
}

static uint64_t weight(const struct fail_path *f)
{
	return f->count[0] > f->count[1] ? f->count[0] - f->count[1] : f->count[1] - f->count[0];
}

/* largest change first, then by path and error: a stable order */
static int cmp_path(const void *a, const void *b)
{
	const struct fail_path *x = a, *y = b;
	uint64_t wx = weight(x), wy = weight(y);
	int c;

	if (wx != wy)
		return wx > wy ? -1 : 1;
	c = strcmp(x->path, y->path);
	return c ? c : strcmp(x->error, y->error);
}

static size_t count_kind(const struct fail_paths *fp, enum kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < fp->n; i++)
		n += kind_of(&fp->v[i]) == k;
	return n;
}

static void text_side(const char *label, const struct side *sd, const struct fail_paths *fp, int k)
{
	printf("%s %s: host %s, kernel %s, %" PRIu64 " session(s), %" PRIu64 " with a failing "
	       "call path%s\n", label, sd->path, sd->host[0] ? sd->host : "(unknown)",
	       sd->release[0] ? sd->release : "(unknown)", fp->sessions[k], fp->failing[k],
	       sd->damaged ? " (DAMAGED)" : sd->complete ? "" : " (incomplete)");
}

static void text_section(const struct fail_paths *fp, enum kind k, const char *title)
{
	size_t n = count_kind(fp, k);

	printf("\n%s: %zu failing call path(s)\n", title, n);
	for (size_t i = 0; i < fp->n; i++) {
		const struct fail_path *f = &fp->v[i];

		if (kind_of(f) != k)
			continue;
		if (k == CHANGED)
			printf("  %" PRIu64 " -> %" PRIu64 " (%s%" PRIu64 ")  %s in %s\n", f->count[0],
			       f->count[1], f->count[1] > f->count[0] ? "+" : "-", weight(f),
			       f->error, f->deepest);
		else
			printf("  %" PRIu64 "x  %s in %s\n", f->count[k == ONLY_OLD ? 0 : 1], f->error,
			       f->deepest);
		printf("      %s\n", f->path);
	}
}

static void json_side(const char *key, const struct side *sd, const struct fail_paths *fp, int k)
{
	printf("\"%s\":{\"path\":", key);
	json_put_str(stdout, sd->path);
	printf(",\"hostname\":");
	json_put_str(stdout, sd->host);
	printf(",\"kernel_release\":");
	json_put_str(stdout, sd->release);
	printf(",\"sessions\":%" PRIu64 ",\"failing_sessions\":%" PRIu64 ",\"complete\":%s,"
	       "\"damaged\":%s}", fp->sessions[k], fp->failing[k], sd->complete ? "true" : "false",
	       sd->damaged ? "true" : "false");
}

/* "a > b > c" as a JSON array of names */
static void put_path(const char *path)
{
	char name[128];

	for (const char *p = path, *sep;; p = sep + 3) {
		sep = strstr(p, " > ");
		size_t l = sep ? (size_t)(sep - p) : strlen(p);

		snprintf(name, sizeof(name), "%.*s", (int)l, p);
		json_put_str(stdout, name);
		if (!sep)
			break;
		printf(",");
	}
}

static void json_section(const struct fail_paths *fp, enum kind k, const char *key)
{
	bool first = true;

	printf(",\"%s\":[", key);
	for (size_t i = 0; i < fp->n; i++) {
		const struct fail_path *f = &fp->v[i];

		if (kind_of(f) != k)
			continue;
		printf("%s{\"deepest\":", first ? "" : ",");
		first = false;
		json_put_str(stdout, f->deepest);
		printf(",\"error\":");
		json_put_str(stdout, f->error);
		printf(",\"path\":[");
		put_path(f->path);
		printf("],\"old\":%" PRIu64 ",\"new\":%" PRIu64 "}", f->count[0], f->count[1]);
	}
	printf("]");
}

int diff_main(int argc, char **argv)
{
	struct side sd[2] = {};
	struct fail_paths fp = {};
	struct diff_args d;
	bool json;
	int ret = 0;

	if (parse_args(&d, argc, argv, &ret))
		return ret;
	sd[0].path = d.paths[0];
	sd[1].path = d.paths[1];
	json = d.json;
	for (int k = 0; k < 2; k++)
		if (load(&fp, k, &sd[k])) {
			fail_paths_free(&fp);
			return 2;
		}
	if (fp.n)
		qsort(fp.v, fp.n, sizeof(*fp.v), cmp_path);
	if (json) {
		printf("{");
		json_side("old", &sd[0], &fp, 0);
		printf(",");
		json_side("new", &sd[1], &fp, 1);
		json_section(&fp, ONLY_NEW, "only_in_new");
		json_section(&fp, ONLY_OLD, "only_in_old");
		json_section(&fp, CHANGED, "changed");
		printf(",\"unchanged\":%zu}\n", count_kind(&fp, SAME));
	} else {
		text_side("OLD", &sd[0], &fp, 0);
		text_side("NEW", &sd[1], &fp, 1);
		text_section(&fp, ONLY_NEW, "ONLY IN NEW");
		text_section(&fp, ONLY_OLD, "ONLY IN OLD");
		text_section(&fp, CHANGED, "IN BOTH, COUNT CHANGED (OLD -> NEW)");
		printf("\nIN BOTH, SAME COUNT: %zu failing call path(s)\n", count_kind(&fp, SAME));
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, PROG ": error writing the output\n");
		ret = 1;
	}
	if (sd[0].damaged || sd[1].damaged)
		ret = 2;
	fail_paths_free(&fp);
	return ret;
}
