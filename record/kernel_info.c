/* kernel_info.c - collects the running kernel's identity for the
 * recording header (see kernel_info.h). */
#include "record/kernel_info.h"
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

size_t parse_build_id_notes(const uint8_t *buf, size_t len, uint8_t *id, size_t idcap)
{
	size_t off = 0;

	while (off + sizeof(Elf64_Nhdr) <= len) {
		Elf64_Nhdr nh;
		size_t name_off, desc_off, next;

		memcpy(&nh, buf + off, sizeof(nh));
		name_off = off + sizeof(nh);
		desc_off = name_off + ((nh.n_namesz + 3) & ~3u);
		next = desc_off + ((nh.n_descsz + 3) & ~3u);
		if (desc_off > len || next > len || next <= off)
			return 0;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(buf + name_off, "GNU", 4) == 0) {
			size_t n = nh.n_descsz < idcap ? nh.n_descsz : idcap;

			memcpy(id, buf + desc_off, n);
			return n;
		}
		off = next;
	}
	return 0;
}

size_t read_build_id_file(const char *path, uint8_t *id, size_t idcap)
{
	uint8_t buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return 0;
	return parse_build_id_notes(buf, (size_t)n, id, idcap);
}

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

int64_t calibrate_mono_to_realtime(void)
{
	int64_t best_gap = INT64_MAX, best = 0;

	for (int i = 0; i < 10; i++) {
		struct timespec r1, m, r2;

		clock_gettime(CLOCK_REALTIME, &r1);
		clock_gettime(CLOCK_MONOTONIC, &m);
		clock_gettime(CLOCK_REALTIME, &r2);
		int64_t gap = ts_ns(&r2) - ts_ns(&r1);
		if (gap < best_gap) {
			best_gap = gap;
			best = (ts_ns(&r1) + gap / 2) - ts_ns(&m);
		}
	}
	return best;
}

void kernel_info_fill(struct rsf_meta *meta)
{
	struct utsname u;
	struct timespec now;

	if (uname(&u) == 0) {
		snprintf(meta->uts_release, sizeof(meta->uts_release), "%s", u.release);
		snprintf(meta->uts_version, sizeof(meta->uts_version), "%s", u.version);
		snprintf(meta->uts_machine, sizeof(meta->uts_machine), "%s", u.machine);
	}
	if (gethostname(meta->hostname, sizeof(meta->hostname) - 1))
		meta->hostname[0] = '\0';
	meta->build_id_len = read_build_id_file("/sys/kernel/notes", meta->build_id,
						sizeof(meta->build_id));
	meta->mono_to_realtime_ns = calibrate_mono_to_realtime();
	clock_gettime(CLOCK_REALTIME, &now);
	meta->start_realtime_ns = (uint64_t)ts_ns(&now);
}

/* the module's code sections (names containing "text") and where they are
 * loaded, from /sys/module/NAME/sections/ (root only; none otherwise) */
static void read_sections(const char *name, struct rsf_module *mod)
{
	char dir[512], path[1024], buf[64];
	struct rsf_modsect *v = NULL;
	uint32_t n = 0;
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/module/%s/sections", name);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] != '.' || !strstr(de->d_name, "text"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t r = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (r <= 0)
			continue;
		buf[r] = '\0';
		unsigned long long a = strtoull(buf, NULL, 16);
		if (!a)
			continue; /* hidden (kptr_restrict) */
		struct rsf_modsect *nv = realloc(v, (n + 1) * sizeof(*v));
		char *nm = strdup(de->d_name);
		if (!nv || !nm) {
			free(nm);
			if (nv)
				v = nv;
			break;
		}
		v = nv;
		v[n++] = (struct rsf_modsect){ nm, a };
	}
	closedir(d);
	mod->sects = v;
	mod->nsects = n;
}

int kmodules_load(struct kmodules *m)
{
	char line[1024], name[256], path[512];
	unsigned long long size, addr;
	FILE *f = fopen("/proc/modules", "r");

	m->v = NULL;
	m->n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct rsf_module *mod;
		char *p;

		if (sscanf(line, "%255s %llu", name, &size) != 2)
			continue;
		/* the address is the last field: "... Live 0xffffffffc0a00000" */
		p = strrchr(line, ' ');
		addr = p ? strtoull(p + 1, NULL, 16) : 0;
		mod = realloc(m->v, (m->n + 1) * sizeof(*m->v));
		if (!mod)
			break;
		m->v = mod;
		mod = &m->v[m->n++];
		memset(mod, 0, sizeof(*mod));
		mod->name = strdup(name);
		mod->base = addr;
		mod->size = size;
		snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", name);
		mod->build_id_len = read_build_id_file(path, mod->build_id, sizeof(mod->build_id));
		read_sections(name, mod);
	}
	fclose(f);
	return 0;
}

void kmodules_free(struct kmodules *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free((char *)m->v[i].name);
		for (uint32_t j = 0; j < m->v[i].nsects; j++)
			free((char *)m->v[i].sects[j].name);
		free((void *)m->v[i].sects);
	}
	free(m->v);
	m->v = NULL;
	m->n = 0;
}
