/* ustack_folded.c - user frames as folded-stack frames (ustack_folded.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ustack_folded.h"

/* one frame name; ';' and ' ' would break the format */
static int put(const char *name, char **buf, size_t *cap, size_t *len)
{
	size_t nl = strlen(name);

	if (*len + nl + 2 > *cap) {
		size_t nc = (*len + nl + 2) * 2;
		char *b = realloc(*buf, nc);

		if (!b)
			return -1;
		*buf = b;
		*cap = nc;
	}
	if (*len)
		(*buf)[(*len)++] = ';';
	for (size_t k = 0; k < nl; k++)
		(*buf)[(*len)++] = name[k] == ';' || name[k] == ' ' ? '_' : name[k];
	(*buf)[*len] = '\0';
	return 0;
}

int ustack_folded(const struct us_stack *st, char **buf, size_t *cap, size_t *len)
{
	char nb[300];

	for (int i = st->n - 1; i >= 0; i--) {
		const struct us_frame *f = &st->f[i];

		if (f->has_name)
			snprintf(nb, sizeof(nb), "%s", f->name);
		else if (f->module && f->module[0])
			snprintf(nb, sizeof(nb), "%s+0x%" PRIx64, f->module, f->offset);
		else
			snprintf(nb, sizeof(nb), "[unknown]");
		if (put(nb, buf, cap, len))
			return -1;
		for (int k = 0; k < f->ninlines; k++)
			if (put(f->inlines[k].func[0] ? f->inlines[k].func : "[inline]", buf, cap, len))
				return -1;
	}
	return 0;
}
