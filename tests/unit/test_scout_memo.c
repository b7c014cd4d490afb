/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the memo of line kinds (struct scout_memo, pt/scout.h):
 * scout_line_kind() with a memo must give what it gives without one, on
 * frame lines that repeat with other line numbers, across a change of set,
 * and with a set whose literal could overlap the number (then the numbers
 * must count); a repeated line must not be judged again, and a small log's
 * lines are not kept at all.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/litset.h"
#include "pt/scout.h"
#include "litset_fixture.h"
#include "test.h"

static size_t quiet_calls;

/* As the engine's: a frame in library code, or with line number 0, changes nothing. */
static bool
quiet(const char *line, size_t len)
{
	const char *n = NULL;
	bool zero = true, library = false;

	quiet_calls++;
	for (size_t i = 0; i + 13 <= len; i++)
		library |= memcmp(line + i, "site-packages", 13) == 0;
	for (size_t i = 0; !n && i + 8 <= len; i++)
		if (memcmp(line + i, "\", line ", 8) == 0)
			n = line + i + 8;
	for (; n && n < line + len && *n >= '0' && *n <= '9'; n++)
		zero &= *n == '0';
	return !n || zero || library;
}

static const struct scout_skip frame_skip = { 0, quiet, "\", line ", ", in " };


/* The kind of the line text (no newline), with or without a memo. */
static enum scout_line
kind_of(const struct litset *ls, struct scout_memo *memo, const char *text)
{
	static char buf[512];
	size_t n = strlen(text), lit = SIZE_MAX, hit;

	memcpy(buf, text, n);
	memcpy(buf + n, "\nnext line\n", 12);
	hit = litset_find_range(ls, buf, n + 11, 0, n, &lit);
	if (hit >= n + 11)
		return SCOUT_LINE_CANDIDATE;
	return scout_line_kind(ls, &frame_skip, memo, buf, n + 11, 0, hit, lit, n);
}

static uint64_t rng = 0x9E3779B97F4A7C15u;

static size_t
rnd_below(size_t n)
{
	return fixture_rnd_below(&rng, n);
}

/* A frame line, mostly well formed, with a number from a few kinds. */
static void
random_frame(char *out, size_t size)
{
	static const char *const paths[] = {
		"/opt/venv/lib/python3.11/site-packages/jax/_src/pallas/mosaic/lowering.py",
		"/home/ci/tests/pallas/tpu_pallas_test.py", "kernel.py", "/x/512.py",
		"/opt/venv/lib/python3.11/site-packages/jax/_src/dispatch.py",
		"/home/ci/a-path-long-enough-to-need-most-of-the-memo-line-for-itself/and-then-some/"
		"more-and-more/until-it-is-over-the-limit-of-what-one-slot-holds/kernel.py",
	};
	static const char *const numbers[] = { "0", "00", "7", "512", "1512", "0512", "99999999999", "" };
	static const char *const tails[] = {
		", in jaxpr_subcomp", ", in pallas_call", ", in f", ",in f", " in f", "", ", in kernel ",
	};
	static const char *const heads[] = { "  ", "", "E     ", "\t" };

	snprintf(out, size, "%sFile \"%s\", line %s%s", heads[rnd_below(4)], paths[rnd_below(6)],
		 numbers[rnd_below(8)], tails[rnd_below(7)]);
}

static void
test_same_as_without(const char *const *lits, size_t nlits, const char *what)
{
	struct litset *ls = fixture_litset(lits, nlits, NULL, 0);
	struct scout_memo memo = { 0 };
	int bad = 0;

	for (int r = 0; r < 20000; r++) {
		char line[400];
		enum scout_line with, without;

		random_frame(line, sizeof(line));
		with = kind_of(ls, &memo, line);
		without = kind_of(ls, NULL, line);
		if (with != without && bad++ < 5)
			fprintf(stderr, "%s: memo says %d, judging says %d: %s\n", what, with, without, line);
	}
	CHECK_INTEQ(bad, 0);
	scout_memo_release(&memo);
	litset_free(ls);
}

/* The memo's first lines, judged as without one: it takes nothing for a small log. */
static void
warm(const struct litset *ls, struct scout_memo *memo)
{
	const char *line = "  File \"/home/ci/k.py\", line 10, in f";

	quiet_calls = 0;
	for (int i = 0; i < SCOUT_MEMO_AFTER; i++)
		kind_of(ls, memo, line);
	CHECK_INTEQ(quiet_calls, SCOUT_MEMO_AFTER);
	CHECK(memo->slot == NULL);
}

/* The exact failure the number check guards against: a literal that ends in the number. */
static void
test_overlapping_literal(void)
{
	static const char *const lits[] = { "File \"", "512, in " };
	struct litset *ls = fixture_litset(lits, 2, NULL, 0);
	struct scout_memo memo = { 0 };

	warm(ls, &memo);
	CHECK_INTEQ(kind_of(ls, &memo, "  File \"kernel.py\", line 511, in f"), SCOUT_LINE_ALONE);
	CHECK_INTEQ(kind_of(ls, &memo, "  File \"kernel.py\", line 512, in f"), SCOUT_LINE_CANDIDATE);
	CHECK_INTEQ(kind_of(ls, &memo, "  File \"kernel.py\", line 511, in f"), SCOUT_LINE_ALONE);
	scout_memo_release(&memo);
	litset_free(ls);
}

/* A line seen before, with another number, is not judged again; a change of set empties the memo. */
static void
test_judged_once(void)
{
	static const char *const lits[] = { "File \"", "pallas_call" };
	struct litset *ls = fixture_litset(lits, 2, NULL, 0), *other = fixture_litset(lits, 1, NULL, 0);
	struct scout_memo memo = { 0 };
	const char *a = "  File \"/home/ci/k.py\", line 10, in f";
	const char *b = "  File \"/home/ci/k.py\", line 977, in f";

	warm(ls, &memo);
	quiet_calls = 0;
	CHECK_INTEQ(kind_of(ls, &memo, a), SCOUT_LINE_ALONE);
	CHECK_INTEQ(kind_of(ls, &memo, b), SCOUT_LINE_ALONE);
	CHECK_INTEQ(kind_of(ls, &memo, a), SCOUT_LINE_ALONE);
	CHECK_INTEQ(quiet_calls, 1);
	/* number 0: quiet() says so; not the kind of line 10 */
	CHECK_INTEQ(kind_of(ls, &memo, "  File \"/home/ci/k.py\", line 0, in f"), SCOUT_LINE_SKIP);
	CHECK_INTEQ(kind_of(ls, &memo, "  File \"/home/ci/k.py\", line 12, in pallas_call"),
		    SCOUT_LINE_CANDIDATE);
	CHECK_INTEQ(kind_of(other, &memo, "  File \"/home/ci/k.py\", line 12, in pallas_call"),
		    SCOUT_LINE_ALONE);
	quiet_calls = 0;
	CHECK_INTEQ(kind_of(other, &memo, a), SCOUT_LINE_ALONE);
	CHECK_INTEQ(quiet_calls, 1);
	scout_memo_release(&memo);
	CHECK(memo.slot == NULL && memo.set == 0 && memo.asked == 0);
	litset_free(ls);
	litset_free(other);
}

int
main(void)
{
	static const char *const plain[] = { "File \"", "pallas_call", "lowering.py\", line", "dispatch" };
	static const char *const risky[] = { "File \"", "512, in ", "line 1", "00, in kern" };
	static const char *const digits[] = { "File \"", "1512", "99999" };

	test_overlapping_literal();
	test_judged_once();
	test_same_as_without(plain, 4, "plain");
	test_same_as_without(risky, 4, "risky");
	test_same_as_without(digits, 3, "digits");
	return TEST_DONE();
}
