/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the multi-literal matcher: fixed cases for the edges
 * (buffer ends, overlaps, short buffers, NUL and high bytes, |0x20
 * look-alikes) and a randomized differential test against a naive
 * case-insensitive search, with a fixed seed so failures reproduce.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt/buf.h"
#include "pt/litset.h"
#include "litset_fixture.h"
#include "test.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t
rnd(void)
{
	/* xorshift64*: deterministic across platforms */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

static size_t
rnd_below(size_t n)
{
	return n ? rnd() % n : 0;
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int
at_fold(const char *buf, size_t len, size_t q, const char *lit, size_t m)
{
	if (m > len - q)
		return 0;
	for (size_t i = 0; i < m; i++)
		if (lower((unsigned char)buf[q + i]) != lower((unsigned char)lit[i]))
			return 0;
	return 1;
}

/* The first q >= from where one of the literals occurs, or len. */
static size_t
naive_find(char **lits, const size_t *lens, size_t n, const char *buf, size_t len, size_t from)
{
	for (size_t q = from; q < len; q++)
		for (size_t i = 0; i < n; i++)
			if (at_fold(buf, len, q, lits[i], lens[i]))
				return q;
	return len;
}


static void
test_basic(void)
{
	static const char *const lits[] = {
		"Ran out of memory in memory space vmem",
		"RACE DETECTED",
		"not implemented: unsupported reshape",
		"Check failed",
	};
	struct litset *ls = fixture_litset(lits, ARRAY_LEN(lits), NULL, 0);
	const char *text = "I0101 step 1 loss 2.0\n"
			   "E0101 check FAILED: x == y\n"
			   "RESOURCE_EXHAUSTED: ran out of memory in memory space VMEM. Used 20M\n";
	size_t len = strlen(text), li = 99, q;

	CHECK_INTEQ(litset_count(ls), 4);
	CHECK_INTEQ(litset_shortest(ls), 12);
	CHECK_INTEQ(litset_stride(ls), 4);   /* no sample: min(12 - 3, 4) */
	q = litset_find(ls, text, len, 0, &li);
	CHECK_INTEQ(q, strstr(text, "check FAILED") - text);
	CHECK_INTEQ(li, 3);
	q = litset_find(ls, text, len, q + 1, &li);
	CHECK_INTEQ(q, strstr(text, "ran out") - text);
	CHECK_INTEQ(li, 0);
	CHECK_INTEQ(litset_find(ls, text, len, q + 1, &li), len);
	CHECK_INTEQ(litset_find(ls, text, len, len, &li), len);
	CHECK_INTEQ(litset_find(ls, text, len, len + 5, &li), len);
	CHECK_INTEQ(litset_find(ls, "", 0, 0, &li), 0);
	CHECK_INTEQ(litset_find(ls, "RAC", 3, 0, &li), 3);
	CHECK_INTEQ(litset_find(ls, "race detected", 13, 0, &li), 0);
	CHECK_INTEQ(litset_find(ls, "race detecte", 12, 0, &li), 12);
	CHECK_INTEQ(litset_find(ls, "xrace detected", 14, 0, NULL), 1);
	CHECK_INTEQ(litset_find(ls, "xrace detected", 14, 1, NULL), 1);
	CHECK_INTEQ(litset_find(ls, "xrace detected", 14, 2, NULL), 14);
	litset_free(ls);
}

/*
 * Case folds a byte at a time in the compare's eight-byte lanes: every
 * byte value at every place of a 13-byte literal (one whole lane and one
 * overlapping the last) matches exactly when it folds to the literal's.
 */
static void
test_fold_lanes(void)
{
	static const char *const lits[] = { "az@[`{AZ09\x7f-z", "kq@Z" };
	struct litset *ls = fixture_litset(lits, ARRAY_LEN(lits), NULL, 0);
	const char *lit = lits[0];
	size_t n = strlen(lit);
	int bad = 0;

	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 256; c++) {
			char text[32];
			unsigned char want = (unsigned char)lit[i];
			bool same = c == want || (want >= 'a' && want <= 'z' && c == want - 32) ||
				    (want >= 'A' && want <= 'Z' && (c == want || c == want + 32));

			memcpy(text, lit, n);
			text[i] = (char)c;
			memcpy(text + n, "\n....", 6);
			if ((litset_find(ls, text, n + 6, 0, NULL) == 0) != same && bad++ < 5)
				fprintf(stderr, "byte %d at %zu: %s\n", c, i, same ? "missed" : "matched");
		}
	CHECK_INTEQ(bad, 0);
	for (int c = 0; c < 256; c++) {
		char text[8] = { 'k', 'Q', '@', (char)c, '\n', '.', '.', '.' };
		bool same = c == 'z' || c == 'Z';

		if ((litset_find(ls, text, 8, 0, NULL) == 0) != same && bad++ < 5)
			fprintf(stderr, "short literal, byte %d: %s\n", c, same ? "missed" : "matched");
	}
	CHECK_INTEQ(bad, 0);
	litset_free(ls);
}

/* A cased literal counts only in its own spelling, until it is added in
 * another spelling or in any case. */
static void
test_cased(void)
{
	const char *text = "retry 1 failed once\nFailed again\nFAILED tests/a_test.py::test_b\n";
	size_t len = strlen(text), li = 99;
	unsigned char hits[1] = { 0 };
	struct litset *ls = litset_new();

	CHECK_INTEQ(litset_add_cased(ls, "FAILED ", 7, 0), 0);
	litset_build(ls, NULL, 0);
	CHECK_INTEQ(litset_find(ls, text, len, 0, &li), strstr(text, "FAILED ") - text);
	CHECK_INTEQ(li, 0);
	CHECK_INTEQ(litset_line_hits(ls, "x failed y", 10, hits), 0);
	CHECK_INTEQ(hits[0], 0);
	CHECK_INTEQ(litset_line_hits(ls, "x FAILED y", 10, hits), 1);
	CHECK_INTEQ(hits[0], 1);
	litset_free(ls);

	ls = litset_new();
	litset_add_cased(ls, "FAILED ", 7, 0);
	litset_add_cased(ls, "FAILED ", 7, 1);   /* the same spelling: still cased */
	litset_build(ls, NULL, 0);
	CHECK_INTEQ(litset_count(ls), 1);
	CHECK_INTEQ(litset_find(ls, text, len, 0, NULL), strstr(text, "FAILED ") - text);
	litset_free(ls);

	ls = litset_new();
	litset_add_cased(ls, "FAILED ", 7, 0);
	litset_add_cased(ls, "Failed ", 7, 1);   /* two spellings: any case */
	litset_build(ls, NULL, 0);
	CHECK_INTEQ(litset_find(ls, text, len, 0, NULL), strstr(text, "failed ") - text);
	litset_free(ls);

	ls = litset_new();
	litset_add_cased(ls, "FAILED ", 7, 0);
	litset_add(ls, "failed ", 7, 1);         /* and in any case */
	litset_build(ls, NULL, 0);
	CHECK_INTEQ(litset_find(ls, text, len, 0, NULL), strstr(text, "failed ") - text);
	litset_free(ls);
}

static void
test_add_rules(void)
{
	struct litset *ls = litset_new();
	size_t n, len;
	const unsigned *ids;

	CHECK_INTEQ(litset_add(ls, "abc", 3, 0), -1);
	CHECK_INTEQ(litset_add(ls, "", 0, 0), -1);
	CHECK_INTEQ(litset_shortest(ls), 0);
	CHECK_INTEQ(litset_add(ls, "Error", 5, 1), 0);
	CHECK_INTEQ(litset_add(ls, "ERROR", 5, 2), 0);   /* same literal, new id */
	CHECK_INTEQ(litset_add(ls, "error", 5, 2), 0);   /* same id again: no-op */
	CHECK_INTEQ(litset_add(ls, "errors", 6, 1), 0);
	CHECK_INTEQ(litset_count(ls), 2);
	CHECK_INTEQ(litset_shortest(ls), 5);
	CHECK_STREQ(litset_literal(ls, 0, &len), "error");
	CHECK_INTEQ(len, 5);
	ids = litset_ids(ls, 0, &n);
	CHECK_INTEQ(n, 2);
	CHECK(n == 2 && ids[0] == 1 && ids[1] == 2);
	/* Before build nothing is found; after build adding is refused. */
	CHECK_INTEQ(litset_find(ls, "error", 5, 0, NULL), 5);
	litset_build(ls, "some sample text with error in it", 33);
	CHECK(litset_stride(ls) == 1 || litset_stride(ls) == 2);
	CHECK_INTEQ(litset_add(ls, "warning", 7, 3), -1);
	CHECK_INTEQ(litset_find(ls, "an ErRoR", 8, 0, NULL), 3);
	litset_free(ls);
	litset_free(NULL);

	/* An empty set finds nothing. */
	ls = litset_new();
	litset_build(ls, NULL, 0);
	CHECK_INTEQ(litset_find(ls, "anything at all", 15, 0, NULL), 15);
	CHECK_INTEQ(litset_stride(ls), 0);
	litset_free(ls);
}

static void
test_edges(void)
{
	static const char *const lits[] = { "abcd", "bcde", "cdefgh", "zzzz" };
	struct litset *ls = fixture_litset(lits, ARRAY_LEN(lits), NULL, 0);
	size_t li = 99;
	/* NUL and high bytes are ordinary characters. */
	const char bin[] = { 'x', '\0', '\xff', 'z', 'z', 'z', 'z', '\x80' };
	unsigned char hits[1] = { 0 };

	CHECK_INTEQ(litset_stride(ls), 1);
	/* Overlapping literals: the earliest start wins. */
	CHECK_INTEQ(litset_find(ls, "abcdefgh", 8, 0, &li), 0);
	CHECK_INTEQ(li, 0);
	CHECK_INTEQ(litset_find(ls, "abcdefgh", 8, 1, &li), 1);
	CHECK_INTEQ(li, 1);
	CHECK_INTEQ(litset_find(ls, "abcdefgh", 8, 2, &li), 2);
	CHECK_INTEQ(li, 2);
	CHECK_INTEQ(litset_find(ls, "abcdefg", 7, 2, &li), 7);
	/* At the very start and the very end. */
	CHECK_INTEQ(litset_find(ls, "zzzz", 4, 0, &li), 0);
	CHECK_INTEQ(litset_find(ls, "...zzzz", 7, 0, &li), 3);
	CHECK_INTEQ(litset_find(ls, "...zzz", 6, 0, &li), 6);
	CHECK_INTEQ(litset_find(ls, bin, sizeof(bin), 0, &li), 3);
	CHECK_INTEQ(li, 3);
	CHECK_INTEQ(litset_find(ls, bin, sizeof(bin), 4, &li), sizeof(bin));

	CHECK_INTEQ(litset_line_hits(ls, "xxABCDEFGHzzzz", 14, hits), 4);
	CHECK_INTEQ(hits[0], 0x0f);
	hits[0] = 0;
	CHECK_INTEQ(litset_line_hits(ls, "xbcdex", 6, hits), 1);
	CHECK_INTEQ(hits[0], 0x02);
	hits[0] = 0;
	CHECK_INTEQ(litset_line_hits(ls, "abc", 3, hits), 0);
	CHECK_INTEQ(hits[0], 0);
	litset_free(ls);

	/* Look-alikes under |0x20 must not match: '@' vs '`', '[' vs '{'. */
	{
		static const char *const l2[] = { "a@b[c", "A_B^" };
		struct litset *l = fixture_litset(l2, ARRAY_LEN(l2), NULL, 0);

		CHECK_INTEQ(litset_find(l, "a`b{c", 5, 0, NULL), 5);
		CHECK_INTEQ(litset_find(l, "A@B[C", 5, 0, NULL), 0);
		CHECK_INTEQ(litset_find(l, "a\x7f" "b~", 4, 0, NULL), 4);
		CHECK_INTEQ(litset_find(l, "xa_b^", 5, 0, NULL), 1);
		litset_free(l);
	}
	/* Non-letters are not folded: 0xC0 and 0xE0 differ by 0x20. */
	{
		static const char *const l3[] = { "\xc0\xc1\xc2\xc3" };
		struct litset *l = fixture_litset(l3, 1, NULL, 0);

		CHECK_INTEQ(litset_find(l, "\xe0\xe1\xe2\xe3", 4, 0, NULL), 4);
		CHECK_INTEQ(litset_find(l, "-\xc0\xc1\xc2\xc3", 5, 0, NULL), 1);
		litset_free(l);
	}
}

/* The bytes in-place sets point into, freed at the end. */
static char **kept;
static size_t nkept;

static void
kept_release(void)
{
	for (size_t i = 0; i < nkept; i++)
		free(kept[i]);
	free(kept);
}

/*
 * The set as the rules cache gives it back: saved and loaded, copied or in
 * place (every other call). Saving the loaded set again gives the same
 * bytes, no shorter piece of them loads at all, and in place they must
 * start at a multiple of 4.
 */
static struct litset *
reloaded(struct litset *ls, int *bad)
{
	static unsigned calls;
	struct buf a = BUF_INIT, b = BUF_INIT;
	struct litset *back;
	bool in_place = calls++ % 2;
	char *bytes = NULL, *odd;

	litset_save(ls, &a);
	if (in_place) {
		bytes = malloc(a.len + 1);
		memcpy(bytes, a.data, a.len);
		kept = realloc(kept, (nkept + 1) * sizeof(*kept));
		kept[nkept++] = bytes;
		back = litset_load_in_place(bytes, a.len, 256);
	} else {
		back = litset_load(a.data, a.len, 256);
	}
	if (!back) {
		if ((*bad)++ < 5)
			fprintf(stderr, "a saved set did not load (%zu bytes)\n", a.len);
		buf_release(&a);
		return ls;
	}
	litset_save(back, &b);
	if ((a.len != b.len || memcmp(a.data, b.data, a.len) != 0) && (*bad)++ < 5)
		fprintf(stderr, "a loaded set saves other bytes\n");
	for (size_t cut = 0; cut < a.len; cut += 1 + cut / 8) {
		struct litset *part = in_place ? litset_load_in_place(bytes, cut, 256)
					       : litset_load(a.data, cut, 256);

		if (part && (*bad)++ < 5)
			fprintf(stderr, "%zu of %zu bytes loaded\n", cut, a.len);
		litset_free(part);
	}
	odd = malloc(a.len + 1);
	memcpy(odd + 1, a.data, a.len);
	if (litset_load_in_place(odd + 1, a.len, 256) && (*bad)++ < 5)
		fprintf(stderr, "bytes at an odd address loaded in place\n");
	free(odd);
	buf_release(&a);
	buf_release(&b);
	litset_free(ls);
	return back;
}

/*
 * Random literals and buffers; every find and line_hits result is compared
 * with the naive search. stride 0 lets build choose; scalar forces the
 * portable probe. Returns the number of disagreements.
 */
/* The occurrences litset_line_each() reports, as (literal, position) pairs. */
struct each_log {
	size_t (*at)[2];
	size_t n;
};

static void
log_each(void *arg, size_t lit, size_t pos)
{
	struct each_log *e = arg;

	e->at = realloc(e->at, (e->n + 1) * sizeof(*e->at));
	e->at[e->n][0] = lit;
	e->at[e->n][1] = pos;
	e->n++;
}

static int
differential(int rounds, int alphabet, size_t stride, bool scalar)
{
	static const char small[] = "abAB";
	static const char text[] = "abcdefghij ERROR:._-";
	int bad = 0;

	for (int r = 0; r < rounds; r++) {
		size_t nl = 1 + rnd_below(r % 7 == 0 ? 200 : 30);
		size_t minlen = 4 + (stride > 1 ? stride - 1 : 0) + rnd_below(4);
		size_t blen = rnd_below(r % 13 == 0 ? 3000 : 300);
		char **lits = malloc(nl * sizeof(*lits));
		size_t *lens = malloc(nl * sizeof(*lens));
		char *buf = malloc(blen + 1);
		unsigned char hits[32], want[32];
		struct litset *ls = litset_new();
		size_t q = 0, li = 0;

		for (size_t i = 0; i < blen; i++) {
			if (alphabet == 0)
				buf[i] = small[rnd_below(4)];
			else if (alphabet == 1)
				buf[i] = text[rnd_below(sizeof(text) - 1)];
			else
				buf[i] = (char)rnd_below(256);
		}
		for (size_t i = 0; i < nl; i++) {
			size_t m = minlen + rnd_below(rnd_below(4) == 0 ? 40 : 8);

			lits[i] = malloc(m + 1);
			lens[i] = m;
			if (blen >= m && rnd_below(2)) {
				/* A piece of the buffer, case-flipped. */
				size_t at = rnd_below(blen - m + 1);

				for (size_t k = 0; k < m; k++) {
					int c = (unsigned char)buf[at + k];

					if (rnd_below(2) && c >= 'a' && c <= 'z')
						c -= 32;
					lits[i][k] = (char)c;
				}
			} else {
				for (size_t k = 0; k < m; k++)
					lits[i][k] = alphabet == 0 ? small[rnd_below(4)]
						: alphabet == 1 ? text[rnd_below(sizeof(text) - 1)]
						: (char)rnd_below(256);
			}
			lits[i][m] = '\0';
			litset_add(ls, lits[i], m, (unsigned)(i % 256));
		}
		litset_tune(ls, stride, scalar);
		if (r % 16 == 0) {
			/* A sample big enough to be used: windows and stride
			 * are then chosen from it (80 KiB of the same alphabet
			 * plus this buffer's text). */
			size_t sl = 80u << 10;
			char *smp = malloc(sl);

			for (size_t i = 0; i < sl; i++)
				smp[i] = blen && rnd_below(2) ? buf[rnd_below(blen)]
					: text[rnd_below(sizeof(text) - 1)];
			litset_build(ls, smp, sl);
			free(smp);
		} else if (rnd_below(2)) {
			litset_build(ls, buf, blen);
		} else {
			litset_build(ls, NULL, 0);
		}
		if (rnd_below(2))
			ls = reloaded(ls, &bad);
		if (stride && litset_stride(ls) != stride && bad++ < 5)
			fprintf(stderr, "round %d: stride %zu, want %zu\n", r, litset_stride(ls), stride);

		/* Every occurrence position, in order, from a random start. */
		q = rnd_below(4) == 0 ? rnd_below(blen + 1) : 0;
		for (;;) {
			size_t want_q = naive_find(lits, lens, nl, buf, blen, q);
			size_t got = litset_find(ls, buf, blen, q, &li);

			if (got != want_q) {
				if (bad++ < 5)
					fprintf(stderr, "round %d alphabet %d: find from %zu: got %zu, want %zu\n",
						r, alphabet, q, got, want_q);
				break;
			}
			if (got == blen)
				break;
			{
				size_t ll;
				const char *lit = litset_literal(ls, li, &ll);

				if (!at_fold(buf, blen, got, lit, ll)) {
					if (bad++ < 5)
						fprintf(stderr, "round %d: wrong literal index\n", r);
					break;
				}
			}
			q = got + 1;
		}

		/* A search that must stop early (the walk's range of the
		 * file): its last probes are read past the range's end. */
		for (int k = 0; k < 8 && blen; k++) {
			size_t from = rnd_below(blen), stop = from + 1 + rnd_below(24);
			size_t want_q = naive_find(lits, lens, nl, buf, blen, from);
			size_t got = litset_find_range(ls, buf, blen, from, stop, NULL);

			if (want_q >= stop)
				want_q = blen;
			if (got != want_q && bad++ < 5)
				fprintf(stderr, "round %d alphabet %d: range [%zu, %zu): got %zu, want %zu\n",
					r, alphabet, from, stop, got, want_q);
		}

		/* line_hits over the whole buffer and over a random slice. */
		for (int pass = 0; pass < 2; pass++) {
			size_t a = pass ? rnd_below(blen + 1) : 0;
			size_t b = pass ? a + rnd_below(blen - a + 1) : blen;

			memset(hits, 0, sizeof(hits));
			memset(want, 0, sizeof(want));
			litset_line_hits(ls, buf + a, b - a, hits);
			for (size_t i = 0; i < nl; i++)
				for (size_t k = a; k < b; k++)
					if (at_fold(buf, b, k, lits[i], lens[i])) {
						want[(i % 256) >> 3] |= (unsigned char)(1u << (i % 256 & 7));
						break;
					}
			if (memcmp(hits, want, sizeof(hits)) != 0 && bad++ < 5)
				fprintf(stderr, "round %d alphabet %d: line_hits differ\n", r, alphabet);
		}

		/* From the first occurrence on: the same occurrences, in the same order. */
		{
			struct each_log whole = { 0 }, part = { 0 };
			size_t first = litset_find(ls, buf, blen, 0, NULL);

			litset_line_each(ls, buf, blen, log_each, &whole);
			litset_line_each_from(ls, buf, blen, first, log_each, &part);
			if ((whole.n != part.n || (whole.n &&
			     memcmp(whole.at, part.at, whole.n * sizeof(*whole.at)) != 0)) && bad++ < 5)
				fprintf(stderr, "round %d alphabet %d: line_each from %zu: %zu occurrences, want %zu\n",
					r, alphabet, first, part.n, whole.n);
			free(whole.at);
			free(part.at);
		}

		litset_free(ls);
		for (size_t i = 0; i < nl; i++)
			free(lits[i]);
		free(lits);
		free(lens);
		free(buf);
	}
	return bad;
}

/* A saved set finds what the built one does, a cased literal in its spelling only. */
static void
test_save_load(void)
{
	static const char *const lits[] = { "error", "vmem limit", "tpu_custom_call" };
	static const char text[] = "an Error over the VMEM LIMIT in tpu_custom_call, FAILED";
	struct litset *ls = fixture_litset(lits, ARRAY_LEN(lits), NULL, 0);
	struct litset *cased = litset_new(), *empty = litset_new();
	int bad = 0;
	size_t li = 0;

	ls = reloaded(ls, &bad);
	CHECK_INTEQ(bad, 0);
	CHECK_INTEQ(litset_count(ls), 3);
	CHECK_INTEQ(litset_find(ls, text, strlen(text), 0, &li), 3);
	CHECK_INTEQ(litset_find(ls, text, strlen(text), 4, NULL), 18);
	CHECK_INTEQ(litset_find(ls, text, strlen(text), 19, NULL), 32);
	litset_add_cased(cased, "FAILED", 6, 7);
	litset_add(cased, "nothing here", 12, 8);
	litset_build(cased, NULL, 0);
	cased = reloaded(cased, &bad);
	CHECK_INTEQ(bad, 0);
	CHECK_INTEQ(litset_find(cased, text, strlen(text), 0, NULL), strlen(text) - 6);
	CHECK_INTEQ(litset_find(cased, "failed", 6, 0, NULL), 6);
	litset_build(empty, NULL, 0);
	empty = reloaded(empty, &bad);
	CHECK_INTEQ(bad, 0);
	CHECK_INTEQ(litset_find(empty, text, strlen(text), 0, NULL), strlen(text));
	CHECK(litset_load("LSET", 4, 256) == NULL);
	/* ids 7 and 8 are in the saved set: a limit below them refuses it */
	{
		struct buf b = BUF_INIT;
		struct litset *back;

		litset_save(cased, &b);
		CHECK((back = litset_load(b.data, b.len, 8)) == NULL);
		litset_free(back);
		CHECK((back = litset_load(b.data, b.len, 9)) != NULL);
		litset_free(back);
		buf_release(&b);
	}
	litset_free(ls);
	litset_free(cased);
	litset_free(empty);
}

static void
test_differential(void)
{
	/* Every stride, both probes (the AVX2 one only where the CPU has it),
	 * three alphabets: few letters (many overlaps), log-like text, and
	 * all 256 byte values. */
	for (int seed = 1; seed <= 2; seed++)
		for (size_t stride = 0; stride <= 8; stride++)
			for (int scalar = 0; scalar <= 1; scalar++) {
				rng_state = 0x9E3779B97F4A7C15ull * (uint64_t)(seed * 100 + (int)stride * 2 + scalar);
				CHECK_INTEQ(differential(70, 0, stride, scalar), 0);
				CHECK_INTEQ(differential(70, 1, stride, scalar), 0);
				CHECK_INTEQ(differential(70, 2, stride, scalar), 0);
			}
}

int
main(void)
{
	test_basic();
	test_fold_lanes();
	test_cased();
	test_add_rules();
	test_edges();
	test_save_load();
	test_differential();
	kept_release();
	return TEST_DONE();
}
