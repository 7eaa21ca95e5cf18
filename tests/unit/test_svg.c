/* SPDX-License-Identifier: MIT */
/*
 * test_svg.c - the SVG writer (src/svg.c) into a memory sink: numbers as
 * every locale reads them, a target's bytes kept well-formed XML and valid
 * UTF-8, and the elements exactly as written.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/out.h"
#include "write/svg.h"
#include "../expect.h"

static char mem[8192];

static struct out *sink(void)
{
	static struct out o;
	out_memory(&o, mem, sizeof(mem) - 1);
	return &o;
}

static const char *text(struct out *o)
{
	assert_int_equal(o->err, 0);
	mem[out_kept(o)] = '\0';
	return mem;
}

static const char *num(double v)
{
	struct out *o = sink();
	svg_num(o, v);
	return text(o);
}

static const char *str(const char *s, size_t n)
{
	struct out *o = sink();
	svg_str(o, s, n);
	return text(o);
}

static void test_num(void **state)
{
	(void)state;
	assert_string_equal(num(0), "0");
	assert_string_equal(num(12), "12");
	assert_string_equal(num(12.04), "12");
	assert_string_equal(num(12.05), "12.1");
	assert_string_equal(num(0.25), "0.3");
	assert_string_equal(num(1300.5), "1300.5");
	assert_string_equal(num(-3.5), "-3.5");
	/* What rounds to zero has no sign. */
	assert_string_equal(num(-0.01), "0");
	assert_string_equal(num(-0.0), "0");
	assert_string_equal(num(1e13), "1000000000000");
	assert_string_equal(num(-1e300), "-1000000000000");
	assert_string_equal(num(NAN), "0");
	assert_string_equal(num(INFINITY), "1000000000000");
	assert_string_equal(num(18446744073709551616.0), "1000000000000");
}

static void test_str(void **state)
{
	(void)state;
	assert_string_equal(str("plain /usr/lib/libc.so.6", 24), "plain /usr/lib/libc.so.6");
	assert_string_equal(str("<a href='x'>&\"</a>", 18),
	                    "&lt;a href=&apos;x&apos;&gt;&amp;&quot;&lt;/a&gt;");
	assert_string_equal(str("a\\b", 3), "a\\\\b");
	/* Control bytes: C0, DEL, C1 (U+0085 as its two bytes), the escape sequence's ESC. */
	assert_string_equal(str("\x01\t\n\x1b[31m\x7f\xc2\x85", 11), "\\x01\\x09\\x0a\\x1b[31m\\x7f\\xc2\\x85");
	/* Not UTF-8: a stray continuation, a cut sequence, an overlong '/', a surrogate, 0xff. */
	assert_string_equal(str("\x80", 1), "\\x80");
	assert_string_equal(str("x\xe2\x82", 3), "x\\xe2\\x82");
	assert_string_equal(str("\xc0\xaf", 2), "\\xc0\\xaf");
	assert_string_equal(str("\xed\xa0\x80", 3), "\\xed\\xa0\\x80");
	assert_string_equal(str("\xff\xfe", 2), "\\xff\\xfe");
	/* Well-formed UTF-8 stays; bidi overrides, U+2028 and XML's non-characters do not. */
	assert_string_equal(str("caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80", 14),
	                    "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80");
	assert_string_equal(str("\xe2\x80\xae" "abc", 6), "\\xe2\\x80\\xaeabc");
	assert_string_equal(str("\xe2\x80\xa8", 3), "\\xe2\\x80\\xa8");
	assert_string_equal(str("\xef\xbf\xbe", 3), "\\xef\\xbf\\xbe");
	/* A NUL inside the bytes is a byte like any other. */
	assert_string_equal(str("a\0b", 3), "a\\x00b");
	assert_string_equal(str("", 0), "");
}

static void test_elements(void **state)
{
	struct out *o = sink();

	(void)state;
	svg_rect(o, 400, 90.25, 12.5, 12, SVG_C_ANON, NULL, 0);
	svg_rect(o, 0, 0, 1, 1, SVG_C_FILE, "t<ip", 4);
	svg_line(o, 1, 2, 3, 4, SVG_C_INK, 0.5, 1);
	svg_text(o, 8, 100, SVG_END, 10, SVG_C_INK, "a&b", 3);
	svg_path_begin(o, "none", SVG_C_PEAK, 1.5);
	svg_path_to(o, 'M', 0, 1);
	svg_path_to(o, 'L', 2.25, -3);
	svg_path_end(o, 1);
	svg_path_begin(o, SVG_C_ANON, "none", 0);
	svg_path_rect(o, 400, 90, 12.5, 12);
	svg_path_rect(o, 0, 0, 1, 1);
	svg_path_end(o, 0);
	svg_group_open(o);
	svg_attr_hex(o, "data-start", 0x7f0000001000ull);
	svg_attr_u64(o, "data-pages", 18446744073709551615ull);
	svg_attr_num(o, "data-y", 104);
	svg_attr_str(o, "data-name", "x\"<", 3);
	svg_group_body(o);
	svg_tip(o, "\x01<", 2);
	svg_group_end(o);
	assert_string_equal(text(o),
	                    "<rect x=\"400\" y=\"90.3\" width=\"12.5\" height=\"12\" fill=\"#3b6fd4\"/>\n"
	                    "<rect x=\"0\" y=\"0\" width=\"1\" height=\"1\" fill=\"#2e9e5b\"><title>t&lt;ip</title></rect>\n"
	                    "<line x1=\"1\" y1=\"2\" x2=\"3\" y2=\"4\" stroke=\"#222222\" stroke-width=\"0.5\" stroke-dasharray=\"4 4\"/>\n"
	                    "<text x=\"8\" y=\"100\" font-size=\"10\" text-anchor=\"end\" fill=\"#222222\">a&amp;b</text>\n"
	                    "<path fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" d=\"M0 1L2.3 -3Z\"/>\n"
	                    "<path fill=\"#3b6fd4\" stroke=\"none\" stroke-width=\"0\" d=\"M400 90h12.5v12h-12.5zM0 0h1v1h-1z\"/>\n"
	                    "<g data-start=\"0x7f0000001000\" data-pages=\"18446744073709551615\" data-y=\"104\" data-name=\"x&quot;&lt;\">\n"
	                    "<title>\\x01&lt;</title>\n"
	                    "</g>\n");
}

static void test_document(void **state)
{
	struct out *o = sink();

	(void)state;
	svg_begin(o, 1300, 104, "pmaps <1>", 9);
	svg_end(o);
	assert_string_equal(text(o),
	                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	                    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"1300\" "
	                    "height=\"104\" viewBox=\"0 0 1300 104\" font-family=\"DejaVu Sans, Helvetica, "
	                    "Arial, sans-serif\">\n<title>pmaps &lt;1&gt;</title>\n"
	                    "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
	                    "</svg>\n");
}

/* A sink that fills keeps whole elements only: never half a tag. */
static void test_full_sink(void **state)
{
	static char small[100];
	struct out o;

	(void)state;
	out_memory(&o, small, sizeof(small));
	svg_rect(&o, 1, 2, 3, 4, SVG_C_ANON, NULL, 0);
	svg_rect(&o, 1, 2, 3, 4, SVG_C_ANON, NULL, 0);
	assert_int_equal(o.err, ENOBUFS);
	assert_int_equal(out_kept(&o), strlen("<rect x=\"1\" y=\"2\" width=\"3\" height=\"4\" fill=\"#3b6fd4\"/>\n"));
	expect_gt(out_dropped(&o), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_num),
		cmocka_unit_test(test_str),
		cmocka_unit_test(test_elements),
		cmocka_unit_test(test_document),
		cmocka_unit_test(test_full_sink),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
