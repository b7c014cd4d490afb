/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for run_eval.c: the outcome of a run, the comparison of
 * repeated runs, the precision sweep's judgement, the evidence lines, the
 * attempt result and the ruled-out list. The real runs are in tests/run/.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "pt/run_eval.h"
#include "pt/xalloc.h"
#include "test.h"

/* A record by hand: how it ended, its class, its fingerprint and max_abs. */
static void
rec(struct run_record *r, enum runner_end end, int code, enum pt_class cls, const char *fp,
    const char *max_abs)
{
	memset(r, 0, sizeof(*r));
	r->res.end = end;
	r->res.code = end == RUNNER_EXITED ? code : 0;
	r->res.sig = end == RUNNER_SIGNALED ? code : 0;
	r->cls = cls;
	r->fingerprint = fp ? xstrdup(fp) : NULL;
	r->numbers[0] = max_abs ? xstrdup(max_abs) : NULL;
}

static void
release(struct run_record *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		run_record_release(&r[i]);
}

static void
test_outcome(void)
{
	struct run_record r;

	rec(&r, RUNNER_EXITED, 0, CLASS_UNKNOWN, "unknown-1", NULL);
	CHECK_INTEQ(run_outcome_of(&r), OUTCOME_PASS);
	run_record_release(&r);
	rec(&r, RUNNER_EXITED, 0, CLASS_NUMERICS, "numerics-1", "0.5");
	CHECK_INTEQ(run_outcome_of(&r), OUTCOME_FAIL);    /* exit 0 but evidence */
	run_record_release(&r);
	rec(&r, RUNNER_EXITED, 1, CLASS_UNKNOWN, "unknown-1", NULL);
	CHECK_INTEQ(run_outcome_of(&r), OUTCOME_FAIL);
	run_record_release(&r);
	rec(&r, RUNNER_TIMED_OUT, 0, CLASS_SYNCHRONIZATION, "s", NULL);
	CHECK_INTEQ(run_outcome_of(&r), OUTCOME_HANG);
	run_record_release(&r);
	rec(&r, RUNNER_SIGNALED, SIGSEGV, CLASS_UNKNOWN, "u", NULL);
	CHECK_INTEQ(run_outcome_of(&r), OUTCOME_CRASH);
	run_record_release(&r);
}

static void
test_end_lines(void)
{
	struct runner_result res = { 0 };
	struct buf b = BUF_INIT;

	res.end = RUNNER_TIMED_OUT;
	run_end_lines(&res, 2.5, &b);
	CHECK_STREQ(b.data, "pt-run: hang: the command was still running after the 2.5 s timeout "
		    "and was stopped with SIGTERM\n");
	buf_reset(&b);
	res.killed = true;
	run_end_lines(&res, 1, &b);
	CHECK(strstr(b.data, "after the 1 s timeout and was stopped with SIGKILL") != NULL);
	buf_reset(&b);
	res = (struct runner_result){ .end = RUNNER_SIGNALED, .sig = SIGABRT };
	run_end_lines(&res, 0, &b);
	CHECK_STREQ(b.data, "pt-run: crash: the command was killed by signal 6 (SIGABRT)\n");
	buf_reset(&b);
	res = (struct runner_result){ .end = RUNNER_EXITED, .code = 139 };
	run_end_lines(&res, 0, &b);
	CHECK(strstr(b.data, "exited with status 139") && strstr(b.data, "signal 11 (SIGSEGV)"));
	buf_reset(&b);
	res = (struct runner_result){ .end = RUNNER_EXITED, .code = 1 };
	run_end_lines(&res, 0, &b);
	CHECK_INTEQ(b.len, 0);
	buf_release(&b);
}

static void
test_repeat(void)
{
	struct run_record r[3];
	struct repeat_cmp c;
	struct buf b = BUF_INIT;

	/* the same failure, the same number: deterministic */
	for (int i = 0; i < 3; i++)
		rec(&r[i], RUNNER_EXITED, 1, CLASS_NUMERICS, "numerics-a", "0.25");
	run_compare(r, 3, &c);
	CHECK_INTEQ(c.kind, REPEAT_SAME);
	run_compare_line(&c, &b);
	CHECK_INTEQ(b.len, 0);
	run_compare_text(&c, r, &b);
	CHECK_STREQ(b.data, "deterministic: the same failure in all 3 runs (exit 1, numerics, "
		    "max_abs 0.25): no sign of a race");
	buf_reset(&b);
	/* a number that changes; "0.25" and "2.5e-1" are the same number */
	free(r[1].numbers[0]);
	r[1].numbers[0] = xstrdup("2.5e-1");
	run_compare(r, 3, &c);
	CHECK_INTEQ(c.kind, REPEAT_SAME);
	free(r[2].numbers[0]);
	r[2].numbers[0] = xstrdup("0.5");
	run_compare(r, 3, &c);
	CHECK_INTEQ(c.kind, REPEAT_DIFFERENT);
	CHECK(c.number_differs[0] && !c.ending_differs && !c.fingerprint_differs);
	run_compare_line(&c, &b);
	CHECK_STREQ(b.data, "pt-run: nondeterministic: the outcome changed between 3 runs of the "
		    "same command (max_abs)\n");
	buf_reset(&b);
	release(r, 3);

	/* one run passes: the exit status differs */
	rec(&r[0], RUNNER_EXITED, 1, CLASS_NUMERICS, "numerics-a", "0.25");
	rec(&r[1], RUNNER_EXITED, 0, CLASS_UNKNOWN, "unknown-b", NULL);
	run_compare(r, 2, &c);
	CHECK_INTEQ(c.kind, REPEAT_DIFFERENT);
	CHECK(c.ending_differs);
	CHECK_INTEQ(c.npass, 1);
	release(r, 2);

	/* a hang once, a failure once */
	rec(&r[0], RUNNER_TIMED_OUT, 0, CLASS_SYNCHRONIZATION, "sync-h", NULL);
	rec(&r[1], RUNNER_EXITED, 1, CLASS_SYNCHRONIZATION, "sync-x", NULL);
	run_compare(r, 2, &c);
	CHECK_INTEQ(c.kind, REPEAT_DIFFERENT);
	CHECK(c.ending_differs && c.fingerprint_differs);
	release(r, 2);

	/* every run passes, whatever their last error lines were */
	rec(&r[0], RUNNER_EXITED, 0, CLASS_UNKNOWN, "unknown-1", NULL);
	rec(&r[1], RUNNER_EXITED, 0, CLASS_UNKNOWN, "unknown-2", NULL);
	run_compare(r, 2, &c);
	CHECK_INTEQ(c.kind, REPEAT_ALL_PASS);
	release(r, 2);
	buf_release(&b);
}

/* levels: 'r' right, 'w' wrong numbers, 'h' hang, 'c' capacity failure */
static enum sweep_kind
sweep(const char *levels, const char *abs0, const char *abs2, struct sweep_verdict *sv)
{
	struct run_record r[RUN_NLEVELS];

	for (int i = 0; i < RUN_NLEVELS; i++) {
		const char *a = i == 0 ? abs0 : i == 2 ? abs2 : NULL;

		switch (levels[i]) {
		case 'r': rec(&r[i], RUNNER_EXITED, 0, CLASS_UNKNOWN, "u", NULL); break;
		case 'w': rec(&r[i], RUNNER_EXITED, 1, CLASS_NUMERICS, "n", a); break;
		case 'h': rec(&r[i], RUNNER_TIMED_OUT, 0, CLASS_SYNCHRONIZATION, "s", NULL); break;
		default: rec(&r[i], RUNNER_EXITED, 1, CLASS_CAPACITY, "c", NULL); break;
		}
		r[i].precision = run_precision_levels[i];
	}
	run_sweep_judge(r, sv);
	release(r, RUN_NLEVELS);
	return sv->kind;
}

static void
test_sweep(void)
{
	struct sweep_verdict sv;
	struct buf b = BUF_INIT;

	CHECK_INTEQ(sweep("wrr", NULL, NULL, &sv), SWEEP_POLICY);
	CHECK(strstr(sv.text, "high is enough") != NULL);
	CHECK_INTEQ(sv.ruled_cls, CLASS_NUMERICS);
	CHECK_STREQ(sv.ruled_subkind, "logic");
	run_sweep_line(&sv, &b);
	CHECK_STREQ(b.data, "pt-run: precision sweep: wrong at default matmul precision, right at "
		    "highest\n");
	buf_reset(&b);
	sweep_verdict_release(&sv);

	CHECK_INTEQ(sweep("wwr", NULL, NULL, &sv), SWEEP_POLICY);
	CHECK(strstr(sv.text, "high is not enough") != NULL);
	sweep_verdict_release(&sv);

	CHECK_INTEQ(sweep("www", "0.5", "0.001", &sv), SWEEP_LOGIC);
	CHECK_STREQ(sv.ruled_subkind, "precision");
	CHECK(strstr(sv.text, "shrinks from 0.5 at default to 0.001 at highest") != NULL);
	run_sweep_line(&sv, &b);
	CHECK_STREQ(b.data, "pt-run: precision sweep: wrong at every matmul precision, highest "
		    "included\n");
	buf_reset(&b);
	sweep_verdict_release(&sv);

	CHECK_INTEQ(sweep("www", "0.5", "0.4", &sv), SWEEP_LOGIC);
	CHECK(strstr(sv.text, "shrinks") == NULL);
	sweep_verdict_release(&sv);

	CHECK_INTEQ(sweep("rrr", NULL, NULL, &sv), SWEEP_NO_FAILURE);
	CHECK_INTEQ(sv.ruled_cls, CLASS_COUNT);
	sweep_verdict_release(&sv);

	/* no pattern, a hang, another class: nothing can be concluded */
	CHECK_INTEQ(sweep("rww", NULL, NULL, &sv), SWEEP_INCONCLUSIVE);
	CHECK(strstr(sv.text, "default: right, high: wrong, highest: wrong") != NULL);
	sweep_verdict_release(&sv);
	CHECK_INTEQ(sweep("whr", NULL, NULL, &sv), SWEEP_INCONCLUSIVE);
	CHECK(strstr(sv.text, "at high the command ended with timeout") != NULL);
	CHECK_INTEQ(sv.ruled_cls, CLASS_COUNT);
	run_sweep_line(&sv, &b);
	CHECK_INTEQ(b.len, 0);
	sweep_verdict_release(&sv);
	CHECK_INTEQ(sweep("ccc", NULL, NULL, &sv), SWEEP_INCONCLUSIVE);
	CHECK(strstr(sv.text, "a capacity failure") != NULL);
	sweep_verdict_release(&sv);
	buf_release(&b);
}

/* The same levels from a GPU kernel of `backend`. */
static enum sweep_kind
sweep_gpu(const char *levels, const char *backend, struct sweep_verdict *sv)
{
	struct run_record r[RUN_NLEVELS];

	for (int i = 0; i < RUN_NLEVELS; i++) {
		if (levels[i] == 'r')
			rec(&r[i], RUNNER_EXITED, 0, CLASS_UNKNOWN, "u", NULL);
		else
			rec(&r[i], RUNNER_EXITED, 1, CLASS_NUMERICS, "n", "0.0078125");
		r[i].precision = run_precision_levels[i];
		r[i].platform = xstrdup("gpu");
		r[i].backend = backend ? xstrdup(backend) : NULL;
	}
	run_sweep_judge(r, sv);
	release(r, RUN_NLEVELS);
	return sv->kind;
}

static void
test_sweep_gpu(void)
{
	struct sweep_verdict sv;
	struct buf b = BUF_INIT;

	/* Triton: TF32 at default and high, IEEE at highest */
	CHECK_INTEQ(sweep_gpu("wwr", "triton", &sv), SWEEP_POLICY);
	CHECK(sv.gpu);
	CHECK(strstr(sv.text, "TF32") != NULL);
	CHECK_STREQ(sv.ruled_subkind, "logic");
	run_sweep_line(&sv, &b);
	CHECK_STREQ(b.data, "pt-run: precision sweep: wrong at default matmul precision (TF32 on "
		    "GPU), right at highest\n");
	buf_reset(&b);
	sweep_verdict_release(&sv);
	/* Triton wrong at every level: highest is IEEE f32, so logic */
	CHECK_INTEQ(sweep_gpu("www", "triton", &sv), SWEEP_LOGIC);
	sweep_verdict_release(&sv);
	/* Mosaic GPU wrong at every level: f32 MMA is TF32 at each, nothing is proved */
	CHECK_INTEQ(sweep_gpu("www", "mosaic-gpu", &sv), SWEEP_INCONCLUSIVE);
	CHECK(strstr(sv.text, "Mosaic GPU runs f32") != NULL);
	CHECK_INTEQ(sv.ruled_cls, CLASS_COUNT);
	run_sweep_line(&sv, &b);
	CHECK_INTEQ(b.len, 0);
	sweep_verdict_release(&sv);
	buf_release(&b);
}

static void
test_session(void)
{
	struct session *s = session_new();
	struct verdict v;

	memset(&v, 0, sizeof(v));
	s->fingerprint = xstrdup("capacity-1");
	v.fingerprint = (char *)"capacity-1";
	CHECK_INTEQ(run_attempt_result(s, false, &v), RESULT_SAME);
	CHECK_INTEQ(run_attempt_result(s, true, &v), RESULT_FIXED);
	v.fingerprint = (char *)"numerics-2";
	CHECK_INTEQ(run_attempt_result(s, false, &v), RESULT_NEW);
	/* the previous attempt's failure counts, not the first one */
	s->attempts = xcalloc(1, sizeof(*s->attempts));
	s->nattempts = 1;
	s->attempts[0].n = 1;
	s->attempts[0].rung = xstrdup("x");
	s->attempts[0].fingerprint = xstrdup("numerics-2");
	CHECK_INTEQ(run_attempt_result(s, false, &v), RESULT_SAME);
	/* a rerun that reproduces, with no change named, is no attempt */
	CHECK(!run_is_attempt(RESULT_SAME, false));
	CHECK(run_is_attempt(RESULT_SAME, true));
	CHECK(run_is_attempt(RESULT_NEW, false));
	CHECK(run_is_attempt(RESULT_FIXED, false));

	CHECK(session_rule_out(s, CLASS_NUMERICS, "logic", "sweep", RULING_RUN, NULL));
	CHECK(!session_rule_out(s, CLASS_NUMERICS, "logic", "again", RULING_RUN, NULL));
	CHECK(session_rule_out(s, CLASS_NUMERICS, "precision", "other", RULING_RUN, NULL));
	CHECK_INTEQ(s->nruled, 2);
	CHECK(session_rule_out(s, CLASS_LAYOUT, NULL, "whole class", RULING_RUN, NULL));
	CHECK(!session_rule_out(s, CLASS_LAYOUT, "block", "covered by the whole class", RULING_RUN, NULL));
	CHECK_INTEQ(s->nruled, 3);
	session_free(s);
}

static void
test_env(void)
{
	char *set[] = { (char *)"PT_TEST_A=1", (char *)"PATH=/x", NULL };
	char **env;
	size_t npath = 0;
	bool a = false, ab = false, old_path = false;

	setenv("PT_TEST_AB", "keep", 1);
	env = runner_env_with(set);
	for (char **e = env; *e; e++) {
		npath += strncmp(*e, "PATH=", 5) == 0;
		a |= strcmp(*e, "PT_TEST_A=1") == 0;
		ab |= strcmp(*e, "PT_TEST_AB=keep") == 0;   /* a longer name is another name */
		old_path |= strncmp(*e, "PATH=", 5) == 0 && strcmp(*e, "PATH=/x") != 0;
	}
	CHECK_INTEQ(npath, 1);
	CHECK(a);
	CHECK(ab);
	CHECK(!old_path);
	free(env);
	CHECK_STREQ(runner_signal_name(SIGKILL), "SIGKILL");
	CHECK(runner_signal_name(0) == NULL);
}

int
main(void)
{
	test_outcome();
	test_end_lines();
	test_repeat();
	test_sweep();
	test_sweep_gpu();
	test_session();
	test_env();
	return TEST_DONE();
}
