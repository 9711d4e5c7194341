/* presets.h - the -c/--case presets (entry/allow/deny glob bundles) and
 * the enforced deny list of functions that are unsafe to trace. */
#ifndef RS_PRESETS_H
#define RS_PRESETS_H

struct preset {
	const char *name;
	const char *const *entry;
	const char *const *allow;
	const char *const *deny;
};

const struct preset *preset_find(const char *name);
const char *preset_names(void);
/* NULL-terminated; functions never traced whatever the globs say */
extern const char *const enforced_deny[];

#endif
