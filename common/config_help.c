/* config_help.c - prints a table of -C settings for --config-help
 * (config_help.h). */
#include "common/config_help.h"
#include <string.h>

void config_help_print(FILE *f, const char *title, const struct config_key *keys, size_t n)
{
	int w = 0;

	for (size_t i = 0; i < n; i++) {
		int len = (int)(strlen(keys[i].key) + 1 + strlen(keys[i].value));

		if (len > w)
			w = len;
	}
	fprintf(f, "%s:\n", title);
	for (size_t i = 0; i < n; i++) {
		int len = (int)(strlen(keys[i].key) + 1 + strlen(keys[i].value));

		fprintf(f, "  %s=%s%*s  %s (default: %s)\n", keys[i].key, keys[i].value, w - len, "",
			keys[i].help, keys[i].defval);
	}
}
