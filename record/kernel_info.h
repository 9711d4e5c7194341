/* kernel_info.h - identity of the running kernel for the recording header:
 * uname, hostname, GNU build-id, _text/_stext, loaded modules with their
 * build-ids and code section addresses, and the monotonic -> wall-clock
 * offset. */
#ifndef RS_KERNEL_INFO_H
#define RS_KERNEL_INFO_H

#include <stddef.h>
#include <stdint.h>
#include "format/rsfile.h"

/* parses an ELF note blob (as in /sys/kernel/notes); returns build-id length or 0 */
size_t parse_build_id_notes(const uint8_t *buf, size_t len, uint8_t *id, size_t idcap);
/* reads a notes file and extracts the GNU build-id; 0 if none */
size_t read_build_id_file(const char *path, uint8_t *id, size_t idcap);
/* realtime - monotonic, calibrated over several clock reads */
int64_t calibrate_mono_to_realtime(void);
/* fills uname/hostname/build-id/clock fields of meta */
void kernel_info_fill(struct rsf_meta *meta);

struct kmodules {
	struct rsf_module *v;
	size_t n;
};
/* /proc/modules + /sys/module/X/notes + /sys/module/X/sections */
int kmodules_load(struct kmodules *m);
void kmodules_free(struct kmodules *m);

#endif
