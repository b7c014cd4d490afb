/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for run_eval.c: the outcome of a run, the comparison of
 * repeated runs, the precision sweep's judgement, the fact lines, the
 * attempt result and the ruled-out list. The texts the facts pick, and the
 * real runs, are in tests/run/.
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
	r.small_error = true;                               /* ... that only measured, within bounds */
	CHECK_INTEQ(run_outcome_of(&r), OUTCOME_PASS);
	run_record_release(&r);
	rec(&r, RUNNER_EXITED, 1, CLASS_NUMERICS, "numerics-1", "1e-7");
	r.small_error = true;                               /* a failing exit status is a failure */
	CHECK_INTEQ(run_outcome_of(&r), OUTCOME_FAIL);
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
	run_end_lines(&res, 2.5, false, &b);
	CHECK_STREQ(b.data, "pt-run: ending=timeout timeout_s=2.5 timeout_from=option "
		    "stopped_by=SIGTERM\n");
	buf_reset(&b);
	res.killed = true;
	run_end_lines(&res, 1800, true, &b);
	CHECK_STREQ(b.data, "pt-run: ending=timeout timeout_s=1800 timeout_from=default "
		    "stopped_by=SIGKILL\n");
	buf_reset(&b);
	res = (struct runner_result){ .end = RUNNER_SIGNALED, .sig = SIGABRT };
	run_end_lines(&res, 0, false, &b);
	CHECK_STREQ(b.data, "pt-run: ending=signal signal=6 signame=SIGABRT\n");
	buf_reset(&b);
	res = (struct runner_result){ .end = RUNNER_EXITED, .code = 139 };
	run_end_lines(&res, 0, false, &b);
	CHECK_STREQ(b.data, "pt-run: ending=exit exit_code=139 signal=11 signame=SIGSEGV\n");
	buf_reset(&b);
	res = (struct runner_result){ .end = RUNNER_EXITED, .code = 1 };
	run_end_lines(&res, 0, false, &b);
	CHECK_INTEQ(b.len, 0);
	buf_release(&b);
}

/* The fact line of a comparison. */
static void
repeat_line(const struct repeat_cmp *c, const struct run_record *r, struct buf *b)
{
	struct run_facts f = RUN_FACTS_INIT;

	buf_reset(b);
	run_compare_facts(c, r, &f);
	run_facts_line(&f, b);
	run_facts_release(&f);
}

static void
test_repeat(void)
{
	struct run_record r[3];
	struct repeat_cmp c;
	struct run_facts f = RUN_FACTS_INIT;
	struct buf b = BUF_INIT;

	/* the same failure, the same number: deterministic */
	for (int i = 0; i < 3; i++)
		rec(&r[i], RUNNER_EXITED, 1, CLASS_NUMERICS, "numerics-a", "0.25");
	run_compare(r, 3, &c);
	CHECK_INTEQ(c.kind, REPEAT_SAME);
	repeat_line(&c, r, &b);
	CHECK_STREQ(b.data, "pt-run: repeat=deterministic runs=3 differs=none passed=0\n");
	run_compare_facts(&c, r, &f);
	CHECK_STREQ(vars_get(&f.v, "failure"), "exit 1, numerics, max_abs 0.25");
	run_facts_release(&f);
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
	repeat_line(&c, r, &b);
	CHECK_STREQ(b.data, "pt-run: repeat=nondeterministic runs=3 differs=max_abs passed=0\n");
	release(r, 3);

	/* one run passes: the exit status differs */
	rec(&r[0], RUNNER_EXITED, 1, CLASS_NUMERICS, "numerics-a", "0.25");
	rec(&r[1], RUNNER_EXITED, 0, CLASS_UNKNOWN, "unknown-b", NULL);
	run_compare(r, 2, &c);
	CHECK_INTEQ(c.kind, REPEAT_DIFFERENT);
	CHECK(c.ending_differs);
	CHECK_INTEQ(c.npass, 1);
	run_compare_facts(&c, r, &f);
	CHECK_STREQ(vars_get(&f.v, "differs"), "exit_status");
	CHECK_STREQ(vars_get(&f.v, "differs_text"), "exit status");
	run_facts_release(&f);
	release(r, 2);

	/* a hang once, a failure once */
	rec(&r[0], RUNNER_TIMED_OUT, 0, CLASS_SYNCHRONIZATION, "sync-h", NULL);
	rec(&r[1], RUNNER_EXITED, 1, CLASS_SYNCHRONIZATION, "sync-x", NULL);
	run_compare(r, 2, &c);
	CHECK_INTEQ(c.kind, REPEAT_DIFFERENT);
	CHECK(c.ending_differs && c.fingerprint_differs);
	repeat_line(&c, r, &b);
	CHECK_STREQ(b.data, "pt-run: repeat=nondeterministic runs=2 differs=exit_status,failure "
		    "passed=0\n");
	release(r, 2);

	/* every run passes, whatever their last error lines were */
	rec(&r[0], RUNNER_EXITED, 0, CLASS_UNKNOWN, "unknown-1", NULL);
	rec(&r[1], RUNNER_EXITED, 0, CLASS_UNKNOWN, "unknown-2", NULL);
	run_compare(r, 2, &c);
	CHECK_INTEQ(c.kind, REPEAT_ALL_PASS);
	release(r, 2);
	buf_release(&b);
}

/*
 * levels: 'r' right, 'w' wrong numbers, 'h' hang, 'c' capacity failure; the
 * sweep's kind, and its fact line into line (may be NULL).
 */
static enum sweep_kind
sweep_on(const char *levels, const char *abs0, const char *abs2, const char *platform,
	 const char *backend, struct buf *line)
{
	struct run_record r[RUN_NLEVELS];
	struct sweep_verdict sv;
	struct run_facts f = RUN_FACTS_INIT;
	enum sweep_kind k;

	for (int i = 0; i < RUN_NLEVELS; i++) {
		const char *a = i == 0 ? abs0 : i == 2 ? abs2 : NULL;

		switch (levels[i]) {
		case 'r': rec(&r[i], RUNNER_EXITED, 0, CLASS_UNKNOWN, "u", NULL); break;
		case 'w': rec(&r[i], RUNNER_EXITED, 1, CLASS_NUMERICS, "n", a); break;
		case 'h': rec(&r[i], RUNNER_TIMED_OUT, 0, CLASS_SYNCHRONIZATION, "s", NULL); break;
		default: rec(&r[i], RUNNER_EXITED, 1, CLASS_CAPACITY, "c", NULL); break;
		}
		r[i].precision = run_precision_levels[i];
		r[i].platform = platform ? xstrdup(platform) : NULL;
		r[i].backend = backend ? xstrdup(backend) : NULL;
	}
	run_sweep_judge(r, &sv, &f);
	k = sv.kind;
	if (line) {
		buf_reset(line);
		run_facts_line(&f, line);
	}
	/* the rules say what is ruled out: the judge alone rules out nothing */
	CHECK_INTEQ(sv.ruled_cls, CLASS_COUNT);
	sweep_verdict_release(&sv);
	run_facts_release(&f);
	release(r, RUN_NLEVELS);
	return k;
}

static enum sweep_kind
sweep(const char *levels, const char *abs0, const char *abs2, struct buf *line)
{
	return sweep_on(levels, abs0, abs2, NULL, NULL, line);
}

static void
test_sweep(void)
{
	struct buf b = BUF_INIT;

	CHECK_INTEQ(sweep("wrr", NULL, NULL, &b), SWEEP_POLICY);
	CHECK_STREQ(b.data, "pt-run: sweep=precision-policy default=wrong high=right highest=right "
		    "platform=unknown backend=unknown error=unknown\n");
	CHECK_INTEQ(sweep("wwr", "0.03", NULL, &b), SWEEP_POLICY);
	CHECK(strstr(b.data, " high=wrong ") != NULL);

	CHECK_INTEQ(sweep("www", "0.5", "0.4", &b), SWEEP_LOGIC);
	CHECK_STREQ(b.data, "pt-run: sweep=logic-bug default=wrong high=wrong highest=wrong "
		    "platform=unknown backend=unknown error=flat\n");
	/* wrong everywhere, but 500 times smaller at highest: part of it is precision */
	CHECK_INTEQ(sweep("www", "0.5", "0.001", &b), SWEEP_INCONCLUSIVE);
	CHECK(strncmp(b.data, "pt-run: sweep=inconclusive reason=error-shrinks ", 48) == 0);
	CHECK(strstr(b.data, " error=shrinks\n") != NULL);

	CHECK_INTEQ(sweep("rrr", NULL, NULL, NULL), SWEEP_NO_FAILURE);

	/* no pattern, a hang, another class: nothing can be concluded */
	CHECK_INTEQ(sweep("rww", NULL, NULL, &b), SWEEP_INCONCLUSIVE);
	CHECK(strstr(b.data, " reason=no-pattern default=right high=wrong highest=wrong ") != NULL);
	CHECK_INTEQ(sweep("whr", NULL, NULL, &b), SWEEP_INCONCLUSIVE);
	CHECK(strstr(b.data, " reason=other-outcome default=wrong high=other ") != NULL);
	CHECK_INTEQ(sweep("ccc", NULL, NULL, NULL), SWEEP_INCONCLUSIVE);
	buf_release(&b);
}

static void
test_sweep_gpu(void)
{
	struct buf b = BUF_INIT;

	/* Triton: TF32 at default and high, IEEE at highest */
	CHECK_INTEQ(sweep_on("wwr", "0.0078125", NULL, "gpu", "triton", &b), SWEEP_POLICY);
	CHECK(strstr(b.data, " platform=gpu backend=triton ") != NULL);
	/* Triton wrong at every level: highest is IEEE f32, so logic */
	CHECK_INTEQ(sweep_on("www", "0.0078125", "0.0078125", "gpu", "triton", NULL), SWEEP_LOGIC);
	/* Mosaic GPU wrong at every level: f32 MMA is TF32 at each, nothing is proved */
	CHECK_INTEQ(sweep_on("www", "0.0078125", "0.0078125", "gpu", "mosaic-gpu", &b),
		    SWEEP_INCONCLUSIVE);
	CHECK(strstr(b.data, " reason=mosaic-gpu-tf32 ") != NULL);
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
