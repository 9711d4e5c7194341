/* test_probe_spec.c - unit tests of record/probe_spec.c (the -J spec
 * forms, rejected specs, tracepoint globs over a tracepoint list, display
 * names), of record/tp_format.c (tracefs format files) and of format/probe_table.c (the "probes" blob round trip and
 * its validation). */
#include <stdlib.h>
#include <bpf/btf.h>
#include "record/probe_spec.h"
#include "format/probe_table.h"
#include "record/tp_format.h"
#include "testlib.h"

static int parse(const char *text, struct probe_spec *s, char *err)
{
	return probe_spec_parse(text, s, err, 256);
}

static void test_kinds(void)
{
	struct probe_spec s;
	char err[256];

	CHECK_INT(parse("kprobe:tcp_connect", &s, err), 0);
	CHECK_INT(s.kind, RSF_PROBE_KPROBE);
	CHECK_STR(s.name, "tcp_connect");
	CHECK_INT(s.offset, 0);
	CHECK(s.category == NULL);
	CHECK_STR(s.text, "kprobe:tcp_connect");
	probe_spec_free(&s);

	CHECK_INT(parse("kprobe:foo.isra.0+0x1a", &s, err), 0);
	CHECK_STR(s.name, "foo.isra.0");
	CHECK_INT(s.offset, 0x1a);
	probe_spec_free(&s);

	CHECK_INT(parse("kprobe:do_filp_open+26", &s, err), 0);
	CHECK_INT(s.offset, 26);
	probe_spec_free(&s);

	CHECK_INT(parse("kretprobe:path_openat", &s, err), 0);
	CHECK_INT(s.kind, RSF_PROBE_KRETPROBE);
	CHECK_STR(s.name, "path_openat");
	probe_spec_free(&s);

	CHECK_INT(parse("rawtp:sys_enter", &s, err), 0);
	CHECK_INT(s.kind, RSF_PROBE_RAWTP);
	CHECK_STR(s.name, "sys_enter");
	probe_spec_free(&s);

	CHECK_INT(parse("tp:sock:inet_sock_set_state", &s, err), 0);
	CHECK_INT(s.kind, RSF_PROBE_TP);
	CHECK_STR(s.category, "sock");
	CHECK_STR(s.name, "inet_sock_set_state");
	CHECK(!probe_spec_is_glob(&s));
	probe_spec_free(&s);

	CHECK_INT(parse("tp:sock:*", &s, err), 0);
	CHECK(probe_spec_is_glob(&s));
	probe_spec_free(&s);
	CHECK_INT(parse("tp:sys*:sys_enter_open?t", &s, err), 0);
	CHECK(probe_spec_is_glob(&s));
	probe_spec_free(&s);
}

static void test_rejects(void)
{
	static const char *const bad[] = {
		"", "tcp_connect", "uprobe:foo", "kprobe:", "kprobe:+5", "kprobe:foo+",
		"kprobe:foo+x", "kprobe:foo+0x", "kprobe:foo+-1", "kprobe:foo bar", "kprobe:f*",
		"kretprobe:foo+4", "rawtp:", "rawtp:a.b", "rawtp:sys_*", "tp:", "tp:sock",
		"tp::x", "tp:sock:", "tp:a:b:c", "tp:so ck:x", "KPROBE:foo",
	};
	struct probe_spec s;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (parse(bad[i], &s, err) == 0) {
			fprintf(stderr, "  accepted '%s'\n", bad[i]);
			CHECK(0);
			probe_spec_free(&s);
			continue;
		}
		/* one line naming the spec */
		CHECK(strstr(err, "bad probe '") == err);
		CHECK(strchr(err, '\n') == NULL);
		CHECK(s.name == NULL && s.text == NULL);
	}
	CHECK_INT(parse("uprobe:foo", &s, err), -1);
	CHECK(strstr(err, "kprobe:NAME[+OFF]") && strstr(err, "tp:CATEGORY:NAME"));
	CHECK_INT(parse("kretprobe:foo+4", &s, err), -1);
	CHECK(strstr(err, "only kprobe: takes a +OFFSET") != NULL);
}

static void test_tp_match(void)
{
	struct tp_list l = {0};
	struct probe_spec s;
	size_t *m, n;
	char err[256];

	CHECK_INT(tp_list_add(&l, "sock:inet_sock_set_state"), 0);
	CHECK_INT(tp_list_add(&l, "syscalls:sys_enter_openat"), 0);
	CHECK_INT(tp_list_add(&l, "sock:sock_exceed_buf_limit"), 0);
	CHECK_INT(tp_list_add(&l, "syscalls:sys_exit_openat"), 0);

	CHECK_INT(parse("tp:sock:*", &s, err), 0);
	CHECK_INT(probe_spec_match_tp(&s, &l, &m, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 2);
	CHECK(n == 2 && m[0] == 0 && m[1] == 2);
	free(m);
	probe_spec_free(&s);

	CHECK_INT(parse("tp:sys*:sys_*_openat", &s, err), 0);
	CHECK_INT(probe_spec_match_tp(&s, &l, &m, &n, err, sizeof(err)), 0);
	CHECK(n == 2 && m[0] == 1 && m[1] == 3);
	free(m);
	probe_spec_free(&s);

	CHECK_INT(parse("tp:syscalls:sys_enter_openat", &s, err), 0);
	CHECK_INT(probe_spec_match_tp(&s, &l, &m, &n, err, sizeof(err)), 0);
	CHECK(n == 1 && m[0] == 1);
	free(m);
	probe_spec_free(&s);

	/* the category must match too; nothing matched is one line */
	CHECK_INT(parse("tp:net:*", &s, err), 0);
	CHECK_INT(probe_spec_match_tp(&s, &l, &m, &n, err, sizeof(err)), -1);
	CHECK_STR(err, "probe 'tp:net:*' matches no tracepoint (see tracefs available_events)");
	CHECK(m == NULL && n == 0);
	probe_spec_free(&s);
	CHECK_INT(parse("tp:sock:nope", &s, err), 0);
	CHECK_INT(probe_spec_match_tp(&s, &l, &m, &n, err, sizeof(err)), -1);
	CHECK(strstr(err, "no such tracepoint") != NULL);
	probe_spec_free(&s);
	tp_list_free(&l);

	CHECK_INT(tp_list_load(&l, "/nonexistent/available_events", err, sizeof(err)), -1);
	CHECK(strstr(err, "/nonexistent/available_events") != NULL);
	tp_list_free(&l);
}

static void test_display(void)
{
	char b[128];

	probe_display_name(RSF_PROBE_KPROBE, NULL, "tcp_connect", 0, b, sizeof(b));
	CHECK_STR(b, "kprobe:tcp_connect+0x0");
	probe_display_name(RSF_PROBE_KPROBE, NULL, "f", 26, b, sizeof(b));
	CHECK_STR(b, "kprobe:f+0x1a");
	probe_display_name(RSF_PROBE_KRETPROBE, NULL, "f", 0, b, sizeof(b));
	CHECK_STR(b, "kretprobe:f");
	probe_display_name(RSF_PROBE_RAWTP, NULL, "sys_enter", 0, b, sizeof(b));
	CHECK_STR(b, "rawtp:sys_enter");
	probe_display_name(RSF_PROBE_TP, "sock", "inet_sock_set_state", 0, b, sizeof(b));
	CHECK_STR(b, "tp:sock:inet_sock_set_state");
}

static void test_table(void)
{
	struct rsf_probe in[2] = {
		{ RSF_PROBE_KPROBE, 7, 168, "kprobe:f", "kprobe:f+0x0" },
		{ RSF_PROBE_TP, 0, 40, "tp:sock:*", "tp:sock:inet_sock_set_state" },
	};
	struct rsf_probe_table t;
	unsigned char *blob;
	size_t size;
	char err[256];

	CHECK_INT(rsf_probes_encode(in, 2, (void **)&blob, &size), 0);
	CHECK_INT(rsf_probes_decode(blob, size, &t, err, sizeof(err)), 0);
	CHECK_INT(t.n, 2);
	if (t.n == 2) {
		CHECK_INT(t.v[0].kind, RSF_PROBE_KPROBE);
		CHECK_INT(t.v[0].btf_id, 7);
		CHECK_INT(t.v[0].ctx_size, 168);
		CHECK_STR(t.v[0].spec, "kprobe:f");
		CHECK_STR(t.v[1].name, "tp:sock:inet_sock_set_state");
		CHECK_STR(t.v[1].spec, "tp:sock:*");
	}
	rsf_probes_free(&t);
	{
		struct rsf_probe p;

		CHECK_INT(rsf_probes_get(blob, size, 1, &p), 0);
		CHECK_STR(p.name, "tp:sock:inet_sock_set_state");
		CHECK_INT(p.ctx_size, 40);
		CHECK_INT(rsf_probes_get(blob, size, 2, &p), -1);
		CHECK_INT(rsf_probes_get(NULL, 0, 0, &p), -1);
		CHECK_INT(rsf_probes_get(blob, size - 1, 1, &p), -1);
	}
	/* cut anywhere: refused, never read past the end */
	for (size_t cut = 0; cut < size; cut++) {
		unsigned char *c = malloc(cut ? cut : 1);

		memcpy(c, blob, cut);
		if (rsf_probes_decode(c, cut, &t, err, sizeof(err)) == 0) {
			/* only a cut inside the last string's tail could pass: never */
			CHECK(0);
			rsf_probes_free(&t);
		}
		free(c);
	}
	/* bad kind, bad offset, bad version */
	blob[8] = 9;
	CHECK_INT(rsf_probes_decode(blob, size, &t, err, sizeof(err)), -1);
	blob[8] = RSF_PROBE_KPROBE;
	blob[8 + 12] = 0xff;
	CHECK_INT(rsf_probes_decode(blob, size, &t, err, sizeof(err)), -1);
	blob[8 + 12] = 0;
	blob[0] = 2;
	CHECK_INT(rsf_probes_decode(blob, size, &t, err, sizeof(err)), -1);
	CHECK(strstr(err, "probe table") != NULL);
	free(blob);
	CHECK_STR(rsf_probe_kind_name(RSF_PROBE_RAWTP), "rawtp");
	CHECK(rsf_probe_kind_name(0) == NULL);
}

static void test_tp_format(void)
{
	static const char fmt[] =
		"name: kmem_cache_free\nID: 624\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:0;\n"
		"\tfield:char comm[16];\toffset:28;\tsize:16;\tsigned:0;\n\n"
		"print fmt: \"call_site=%pS ptr=%p name=%s\", REC->call_site\n";
	struct tp_format f;
	char err[256];

	CHECK_INT(tp_format_parse(fmt, &f), 0);
	CHECK_INT(f.n, 8);
	CHECK_INT(f.fixed_size, 44);
	CHECK(f.has_data_loc);
	CHECK_STR(f.f[0].name, "common_type");
	CHECK(f.f[0].common && !f.f[4].common);
	CHECK_STR(f.f[4].name, "call_site");
	CHECK_STR(f.f[5].name, "ptr");
	CHECK_INT(f.f[5].offset, 16);
	CHECK_STR(f.f[6].name, "name");
	CHECK(f.f[6].data_loc && !f.f[5].data_loc);
	CHECK_STR(f.f[7].name, "comm");
	CHECK_INT(f.f[7].size, 16);
	{   /* the struct made for events without one in BTF */
		struct btf *b = btf__new_empty();
		int id = tp_format_btf(&f, "trace_event_raw_kmem_cache_free", b);
		const struct btf_type *t = id > 0 ? btf__type_by_id(b, id) : NULL;
		const struct btf_member *m = t ? btf_members(t) : NULL;

		CHECK(t && btf_is_struct(t));
		if (t && btf_vlen(t) == 5) {
			CHECK_INT(t->size, 48);
			CHECK_STR(btf__name_by_offset(b, m[0].name_off), "ent");
			CHECK_INT(btf__resolve_size(b, m[0].type), 8);
			CHECK_STR(btf__name_by_offset(b, m[1].name_off), "call_site");
			CHECK_INT(btf_member_bit_offset(t, 1), 64);
			CHECK_STR(btf__name_by_offset(b, m[3].name_off), "__data_loc_name");
			CHECK_INT(btf__resolve_size(b, m[3].type), 4);
			CHECK_STR(btf__name_by_offset(b, m[4].name_off), "comm");
			CHECK_INT(btf__resolve_size(b, m[4].type), 16);
			CHECK_INT(btf_member_bit_offset(t, 4), 28 * 8);
		} else {
			CHECK(0);
		}
		btf__free(b);
	}
	CHECK_INT(tp_format_parse("name: x\nformat:\nprint fmt: \"\"\n", &f), -1);
	CHECK_INT(tp_format_load("/nonexistent", "kmem", "kfree", &f, err, sizeof(err)), -1);
	CHECK(strstr(err, "/nonexistent/events/kmem/kfree/format") != NULL);
}

int main(void)
{
	RUN(test_kinds);
	RUN(test_rejects);
	RUN(test_tp_match);
	RUN(test_display);
	RUN(test_table);
	RUN(test_tp_format);
	return TEST_REPORT("test_probe_spec");
}
