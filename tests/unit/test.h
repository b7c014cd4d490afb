/* SPDX-License-Identifier: MIT */
/*
 * A tiny unit-test harness: CHECK macros count passes and failures, and
 * TEST_DONE() prints the "N passed, N failed" line and returns the status.
 */
#ifndef PT_TEST_H
#define PT_TEST_H

#include <stdio.h>
#include <string.h>

static int test_passed, test_failed;

#define CHECK(cond) do { \
	if (cond) { test_passed++; } else { test_failed++; \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define CHECK_STREQ(a, b) do { \
	const char *a_ = (a), *b_ = (b); \
	if (a_ && b_ && strcmp(a_, b_) == 0) { test_passed++; } else { test_failed++; \
		fprintf(stderr, "%s:%d: CHECK_STREQ failed: '%s' != '%s'\n", __FILE__, __LINE__, \
			a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } \
} while (0)

#define CHECK_INTEQ(a, b) do { \
	long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ == b_) { test_passed++; } else { test_failed++; \
		fprintf(stderr, "%s:%d: CHECK_INTEQ failed: %s == %lld, expected %lld\n", \
			__FILE__, __LINE__, #a, a_, b_); } \
} while (0)

#define TEST_DONE() (printf("%s: %d passed, %d failed\n", __FILE__, test_passed, test_failed), \
		     test_failed ? 1 : 0)

#endif
