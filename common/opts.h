/* opts.h - the option layer of the three commands: options are described
 * once in tables (long name, short letter, argument, value name, parser
 * callback, help text, which commands take them), tables are composed per
 * command, and one parser walks argv over the composition (short-flag
 * bundles, --long=VALUE and --long VALUE, @FILE lists, `--`); --help and
 * --usage are generated from the same tables. The parser never prints:
 * errors come back as one line in struct opt_error, and opt_error_print()
 * is the one place that words them under the command's name. */
#ifndef RS_OPTS_H
#define RS_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* which commands take an option (or a -C key) */
enum opt_cmd {
	OPT_RECORD = 1u << 0,   /* retsnoop-record */
	OPT_REPORT = 1u << 1,   /* retsnoop-report */
	OPT_LIVE = 1u << 2,     /* retsnoop */
	OPT_INFO = 1u << 3,     /* retsnoop-report info */
	OPT_ADDR2LINE = 1u << 4,/* retsnoop-report addr2line */
	OPT_DIFF = 1u << 5,     /* retsnoop-report diff */
	OPT_ALL = OPT_RECORD | OPT_REPORT | OPT_LIVE,
	OPT_EVERY = OPT_ALL | OPT_INFO | OPT_ADDR2LINE | OPT_DIFF,   /* -v, -h, --usage, -V */
};

enum opt_arg {
	OPT_NOARG = 0,          /* a flag */
	OPT_REQUIRED,           /* -x VALUE, -xVALUE, --long VALUE, --long=VALUE */
	OPT_OPTIONAL,           /* -xVALUE or --long=VALUE only */
};

enum {
	OPT_AT_FILE = 1u << 0,  /* "@FILE" gives one value per line */
	OPT_HIDDEN = 1u << 1,   /* accepted, not listed in --help */
};

/* what a callback (and the parser) returns */
enum opt_status {
	OPT_OK = 0,
	OPT_STOP = 1,           /* done, exit 0 (--help, --version...) */
	OPT_EUSAGE = -1,        /* a usage error: message, then the --help hint */
	OPT_EINPUT = -2,        /* an input error (unreadable @FILE): message only */
};

#define OPT_ERRLEN 512

struct opt_error {
	char msg[OPT_ERRLEN];
};

/* VAL is NULL for a flag or an absent optional value */
typedef int (*opt_parse_fn)(void *ctx, int id, const char *val, struct opt_error *e);

struct opt_spec {
	const char *section;    /* non-NULL: a --help heading printed before it */
	const char *lng;        /* long name without "--", or NULL */
	char shrt;              /* short letter, or 0 */
	enum opt_arg arg;
	const char *value;      /* value name in --help (GLOB, PID, ...) */
	int id;                 /* handed to parse */
	opt_parse_fn parse;
	unsigned cmds;          /* enum opt_cmd mask */
	unsigned flags;         /* OPT_AT_FILE, OPT_HIDDEN */
	const char *help;       /* one or more lines separated by '\n' */
};

/* a table and the context its callbacks fill */
struct opt_group {
	const struct opt_spec *v;
	size_t n;
	void *ctx;
};

#define OPT_GROUP(table, context) { (table), sizeof(table) / sizeof((table)[0]), (context) }

enum opt_dashdash {
	OPT_DD_COMMAND,         /* "--" starts a command to run (record, live) */
	OPT_DD_WORDS,           /* "--" ends the options: the rest are words */
};

/* one command's composition */
struct opt_cmdline {
	const char *prog;       /* the command name, in messages */
	unsigned cmd;           /* the enum opt_cmd it is */
	const struct opt_group *groups;
	size_t ngroups;
	enum opt_dashdash dashdash;
	/* a word that is not an option; NULL: every word is an error */
	int (*word)(void *ctx, const char *word, struct opt_error *e);
	void *word_ctx;
	/* after parsing, OPT_DD_COMMAND: the words after "--" (NULL if none) */
	char **command;
};

/* parses argv[1..argc) over the composition. Returns OPT_OK, OPT_STOP, or
 * OPT_EUSAGE / OPT_EINPUT with the message in e. */
int opt_parse(struct opt_cmdline *c, int argc, char **argv, struct opt_error *e);

/* the index of the first word of argv that is not an option or an
 * option's value (a subcommand), or -1 */
int opt_first_word(const struct opt_cmdline *c, int argc, char **argv);

/* formats a message into e; returns KIND (OPT_EUSAGE or OPT_EINPUT) */
int opt_fail(struct opt_error *e, int kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* prints "PROG: MESSAGE", and for a usage error the hint line
 * "Try 'PROG --help' for more information." */
void opt_error_print(FILE *f, const char *prog, int kind, const struct opt_error *e);

/* --help: the option list of the composition (sections, aligned columns) */
void opt_help(FILE *f, const struct opt_cmdline *c);
/* --list-options (hidden): one line per option the command takes, for the
 * tests that check the man pages and the completion against the tables:
 * "SHORT LONG ARG VALUE", "-" for what an option lacks, ARG one of none,
 * required, optional */
void opt_list(FILE *f, const struct opt_cmdline *c);
/* --usage: one synopsis line per option group, wrapped */
void opt_usage(FILE *f, const struct opt_cmdline *c, const char *words);

/* value parsers shared by the tables: 0 or -1 */
int opt_u64(const char *s, uint64_t *out);

#endif
