/* SPDX-License-Identifier: MIT */
/*
 * test_util.c - the tool's formatting: human units, JSON, CSV and table
 * escaping, column names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/tool.h"
#include "write/writer.h"
#include "../expect.h"

static void human(uint64_t b, const char *want)
{
	char buf[32];
	size_t n = fmt_human(buf, b);
	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));
}

static void test_human(void **state)
{
	(void)state;
	human(0, "0");
	human(1, "1B");
	human(1023, "1023B");
	human(1024, "1K");
	human(1536, "1.5K");
	human(4096, "4K");
	human(10 * 1024 - 1, "10K");     /* 9.999K rounds to 10.0: shown whole */
	human(10 * 1024 + 512, "11K");   /* 10.5K: whole units from 10 up, rounded */
	human(1023 * 1024, "1023K");
	human(1024 * 1024, "1M");
	human(4092 * 1024, "4.0M");      /* not exactly 4M: the decimal says so */
	human(1610612736, "1.5G");
	human(126419751936ull, "118G");
	human(35184372088832ull, "32T");
	human(UINT64_MAX, "16E");
}

/* Captures what the writer writes, through a memfd (a pipe would fill up). */
static size_t capture(void (*fn)(struct out *), char *dst, size_t size)
{
	static char buf[OUT_FD_BUFSIZE];
	struct out o;
	int fd = memfd_create("capture", 0);
	ssize_t n;

	expect_sys(fd);
	out_fd(&o, fd, buf, sizeof(buf));
	fn(&o);
	out_flush(&o);
	assert_int_equal(o.err, 0);
	n = pread(fd, dst, size - 1, 0);
	close(fd);
	expect_ge(n, 0);
	dst[n] = '\0';
	return (size_t)n;
}

static void write_json(struct out *o)
{
	out_json_str(o, "a\"b\\c\nd\te\x01/", 11);
}

static void write_csv(struct out *o)
{
	out_csv_str(o, "plain", 5);
	out_ch(o, ',');
	out_csv_str(o, "with, comma", 11);
	out_ch(o, ',');
	out_csv_str(o, "say \"hi\"", 8);
}

static void write_table(struct out *o)
{
	out_table_str(o, "/tmp/new\nline\tx\x7f", 16);
	out_ch(o, '|');
	out_rjust(o, "12K", 3, 7);
	out_ch(o, '|');
	out_ljust(o, "anon", 4, 10);
	out_ch(o, '|');
	out_hex(o, 0x1000, 8);
	out_ch(o, '|');
	out_u64(o, UINT64_MAX);
}

/* The time and count parsers every command's options share (util.c). */
static void test_times(void **state)
{
	static const struct {
		const char *s;
		uint64_t unit, ns;
	} good[] = {
		{"2", 1000000000u, 2000000000u},
		{"0.25", 1000000000u, 250000000u},
		{"5", 1000000u, 5000000u},           /* top's --budget: milliseconds */
		{"50ms", 1000000000u, 50000000u},
		{"2s", 1000000u, 2000000000u},        /* a unit of its own wins */
		{"1.5m", 1000000000u, 90000000000u},
		{"0.123456789h", 1000000000u, 444444440400u}, /* exact: no product wraps */
		{"0.999999999m", 1000000000u, 59999999940u},
		{"0.0000000001", 1000000000u, 0},     /* below a nanosecond */
		{"18446744073", 1000000000u, 18446744073000000000u},
	};
	static const char *const bad[] = {
		"", "s", "ms", ".", "1x", "1.2.3", "-1", " 1", "1 ", "5 ms", "18446744074",
		"5124095576h", "1d",
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 7;
		if (parse_time(good[i].s, good[i].unit, &v) != 0 || v != good[i].ns)
			fail_msg("parse_time('%s', %llu): %llu, want %llu", good[i].s,
			         (unsigned long long)good[i].unit, (unsigned long long)v,
			         (unsigned long long)good[i].ns);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse_time(bad[i], 1000000000u, &v) == 0)
			fail_msg("parse_time('%s') took it: %llu", bad[i], (unsigned long long)v);
	assert_int_equal(parse_decimal("4294967296", 1ull << 32, &v), 0);
	assert_int_equal(v, 1ull << 32);
	assert_int_equal(parse_decimal("4294967297", 1ull << 32, &v), -1);
	assert_int_equal(parse_decimal("99999999999999999999999", UINT64_MAX / 10, &v), -1);
	assert_int_equal(parse_decimal("18446744073709551615", UINT64_MAX, &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(parse_decimal("18446744073709551616", UINT64_MAX, &v), -1);
	assert_int_equal(parse_decimal("18446744073709551619", UINT64_MAX, &v), -1);
	assert_int_equal(parse_decimal("", 10, &v), -1);
	assert_int_equal(parse_decimal("9", 5, &v), -1);
	assert_int_equal(parse_decimal("16", 16, &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(parse_decimal("17", 16, &v), -1);
	assert_int_equal(parse_decimal("+1", 10, &v), -1);
}

static void test_escaping(void **state)
{
	char buf[256];
	(void)state;

	capture(write_json, buf, sizeof(buf));
	assert_string_equal(buf, "\"a\\\"b\\\\c\\nd\\te\\u0001/\"");
	capture(write_csv, buf, sizeof(buf));
	assert_string_equal(buf, "plain,\"with, comma\",\"say \"\"hi\"\"\"");
	capture(write_table, buf, sizeof(buf));
	assert_string_equal(buf, "/tmp/new\\nline\\tx\\x7f|    12K|anon      |00001000|"
	                         "18446744073709551615");
}

static void write_big(struct out *o)
{
	/* More than one buffer's worth, in pieces that straddle its end. */
	for (int i = 0; i < 20000; i++)
		out_rjust(o, "abcdef", 6, 9);
}

static void test_writer_spans_buffers(void **state)
{
	static char buf[200000];
	(void)state;

	assert_int_equal(capture(write_big, buf, sizeof(buf)), 180000);
	assert_memory_equal(buf + 179991, "   abcdef", 9);
}

static void test_columns(void **state)
{
	int cols[COL_COUNT];
	(void)state;

	assert_int_equal(parse_columns("rss,Private_Dirty,path", cols, COL_COUNT, 0), 3);
	assert_int_equal(cols[0], PMAPS_F_RSS);
	assert_int_equal(cols[1], PMAPS_F_PRIVATE_DIRTY);
	assert_int_equal(cols[2], COL_PATH);
	assert_int_equal(parse_columns("vmflags", cols, COL_COUNT, 0), 1);
	assert_int_equal(cols[0], COL_VMFLAGS);
	assert_int_equal(parse_columns("all", cols, COL_COUNT, 0), 6 + PMAPS_F_COUNT + 2);
	assert_int_equal(parse_columns("all", cols, COL_COUNT, 1), 3 + PMAPS_F_COUNT + 1);
	assert_int_equal(parse_columns("LazyFree,SHARED,vsize", cols, COL_COUNT, 1), 3);
	assert_int_equal(cols[0], PMAPS_F_LAZY_FREE);
	assert_int_equal(cols[1], COL_SHARED);
	assert_int_equal(cols[2], COL_VSIZE);
	assert_int_equal(parse_columns("rss,inode", cols, COL_COUNT, 1), -1);
	assert_int_equal(col_lookup("pages", 5), -1); /* a page run's column, not a mapping's */
	assert_int_equal(col_lookup("Shared_Clean", 12), PMAPS_F_SHARED_CLEAN);
	assert_string_equal(columns[COL_SHARED].key.s, "shared");
	assert_string_equal(columns[PMAPS_F_LAZY_FREE].jkey, ",\"lazy_free\":");
	assert_int_equal(columns[PMAPS_F_LAZY_FREE].jkey_n, 13);
	assert_int_equal(columns[PMAPS_F_RSS].width, 7);
	assert_int_equal(columns[PMAPS_F_KERNEL_PAGE_SIZE].width, 7);
	assert_int_equal(columns[PMAPS_F_MMU_PAGE_SIZE].width, 9); /* its title's */
}

static void size_ok(const char *s, uint64_t want)
{
	uint64_t v = 0;

	if (parse_size(s, &v) != 0)
		fail_msg("'%s' refused", s);
	if (v != want)
		fail_msg("'%s': %llu, want %llu", s, (unsigned long long)v, (unsigned long long)want);
}

static void size_bad(const char *s)
{
	uint64_t v = 7;

	if (parse_size(s, &v) != -1 || v != 7)
		fail_msg("'%s' accepted as %llu", s, (unsigned long long)v);
}

static void test_sizes(void **state)
{
	(void)state;
	size_ok("0", 0);
	size_ok("4096", 4096);
	size_ok("4K", 4096);
	size_ok("4k", 4096);
	size_ok("4KiB", 4096);
	size_ok("4kib", 4096);
	size_ok("4KB", 4096);
	size_ok("256M", 256ull << 20);
	size_ok("256MiB", 256ull << 20);
	size_ok("2G", 2ull << 30);
	size_ok("3GiB", 3ull << 30);
	size_ok("1T", 1ull << 40);
	size_ok("1TiB", 1ull << 40);
	size_ok("0x1000", 4096);
	size_ok("0X10M", 16ull << 20);
	size_ok("18446744073709551615", UINT64_MAX);
	size_ok("16777215T", 16777215ull << 40);
	size_bad("");
	size_bad("K");
	size_bad("0x");
	size_bad("12Q");
	size_bad("4Ki");
	size_bad("4KiBB");
	size_bad("4 K");
	size_bad("-4");
	size_bad("18446744073709551616");
	size_bad("16777216T");
	size_bad("0x10000000000000000");
}

static void range_ok(const char *arg, uint64_t start, uint64_t end)
{
	struct range_arg r;
	char err[256] = "";

	if (parse_range(arg, &r, err, sizeof(err)) != 0)
		fail_msg("'%s': %s", arg, err);
	assert_null(r.name);
	assert_int_equal(r.start, start);
	assert_int_equal(r.end, end);
}

static void range_bad(const char *arg, const char *msg)
{
	struct range_arg r;
	char err[256] = "";

	assert_int_equal(parse_range(arg, &r, err, sizeof(err)), -1);
	if (!strstr(err, msg))
		fail_msg("'%s': message '%s' lacks '%s'", arg, err, msg);
}

static void test_ranges(void **state)
{
	struct range_arg r;
	char err[256];
	(void)state;

	range_ok("7f3a2c000000", 0x7f3a2c000000ull, 0x7f3a2c000001ull);
	range_ok("0x7f3a2c000000", 0x7f3a2c000000ull, 0x7f3a2c000001ull);
	range_ok("400000-401000", 0x400000, 0x401000);
	range_ok("0x400000-0X401000", 0x400000, 0x401000);
	range_ok("400000+4096", 0x400000, 0x401000);
	range_ok("400000+4K", 0x400000, 0x401000);
	range_ok("400000+2m", 0x400000, 0x600000);
	range_ok("400000+0x1000", 0x400000, 0x401000);
	range_ok("0+1T", 0, 1ull << 40);
	range_ok("ffffffffffffffff", UINT64_MAX, UINT64_MAX);
	assert_int_equal(parse_range("[heap]", &r, err, sizeof(err)), 0);
	assert_string_equal(r.name, "[heap]");
	assert_int_equal(r.name_len, 6);
	assert_int_equal(parse_range("/usr/lib/libc.so.6", &r, err, sizeof(err)), 0);
	assert_string_equal(r.name, "/usr/lib/libc.so.6");
	range_bad("", "is not a range");
	range_bad("heap", "is not a range");
	range_bad("12x", "is not a range");
	range_bad("400000-", "is not a range");
	range_bad("401000-400000", "ends before it starts");
	range_bad("400000-400000", "range '400000-400000' is empty");
	range_bad("400000+", "is not a range");
	range_bad("400000+0", "range '400000+0' is empty");
	range_bad("400000+0K", "range '400000+0K' is empty");
	range_bad("400000+4Q", "is not a range");
	range_bad("400000+-4", "is not a range");
	range_bad("10000000000000000", "is not a range");
	range_bad("ffffffffffff0000+1M", "past the end of the address space");
	range_bad("0+99999999999999999999", "is not a range");
	range_bad("0+17179869184G", "is not a range");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_human),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_writer_spans_buffers),
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
