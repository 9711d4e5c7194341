/* shared_opts.c - the table and parsers of the options the three commands
 * share (shared_opts.h). */
#include "common/shared_opts.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
	SO_PID, SO_NOPID, SO_COMM, SO_NOCOMM, SO_ALLOW_ERR, SO_DENY_ERR, SO_LONGER, SO_SUCCESS,
	SO_KERNEL, SO_SYMB, SO_BUILD_ID, SO_LBR_MAX, SO_CONFIG, SO_CONFIG_HELP, SO_VERBOSE,
	SO_VERSION, SO_HELP, SO_USAGE, SO_LIST,
};

void shared_opts_init(struct shared_opts *s, unsigned cmd, shared_config_fn config,
		      void *config_ctx)
{
	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	s->symb = -1;
	s->config = config;
	s->config_ctx = config_ctx;
}

bool comm_is_glob(const char *glob)
{
	return strpbrk(glob, "*?") != NULL;
}

static int add_pid(struct filter_opts *f, bool deny, const char *v, struct opt_error *e)
{
	uint32_t *ids = deny ? f->nopids : f->pids, *n = deny ? &f->nnopids : &f->npids;
	uint64_t pid;

	if (opt_u64(v, &pid) || pid == 0 || pid > 0x7fffffff)
		return opt_fail(e, OPT_EUSAGE, "bad PID '%s': expected a process id (a positive "
				"integer)", v);
	if (*n >= FILTER_MAX_PIDS)
		return opt_fail(e, OPT_EUSAGE, "too many -%c values (max %d) at '%s'", deny ? 'P' : 'p',
				FILTER_MAX_PIDS, v);
	ids[(*n)++] = (uint32_t)pid;
	return OPT_OK;
}

static int add_comm(struct filter_opts *f, bool deny, const char *v, struct opt_error *e)
{
	char (*names)[FILTER_COMM_LEN] = deny ? f->nocomms : f->comms;
	uint32_t *n = deny ? &f->nnocomms : &f->ncomms;

	if (!v[0] || strlen(v) >= FILTER_COMM_LEN)
		return opt_fail(e, OPT_EUSAGE, "bad comm '%s': a thread name glob of 1..%d characters",
				v, FILTER_COMM_LEN - 1);
	if (*n >= FILTER_MAX_COMMS)
		return opt_fail(e, OPT_EUSAGE, "too many -%c values (max %d) at '%s'", deny ? 'N' : 'n',
				FILTER_MAX_COMMS, v);
	snprintf(names[(*n)++], FILTER_COMM_LEN, "%s", v);
	return OPT_OK;
}

static int add_err(struct filter_opts *f, bool deny, const char *v, struct opt_error *e)
{
	if (err_filter_add(&f->errs, v, deny))
		return opt_fail(e, OPT_EUSAGE, "unknown error '%s' for -x/-X (an errno name like EINVAL "
				"or -ENOMEM, a number, NULL%s)", v, deny ? "" : ", or any");
	if (deny)
		f->has_X = true;
	else
		f->has_x = f->errs.has_allow;
	return OPT_OK;
}

static int parse_longer(struct filter_opts *f, const char *v, struct opt_error *e)
{
	char *end;
	double ms;

	errno = 0;
	ms = strtod(v, &end);
	if (!*v || errno || *end || !(ms >= 0) || ms > 1e9 || !strpbrk(v, "0123456789"))
		return opt_fail(e, OPT_EUSAGE, "bad -L duration '%s': expected milliseconds >= 0 "
				"(fractional allowed, e.g. 0.5)", v);
	f->min_lat_ns = (uint64_t)llround(ms * 1e6);
	return OPT_OK;
}

static int parse_success(struct filter_opts *f, const char *v, struct opt_error *e)
{
	if (!v || !strcasecmp(v, "y") || !strcasecmp(v, "yes"))
		f->success_yes = true;
	else if (!strcasecmp(v, "n") || !strcasecmp(v, "no"))
		f->success_no = true;
	else
		return opt_fail(e, OPT_EUSAGE, "bad -S value '%s': expected y or n (-Sy, -Sn, "
				"--success-stacks=y|n)", v);
	return OPT_OK;
}

static int parse_symb(struct shared_opts *s, const char *v, struct opt_error *e)
{
	if (!v || !strcmp(v, "l") || !strcmp(v, "linenum"))
		s->symb = 1;
	else if (!strcmp(v, "s") || !strcmp(v, "i") || !strcmp(v, "inlines"))
		s->symb = 2;
	else if (!strcmp(v, "n") || !strcmp(v, "none"))
		s->symb = 0;
	else
		return opt_fail(e, OPT_EUSAGE, "bad -s value '%s': use -s, -ss or -sn "
				"(--symbolize=linenum|inlines|none)", v);
	return OPT_OK;
}

static int parse_config(struct shared_opts *s, int id, const char *v, struct opt_error *e)
{
	const struct cfg_key *k;
	char kv[128];
	uint64_t val;
	int r;

	if (id == SO_LBR_MAX) {
		snprintf(kv, sizeof(kv), "fmt.lbr-max-count=%.100s", v);
		if (cfg_parse(s->cmd, kv, &k, &val, e))
			return opt_fail(e, OPT_EUSAGE, "bad --lbr-max-count '%s': must be 0..1000000 "
					"(0: all)", v);
	} else if ((r = cfg_parse(s->cmd, v, &k, &val, e)) != OPT_OK) {
		return r;
	}
	return s->config ? s->config(s->config_ctx, k, val, e) : OPT_OK;
}

static int shared_parse(void *ctx, int id, const char *v, struct opt_error *e)
{
	struct shared_opts *s = ctx;

	switch (id) {
	case SO_PID: case SO_NOPID: return add_pid(&s->f, id == SO_NOPID, v, e);
	case SO_COMM: case SO_NOCOMM: return add_comm(&s->f, id == SO_NOCOMM, v, e);
	case SO_ALLOW_ERR: case SO_DENY_ERR: return add_err(&s->f, id == SO_DENY_ERR, v, e);
	case SO_LONGER: return parse_longer(&s->f, v, e);
	case SO_SUCCESS: return parse_success(&s->f, v, e);
	case SO_KERNEL:
		if (!*v)
			return opt_fail(e, OPT_EUSAGE, "-k needs a path to a vmlinux");
		s->kernel = v;
		return OPT_OK;
	case SO_SYMB: return parse_symb(s, v, e);
	case SO_BUILD_ID: s->allow_build_id_mismatch = true; return OPT_OK;
	case SO_LBR_MAX: case SO_CONFIG: return parse_config(s, id, v, e);
	case SO_VERBOSE: s->verbose++; return OPT_OK;
	case SO_VERSION: s->version = true; return OPT_OK;
	case SO_CONFIG_HELP: s->config_help = true; return OPT_STOP;
	case SO_HELP: s->help = true; return OPT_STOP;
	case SO_USAGE: s->usage = true; return OPT_STOP;
	case SO_LIST: s->list = true; return OPT_STOP;
	}
	return opt_fail(e, OPT_EUSAGE, "internal error: option id %d", id);
}

#define ALL OPT_ALL
#define RENDER (OPT_REPORT | OPT_LIVE)

const struct opt_spec shared_opt_table[] = {
	{ "Filters (the same when recording and reporting; @FILE: a value a line)",
	  "pid", 'p', OPT_REQUIRED, "PID", SO_PID, shared_parse, ALL, 0,
	  "only this process (repeatable, up to 256)" },
	{ NULL, "no-pid", 'P', OPT_REQUIRED, "PID", SO_NOPID, shared_parse, ALL, 0,
	  "not this process (repeatable, up to 256)" },
	{ NULL, "comm", 'n', OPT_REQUIRED, "GLOB", SO_COMM, shared_parse, ALL, OPT_AT_FILE,
	  "only threads whose name matches (* and ?;\nrepeatable, up to 64)" },
	{ NULL, "no-comm", 'N', OPT_REQUIRED, "GLOB", SO_NOCOMM, shared_parse, ALL, OPT_AT_FILE,
	  "not threads whose name matches (up to 64)" },
	{ NULL, "allow-errors", 'x', OPT_REQUIRED, "ERR", SO_ALLOW_ERR, shared_parse, ALL, 0,
	  "only sessions with this error (EINVAL, -ENOMEM,\n12, NULL, any)" },
	{ NULL, "deny-errors", 'X', OPT_REQUIRED, "ERR", SO_DENY_ERR, shared_parse, ALL, 0,
	  "not sessions with this error" },
	{ NULL, "longer", 'L', OPT_REQUIRED, "MS", SO_LONGER, shared_parse, ALL, 0,
	  "only sessions whose entry function took at least\nMS milliseconds (fractional: -L 0.5)" },
	{ NULL, "success-stacks", 'S', OPT_OPTIONAL, "y|n", SO_SUCCESS, shared_parse, ALL, 0,
	  "also sessions that did not fail\n(-Sn: failing ones only)" },
	{ "Rendering", "symbolize", 's', OPT_OPTIONAL, "LEVEL", SO_SYMB, shared_parse, RENDER, 0,
	  "-s source lines, -ss and inlines, -sn names only\n(default: -ss when a vmlinux with DWARF is found)" },
	{ NULL, "allow-build-id-mismatch", 0, OPT_NOARG, NULL, SO_BUILD_ID, shared_parse, RENDER, 0,
	  "use a -k vmlinux whose build-id differs (warns)" },
	{ NULL, "lbr-max-count", 0, OPT_REQUIRED, "N", SO_LBR_MAX, shared_parse, RENDER, 0,
	  "same as -C fmt.lbr-max-count=N" },
	{ "General", "kernel", 'k', OPT_REQUIRED, "VMLINUX", SO_KERNEL, shared_parse, ALL, 0,
	  "vmlinux with DWARF (:path globs when recording,\nsource lines when rendering; default: found by\n"
	  "the kernel release or debuginfod)" },
	{ NULL, "config", 'C', OPT_REQUIRED, "KEY=VALUE", SO_CONFIG, shared_parse, ALL, 0,
	  "advanced setting (repeatable; see --config-help)" },
	{ NULL, "config-help", 0, OPT_NOARG, NULL, SO_CONFIG_HELP, shared_parse, ALL, 0,
	  "list every -C setting with its default" },
	{ NULL, "verbose", 'v', OPT_NOARG, NULL, SO_VERBOSE, shared_parse, OPT_EVERY, 0,
	  "more detail (-vv, -vvv: libbpf logs too)" },
	{ NULL, "version", 'V', OPT_NOARG, NULL, SO_VERSION, shared_parse, OPT_EVERY, 0,
	  "print the version (-Vv when recording: feature\ndetection too)" },
	{ NULL, "help", 'h', OPT_NOARG, NULL, SO_HELP, shared_parse, OPT_EVERY, 0, "this help" },
	{ NULL, "usage", 0, OPT_NOARG, NULL, SO_USAGE, shared_parse, OPT_EVERY, 0, "a short synopsis" },
	{ NULL, "list-options", 0, OPT_NOARG, NULL, SO_LIST, shared_parse, OPT_EVERY, OPT_HIDDEN,
	  "the option table, one line an option (for the tests)" },
};

const size_t shared_opt_count = sizeof(shared_opt_table) / sizeof(shared_opt_table[0]);

int filter_opts_check(const struct filter_opts *f, struct opt_error *e)
{
	if (f->success_yes && f->success_no)
		return opt_fail(e, OPT_EUSAGE, "-Sy and -Sn contradict each other");
	if (f->success_yes && f->errs.has_allow)
		return opt_fail(e, OPT_EUSAGE, "-S (successful sessions too) cannot be combined with -x "
				"(sessions failing with the given errors only)");
	return OPT_OK;
}
