/* SPDX-License-Identifier: MIT */
/*
 * test_escape.c - the escaping every writer uses for bytes a target chose:
 * each class of byte in text, CSV and JSON, and the text escape undone
 * exactly over random byte strings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/escape.h"
#include "common/tool.h"
#include "write/writer.h"
#include "../expect.h"

enum how { TEXT, CSV, JSON, JSON_NAMED };

/* What the writer HOW makes of the N bytes at S, through a memfd. */
static size_t run(enum how how, const char *s, size_t n, char *dst, size_t size)
{
	static char buf[OUT_FD_BUFSIZE];
	struct out o;
	int fd = memfd_create("escape", 0);
	ssize_t got;

	expect_sys(fd);
	out_fd(&o, fd, buf, sizeof(buf));
	switch (how) {
	case TEXT: out_table_str(&o, s, n); break;
	case CSV: out_csv_str(&o, s, n); break;
	case JSON: out_json_str(&o, s, n); break;
	case JSON_NAMED: out_json_named(&o, "path", 4, s, n); break;
	}
	out_flush(&o);
	assert_int_equal(o.err, 0);
	got = pread(fd, dst, size - 1, 0);
	close(fd);
	expect_ge(got, 0);
	dst[got] = '\0';
	return (size_t)got;
}

/* Both sides printed on failure, with the input. */
static void check(enum how how, const char *in, size_t n, const char *want)
{
	char got[1024];

	run(how, in, n, got, sizeof(got));
	if (strcmp(got, want) != 0)
		fail_msg("writer %d on %zu bytes: got '%s', want '%s'", (int)how, n, got, want);
}

#define CHECK(how, lit, want) check(how, lit, sizeof(lit) - 1, want)

static void test_text_classes(void **state)
{
	(void)state;
	CHECK(TEXT, "/usr/lib/libc.so.6 (deleted)", "/usr/lib/libc.so.6 (deleted)");
	CHECK(TEXT, "a\\b", "a\\\\b");                         /* backslash doubled */
	CHECK(TEXT, "new\nline\ttab\rcr", "new\\nline\\ttab\\x0dcr");
	CHECK(TEXT, "\x1b]0;PWNED\x07\x1b[2J", "\\x1b]0;PWNED\\x07\\x1b[2J");
	CHECK(TEXT, "nul\x01 del\x7f", "nul\\x01 del\\x7f");
	CHECK(TEXT, "csi\xc2\x9b" "2J nel\xc2\x85", "csi\\xc2\\x9b2J nel\\xc2\\x85"); /* C1 in UTF-8 */
	CHECK(TEXT, "raw C1 \x9b\x85", "raw C1 \\x9b\\x85");
	CHECK(TEXT, "nbsp\xc2\xa0" "caf\xc3\xa9", "nbsp\xc2\xa0" "caf\xc3\xa9"); /* printable */
	CHECK(TEXT, "emoji \xf0\x9f\x98\x80!", "emoji \xf0\x9f\x98\x80!");
	CHECK(TEXT, "lat1-\xe9.so", "lat1-\\xe9.so");              /* a lone Latin-1 byte */
	CHECK(TEXT, "cont\x80", "cont\\x80");
	CHECK(TEXT, "overlong\xc0\xaf", "overlong\\xc0\\xaf");
	CHECK(TEXT, "overlong3\xe0\x80\xaf", "overlong3\\xe0\\x80\\xaf");
	CHECK(TEXT, "surrogate\xed\xa0\x80", "surrogate\\xed\\xa0\\x80");
	CHECK(TEXT, "big\xf4\x90\x80\x80", "big\\xf4\\x90\\x80\\x80");
	CHECK(TEXT, "f5\xf5 ff\xff", "f5\\xf5 ff\\xff");
	CHECK(TEXT, "cut\xe2\x82", "cut\\xe2\\x82");
	CHECK(TEXT, "cut4\xf0\x9f\x98", "cut4\\xf0\\x9f\\x98");
	/* Characters that reorder or break the line are escaped, byte by byte. */
	CHECK(TEXT, "rlo\xe2\x80\xaegpj.exe", "rlo\\xe2\\x80\\xaegpj.exe");
	CHECK(TEXT, "ls\xe2\x80\xa8", "ls\\xe2\\x80\\xa8");
	CHECK(TEXT, "fsi\xe2\x81\xa8", "fsi\\xe2\\x81\\xa8");
	CHECK(TEXT, "euro\xe2\x82\xac", "euro\xe2\x82\xac");
	check(TEXT, "a\0b", 3, "a\\x00b");
	CHECK(TEXT, "", "");
}

static void test_csv(void **state)
{
	(void)state;
	CHECK(CSV, "plain", "plain");
	CHECK(CSV, "with, comma", "\"with, comma\"");
	CHECK(CSV, "say \"hi\"", "\"say \"\"hi\"\"\"");
	CHECK(CSV, "/tmp/new\nline", "/tmp/new\\nline"); /* a row stays one line */
	CHECK(CSV, "a,\x1b[2J\"\xe9", "\"a,\\x1b[2J\"\"\\xe9\"");
	CHECK(CSV, "caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xf0\x9f\x98\x80");
}

static void test_json(void **state)
{
	(void)state;
	CHECK(JSON, "a\"b\\c\nd\te\x01/", "\"a\\\"b\\\\c\\nd\\te\\u0001/\"");
	CHECK(JSON, "\x1b]0;PWNED\x07\x1b[2J\r", "\"\\u001b]0;PWNED\\u0007\\u001b[2J\\r\"");
	CHECK(JSON, "del\x7f c1\xc2\x9b", "\"del\\u007f c1\\u009b\"");
	CHECK(JSON, "rlo\xe2\x80\xae ls\xe2\x80\xa8", "\"rlo\\u202e ls\\u2028\"");
	CHECK(JSON, "caf\xc3\xa9 \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
	CHECK(JSON, "lat1-\xe9.so", "\"lat1-\\ufffd.so\"");
	CHECK(JSON, "\xed\xa0\x80x\xc0", "\"\\ufffd\\ufffd\\ufffdx\\ufffd\"");
	CHECK(JSON_NAMED, "/lib/ok.so", "\"path\":\"/lib/ok.so\"");
	CHECK(JSON_NAMED, "caf\xc3\xa9\n", "\"path\":\"caf\xc3\xa9\\n\"");
	CHECK(JSON_NAMED, "lat1-\xe9.so", "\"path\":\"lat1-\\ufffd.so\",\"path_hex\":\"6c6174312de92e736f\"");
}

static void test_text_buffer(void **state)
{
	char b[16];
	(void)state;

	assert_int_equal(esc_text(b, sizeof(b), "ok\x1b", 3), 6);
	assert_string_equal(b, "ok\\x1b");
	/* Cut between escapes, never inside one, and marked. */
	assert_int_equal(esc_text(b, sizeof(b), "abcdefghij\x1b\x1b", 12), 13);
	assert_string_equal(b, "abcdefghij...");
	/* Nor inside a character: the 4-byte emoji does not fit after 9 bytes. */
	assert_int_equal(esc_text(b, sizeof(b), "123456789\xf0\x9f\x98\x80zzz", 16), 12);
	assert_string_equal(b, "123456789...");
	/* All of it when it fits exactly. */
	assert_int_equal(esc_text(b, sizeof(b), "123456789012345", 15), 15);
	assert_string_equal(b, "123456789012345");
}

/* Whether N bytes at S hold a C0 control, DEL or a C1 control (raw or in UTF-8). */
static int has_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f && (i == 0 ||
		    (unsigned char)s[i - 1] == 0xc2)))
			return 1;
	}
	return 0;
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static unsigned rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (unsigned)(rnd_state >> 32);
}

/* Random bytes, half of them from the classes that matter. */
static size_t random_bytes(char *s, size_t max)
{
	static const unsigned char pick[] = {0x00, 0x07, 0x09, 0x0a, 0x1b, '\\', '"', ',', 'x', '/',
	                                     0x7f, 0x80, 0x9b, 0xbf, 0xc0, 0xc2, 0xc3, 0xa9, 0xe2,
	                                     0x80, 0xae, 0xed, 0xa0, 0xf0, 0x9f, 0x98, 0xf4, 0xff};
	size_t n = rnd() % max;

	for (size_t i = 0; i < n; i++)
		s[i] = (char)(rnd() & 1 ? pick[rnd() % sizeof(pick)] : rnd() & 0xff);
	return n;
}

static void test_round_trip(void **state)
{
	static char in[64], out[64 * 4 + 64], back[64 * 4 + 64], csv[64 * 8 + 64];
	(void)state;

	for (int iter = 0; iter < 20000; iter++) {
		size_t n = random_bytes(in, sizeof(in));
		size_t k = run(TEXT, in, n, out, sizeof(out));
		ssize_t m = esc_text_unescape(back, sizeof(back), out, k);
		if (m != (ssize_t)n || memcmp(back, in, n) != 0)
			fail_msg("iteration %d: %zu bytes escaped to '%s' came back as %zd bytes", iter, n,
			         out, m);
		assert_true(esc_utf8_valid(out, k));
		assert_false(has_control(out, k));
		/* The buffer form writes the same. */
		char buf[sizeof(out)];
		assert_int_equal(esc_text(buf, sizeof(buf), in, n), k);
		assert_memory_equal(buf, out, k);
		/* CSV: the same, and valid UTF-8 without controls. */
		k = run(CSV, in, n, csv, sizeof(csv));
		assert_true(esc_utf8_valid(csv, k));
		assert_false(has_control(csv, k));
		/* JSON: valid UTF-8, no raw control, the exact bytes in the _hex key. */
		k = run(JSON_NAMED, in, n, csv, sizeof(csv));
		assert_true(esc_utf8_valid(csv, k));
		assert_false(has_control(csv, k));
		if (!esc_utf8_valid(in, n)) {
			const char *h = strstr(csv, ",\"path_hex\":\"");
			assert_non_null(h);
			h += 13;
			for (size_t i = 0; i < n; i++) {
				unsigned v;
				assert_int_equal(sscanf(h + 2 * i, "%2x", &v), 1);
				assert_int_equal(v, (unsigned char)in[i]);
			}
		} else {
			assert_null(strstr(csv, "path_hex"));
		}
	}
}

static void test_unescape_rejects(void **state)
{
	char b[16];
	(void)state;

	assert_int_equal(esc_text_unescape(b, sizeof(b), "a\\", 2), -1);
	assert_int_equal(esc_text_unescape(b, sizeof(b), "\\q", 2), -1);
	assert_int_equal(esc_text_unescape(b, sizeof(b), "\\x4", 3), -1);
	assert_int_equal(esc_text_unescape(b, sizeof(b), "\\xzz", 4), -1);
	assert_int_equal(esc_text_unescape(b, sizeof(b), "\\x41\\\\\\n", 8), 3);
	assert_memory_equal(b, "A\\\n", 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_classes),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_text_buffer),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_unescape_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
