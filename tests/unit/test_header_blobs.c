/* test_header_blobs.c - unit tests of record/header_blobs.c: blobs are
 * copies, a second add of a name replaces the first, bad names are
 * refused. */
#include <errno.h>
#include "record/header_blobs.h"
#include "testlib.h"

static void test_add_find_replace(void)
{
	struct header_blobs b = { 0 };
	char data[4] = "abc";
	const struct rsf_blob *f;
	char longname[RSF_BLOB_NAME_MAX + 2];

	CHECK_INT(header_blobs_add(&b, "btf", data, 4), 0);
	data[0] = 'x';                       /* the list holds a copy */
	f = header_blobs_find(&b, "btf");
	CHECK(f && f->size == 4 && !memcmp(f->data, "abc", 4));
	CHECK_INT(header_blobs_add(&b, "func_btf", NULL, 0), 0);
	CHECK_INT(header_blobs_add(&b, "btf", "zz", 2), 0);
	CHECK_INT(b.n, 2);
	f = header_blobs_find(&b, "btf");
	CHECK(f && f->size == 2 && !memcmp(f->data, "zz", 2));
	CHECK(header_blobs_find(&b, "probes") == NULL);
	CHECK_INT(header_blobs_add(&b, "", data, 1), -EINVAL);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	CHECK_INT(header_blobs_add(&b, longname, data, 1), -EINVAL);
	CHECK_INT(b.n, 2);
	header_blobs_free(&b);
	CHECK_INT(b.n, 0);
}

int main(void)
{
	RUN(test_add_find_replace);
	return TEST_REPORT("test_header_blobs");
}
