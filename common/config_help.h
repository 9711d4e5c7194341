/* config_help.h - one table row per `-C group.key=value` setting, and the
 * printer behind --config-help; record/ and report/ each own their rows. */
#ifndef RS_CONFIG_HELP_H
#define RS_CONFIG_HELP_H

#include <stddef.h>
#include <stdio.h>

struct config_key {
	const char *key;      /* group.key */
	const char *value;    /* what the value looks like: BYTES, BOOL, ... */
	const char *defval;   /* default, as the user would write it */
	const char *help;     /* one line */
};

/* prints "TITLE:" then one aligned line per key */
void config_help_print(FILE *f, const char *title, const struct config_key *keys, size_t n);

#endif
