/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the memo of candidate lines' literals (pt/line_memo.h):
 * what it hands back for a line must be what a walk of that line gives
 * (on lines drawn from a pool, so that they repeat, with near-duplicates
 * that differ in one byte), for the set it was kept for only; the first
 * lines of a log, long lines and walks too large are never kept.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/line_memo.h"
#include "pt/litset.h"
#include "litset_fixture.h"
#include "test.h"

static const char *const literals[] = {
	"File \"", "Traceback (most recent call last)", "pallas_call", "vmem", "Mismatched ",
	"Error: ", "lowering", "block_shape",
};

static struct litset *
make_set(void)
{
	return fixture_litset(literals, sizeof(literals) / sizeof(literals[0]), NULL, 0);
}

/* The walk as linematch.c records it: each literal's ids, and every occurrence as a piece. */
static void
collect(void *arg, size_t lit, size_t pos)
{
	struct line_found *f = arg;

	if (f->nids < LINE_MEMO_IDS)
		f->ids[f->nids] = (uint16_t)lit;
	f->nids++;
	if (f->npieces < LINE_MEMO_PIECES) {
		f->piece_lit[f->npieces] = (uint16_t)lit;
		f->piece_pos[f->npieces] = (uint16_t)pos;
	}
	f->npieces++;
}

static void
walk(const struct litset *ls, const char *line, size_t n, struct line_found *f)
{
	memset(f, 0, sizeof(*f));
	litset_line_each(ls, line, n, collect, f);
}

static bool
same_found(const struct line_found *a, const struct line_found *b)
{
	return a->nids == b->nids && a->npieces == b->npieces &&
	       memcmp(a->ids, b->ids, a->nids * sizeof(a->ids[0])) == 0 &&
	       memcmp(a->piece_lit, b->piece_lit, a->npieces * sizeof(a->piece_lit[0])) == 0 &&
	       memcmp(a->piece_pos, b->piece_pos, a->npieces * sizeof(a->piece_pos[0])) == 0;
}

static uint64_t rnd_state = 88172645463325252u;

static size_t
rnd_below(size_t n)
{
	return fixture_rnd_below(&rnd_state, n);
}

/* Line k of the pool: a few literals among filler, with a number in it. */
static size_t
pool_line(size_t k, char *out, size_t cap)
{
	int len = snprintf(out, cap, "  %s \"/src/kernel_%zu.py\", line %zu, in %s%s",
			   literals[k % 8], k % 13, 100 + k % 37, k % 3 ? "pallas_call " : "",
			   k % 5 ? "vmem" : "block_shape");

	return (size_t)len < cap ? (size_t)len : cap - 1;
}

/* Lines that repeat and lines one byte apart: every hit equals a fresh walk. */
static void
test_same_as_walk(void)
{
	struct litset *ls = make_set();
	struct line_memo m = { 0 };
	size_t hits = 0, bad = 0;
	char line[512];

	for (int i = 0; i < 40000; i++) {
		size_t n = pool_line(rnd_below(400), line, sizeof(line));
		const struct line_found *got;
		struct line_found want;

		if (rnd_below(4) == 0)
			line[rnd_below(n)] ^= 1;      /* a near-duplicate */
		walk(ls, line, n, &want);
		got = line_memo_get(&m, litset_id(ls), line, n);
		if (got) {
			hits++;
			bad += !same_found(got, &want);
		} else {
			line_memo_put(&m, &want);
		}
	}
	CHECK_INTEQ(bad, 0);
	/* the lines repeat: most of them come from the memo */
	CHECK(hits > 20000);
	line_memo_release(&m);
	litset_free(ls);
}

/* The first lines, another set, long lines, large walks: no answer. */
static void
test_not_kept(void)
{
	struct litset *ls = make_set(), *other = make_set();
	struct line_memo m = { 0 };
	struct line_found f;
	char line[512], lng[LINE_MEMO_TEXT + 40];
	size_t n = pool_line(7, line, sizeof(line));

	walk(ls, line, n, &f);
	CHECK(f.nids > 0);
	for (size_t i = 0; i < LINE_MEMO_AFTER; i++) {
		CHECK(line_memo_get(&m, litset_id(ls), line, n) == NULL);
		line_memo_put(&m, &f);
	}
	CHECK(m.slot == NULL);                     /* a small log allocates nothing */
	CHECK(line_memo_get(&m, litset_id(ls), line, n) == NULL);
	line_memo_put(&m, &f);
	CHECK(line_memo_get(&m, litset_id(ls), line, n) != NULL);
	/* what the patterns learnt of the line's pieces comes back with it */
	f.fits = 0x5, f.fits_known = 0x7;
	line_memo_put(&m, &f);
	CHECK(line_memo_get(&m, litset_id(ls), line, n) != NULL &&
	      m.slot && line_memo_get(&m, litset_id(ls), line, n)->fits == 0x5 &&
	      line_memo_get(&m, litset_id(ls), line, n)->fits_known == 0x7);
	line_memo_put(&m, &f);
	/* a set with another id, even one built alike, has its own walks */
	CHECK(line_memo_get(&m, litset_id(other), line, n) == NULL);
	line_memo_put(&m, &f);
	CHECK(line_memo_get(&m, litset_id(ls), line, n - 1) == NULL);
	line_memo_put(&m, &f);
	memset(lng, 'x', sizeof(lng));
	memcpy(lng, line, n);
	CHECK(line_memo_get(&m, litset_id(ls), lng, sizeof(lng)) == NULL);
	line_memo_put(&m, &f);
	CHECK(line_memo_get(&m, litset_id(ls), lng, sizeof(lng)) == NULL);
	line_memo_put(&m, &f);
	/* a walk with more pieces than a slot holds is walked again next time */
	memcpy(line, "Error: Error: Error: Error: Error: Error: Error: Error: Error: "
	       "Error: Error: Error: Error: Error: Error: Error: Error: Error: ", 126);
	walk(ls, line, 126, &f);
	CHECK(f.npieces > LINE_MEMO_PIECES);
	CHECK(line_memo_get(&m, litset_id(ls), line, 126) == NULL);
	line_memo_put(&m, &f);
	CHECK(line_memo_get(&m, litset_id(ls), line, 126) == NULL);
	line_memo_put(&m, &f);
	line_memo_release(&m);
	CHECK(m.slot == NULL);
	litset_free(ls);
	litset_free(other);
}

int
main(void)
{
	test_same_as_walk();
	test_not_kept();
	return TEST_DONE();
}
