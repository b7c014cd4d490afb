/* SPDX-License-Identifier: MIT */
/*
 * What runs of the user's command mean (pt/run_eval.h). The fact names and
 * values written here are a contract with rules/run.yaml, which matches
 * them (rules) and words them (texts): a machine format, listed in
 * docs/run.md, that no sentence of either file depends on. `pallas-triage
 * rules test` runs the rules' examples, and tests/run runs real facts
 * through the real rules.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pt/run_eval.h"
#include "pt/run_texts.h"
#include "pt/xalloc.h"

const char *const run_number_names[RUN_NNUMBERS] = {
	"max_abs", "max_rel", "mismatched", "mismatch_pct",
};

const char *const run_precision_levels[RUN_NLEVELS] = { "default", "high", "highest" };

/* A number the rules captured, as a double: false when there is none or it is not one. */
static bool
number_of(const char *s, double *out)
{
	char *end;

	if (!s)
		return false;
	*out = strtod(s, &end);
	return end != s && !*end;
}

/*
 * Only printed errors, all within run_pass's bounds: every rule of the
 * verdict's class that fired only measures, and a max_abs or max_rel was
 * printed, none above its bound (nan is above every bound).
 */
static bool
small_error_only(const struct run_record *r, const struct verdict *v, const struct ruleset *rs)
{
	bool any = false;

	if (!rs || r->cls == CLASS_UNKNOWN)
		return false;
	for (size_t i = 0; i < v->nfired; i++)
		if (v->fired[i]->cls == v->cls && !run_pass_rule(rs, v->fired[i]->id))
			return false;
	for (size_t k = 0; k < 2; k++) {
		double x, bound;

		if (!r->numbers[k])
			continue;
		if (!number_of(r->numbers[k], &x) || !run_pass_bound(rs, k == 0, &bound) ||
		    !(fabs(x) <= bound))
			return false;
		any = true;
	}
	return any;
}

void
run_record_fill(struct run_record *r, const struct runner_result *res, const struct verdict *v,
		const char *precision, const struct ruleset *rs)
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
	r->small_error = small_error_only(r, v, rs);
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
	return r->res.code == 0 && (r->cls == CLASS_UNKNOWN || r->small_error) ? OUTCOME_PASS
									      : OUTCOME_FAIL;
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
run_facts_release(struct run_facts *f)
{
	vars_release(&f->v);
	f->nline = 0;
}

/* A value on the fact line is one token: what could split it becomes '_'. */
static void
fact(struct run_facts *f, const char *name, const char *value)
{
	char *v = xstrdup(value && *value ? value : "unknown");

	for (char *p = v; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '=' || (unsigned char)*p >= 0x7f)
			*p = '_';
	vars_set(&f->v, name, v, true);
	f->nline = f->v.n;
	free(v);
}

static void
fact_int(struct run_facts *f, const char *name, long long x)
{
	char num[32];

	snprintf(num, sizeof(num), "%lld", x);
	fact(f, name, num);
}

static void
fact_g(struct run_facts *f, const char *name, double x)
{
	char num[64];

	snprintf(num, sizeof(num), "%g", x);
	fact(f, name, num);
}

/* A value for the texts only, after every fact of the line. */
static void
shown(struct run_facts *f, const char *name, const char *value)
{
	vars_set(&f->v, name, value ? value : "", true);
}

void
run_facts_line(const struct run_facts *f, struct buf *out)
{
	if (!f->nline)
		return;
	buf_adds(out, RUN_LINE_PREFIX);
	for (size_t i = 0; i < f->nline; i++)
		buf_addf(out, "%s%s=%s", i ? " " : "", f->v.v[i].name, f->v.v[i].value);
	buf_addch(out, '\n');
}

static void
signal_facts(struct run_facts *f, int sig)
{
	fact_int(f, "signal", sig);
	if (runner_signal_name(sig))
		fact(f, "signame", runner_signal_name(sig));
}

void
run_end_lines(const struct runner_result *res, double timeout, bool timeout_default,
	      struct buf *out)
{
	struct run_facts f = RUN_FACTS_INIT;

	switch (res->end) {
	case RUNNER_TIMED_OUT:
		fact(&f, "ending", "timeout");
		fact_g(&f, "timeout_s", timeout);
		fact(&f, "timeout_from", timeout_default ? "default" : "option");
		fact(&f, "stopped_by", res->killed ? "SIGKILL" : "SIGTERM");
		break;
	case RUNNER_SIGNALED:
		fact(&f, "ending", "signal");
		signal_facts(&f, res->sig);
		break;
	case RUNNER_EXITED:
		/* sh -c, bash wrappers and make report a child's death as 128+N */
		if (res->code > 128 && runner_signal_name(res->code - 128)) {
			fact(&f, "ending", "exit");
			fact_int(&f, "exit_code", res->code);
			signal_facts(&f, res->code - 128);
		}
		break;
	case RUNNER_INTERRUPTED:
		break;
	}
	run_facts_line(&f, out);
	run_facts_release(&f);
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

/* What differs, as names joined by sep: "exit_status,failure,max_abs". */
static void
differences(const struct repeat_cmp *c, const char *sep, bool spaces, struct buf *out)
{
	const char *s = "";

	if (c->ending_differs) {
		buf_addf(out, "%s%s", s, spaces ? "exit status" : "exit_status");
		s = sep;
	}
	if (c->fingerprint_differs) {
		buf_addf(out, "%sfailure", s);
		s = sep;
	}
	for (size_t k = 0; k < RUN_NNUMBERS; k++)
		if (c->number_differs[k]) {
			buf_addf(out, "%s%s", s, run_number_names[k]);
			s = sep;
		}
}

/* "exit 1, numerics/mismatch, max_abs 0.25": how the failing run f ended. */
static void
failure_summary(const struct run_record *f, struct buf *out)
{
	char *lab = class_label(f->cls, f->subkind);

	run_ending_text(&f->res, out);
	buf_addf(out, ", %s", lab);
	free(lab);
	for (size_t k = 0; k < RUN_NNUMBERS; k++)
		if (f->numbers[k])
			buf_addf(out, ", %s %s", run_number_names[k], f->numbers[k]);
}

void
run_compare_facts(const struct repeat_cmp *c, const struct run_record *r, struct run_facts *out)
{
	static const char *const kinds[] = {
		[REPEAT_ALL_PASS] = "all-pass", [REPEAT_SAME] = "deterministic",
		[REPEAT_DIFFERENT] = "nondeterministic",
	};
	struct buf b = BUF_INIT;

	fact(out, "repeat", kinds[c->kind]);
	fact_int(out, "runs", (long long)c->nruns);
	differences(c, ",", false, &b);
	fact(out, "differs", b.len ? b.data : "none");
	fact_int(out, "passed", (long long)c->npass);
	buf_reset(&b);
	differences(c, ", ", true, &b);
	shown(out, "differs_text", b.data);
	buf_reset(&b);
	for (size_t i = 0; i < c->nruns; i++)
		if (run_outcome_of(&r[i]) != OUTCOME_PASS) {
			failure_summary(&r[i], &b);
			break;
		}
	shown(out, "failure", b.data);
	buf_release(&b);
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

/* "shrinks": the error at highest is a small fraction of the error at default. */
static const char *
error_trend(const struct run_record *r)
{
	double hi, lo;

	if (!number_of(r[0].numbers[0], &hi) || !number_of(r[RUN_NLEVELS - 1].numbers[0], &lo) ||
	    !isfinite(hi) || !isfinite(lo))
		return "unknown";
	return hi > 0 && lo < hi / 100.0 ? "shrinks" : "flat";
}

/* The first value some run's verdict gives for platform (or backend), or NULL. */
static const char *
runs_say(const struct run_record *r, bool backend)
{
	const char *gpu = NULL, *first = NULL;

	for (size_t i = 0; i < RUN_NLEVELS; i++) {
		const char *v = backend ? r[i].backend : r[i].platform;

		if (v && !first)
			first = v;
		if (v && !backend && strcmp(v, "gpu") == 0)
			gpu = v;
	}
	return gpu ? gpu : first;
}

/* The kind of the sweep and, for an inconclusive one, why. */
static enum sweep_kind
sweep_kind(const struct run_record *r, const enum level_state *st, const char **reason,
	   const struct run_record **other)
{
	size_t nright = 0, nwrong = 0;
	const char *backend = runs_say(r, true);

	*other = NULL;
	for (size_t i = 0; i < RUN_NLEVELS; i++) {
		nright += st[i] == LEVEL_RIGHT;
		nwrong += st[i] == LEVEL_WRONG;
		if (st[i] == LEVEL_OTHER && !*other)
			*other = &r[i];
	}
	*reason = NULL;
	if (*other)
		*reason = "other-outcome";
	else if (nright == RUN_NLEVELS)
		return SWEEP_NO_FAILURE;
	else if (st[0] == LEVEL_WRONG && st[RUN_NLEVELS - 1] == LEVEL_RIGHT)
		return SWEEP_POLICY;
	else if (nwrong == RUN_NLEVELS && backend && strcmp(backend, "mosaic-gpu") == 0)
		*reason = "mosaic-gpu-tf32";
	else if (nwrong == RUN_NLEVELS && strcmp(error_trend(r), "shrinks") == 0)
		*reason = "error-shrinks";      /* precision is part of it: neither is ruled out */
	else if (nwrong == RUN_NLEVELS)
		return SWEEP_LOGIC;
	else
		*reason = "no-pattern";
	return SWEEP_INCONCLUSIVE;
}

void
run_sweep_judge(const struct run_record *r, struct sweep_verdict *sv, struct run_facts *f)
{
	static const char *const words[] = { "right", "wrong", "other" };
	enum level_state st[RUN_NLEVELS];
	const struct run_record *other;
	const char *reason;
	struct buf b = BUF_INIT;

	memset(sv, 0, sizeof(*sv));
	sv->ruled_cls = CLASS_COUNT;
	for (size_t i = 0; i < RUN_NLEVELS; i++)
		st[i] = level_state(&r[i]);
	sv->kind = sweep_kind(r, st, &reason, &other);
	sv->gpu = same_str(runs_say(r, false), "gpu");
	fact(f, "sweep", sweep_kind_name(sv->kind));
	if (reason)
		fact(f, "reason", reason);
	for (size_t i = 0; i < RUN_NLEVELS; i++)
		fact(f, run_precision_levels[i], words[st[i]]);
	fact(f, "platform", runs_say(r, false));
	fact(f, "backend", runs_say(r, true));
	fact(f, "error", error_trend(r));
	shown(f, "max_abs_default", r[0].numbers[0]);
	shown(f, "max_abs_highest", r[RUN_NLEVELS - 1].numbers[0]);
	if (other) {
		shown(f, "other_level", other->precision);
		run_ending_text(&other->res, &b);
		shown(f, "other_ending", b.data);
		shown(f, "other_class", run_outcome_of(other) == OUTCOME_FAIL ?
		      class_name(other->cls) : "none");
	}
	buf_release(&b);
}

void
sweep_verdict_release(struct sweep_verdict *sv)
{
	free(sv->text);
	free(sv->ruled_subkind);
	free(sv->ruled_reason);
	memset(sv, 0, sizeof(*sv));
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

/* What text t says the session rules out, into sv. */
static void
sweep_rules_out(const struct run_text *t, struct sweep_verdict *sv)
{
	const char *slash;
	char *cls;

	if (!t || !t->rules_out)
		return;
	slash = strchr(t->rules_out, '/');
	cls = xstrndup(t->rules_out, slash ? (size_t)(slash - t->rules_out) : strlen(t->rules_out));
	sv->ruled_cls = class_from_name(cls);
	sv->ruled_subkind = slash ? xstrdup(slash + 1) : NULL;
	sv->ruled_reason = xstrdup(t->reason);
	free(cls);
}

void
run_judge(const struct ruleset *rs, const struct run_record *r, size_t n, bool sweep,
	  struct repeat_cmp *cmp, struct sweep_verdict *sv, struct run_facts *facts,
	  struct buf *conclusion, struct buf *lines)
{
	const struct run_text *t;
	struct buf line = BUF_INIT;

	memset(cmp, 0, sizeof(*cmp));
	memset(sv, 0, sizeof(*sv));
	sv->ruled_cls = CLASS_COUNT;
	if (sweep) {
		run_sweep_judge(r, sv, facts);
	} else if (n > 1) {
		run_compare(r, n, cmp);
		run_compare_facts(cmp, r, facts);
	} else {
		return;
	}
	run_facts_line(facts, &line);
	buf_add(lines, line.data, line.len);
	if (line.len)
		line.data[--line.len] = '\0';   /* shown without its newline */
	t = run_text_pick(rs, &facts->v);
	run_text_render(t, &facts->v, line.data, conclusion);
	if (sweep) {
		sv->text = xstrdup(conclusion->data ? conclusion->data : "");
		sweep_rules_out(t, sv);
	}
	buf_release(&line);
}
