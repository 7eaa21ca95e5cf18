/* SPDX-License-Identifier: MIT */
/*
 * expect.h - cmocka assertions that print both sides when they fail, for
 * what cmocka 1.1 has no assertion of its own: order (expect_ge(rows, 30)
 * prints "rows >= 30: rows = 12, 30 = 30"), bits set or clear in a mask,
 * a system call's result (with errno), a child's wait status, and a text
 * that must contain another.
 *
 * Each side is evaluated once. Integers of any type compare by value, as
 * mathematics does: -1 < 0u here, where C would say otherwise.
 * Include after <cmocka.h>.
 */
#ifndef PMAPS_TESTS_EXPECT_H
#define PMAPS_TESTS_EXPECT_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* 1 when X has a signed integer type; X is not evaluated. */
#define EXPECT__SIGNED(x)                                                                     \
	_Generic((x), signed char: 1, short: 1, int: 1, long: 1, long long: 1, default: 0)

/* -1, 0 or 1: A against B, by value, each given as its bits and its signedness. */
static inline int expect__cmp(uintmax_t a, int sa, uintmax_t b, int sb)
{
	int an = sa && (intmax_t)a < 0, bn = sb && (intmax_t)b < 0;

	if (an != bn)
		return an ? -1 : 1;
	if (an)
		return (intmax_t)a < (intmax_t)b ? -1 : (intmax_t)a > (intmax_t)b;
	return a < b ? -1 : a > b;
}

static inline const char *expect__text(char *buf, size_t size, uintmax_t v, int s)
{
	if (s && (intmax_t)v < 0)
		snprintf(buf, size, "%jd", (intmax_t)v);
	else if (v >= 0x10000)
		snprintf(buf, size, "%ju (%#jx)", v, v);
	else
		snprintf(buf, size, "%ju", v);
	return buf;
}

static inline void expect__print(const char *ta, const char *op, const char *tb, uintmax_t a,
                                 int sa, uintmax_t b, int sb)
{
	char x[64], y[64];

	print_error("%s %s %s: %s = %s, %s = %s\n", ta, op, tb, ta, expect__text(x, sizeof(x), a, sa),
	            tb, expect__text(y, sizeof(y), b, sb));
}

#define expect__op(a, op, b)                                                                  \
	do {                                                                                      \
		const uintmax_t expect_a_ = (uintmax_t)(a), expect_b_ = (uintmax_t)(b);               \
		if (!(expect__cmp(expect_a_, EXPECT__SIGNED(a), expect_b_, EXPECT__SIGNED(b)) op 0)) { \
			expect__print(#a, #op, #b, expect_a_, EXPECT__SIGNED(a), expect_b_,               \
			              EXPECT__SIGNED(b));                                                 \
			fail();                                                                           \
		}                                                                                     \
	} while (0)

#define expect_eq(a, b) expect__op(a, ==, b)
#define expect_ne(a, b) expect__op(a, !=, b)
#define expect_ge(a, b) expect__op(a, >=, b)
#define expect_gt(a, b) expect__op(a, >, b)
#define expect_le(a, b) expect__op(a, <=, b)
#define expect_lt(a, b) expect__op(a, <, b)

/* All of BITS set (expect_set) or none of them (expect_clear) in V. */
#define expect__bits(v, bits, want_set)                                                       \
	do {                                                                                      \
		const uintmax_t expect_v_ = (uintmax_t)(v), expect_m_ = (uintmax_t)(bits);            \
		if ((want_set && (expect_v_ & expect_m_) != expect_m_) ||                             \
		    (!want_set && (expect_v_ & expect_m_) != 0)) {                                    \
			print_error("%s %s in %s: %s = %#jx, %s = %#jx\n", #bits,                         \
			            want_set ? "set" : "clear", #v, #v, expect_v_, #bits, expect_m_);     \
			fail();                                                                           \
		}                                                                                     \
	} while (0)

#define expect_set(v, bits) expect__bits(v, bits, 1)
#define expect_clear(v, bits) expect__bits(v, bits, 0)

/* A system call's result: >= 0, or the value and errno printed. */
#define expect_sys(v)                                                                         \
	do {                                                                                      \
		const intmax_t expect_r_ = (intmax_t)(v);                                             \
		if (expect_r_ < 0) {                                                                  \
			int expect_e_ = errno;                                                            \
			print_error("%s >= 0: %s = %jd, errno %d (%s)\n", #v, #v, expect_r_, expect_e_,   \
			            strerror(expect_e_));                                                 \
			fail();                                                                           \
		}                                                                                     \
	} while (0)

/* A wait status ST of a child that exited with CODE; how it ended otherwise, printed. */
#define expect_exited(st, code)                                                               \
	do {                                                                                      \
		const int expect_s_ = (st), expect_c_ = (code);                                       \
		if (!WIFEXITED(expect_s_) || WEXITSTATUS(expect_s_) != expect_c_) {                   \
			if (WIFEXITED(expect_s_))                                                         \
				print_error("%s: exit %d, want exit %d\n", #st, WEXITSTATUS(expect_s_),       \
				            expect_c_);                                                       \
			else if (WIFSIGNALED(expect_s_))                                                  \
				print_error("%s: killed by signal %d, want exit %d\n", #st,                   \
				            WTERMSIG(expect_s_), expect_c_);                                  \
			else                                                                              \
				print_error("%s: status %#x, want exit %d\n", #st, (unsigned)expect_s_,       \
				            expect_c_);                                                       \
			fail();                                                                           \
		}                                                                                     \
	} while (0)

/* Text HAY (a C string, or NULL) contains NEEDLE; both printed otherwise. */
#define expect_contains(hay, needle)                                                          \
	do {                                                                                      \
		const char *expect_h_ = (hay), *expect_n_ = (needle);                                 \
		if (!expect_h_ || !strstr(expect_h_, expect_n_)) {                                    \
			print_error("%s contains %s: %s = \"%s\", %s = \"%s\"\n", #hay, #needle, #hay,    \
			            expect_h_ ? expect_h_ : "(null)", #needle, expect_n_);                \
			fail();                                                                           \
		}                                                                                     \
	} while (0)

#endif
