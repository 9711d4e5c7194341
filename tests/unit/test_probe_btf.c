/* test_probe_btf.c - unit tests of record/probe_btf.c against the host's
 * vmlinux BTF: the probes' context types (a kernel struct, a struct made
 * from a tracefs format) make the "btf" blob alone, or are appended to the
 * one -A made without moving its types, each probe's id naming its type. */
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "record/btf_subset.h"
#include "record/header_blobs.h"
#include "record/probe_attach.h"
#include "record/tp_format.h"
#include "testlib.h"

static struct btf *vm;

static const char *type_name(const struct btf *b, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(b, id);

	return t ? btf__name_by_offset(b, t->name_off) : NULL;
}

/* two probes: struct pt_regs, and a tracepoint struct made from a format */
static void make_set(struct probe_set *ps)
{
	static const char fmt[] =
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\tfield:long ret;\toffset:8;\tsize:8;\tsigned:1;\n";
	struct tp_format f;

	memset(ps, 0, sizeof(*ps));
	ps->v = calloc(2, sizeof(*ps->v));
	ps->n = ps->cap = 2;
	ps->v[0].kind = RSF_PROBE_KPROBE;
	ps->v[0].spec = strdup("kprobe:f");
	ps->v[0].name = strdup("kprobe:f+0x0");
	ps->v[0].target = strdup("f");
	ps->v[0].src_btf_id = btf__find_by_name_kind(vm, "pt_regs", BTF_KIND_STRUCT);
	ps->v[1].kind = RSF_PROBE_TP;
	ps->v[1].spec = strdup("tp:syscalls:sys_exit_x");
	ps->v[1].name = strdup("tp:syscalls:sys_exit_x");
	ps->v[1].target = strdup("sys_exit_x");
	ps->v[1].category = strdup("syscalls");
	ps->synth = btf__new_empty();
	CHECK_INT(tp_format_parse(fmt, &f), 0);
	ps->v[1].src_btf_id = tp_format_btf(&f, "trace_event_raw_sys_exit_x", ps->synth);
	ps->v[1].synth = true;
	CHECK(ps->v[0].src_btf_id > 0 && ps->v[1].src_btf_id > 0);
}

static struct btf *blob_btf(const struct header_blobs *hb)
{
	const struct rsf_blob *b = header_blobs_find(hb, "btf");

	return b ? btf__new(b->data, (uint32_t)b->size) : NULL;
}

static void test_alone(void)
{
	struct header_blobs hb = {0};
	struct probe_set ps;
	char err[256];
	struct btf *b;

	make_set(&ps);
	CHECK_INT(probe_set_add_btf(&ps, vm, &hb, err, sizeof(err)), 0);
	b = blob_btf(&hb);
	CHECK(b != NULL);
	if (b) {
		CHECK_STR(type_name(b, ps.v[0].btf_id), "pt_regs");
		CHECK_STR(type_name(b, ps.v[1].btf_id), "trace_event_raw_sys_exit_x");
		btf__free(b);
	}
	probe_set_free(&ps);
	header_blobs_free(&hb);
}

static void test_appended(void)
{
	struct btf_subset *sub = btf_subset_new(BTF_SUBSET_SHALLOW);
	int lh = btf__find_by_name_kind(vm, "list_head", BTF_KIND_STRUCT), old_id;
	struct header_blobs hb = {0};
	struct probe_set ps;
	const void *raw;
	uint32_t size, old_n;
	char err[256];
	struct btf *b;

	/* the blob -A made: list_head */
	old_id = btf_subset_add(sub, vm, (uint32_t)lh);
	raw = btf_subset_raw(sub, &size);
	CHECK(old_id > 0 && raw);
	old_n = btf_subset_types(sub);
	CHECK_INT(header_blobs_add(&hb, "btf", raw, size), 0);
	btf_subset_free(sub);

	make_set(&ps);
	CHECK_INT(probe_set_add_btf(&ps, vm, &hb, err, sizeof(err)), 0);
	b = blob_btf(&hb);
	CHECK(b != NULL);
	if (b) {
		CHECK_STR(type_name(b, (uint32_t)old_id), "list_head");   /* not moved */
		CHECK(ps.v[0].btf_id > old_n && ps.v[1].btf_id > old_n);
		CHECK_STR(type_name(b, ps.v[0].btf_id), "pt_regs");
		CHECK_STR(type_name(b, ps.v[1].btf_id), "trace_event_raw_sys_exit_x");
		btf__free(b);
	}
	probe_set_free(&ps);
	header_blobs_free(&hb);
}

int main(void)
{
	vm = btf__parse("/sys/kernel/btf/vmlinux", NULL);
	if (!vm) {
		printf("  (no readable /sys/kernel/btf/vmlinux: skipped)\n");
		return TEST_REPORT("test_probe_btf");
	}
	RUN(test_alone);
	RUN(test_appended);
	btf__free(vm);
	return TEST_REPORT("test_probe_btf");
}
