/* SPDX-License-Identifier: MIT */
/*
 * Engine tests on the fixture rules (tests/fixtures/rules): scoring, all/none
 * composition, ingestion (CRLF, ANSI, prefixes, wraps, NUL bytes, long
 * lines), and that the verdict does not depend on how the log was chunked.
 */
#include <stdlib.h>
#include <string.h>

#include "pt/classify.h"
#include "pt/rules.h"
#include "rules_fixture.h"
#include "test.h"

static void
classify_chunked(const struct ruleset *rs, const char *log, size_t len, size_t chunk,
		 struct verdict *v)
{
	struct classifier *c = classifier_new(rs);

	for (size_t off = 0; off < len; off += chunk)
		classifier_feed(c, log + off, len - off < chunk ? len - off : chunk);
	classifier_finish(c, v);
	classifier_free(c);
}

static const char *oom_log =
	"Traceback (most recent call last):\n"
	"  File \"/home/u/k.py\", line 12, in <module>\n"
	"    out = pl.pallas_call(kernel)(x)\n"
	"  File \"/usr/lib/python3/site-packages/jax/_src/x.py\", line 3, in f\n"
	"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem. Used 20.0M of 16.0M vmem.\n"
	"Operator: op_name=\"jit(f)/pallas_call\"\n";

static void
test_basic(const struct ruleset *rs)
{
	struct verdict v;

	classify_text(rs, oom_log, strlen(oom_log), &v);
	CHECK_INTEQ(v.cls, CLASS_CAPACITY);
	CHECK_STREQ(v.subkind, "scoped-vmem");
	CHECK_STREQ(v.message, "needs 20.0M of 16.0M");
	CHECK_STREQ(vars_get(&v.vars, "used"), "20.0M");
	CHECK_INTEQ(v.key_lineno, 5);
	CHECK_STREQ(v.loc.file, "/home/u/k.py");
	CHECK_INTEQ(v.loc.line, 12);
	CHECK_INTEQ(v.nlines, 6);
	CHECK(v.confidence > 0.8);
	verdict_release(&v);
}

static void
test_none_makes_unknown(const struct ruleset *rs)
{
	const char *log = "x\nRESOURCE_EXHAUSTED: Ran out of memory in memory space vmem. Used 20.0M of 16.0M vmem.\n";
	struct verdict v;

	classify_text(rs, log, strlen(log), &v);
	CHECK_INTEQ(v.cls, CLASS_UNKNOWN);
	CHECK_STREQ(v.reason, "a VMEM OOM of an ordinary XLA fusion, not a Pallas kernel");
	verdict_release(&v);
	classify_text(rs, "all fine\nnothing here\n", 22, &v);
	CHECK_INTEQ(v.cls, CLASS_UNKNOWN);
	CHECK(v.reason && strstr(v.reason, "no error line in 2 lines"));
	CHECK(v.top_rule == NULL);
	verdict_release(&v);
}

static void
test_chunk_invariance(const struct ruleset *rs)
{
	static const size_t chunks[] = { 1, 2, 7, 64, 4096 };
	struct verdict ref, v;

	classify_text(rs, oom_log, strlen(oom_log), &ref);
	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		classify_chunked(rs, oom_log, strlen(oom_log), chunks[i], &v);
		CHECK_INTEQ(v.cls, ref.cls);
		CHECK_INTEQ(v.nev, ref.nev);
		CHECK_INTEQ(v.key_lineno, ref.key_lineno);
		CHECK_STREQ(v.fingerprint, ref.fingerprint);
		verdict_release(&v);
	}
	verdict_release(&ref);
}

/* Line numbers count every newline between candidates, whatever the
 * lengths of the lines in between (gaps of 0 to 200 bytes, so the counter
 * sees both whole vectors and tails), and through blank lines. */
static void
test_line_numbers(const struct ruleset *rs)
{
	size_t cap = 4 << 20, len = 0, lines = 0;
	char *log = malloc(cap);
	struct verdict v;

	for (size_t i = 0; i < 20000; i++, lines++) {
		size_t n = (i * 7919) % 201;

		memset(log + len, i % 3 ? 'a' : ' ', n);
		len += n;
		log[len++] = '\n';
	}
	len += (size_t)sprintf(log + len, "RACE DETECTED\n");
	classify_text(rs, log, len, &v);
	CHECK_INTEQ(v.key_lineno, lines + 1);
	verdict_release(&v);
	/* runs of blank lines long enough to fill the counter's byte lanes
	 * many times over, and newlines in every byte of a vector */
	len = lines = 0;
	for (size_t run = 0; run < 40; run++) {
		size_t n = 1000 + run * 997;

		memset(log + len, '\n', n);
		len += n;
		lines += n;
		len += (size_t)sprintf(log + len, "x\n");
		lines++;
	}
	len += (size_t)sprintf(log + len, "RACE DETECTED\n");
	classify_text(rs, log, len, &v);
	CHECK_INTEQ(v.key_lineno, lines + 1);
	verdict_release(&v);
	free(log);
}

static void
test_decorations(const struct ruleset *rs)
{
	const char *crlf = "a\r\nRACE DETECTED\r\n";
	const char *ansi = "\033[31mRACE\033[0m DETECTED\n";
	const char *ansi_split = "\033[1;31mMismatched\033[0m elements: 3 / 100\n";
	const char *pytest = "E   Mismatched elements: 3 / 100 (3%)\n";
	const char *logger = "(EngineCore pid=123) ERROR 01-02 12:00:00 [x.py:1] Mismatched elements: 5 / 9\n";
	struct verdict v;

	classify_text(rs, crlf, strlen(crlf), &v);
	CHECK_INTEQ(v.cls, CLASS_SYNCHRONIZATION);
	CHECK_STREQ(v.key_line, "RACE DETECTED");
	verdict_release(&v);
	classify_text(rs, ansi, strlen(ansi), &v);
	CHECK_INTEQ(v.cls, CLASS_SYNCHRONIZATION);
	verdict_release(&v);
	/* an escape sequence split between reads is still stripped */
	for (size_t chunk = 1; chunk < 12; chunk++) {
		classify_chunked(rs, ansi_split, strlen(ansi_split), chunk, &v);
		CHECK_STREQ(v.key_line, "Mismatched elements: 3 / 100");
		verdict_release(&v);
	}
	classify_text(rs, pytest, strlen(pytest), &v);
	CHECK_INTEQ(v.cls, CLASS_NUMERICS);
	CHECK_STREQ(v.key_line, "Mismatched elements: 3 / 100 (3%)");
	verdict_release(&v);
	classify_text(rs, logger, strlen(logger), &v);
	CHECK_STREQ(v.key_line, "Mismatched elements: 5 / 9");
	CHECK_STREQ(vars_get(&v.vars, "bad"), "5");
	verdict_release(&v);
}

static void
test_wrapped(const struct ruleset *rs)
{
	const char *log = "ValueError: the last two dimensions must be divisible by 8 and 128 respectively, or\n"
			  "be equal; has block shape (4, 384), array shape (1024, 4096)\n";
	struct verdict v;

	classify_text(rs, log, strlen(log), &v);
	CHECK_INTEQ(v.cls, CLASS_LAYOUT);
	CHECK_STREQ(vars_get(&v.vars, "block"), "(4, 384)");
	CHECK_INTEQ(v.key_lineno, 1);
	verdict_release(&v);
}

static void
test_hostile_bytes(const struct ruleset *rs)
{
	static const char head[] = "bin\0ary \xff\xfe\x80 junk\n";
	size_t big = 300 * 1024, len = sizeof(head) - 1;
	char *log = malloc(big + 200);
	struct verdict v;

	memcpy(log, head, len);
	memset(log + len, 'x', big);
	len += big;
	log[len++] = '\n';
	len += (size_t)snprintf(log + len, 100, "RACE DETECTED\nMismatched elements: 1 / 2\n");
	classify_chunked(rs, log, len, 4096, &v);
	CHECK_INTEQ(v.long_lines, 1);
	CHECK_INTEQ(v.nlines, 4);
	CHECK_INTEQ(v.scores[CLASS_SYNCHRONIZATION].first_line, 3);
	CHECK_INTEQ(v.scores[CLASS_NUMERICS].first_line, 4);
	verdict_release(&v);
	free(log);
}

/*
 * A 90 KB line fits in the window when it comes in one piece and not when
 * it comes in small ones; either way it is matched on its first 64 KiB
 * only (its RACE DETECTED, past 64 KiB, is not evidence), it counts as one
 * long line, and the line after it is not joined with the line before it.
 */
static void
test_long_line_any_chunking(const struct ruleset *rs)
{
	static const size_t chunks[] = { 4096, 100000, 200000 };
	size_t big = 90 * 1024, len = 0;
	char *log = malloc(big + 300);

	len += (size_t)snprintf(log, 100, "Mismatched elements: 1 / 2\n");
	memset(log + len, 'y', big);
	memcpy(log + len + 70 * 1024, "RACE DETECTED", 13);
	len += big;
	log[len++] = '\n';
	len += (size_t)snprintf(log + len, 100, "ok\n");
	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		struct verdict v;

		classify_chunked(rs, log, len, chunks[i], &v);
		CHECK_INTEQ(v.long_lines, 1);
		CHECK_INTEQ(v.nlines, 3);
		CHECK_INTEQ(v.cls, CLASS_NUMERICS);
		CHECK(v.scores[CLASS_SYNCHRONIZATION].score == 0.0);
		verdict_release(&v);
	}
	free(log);
}

/* A NUL in an evidence line shows as U+FFFD; the text after it is kept. */
static void
test_nul_in_evidence(const struct ruleset *rs)
{
	static const char log[] = "x\0y RACE DETECTED z\0w\n";
	struct verdict v;

	classify_text(rs, log, sizeof(log) - 1, &v);
	CHECK_INTEQ(v.cls, CLASS_SYNCHRONIZATION);
	CHECK_INTEQ(v.nev, 1);
	if (v.nev == 1) {
		const struct evidence *e = &v.ev[0];

		CHECK_STREQ(e->text, "x\xef\xbf\xbdy RACE DETECTED z\xef\xbf\xbdw");
		CHECK(e->mend > e->mstart && strncmp(e->text + e->mstart, "RACE DETECTED", 13) == 0);
	}
	verdict_release(&v);
}

static void
test_tie_and_match_limit(const struct ruleset *rs)
{
	const char *tie = "Mismatched elements: 1 / 2\nRACE DETECTED\n";
	char slow[200];
	struct verdict v;

	/* equal weights: the earlier line (the innermost error) wins */
	classify_text(rs, tie, strlen(tie), &v);
	CHECK_INTEQ(v.cls, CLASS_NUMERICS);
	CHECK_INTEQ(v.runner_up, CLASS_SYNCHRONIZATION);
	verdict_release(&v);
	/* the trailing 'b' defeats PCRE2's required-character shortcut */
	snprintf(slow, sizeof(slow), "xyzzy%0*dc b\nRACE DETECTED\n", 40, 0);
	for (char *p = slow + 5; *p == '0'; p++)
		*p = 'a';
	classify_text(rs, slow, strlen(slow), &v);
	CHECK(v.match_errors >= 1);
	CHECK_INTEQ(v.cls, CLASS_SYNCHRONIZATION);
	verdict_release(&v);
}

int
main(void)
{
	struct ruleset *rs = load_rules_of("tests/fixtures/rules");

	test_basic(rs);
	test_none_makes_unknown(rs);
	test_chunk_invariance(rs);
	test_line_numbers(rs);
	test_long_line_any_chunking(rs);
	test_nul_in_evidence(rs);
	test_decorations(rs);
	test_wrapped(rs);
	test_hostile_bytes(rs);
	test_tie_and_match_limit(rs);
	ruleset_free(rs);
	return TEST_DONE();
}
