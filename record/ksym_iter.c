/* ksym_iter.c - the recorder's kallsyms read (ksym_iter.h): the BPF ksym
 * iterator writes binary records (bpf/ksym_iter.bpf.c, parsed by
 * ksym_records.c), which costs the kernel far less than formatting
 * ~155k lines of /proc/kallsyms text and us less than parsing them; when
 * it cannot load or attach (no iterator before 6.0, BPF refused), or
 * RETSNOOP_KALLSYMS=proc, /proc/kallsyms as before. */
#include "record/ksym_iter.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record/ksym_records.h"
#include "common/fd_read_all.h"
#include "ksym_iter.skel.h"

#define KALLSYMS_PATH "/proc/kallsyms"
#define MAX_OWN_SYMS 8   /* the iterator program's JIT images (one, no subprograms) */

/* the addresses of the program's own [bpf] symbols, which are gone once it
 * is unloaded (a /proc/kallsyms read never sees them) */
static size_t own_addrs(int prog_fd, uint64_t *addrs)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);

	info.nr_jited_ksyms = MAX_OWN_SYMS;
	info.jited_ksyms = (uint64_t)(uintptr_t)addrs;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return 0;
	return info.nr_jited_ksyms < MAX_OWN_SYMS ? info.nr_jited_ksyms : MAX_OWN_SYMS;
}

static struct ksyms *by_iterator(char *why, size_t whylen)
{
	struct ksym_iter_bpf *skel = ksym_iter_bpf__open();
	struct ksyms *ks = NULL;
	uint64_t own[MAX_OWN_SYMS];
	size_t len = 0, nown = 0;
	char *buf = NULL;
	int fd = -1;

	if (!skel) {
		snprintf(why, whylen, "opening its BPF object: %s", strerror(errno));
		return NULL;
	}
	if (ksym_iter_bpf__load(skel)) {
		snprintf(why, whylen, "loading it: %s", strerror(errno));
		goto out;
	}
	skel->links.rs_ksym_iter = bpf_program__attach_iter(skel->progs.rs_ksym_iter, NULL);
	if (!skel->links.rs_ksym_iter) {
		snprintf(why, whylen, "attaching it: %s", strerror(errno));
		goto out;
	}
	fd = bpf_iter_create(bpf_link__fd(skel->links.rs_ksym_iter));
	/* ~4 MiB of records on a distribution kernel: pages untouched cost
	 * nothing, a bigger buffer is mremap'ed, not copied */
	if (fd < 0 || !(buf = fd_read_all(fd, 8 << 20, &len))) {
		snprintf(why, whylen, "reading it: %s", strerror(errno));
		goto out;
	}
	nown = own_addrs(bpf_program__fd(skel->progs.rs_ksym_iter), own);
	ks = ksym_records_parse(buf, len, own, nown, why, whylen);
	if (ks && !ksyms_count(ks)) {   /* not a kernel: let /proc/kallsyms say */
		snprintf(why, whylen, "it gave no function symbols");
		ksyms_free(ks);
		ks = NULL;
	}
out:
	if (fd >= 0)
		close(fd);
	ksym_iter_bpf__destroy(skel);
	return ks;
}

struct ksyms *ksym_iter_load(struct ksym_source *src, char *err, size_t errlen)
{
	const char *env = getenv(KSYM_ITER_ENV);
	struct ksyms *ks;

	src->why[0] = '\0';
	if (env && !strcmp(env, "proc")) {
		snprintf(src->why, sizeof(src->why), "%s=proc", KSYM_ITER_ENV);
	} else {
		ks = by_iterator(src->why, sizeof(src->why));
		if (ks) {
			src->from = "the ksym iterator";
			return ks;
		}
	}
	src->from = KALLSYMS_PATH;
	return ksyms_load_file(KALLSYMS_PATH, err, errlen);
}
