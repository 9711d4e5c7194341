/* test_symcache.c - unit tests of the persistent index cache
 * (symbols/symcache.c): round trip, build-id keying, and rejection of
 * truncated, corrupted and foreign files and of files of an older format
 * version (whose index bytes may differ) even when their checksums hold. */
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>
#include "testlib.h"
#include "../../symbols/symcache.h"

static char dir[] = "/tmp/test_symcache.XXXXXX";
static char path[4096];
static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3 };

static struct dwi_ival iv[] = { { 0x1000, 0, 0 }, { 0x1100, DWI_NONE, 0 } };
static struct dwi_scope sc[] = { { 3, DWI_NONE, 0, -1 } };
static struct dwi_line ln[] = { { 0x1000, 6, 12 }, { 0x1100, DWI_NONE, 0 } };
static char strs[] = "??\0fn\0a/b.c";

static int write_cache(void)
{
	struct dwi_cu cu = { iv, sc, ln, strs, 2, 1, 2, sizeof(strs), 0 };
	const struct dwi_cu *cus[2] = { &cu, NULL };
	struct sc_range r[2] = { { 0x1000, 0x1100, 0, 0 }, { 0x2000, 0x2100, 1, 0 } };
	uint64_t offs[2] = { 11, 22 };
	return symcache_write(path, bid, sizeof(bid), r, 2, offs, cus, 2);
}

static void test_roundtrip(void)
{
	CHECK_INT(write_cache(), 0);
	struct symcache *c = symcache_open(path, bid, sizeof(bid));
	CHECK(c != NULL);
	if (!c)
		return;
	uint32_t n;
	const struct sc_range *r = symcache_ranges(c, &n);
	CHECK_INT(n, 2);
	CHECK_INT(r[1].lo, 0x2000);
	CHECK_INT(symcache_ncus(c), 2);
	CHECK_INT(symcache_cu_unit_off(c, 1), 22);
	struct dwi_cu cu;
	CHECK_INT(symcache_cu(c, 0, &cu), 1);
	CHECK_INT(cu.nlines, 2);
	CHECK_INT(cu.lines[0].line, 12);
	CHECK_STR(cu.strs + cu.lines[0].file, "a/b.c");
	CHECK_STR(cu.strs + cu.scopes[0].name, "fn");
	CHECK_INT(symcache_cu(c, 1, &cu), 0);
	CHECK_INT(symcache_cu(c, 5, &cu), 0);
	symcache_close(c);
}

static void test_foreign_bid(void)
{
	uint8_t other[20] = { 1 };
	CHECK(symcache_open(path, other, sizeof(other)) == NULL);
	CHECK(symcache_open(path, bid, 19) == NULL);
}

static void test_truncated(void)
{
	struct stat st;
	CHECK_INT(write_cache(), 0);
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(truncate(path, st.st_size - 8), 0);
	CHECK(symcache_open(path, bid, sizeof(bid)) == NULL);
	CHECK_INT(truncate(path, 10), 0);
	CHECK(symcache_open(path, bid, sizeof(bid)) == NULL);
	CHECK_INT(truncate(path, 0), 0);
	CHECK(symcache_open(path, bid, sizeof(bid)) == NULL);
}

static void test_corrupt_cu(void)
{
	struct stat st;
	CHECK_INT(write_cache(), 0);
	CHECK_INT(stat(path, &st), 0);
	FILE *f = fopen(path, "r+");
	CHECK(f != NULL);
	if (!f)
		return;
	fseek(f, st.st_size - 3, SEEK_SET);  /* inside CU 0's string pool */
	fputc('X', f);
	fclose(f);
	struct symcache *c = symcache_open(path, bid, sizeof(bid));
	CHECK(c != NULL);  /* header intact: opens, but the CU is refused */
	struct dwi_cu cu;
	if (c)
		CHECK_INT(symcache_cu(c, 0, &cu), -1);
	symcache_close(c);
}

static void test_corrupt_header(void)
{
	CHECK_INT(write_cache(), 0);
	FILE *f = fopen(path, "r+");
	CHECK(f != NULL);
	if (!f)
		return;
	fseek(f, 140, SEEK_SET);  /* inside the range table */
	fputc(0x55, f);
	fclose(f);
	CHECK(symcache_open(path, bid, sizeof(bid)) == NULL);
}

/* the header: magic[8], version u32, header crc u32, file size u64,
 * build-id length u32, build-id[64], ncus u32, nranges u32, pad u32; the
 * crc covers the header (crc field 0), the range table (24-byte entries)
 * and the CU table (40-byte entries) */
static void test_old_version(void)
{
	uint8_t buf[4096];
	uint32_t ver, ncus, nranges, zero = 0;

	CHECK_INT(write_cache(), 0);
	FILE *f = fopen(path, "r+");
	CHECK(f != NULL);
	if (!f)
		return;
	size_t n = fread(buf, 1, sizeof(buf), f);
	memcpy(&ver, buf + 8, 4);
	memcpy(&ncus, buf + 92, 4);
	memcpy(&nranges, buf + 96, 4);
	size_t covered = 104 + (size_t)nranges * 24 + (size_t)ncus * 40;
	CHECK(n >= covered);
	CHECK(ver > 1);
	if (n < covered || ver <= 1) {
		fclose(f);
		return;
	}
	/* the crc as written must be reproduced, else this test proves nothing */
	uint32_t crc_written;
	memcpy(&crc_written, buf + 12, 4);
	memcpy(buf + 12, &zero, 4);
	CHECK_INT(crc32(crc32(0L, Z_NULL, 0), buf, (uInt)covered), crc_written);
	ver--;
	memcpy(buf + 8, &ver, 4);
	uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf, (uInt)covered);
	memcpy(buf + 12, &crc, 4);
	fseek(f, 0, SEEK_SET);
	fwrite(buf, 1, 16, f);
	fclose(f);
	struct symcache *c = symcache_open(path, bid, sizeof(bid));
	CHECK(c == NULL);
	symcache_close(c);
}

static void test_missing(void)
{
	CHECK(symcache_open("/nonexistent/x.idx", bid, sizeof(bid)) == NULL);
	char p[4096];
	setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
	CHECK_INT(symcache_path(bid, 2, p, sizeof(p)), 0);
	CHECK_STR(p, "/tmp/xdg/retsnoop/vmlinux-dead.idx");
	CHECK_INT(symcache_path(bid, 0, p, sizeof(p)), -1);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/sub/dir/test.idx", dir);
	RUN(test_roundtrip);
	RUN(test_foreign_bid);
	RUN(test_truncated);
	RUN(test_corrupt_cu);
	RUN(test_corrupt_header);
	RUN(test_old_version);
	RUN(test_missing);
	unlink(path);
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd)) { /* best effort */ }
	return TEST_REPORT("test_symcache");
}
