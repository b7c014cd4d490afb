/* SPDX-License-Identifier: MIT */
/*
 * Settling (pt/engine.h: patterns that can no longer change the verdict
 * stop running) must never change a verdict. Each log here is built to
 * tempt it: an early rule that fires for good and a later, more specific
 * error; an early fallback-tier reading and a later specific rule; the
 * last error line of a log no rule knows; error lines after a rule fired;
 * library frames around the user's; a wrapped message after everything
 * else has settled. Each is read as pallas-triage reads it (in 4 KiB
 * pieces) and exhaustively (every pattern to its first hit), with the
 * shipped rules, and the --json documents must be the same byte for byte;
 * where there is something to settle, the settled reading must also have
 * done less (candidate lines and pattern runs), or the test proves nothing.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt/advice.h"
#include "pt/buf.h"
#include "pt/classify.h"
#include "pt/diagnosis.h"
#include "pt/json.h"
#include "pt/litset.h"
#include "pt/rules.h"
#include "rules_fixture.h"
#include "test.h"

static void PT_PRINTF(2, 3)
add(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

/*
 * n lines of what fills a Pallas project's CI log: Mosaic IR (context
 * evidence), library frames, pytest lines, training steps. Every fifth
 * line is a candidate of some kind.
 */
static void
filler(struct buf *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		switch (i % 10) {
		case 0:
			add(b, "    %%%zu = vector.load %%arg1[%%c0, %%c0] : memref<8x128xf32, #tpu.memory_space<vmem>>, vector<8x128xf32>\n", i);
			break;
		case 3:
			add(b, "  File \"/opt/venv/lib/python3.11/site-packages/jax/_src/pallas/mosaic/lowering.py\", line %zu, in lower_jaxpr_to_module\n", i % 3000 + 1);
			break;
		case 5:
			add(b, "tests/pallas/ops_test.py::OpsTest::test_matmul_%zu PASSED [ 50%%]\n", i);
			break;
		default:
			add(b, "INFO:absl:Step %zu: loss=0.1234 lr=1.000e-04\n", i);
			break;
		}
}

/* The same without a Pallas kernel in sight, and with handled errors:
 * what no rule reads as a failure. */
static void
plain_filler(struct buf *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		switch (i % 10) {
		case 3:
			add(b, "  File \"/opt/venv/lib/python3.11/site-packages/flax/core/scope.py\", line %zu, in apply\n", i % 3000 + 1);
			break;
		case 7:
			add(b, "KeyError: 'shard_%05zu' (handled: read from disk)\n", i);
			break;
		default:
			add(b, "INFO:absl:Step %zu: loss=0.1234 lr=1.000e-04\n", i);
			break;
		}
}

/* How much of a log each classifier_feed() gets: a pipe's reads, or (SIZE_MAX) a file's first block. */
static size_t feed_chunk = 4096;

static char *
verdict_json(const struct ruleset *rs, const char *log, size_t len, bool exhaustive,
	     size_t *runs)
{
	struct classifier *c = classifier_new(rs);
	struct buf b = BUF_INIT;
	struct verdict v;
	struct json *j;

	if (exhaustive)
		classifier_exhaustive(c);
	for (size_t off = 0; off < len; off += feed_chunk)
		classifier_feed(c, log + off, len - off < feed_chunk ? len - off : feed_chunk);
	classifier_finish(c, &v);
	*runs = classifier_work(c);
	classifier_free(c);
	verdict_derive(rs, &v);
	j = diagnosis_json(rs, &v, "log");
	json_write(j, &b);
	json_free(j);
	verdict_release(&v);
	return buf_detach(&b, NULL);
}

/* The same document both ways, less work settled when `less`; returns the document. */
static char *
check_same(const struct ruleset *rs, const char *name, const struct buf *log, bool less)
{
	size_t fast_runs, full_runs;
	char *fast = verdict_json(rs, log->data, log->len, false, &fast_runs);
	char *full = verdict_json(rs, log->data, log->len, true, &full_runs);

	if (strcmp(fast, full) != 0)
		fprintf(stderr, "%s: settled:\n%s\nexhaustive:\n%s\n", name, fast, full);
	CHECK(strcmp(fast, full) == 0);
	if (less && fast_runs >= full_runs)
		fprintf(stderr, "%s: work %zu settled, %zu exhaustive\n", name, fast_runs, full_runs);
	CHECK(!less || fast_runs < full_runs);
	free(full);
	return fast;
}

static bool
has(const char *json, const char *needle)
{
	return strstr(json, needle) != NULL;
}

/* A numerics rule fires for good at the start; the layout error 6,000 lines
 * later is the stronger evidence and must still be found. */
static void
test_early_rule_later_error(const struct ruleset *rs)
{
	struct buf b = BUF_INIT;
	char *json;

	add(&b, "    out = pl.pallas_call(kernel, out_shape=o)(x)\n");
	add(&b, "Mismatched elements: 3 / 100 (3%%)\n");
	filler(&b, 6000);
	add(&b, "ValueError: The Pallas TPU lowering currently requires that the last two dimensions of your block shape are divisible by 8 and 128 respectively, or be equal to the respective dimensions of the overall array. In pallas_call add_kernel, got block shape (12, 96), array shape (48, 384).\n");
	filler(&b, 300);
	json = check_same(rs, "early rule, later error", &b, true);
	CHECK(has(json, "\"rule\": \"layout.block-not-divisible\""));
	free(json);
	buf_release(&b);
}

/* The fallback tier reads an early lowering error; a specific rule later
 * outranks it, and until one fires for good the fallback tier must run. */
static void
test_fallback_then_specific(const struct ruleset *rs)
{
	struct buf b = BUF_INIT;
	char *json;

	add(&b, "  File \"/opt/venv/lib/python3.11/site-packages/jax/_src/pallas/mosaic/lowering.py\", line 939, in _dot_general_lowering_rule\n");
	add(&b, "jax._src.pallas.mosaic.lowering.LoweringException: Exception while lowering eqn: a = dot_general b c\n");
	filler(&b, 5000);
	add(&b, "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: unsupported shape cast\n");
	filler(&b, 5000);
	json = check_same(rs, "fallback, then specific", &b, true);
	CHECK(has(json, "\"tier\": \"specific\""));
	free(json);
	buf_release(&b);
}

/* No rule knows any error of this log: the reason names its last error
 * line, the very last line (nothing settles: every error line counts). */
static void
test_last_error_line(const struct ruleset *rs)
{
	struct buf b = BUF_INIT;
	char *json;

	plain_filler(&b, 8000);
	add(&b, "RuntimeError: the sweep ended with a status nobody expected\n");
	json = check_same(rs, "the last error line", &b, false);
	CHECK(has(json, "\"class\": \"unknown\""));
	CHECK(has(json, "line 8001 of 8001"));
	free(json);
	buf_release(&b);
}

/* A rule fires for good at once; thousands of error lines follow, the
 * last one different: the fingerprint is the rule's key line's. */
static void
test_errors_after_a_rule(const struct ruleset *rs)
{
	struct buf b = BUF_INIT;
	char *json;

	add(&b, "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space vmem. Used 70.51M of 64.00M vmem. Exceeded vmem capacity by 6.51M. custom_call_target=\"tpu_custom_call\"\n");
	plain_filler(&b, 50000);
	add(&b, "ValueError: something else entirely at the end\n");
	json = check_same(rs, "error lines after a rule", &b, true);
	CHECK(has(json, "\"class\": \"capacity\""));
	free(json);
	buf_release(&b);
}

/* Library frames before and after the user's, far into the log: the
 * location is the user's frame before the error. */
static void
test_user_frame(const struct ruleset *rs)
{
	struct buf b = BUF_INIT;
	char *json;

	add(&b, "    o_ref[...] = x_ref[...] + 1\n");
	filler(&b, 5000);
	add(&b, "Traceback (most recent call last):\n");
	add(&b, "  File \"/home/ci/proj/ops.py\", line 42, in add_one\n");
	add(&b, "    out = pl.pallas_call(add_kernel, out_shape=o)(x)\n");
	add(&b, "  File \"/opt/venv/lib/python3.11/site-packages/jax/_src/pallas/pallas_call.py\", line 1523, in _pallas_call_impl\n");
	add(&b, "  File \"/opt/venv/lib/python3.11/site-packages/jax/_src/core.py\", line 2390, in bind\n");
	add(&b, "NotImplementedError: Unimplemented primitive in Pallas TPU lowering for KernelType.TC: cumsum. Please file an issue at https://github.com/jax-ml/jax/issues/new/choose.\n");
	filler(&b, 5000);
	json = check_same(rs, "user frame", &b, true);
	CHECK(has(json, "\"file\": \"/home/ci/proj/ops.py\""));
	free(json);
	buf_release(&b);
}

/* Everything else has settled when a message comes hard-wrapped, its
 * continuation lines indented: the joins must still see it. */
static void
test_wrapped_late(const struct ruleset *rs)
{
	struct buf b = BUF_INIT;
	char *json;

	add(&b, "    out = pl.pallas_call(kernel, out_shape=o)(x)\n");
	add(&b, "Mismatched elements: 3 / 100 (3%%)\n");
	filler(&b, 6000);
	add(&b, "    ValueError: The Pallas TPU lowering currently requires that the last two\n");
	add(&b, "        dimensions of your block shape are divisible by 8 and 128 respectively,\n");
	add(&b, "        or be equal to the respective dimensions of the overall array. In\n");
	add(&b, "        pallas_call add_kernel, got block shape (12, 96), array shape (48, 384).\n");
	filler(&b, 300);
	json = check_same(rs, "wrapped, late", &b, true);
	CHECK(has(json, "\"rule\": \"layout.block-not-divisible\""));
	free(json);
	buf_release(&b);
}

/*
 * The fallback tier's lookahead patterns are tried only on subjects that
 * hold what the lookahead needs: its error word on the line, on a
 * neighbour after it or before it, in capitals, at the very end of a join.
 */
static void
test_lookahead_words(const struct ruleset *rs)
{
	struct buf b = BUF_INIT;
	char *json;

	add(&b, "    out = pl.pallas_call(kernel, out_shape=o)(x)\n");
	add(&b, "  the kernel is out of memory in its scratch buffers and then\n");
	add(&b, "    ran into a problem RUNTIMEERROR\n");
	filler(&b, 3000);
	add(&b, "note: the vmem budget of 16M is too large for\n");
	add(&b, "  this chip, see above; FAILED\n");
	json = check_same(rs, "lookahead words", &b, true);
	CHECK(has(json, "\"rule\": \"fallback.capacity-words\""));
	free(json);
	/* the error word only on the line before: the join both ways */
	buf_reset(&b);
	add(&b, "    out = pl.pallas_call(kernel, out_shape=o)(x)\n");
	filler(&b, 200);
	add(&b, "jax.errors.JaxRuntimeError: the kernel ran\n");
	add(&b, "  out of memory in its scratch buffers, then stopped\n");
	filler(&b, 200);
	json = check_same(rs, "the word before", &b, false);
	CHECK(has(json, "\"rule\": \"fallback.capacity-words\""));
	free(json);
	/* a line shorter than one 16-byte step, its word at its very end */
	buf_reset(&b);
	add(&b, "    out = pl.pallas_call(kernel, out_shape=o)(x)\n");
	add(&b, "ran out: FAILED\n");
	json = check_same(rs, "a short line", &b, false);
	CHECK(has(json, "\"rule\": \"fallback.capacity-words\""));
	free(json);
	/* each line is asked once per word, as the neighbour of the candidate
	 * lines around it (kept by line number): the error word is on the line
	 * after the capacity line, which no literal makes a candidate */
	buf_reset(&b);
	add(&b, "    out = pl.pallas_call(kernel, out_shape=o)(x)\n");
	filler(&b, 100);
	add(&b, "  the scratch buffers ran out of memory here\n");
	add(&b, "  and nothing more was done: FAILED\n");
	filler(&b, 100);
	json = check_same(rs, "the word after", &b, false);
	CHECK(has(json, "\"rule\": \"fallback.capacity-words\""));
	free(json);
	buf_release(&b);
}

/* Two pieces of one literal on a line: the first where no wrap could have
 * cut it, the second at the line's end, where one did; the lines after it
 * hold no whole piece, so only this line can find the message. */
static void
test_second_piece(const struct ruleset *rs)
{
	struct buf b = BUF_INIT;
	char *json;

	add(&b, "    out = pl.pallas_call(kernel, out_shape=o)(x)\n");
	add(&b, "ValueError: Cannot use communication, it says: Cannot use communication in\n");
	add(&b, "  pallas_call without\n");
	add(&b, "  shard_map.\n");
	json = check_same(rs, "a second piece", &b, false);
	CHECK(has(json, "\"rule\": \"sync.communication-without-shard-map\""));
	free(json);
	buf_release(&b);
}

/*
 * What fills a test suite's log costs little: pytest's result lines and
 * failure headers (`____ Class.test_x ____`), library frames, "failed" in
 * lower case. The numerics rule's captures (a test id, a source file) read
 * such lines, but only the first one they take matters, and captures are
 * never retried on joined lines, and "failed" is no candidate for the
 * case-sensitive `^FAILED `. What is left is a library frame line and one
 * try of the source-file capture on it: two units of work in five lines,
 * where "failed" made it four and joins eight.
 */
static void
test_suite_lines(const struct ruleset *rs)
{
	struct buf b = BUF_INIT;
	size_t lines = 0, runs;
	char *json;

	for (size_t i = 0; i < 20000; i++, lines += 5) {
		add(&b, "tests/pallas/ops_test.py::OpsTest::test_add_%zu PASSED [ 50%%]\n", i);
		add(&b, "  File \"/opt/venv/lib/python3.11/site-packages/flax/core/scope.py\", line %zu, in apply\n", i + 1);
		add(&b, "____________ OpsTest.test_add_%zu ____________\n", i);
		add(&b, "INFO:absl:retry %zu failed once, trying again\n", i);
		add(&b, "INFO:absl:Step %zu: loss=0.1234 lr=1.000e-04\n", i);
	}
	json = verdict_json(rs, b.data, b.len, false, &runs);
	if (runs >= lines / 2)
		fprintf(stderr, "suite lines: work %zu for %zu lines\n", runs, lines);
	CHECK(runs < lines / 2);
	free(json);
	buf_release(&b);
}

/* A case-sensitive literal still finds its line among lines that spell it
 * in another case, and an exhaustive reading (every literal in any case)
 * gives the same document. */
static void
test_cased_literal(const struct ruleset *rs)
{
	struct buf b = BUF_INIT;
	char *json;

	add(&b, "    out = pl.pallas_call(kernel, out_shape=o)(x)\n");
	for (size_t i = 0; i < 3000; i++)
		add(&b, "INFO:absl:retry %zu failed once, trying again\n", i);
	add(&b, "FAILED tests/pallas/softmax_test.py::SoftmaxTest::test_bf16 - AssertionError\n");
	add(&b, "Mismatched elements: 3 / 100 (3%%)\n");
	json = check_same(rs, "cased literal", &b, false);
	CHECK(has(json, "\"rule\": \"numerics.allclose-mismatch\""));
	CHECK(has(json, "tests/pallas/softmax_test.py::SoftmaxTest::test_bf16"));
	free(json);
	buf_release(&b);
}

/*
 * The rules' own first prefilter (what the rules cache keeps) gives the
 * verdict a build for the log gives: on a small log, where it is taken,
 * and on one long enough that its first block is a sample, where it is not.
 */
static void
test_rules_prefilter(struct ruleset *rs)
{
	for (int big = 0; big < 2; big++) {
		struct buf b = BUF_INIT;
		size_t runs;
		char *own, *theirs;

		add(&b, "    out = pl.pallas_call(kernel, out_shape=o)(x)\n");
		filler(&b, big ? 2000 : 10);
		add(&b, "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory "
			"space vmem. Used 70.51M of 64.00M vmem.\n");
		filler(&b, 20);
		CHECK(!rs->prefilter);
		CHECK(!big || litset_sample_matters(b.len));
		feed_chunk = big ? SIZE_MAX : 4096;
		own = verdict_json(rs, b.data, b.len, false, &runs);
		rs->prefilter = classify_prefilter_new(rs);
		theirs = verdict_json(rs, b.data, b.len, false, &runs);
		litset_free(rs->prefilter);
		rs->prefilter = NULL;
		feed_chunk = 4096;
		CHECK(has(own, "\"rule\": \"capacity.vmem-used-of-limit\""));
		if (strcmp(own, theirs) != 0)
			fprintf(stderr, "%s log: own prefilter:\n%s\nthe rules':\n%s\n",
				big ? "big" : "small", own, theirs);
		CHECK(strcmp(own, theirs) == 0);
		free(own);
		free(theirs);
		buf_release(&b);
	}
}

int
main(void)
{
	struct ruleset *rs = load_rules_of("rules");

	test_early_rule_later_error(rs);
	test_fallback_then_specific(rs);
	test_last_error_line(rs);
	test_errors_after_a_rule(rs);
	test_user_frame(rs);
	test_wrapped_late(rs);
	test_lookahead_words(rs);
	test_second_piece(rs);
	test_suite_lines(rs);
	test_cased_literal(rs);
	test_rules_prefilter(rs);
	ruleset_free(rs);
	return TEST_DONE();
}
