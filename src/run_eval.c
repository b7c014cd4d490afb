/* SPDX-License-Identifier: MIT */
/*
 * What runs of the user's command mean (pt/run_eval.h). The wording of the
 * evidence lines is a contract with rules/run.yaml: change both together
 * (`pallas-triage rules test` runs the rules' examples, and tests/run/ runs
 * the real lines through the real rules).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pt/run_eval.h"
#include "pt/xalloc.h"

const char *const run_number_names[RUN_NNUMBERS] = {
	"max_abs", "max_rel", "mismatched", "mismatch_pct",
};

const char *const run_precision_levels[RUN_NLEVELS] = { "default", "high", "highest" };

void
run_record_fill(struct run_record *r, const struct runner_result *res, const struct verdict *v,
		const char *precision)
{
	memset(r, 0, sizeof(*r));
	r->res = *res;
	r->precision = precision;
	r->cls = v->cls;
	r->subkind = dup_or_null(v->subkind);
	r->fingerprint = dup_or_null(v->fingerprint);
	for (size_t i = 0; i < RUN_NNUMBERS; i++)
		r->numbers[i] = dup_or_null(vars_get(&v->vars, run_number_names[i]));
	r->backend = dup_or_null(vars_get(&v->vars, "backend"));
	r->platform = dup_or_null(vars_get(&v->vars, "platform"));
}

void
run_record_release(struct run_record *r)
{
	free(r->subkind);
	free(r->fingerprint);
	for (size_t i = 0; i < RUN_NNUMBERS; i++)
		free(r->numbers[i]);
	free(r->backend);
	free(r->platform);
	memset(r, 0, sizeof(*r));
}

enum run_outcome
run_outcome_of(const struct run_record *r)
{
	switch (r->res.end) {
	case RUNNER_TIMED_OUT:
		return OUTCOME_HANG;
	case RUNNER_SIGNALED:
		return OUTCOME_CRASH;
	case RUNNER_INTERRUPTED:
		return OUTCOME_INTERRUPTED;
	case RUNNER_EXITED:
		break;
	}
	return r->res.code == 0 && r->cls == CLASS_UNKNOWN ? OUTCOME_PASS : OUTCOME_FAIL;
}

void
run_ending_text(const struct runner_result *res, struct buf *out)
{
	const char *name;

	switch (res->end) {
	case RUNNER_EXITED:
		buf_addf(out, "exit %d", res->code);
		break;
	case RUNNER_SIGNALED:
		if ((name = runner_signal_name(res->sig)))
			buf_adds(out, name);
		else
			buf_addf(out, "signal %d", res->sig);
		break;
	case RUNNER_TIMED_OUT:
		buf_adds(out, "timeout");
		break;
	case RUNNER_INTERRUPTED:
		buf_adds(out, "interrupted");
		break;
	}
}

void
run_end_lines(const struct runner_result *res, double timeout, struct buf *out)
{
	const char *name;

	switch (res->end) {
	case RUNNER_TIMED_OUT:
		buf_addf(out, RUN_LINE_PREFIX "hang: the command was still running after the %g s "
			 "timeout and was stopped with %s\n", timeout,
			 res->killed ? "SIGKILL (SIGTERM was not enough)" : "SIGTERM");
		break;
	case RUNNER_SIGNALED:
		if ((name = runner_signal_name(res->sig)))
			buf_addf(out, RUN_LINE_PREFIX "crash: the command was killed by signal %d (%s)\n",
				 res->sig, name);
		else
			buf_addf(out, RUN_LINE_PREFIX "crash: the command was killed by signal %d\n",
				 res->sig);
		break;
	case RUNNER_EXITED:
		/* sh -c, bash wrappers and make report a child's death as 128+N */
		if (res->code > 128 && (name = runner_signal_name(res->code - 128)))
			buf_addf(out, RUN_LINE_PREFIX "crash: the command exited with status %d, "
				 "which shells report for a process killed by signal %d (%s)\n",
				 res->code, res->code - 128, name);
		break;
	case RUNNER_INTERRUPTED:
		break;
	}
}

static bool
same_str(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Numbers compare by value when both parse ("0.5" equals "5e-1"). */
static bool
same_number(const char *a, const char *b)
{
	char *ea, *eb;
	double x, y;

	if (!a || !b)
		return a == b;
	x = strtod(a, &ea);
	y = strtod(b, &eb);
	if (ea != a && !*ea && eb != b && !*eb && !isnan(x) && !isnan(y))
		return x == y;
	return strcmp(a, b) == 0;
}

static bool
same_ending(const struct runner_result *a, const struct runner_result *b)
{
	if (a->end != b->end)
		return false;
	if (a->end == RUNNER_EXITED)
		return a->code == b->code;
	if (a->end == RUNNER_SIGNALED)
		return a->sig == b->sig;
	return true;
}

void
run_compare(const struct run_record *r, size_t n, struct repeat_cmp *c)
{
	const struct run_record *first_fail = NULL;

	memset(c, 0, sizeof(*c));
	c->nruns = n;
	for (size_t i = 0; i < n; i++) {
		bool pass = run_outcome_of(&r[i]) == OUTCOME_PASS;

		if (pass)
			c->npass++;
		if (i > 0 && (!same_ending(&r[0].res, &r[i].res) ||
			      pass != (run_outcome_of(&r[0]) == OUTCOME_PASS)))
			c->ending_differs = true;
		if (pass)
			continue;
		if (!first_fail) {
			first_fail = &r[i];
			continue;
		}
		/* what a failing run printed is compared with the first failing run */
		if (!same_str(first_fail->fingerprint, r[i].fingerprint))
			c->fingerprint_differs = true;
		for (size_t k = 0; k < RUN_NNUMBERS; k++)
			if (!same_number(first_fail->numbers[k], r[i].numbers[k]))
				c->number_differs[k] = true;
	}
	if (c->npass == n)
		c->kind = REPEAT_ALL_PASS;
	else if (c->ending_differs || c->fingerprint_differs)
		c->kind = REPEAT_DIFFERENT;
	else
		c->kind = REPEAT_SAME;
	for (size_t k = 0; k < RUN_NNUMBERS; k++)
		if (c->number_differs[k])
			c->kind = REPEAT_DIFFERENT;
}

/* "exit status, failure, max_abs" */
static void
differences(const struct repeat_cmp *c, struct buf *out)
{
	const char *sep = "";

	if (c->ending_differs) {
		buf_addf(out, "%sexit status", sep);
		sep = ", ";
	}
	if (c->fingerprint_differs) {
		buf_addf(out, "%sfailure", sep);
		sep = ", ";
	}
	for (size_t k = 0; k < RUN_NNUMBERS; k++)
		if (c->number_differs[k]) {
			buf_addf(out, "%s%s", sep, run_number_names[k]);
			sep = ", ";
		}
}

void
run_compare_text(const struct repeat_cmp *c, const struct run_record *r, struct buf *out)
{
	const struct run_record *f = NULL;
	char *lab;

	switch (c->kind) {
	case REPEAT_ALL_PASS:
		buf_addf(out, "passed in all %zu runs: no failure and no sign of nondeterminism",
			 c->nruns);
		return;
	case REPEAT_DIFFERENT:
		buf_adds(out, "nondeterministic: outcomes differ between runs (");
		differences(c, out);
		buf_adds(out, ") -> a race (synchronization): a buffer read while a DMA still "
			 "writes it, a semaphore shared by overlapping copies, or parallel grid "
			 "steps that depend on each other; reads of uninitialised memory also vary");
		return;
	case REPEAT_SAME:
		break;
	}
	for (size_t i = 0; i < c->nruns && !f; i++)
		if (run_outcome_of(&r[i]) != OUTCOME_PASS)
			f = &r[i];
	buf_addf(out, "deterministic: the same failure in all %zu runs (", c->nruns);
	lab = class_label(f->cls, f->subkind);
	run_ending_text(&f->res, out);
	buf_addf(out, ", %s", lab);
	free(lab);
	for (size_t k = 0; k < RUN_NNUMBERS; k++)
		if (f->numbers[k])
			buf_addf(out, ", %s %s", run_number_names[k], f->numbers[k]);
	buf_adds(out, "): no sign of a race");
}

void
run_compare_line(const struct repeat_cmp *c, struct buf *out)
{
	if (c->kind != REPEAT_DIFFERENT)
		return;
	buf_addf(out, RUN_LINE_PREFIX "nondeterministic: the outcome changed between %zu runs of "
		 "the same command (", c->nruns);
	differences(c, out);
	buf_adds(out, ")\n");
}

const char *
sweep_kind_name(enum sweep_kind k)
{
	static const char *const names[] = { "no-failure", "precision-policy", "logic-bug",
					     "inconclusive" };

	return names[k];
}

enum level_state { LEVEL_RIGHT, LEVEL_WRONG, LEVEL_OTHER };

/* Wrong numbers are numerics failures, or failures nothing else claims. */
static enum level_state
level_state(const struct run_record *r)
{
	switch (run_outcome_of(r)) {
	case OUTCOME_PASS:
		return LEVEL_RIGHT;
	case OUTCOME_FAIL:
		return r->cls == CLASS_NUMERICS || r->cls == CLASS_UNKNOWN ? LEVEL_WRONG : LEVEL_OTHER;
	default:
		return LEVEL_OTHER;
	}
}

static void
levels_summary(const struct run_record *r, struct buf *out)
{
	static const char *const words[] = { "right", "wrong", "other" };

	for (size_t i = 0; i < RUN_NLEVELS; i++)
		buf_addf(out, "%s%s: %s", i ? ", " : "", run_precision_levels[i],
			 words[level_state(&r[i])]);
}

/* The error at highest is a small fraction of the error at default. */
static bool
error_shrinks(const struct run_record *r, double *lo, double *hi)
{
	const char *a = r[0].numbers[0], *b = r[RUN_NLEVELS - 1].numbers[0];
	char *ea, *eb;

	if (!a || !b)
		return false;
	*hi = strtod(a, &ea);
	*lo = strtod(b, &eb);
	return ea != a && eb != b && isfinite(*hi) && isfinite(*lo) && *hi > 0 &&
	       *lo < *hi / 100.0;
}

/* Does some run's verdict say this (platform or backend)? */
static bool
runs_say(const struct run_record *r, bool backend, const char *value)
{
	for (size_t i = 0; i < RUN_NLEVELS; i++)
		if (same_str(backend ? r[i].backend : r[i].platform, value))
			return true;
	return false;
}

static void
judge_policy(const enum level_state *st, bool gpu, struct sweep_verdict *sv, struct buf *b)
{
	sv->kind = SWEEP_POLICY;
	buf_addf(b, "precision policy: right at highest, wrong at default (%s",
		 st[1] == LEVEL_RIGHT ? "high is enough" : "high is not enough");
	if (gpu)
		buf_adds(b, "): on a GPU f32 dots run as TF32 (10-bit mantissa) at DEFAULT and, in "
			 "Pallas Triton, at HIGH too. Ask for precision=lax.Precision.HIGHEST (IEEE "
			 "f32) on the dots that need it, or set the test's tolerance to what TF32 "
			 "gives");
	else
		buf_adds(b, "): at DEFAULT the MXU rounds f32 matmul operands to bf16. Ask for "
			 "precision=lax.Precision.HIGHEST (or HIGH) on the dots that need it, or "
			 "set the test's tolerance to what bf16 operands give");
	sv->ruled_cls = CLASS_NUMERICS;
	sv->ruled_subkind = "logic";
	sv->ruled_reason = xstrdup("precision sweep: right at HIGHEST matmul precision, "
				   "wrong at DEFAULT, so the error is the precision policy, "
				   "not a logic bug");
}

static void
judge_logic(const struct run_record *r, struct sweep_verdict *sv, struct buf *b)
{
	double lo, hi;

	sv->kind = SWEEP_LOGIC;
	buf_adds(b, "logic bug: wrong at every precision, highest included, so the "
		 "precision policy does not explain it (unless the data is bf16 already, "
		 "which no precision setting changes); look at index_map, accumulator "
		 "initialisation, the reduction axis and masking");
	if (error_shrinks(r, &lo, &hi))
		buf_addf(b, ". The error shrinks from %g at default to %g at highest, so "
			 "part of it is precision", hi, lo);
	sv->ruled_cls = CLASS_NUMERICS;
	sv->ruled_subkind = "precision";
	sv->ruled_reason = xstrdup("precision sweep: wrong at every matmul precision, "
				   "HIGHEST included, so the precision policy does not "
				   "explain it");
}

void
run_sweep_judge(const struct run_record *r, struct sweep_verdict *sv)
{
	enum level_state st[RUN_NLEVELS];
	const struct run_record *other = NULL;
	struct buf b = BUF_INIT;
	size_t nright = 0, nwrong = 0;

	memset(sv, 0, sizeof(*sv));
	sv->ruled_cls = CLASS_COUNT;
	sv->gpu = runs_say(r, false, "gpu");
	for (size_t i = 0; i < RUN_NLEVELS; i++) {
		st[i] = level_state(&r[i]);
		nright += st[i] == LEVEL_RIGHT;
		nwrong += st[i] == LEVEL_WRONG;
		if (st[i] == LEVEL_OTHER && !other)
			other = &r[i];
	}
	if (other) {
		sv->kind = SWEEP_INCONCLUSIVE;
		buf_addf(&b, "inconclusive: at %s the command ended with ", other->precision);
		run_ending_text(&other->res, &b);
		if (run_outcome_of(other) == OUTCOME_FAIL)
			buf_addf(&b, " and a %s failure", class_name(other->cls));
		buf_adds(&b, ", not wrong numbers, so the sweep cannot tell precision from logic");
	} else if (nright == RUN_NLEVELS) {
		sv->kind = SWEEP_NO_FAILURE;
		buf_adds(&b, "right at every precision: the failure did not reproduce in the sweep");
	} else if (st[0] == LEVEL_WRONG && st[RUN_NLEVELS - 1] == LEVEL_RIGHT) {
		judge_policy(st, sv->gpu, sv, &b);
	} else if (nwrong == RUN_NLEVELS && runs_say(r, true, "mosaic-gpu")) {
		sv->kind = SWEEP_INCONCLUSIVE;
		buf_adds(&b, "inconclusive: wrong at every precision, but Mosaic GPU runs f32 "
			 "WGMMA and tcgen05 operands as TF32 at every precision, so the sweep "
			 "cannot tell TF32 from a logic bug; compare against a TF32-level "
			 "tolerance, or feed bf16 operands with an f32 accumulator");
	} else if (nwrong == RUN_NLEVELS) {
		judge_logic(r, sv, &b);
	} else {
		sv->kind = SWEEP_INCONCLUSIVE;
		buf_adds(&b, "inconclusive: the outcome does not follow the precision (");
		levels_summary(r, &b);
		buf_adds(&b, "); if it changes between runs, try --repeat: that is a race");
	}
	sv->text = buf_detach(&b, NULL);
}

void
sweep_verdict_release(struct sweep_verdict *sv)
{
	free(sv->text);
	free(sv->ruled_reason);
	memset(sv, 0, sizeof(*sv));
}

void
run_sweep_line(const struct sweep_verdict *sv, struct buf *out)
{
	if (sv->kind == SWEEP_POLICY && sv->gpu)
		buf_adds(out, RUN_LINE_PREFIX "precision sweep: wrong at default matmul precision "
			 "(TF32 on GPU), right at highest\n");
	else if (sv->kind == SWEEP_POLICY)
		buf_adds(out, RUN_LINE_PREFIX "precision sweep: wrong at default matmul precision, "
			 "right at highest\n");
	else if (sv->kind == SWEEP_LOGIC)
		buf_adds(out, RUN_LINE_PREFIX "precision sweep: wrong at every matmul precision, "
			 "highest included\n");
}

enum attempt_result
run_attempt_result(const struct session *s, bool passed, const struct verdict *v)
{
	const char *prev = s->fingerprint;

	if (passed)
		return RESULT_FIXED;
	if (s->nattempts > 0 && s->attempts[s->nattempts - 1].fingerprint)
		prev = s->attempts[s->nattempts - 1].fingerprint;
	if (prev && v->fingerprint && strcmp(prev, v->fingerprint) == 0)
		return RESULT_SAME;
	return RESULT_NEW;
}

char *
run_attempt_note(const struct run_record *r, size_t n, const struct repeat_cmp *cmp,
		 double timeout)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "pallas-triage run");
	if (n > 1)
		buf_addf(&b, " --repeat %zu: %s", n, cmp->kind == REPEAT_DIFFERENT ?
			 "nondeterministic" : cmp->kind == REPEAT_SAME ? "deterministic" : "passed");
	buf_adds(&b, n > 1 ? ", last run: " : ": ");
	run_ending_text(&r[n - 1].res, &b);
	if (r[n - 1].res.end == RUNNER_TIMED_OUT)
		buf_addf(&b, " after %g s (a hang)", timeout);
	return buf_detach(&b, NULL);
}

bool
run_is_attempt(enum attempt_result res, bool change_stated)
{
	return change_stated || res != RESULT_SAME;
}

bool
run_all_passed(const struct run_record *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (run_outcome_of(&r[i]) != OUTCOME_PASS)
			return false;
	return n > 0;
}

void
run_judge(const struct run_record *r, size_t n, bool sweep, struct repeat_cmp *cmp,
	  struct sweep_verdict *sv, struct buf *conclusion, struct buf *lines)
{
	memset(cmp, 0, sizeof(*cmp));
	memset(sv, 0, sizeof(*sv));
	sv->ruled_cls = CLASS_COUNT;
	if (sweep) {
		run_sweep_judge(r, sv);
		buf_adds(conclusion, sv->text);
		run_sweep_line(sv, lines);
	} else if (n > 1) {
		run_compare(r, n, cmp);
		run_compare_text(cmp, r, conclusion);
		run_compare_line(cmp, lines);
	}
}
