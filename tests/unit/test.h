/*
 * test.h: a tiny TAP test harness for hokito's unit tests.
 *
 * Each test is a function declared with TEST(name); main() lists them with RUN(name) (RUN_TODO()
 * for one known to fail) and ends with TEST_END(). Every RUN prints one TAP line ("ok 3 - name" or
 * "not ok 3 - name"); a failed assertion prints both values and the place (libuv's ASSERT_EQ habit)
 * and ends that test only. The plan line comes last, so meson's TAP parser counts every case.
 */
#ifndef HOKITO_TESTS_TEST_H
#define HOKITO_TESTS_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failed_; /* set by a failed assertion in the running test */
static int test_count_;
static int test_failures_;

#define TEST(name) static void name(void)

#define RUN(name)                                                                                  \
	do {                                                                                       \
		test_failed_ = 0;                                                                  \
		name();                                                                            \
		test_count_++;                                                                     \
		if (test_failed_)                                                                  \
			test_failures_++;                                                          \
		printf("%sok %d - %s\n", test_failed_ ? "not " : "", test_count_, #name);          \
	} while (0)

/*
 * RUN(name) of a test known to fail for the reason todo (a string; NULL: as RUN()): its line
 * carries TAP's "# TODO todo", so that its failure is expected and fails no program, while its
 * passing shows (meson: an unexpected pass, a failure) that the mark is to be taken out.
 */
#define RUN_TODO(name, todo)                                                                       \
	do {                                                                                       \
		const char *todo_ = (todo);                                                        \
		test_failed_ = 0;                                                                  \
		name();                                                                            \
		test_count_++;                                                                     \
		if (test_failed_ && todo_ == NULL)                                                 \
			test_failures_++;                                                          \
		printf("%sok %d - %s%s%s\n", test_failed_ ? "not " : "", test_count_, #name,       \
		       todo_ ? " # TODO " : "", todo_ ? todo_ : "");                               \
	} while (0)

#define TEST_END()                                                                                 \
	do {                                                                                       \
		printf("1..%d\n", test_count_);                                                    \
		return test_failures_ ? 1 : 0;                                                     \
	} while (0)

#define FAIL_AT_(...)                                                                              \
	do {                                                                                       \
		printf("# %s:%d: ", __FILE__, __LINE__);                                           \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
		test_failed_ = 1;                                                                  \
		return;                                                                            \
	} while (0)

#define ASSERT(cond)                                                                               \
	do {                                                                                       \
		if (!(cond))                                                                       \
			FAIL_AT_("assertion failed: %s", #cond);                                   \
	} while (0)

#define ASSERT_EQ(a, b)                                                                            \
	do {                                                                                       \
		long long a_ = (long long)(a), b_ = (long long)(b);                                \
		if (a_ != b_)                                                                      \
			FAIL_AT_("%s == %s: %lld != %lld", #a, #b, a_, b_);                        \
	} while (0)

#define ASSERT_U64_EQ(a, b)                                                                        \
	do {                                                                                       \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                   \
		if (a_ != b_)                                                                      \
			FAIL_AT_("%s == %s: %" PRIu64 " != %" PRIu64, #a, #b, a_, b_);             \
	} while (0)

#define ASSERT_STR_EQ(a, b)                                                                        \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0)                               \
			FAIL_AT_("%s == %s: \"%s\" != \"%s\"", #a, #b, a_ ? a_ : "(null)",         \
			         b_ ? b_ : "(null)");                                              \
	} while (0)

/* |a - b| <= tol (doubles), printing both values when not (a NaN never passes). */
#define ASSERT_NEAR(a, b, tol)                                                                     \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!(a_ - b_ <= (tol) && b_ - a_ <= (tol)))                                       \
			FAIL_AT_("%s ~ %s: %.9f != %.9f (tolerance %g)", #a, #b, a_, b_,           \
			         (double)(tol));                                                   \
	} while (0)

#endif
