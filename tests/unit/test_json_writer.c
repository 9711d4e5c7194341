/* test_json_writer.c - unit tests of common/json_writer.c: commas placed
 * by nesting (objects, arrays, keys), one-element-per-line arrays as the
 * Perfetto output writes them, numbers (INT64_MIN too), null/bool, hex,
 * formatted strings with escaping, NDJSON lines, output larger than the
 * writer's buffer. */
#include <stdlib.h>
#include <string.h>
#include "common/json_writer.h"
#include "testlib.h"

static void test_nesting(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_writer w;

	jw_init(&w, f);
	jw_obj_begin(&w);
	jw_key(&w, "a");
	jw_int(&w, -3);
	jw_key(&w, "b");
	jw_arr_begin(&w);
	jw_uint(&w, 18446744073709551615ULL);
	jw_null(&w);
	jw_bool(&w, true);
	jw_obj_begin(&w);
	jw_obj_end(&w);
	jw_arr_begin(&w);
	jw_arr_end(&w);
	jw_arr_end(&w);
	jw_key(&w, "c");
	jw_strf(&w, "0x%x\n", 255);
	jw_key(&w, "d");
	jw_str_or_null(&w, NULL);
	jw_key(&w, "e");
	jw_num_text(&w, "1.500");
	jw_obj_end(&w);
	jw_newline(&w);
	jw_obj_begin(&w);   /* a second top-level value: no comma */
	jw_obj_end(&w);
	jw_newline(&w);
	CHECK_INT(jw_error(&w), 0);
	fclose(f);
	CHECK_STR(buf, "{\"a\":-3,\"b\":[18446744073709551615,null,true,{},[]],"
		  "\"c\":\"0xff\\n\",\"d\":null,\"e\":1.500}\n{}\n");
	free(buf);
}

static void test_lines(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_writer w;

	jw_init(&w, f);
	jw_obj_begin(&w);
	jw_key(&w, "ev");
	jw_arr_begin_lines(&w);
	for (int i = 0; i < 2; i++) {
		jw_obj_begin(&w);
		jw_key(&w, "i");
		jw_arr_begin(&w);
		jw_int(&w, i);
		jw_int(&w, i);
		jw_arr_end(&w);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	CHECK_INT(f && len == 0, 1);   /* gathered in the writer until a flush */
	jw_flush(&w);
	fclose(f);
	CHECK_STR(buf, "{\"ev\":[\n{\"i\":[0,0]},\n{\"i\":[1,1]}\n]}");
	free(buf);
}

static void test_big(void)
{
	char *buf = NULL, s[3000];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_writer w;

	memset(s, 'a', sizeof(s) - 1);
	s[sizeof(s) - 1] = '\0';
	s[100] = '"';
	jw_init(&w, f);
	jw_arr_begin(&w);
	for (int i = 0; i < 10; i++)
		jw_str(&w, s);
	jw_int(&w, INT64_MIN);
	jw_hex(&w, 0xffffffff81000000ULL);
	jw_hex(&w, 0);
	jw_arr_end(&w);
	CHECK_INT(jw_error(&w), 0);
	fclose(f);
	CHECK_INT(len, 1 + 10 * (3000 + 2 + 1) + 20 + 1 + 20 + 1 + 5 + 1);
	CHECK(buf && !strncmp(buf + len - 48, "-9223372036854775808,\"0xffffffff81000000\",\"0x0\"]", 48));
	free(buf);
}

static void test_escape(void)
{
	char buf[128] = {0};
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	json_put_str(f, "a\"b\\c\n\t\r\x01\x7f\xe9");
	fclose(f);
	CHECK_STR(buf, "\"a\\\"b\\\\c\\n\\t\\r\\u0001\\u007f\\u00e9\"");
}

int main(void)
{
	RUN(test_nesting);
	RUN(test_lines);
	RUN(test_big);
	RUN(test_escape);
	return TEST_REPORT("test_json_writer");
}
