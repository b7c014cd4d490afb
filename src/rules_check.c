/* SPDX-License-Identifier: MIT */
/* `rules test` and the literal warnings of `rules validate`; see pt/rules_check.h. */
#include <stdlib.h>
#include <string.h>

#include "pt/classify.h"
#include "pt/rules_check.h"
#include "pt/term.h"

/*
 * One failure line. Rules may come from a downloaded pack, and captures
 * from its example logs: escaped like any text from outside.
 */
static void PT_PRINTF(2, 3)
put_failure(FILE *out, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	term_puts_untrusted(out, line);
	fputc('\n', out);
}

static void
check_captures(const struct classifier *c, const struct rule *r, const struct example *ex,
	       size_t k, FILE *out, struct check_result *res)
{
	const struct vars *caps = classifier_captures(c, r);

	for (size_t i = 0; ex->cap_names && ex->cap_names[i]; i++) {
		const char *got = vars_get(caps, ex->cap_names[i]);

		if (!got || strcmp(got, ex->cap_values[i]) != 0) {
			put_failure(out, "%s:%d: %s: match example %zu captured %s='%s', expected '%s'",
				r->file, ex->line, r->id, k, ex->cap_names[i], got ? got : "(nothing)",
				ex->cap_values[i]);
			res->failed++;
		} else {
			res->passed++;
		}
	}
}

static void
check_example(const struct ruleset *rs, const struct rule *r, const struct example *ex,
	      size_t k, bool want, FILE *out, struct check_result *res)
{
	struct classifier *c = classifier_new(rs);
	struct verdict v;
	bool fired;

	/* the rule's own outcome, even where it could not change the verdict */
	classifier_exhaustive(c);
	classifier_feed(c, ex->log, strlen(ex->log));
	classifier_finish(c, &v);
	fired = classifier_fired(c, r);
	if (fired != want) {
		put_failure(out, "%s:%d: %s: %s example %zu %s", r->file, ex->line, r->id,
			want ? "match" : "no_match", k, want ? "did not fire" : "fired");
		res->failed++;
	} else {
		res->passed++;
	}
	if (want && fired)
		check_captures(c, r, ex, k, out, res);
	verdict_release(&v);
	classifier_free(c);
}

static void
check_fact(const struct ruleset *rs, const struct fact_def *f, FILE *out, struct check_result *res)
{
	for (size_t k = 0; f->examples && f->examples[k]; k++) {
		struct classifier *c = classifier_new(rs);
		struct verdict v;

		classifier_feed(c, f->examples[k], strlen(f->examples[k]));
		classifier_finish(c, &v);
		if (!vars_get(classifier_env(c), f->sets)) {
			put_failure(out, "%s:%d: %s: example %zu did not set '%s'", f->file,
				f->pat->line, f->id, k + 1, f->sets);
			res->failed++;
		} else {
			res->passed++;
		}
		verdict_release(&v);
		classifier_free(c);
	}
}

static void
check_context(const struct ruleset *rs, const struct context_def *cx, const struct example *ex,
	      size_t k, bool want, FILE *out, struct check_result *res)
{
	struct classifier *c = classifier_new(rs);
	struct verdict v;
	bool held;

	classifier_feed(c, ex->log, strlen(ex->log));
	classifier_finish(c, &v);
	held = classifier_context_held(c, cx->id);
	if (held != want) {
		fprintf(out, "%s:%d: context %s: %s example %zu %s\n", cx->file, ex->line, cx->id,
			want ? "match" : "no_match", k, want ? "does not hold" : "holds");
		res->failed++;
	} else {
		res->passed++;
	}
	verdict_release(&v);
	classifier_free(c);
}

/* Is file `only`, or inside the directory `only`? (NULL: everything is.) */
static bool
defined_in(const char *file, const char *only)
{
	size_t n = only ? strlen(only) : 0;

	return !only || strcmp(file, only) == 0 ||
	       (strncmp(file, only, n) == 0 && (file[n] == '/' || only[n - 1] == '/'));
}

void
rules_check_examples(const struct ruleset *rs, const char *only, FILE *out,
		     struct check_result *res)
{
	res->passed = res->failed = 0;
	for (size_t i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];

		if (!defined_in(r->file, only))
			continue;
		for (size_t k = 0; k < r->nmatch_ex; k++)
			check_example(rs, r, &r->match_ex[k], k + 1, true, out, res);
		for (size_t k = 0; k < r->nnomatch_ex; k++)
			check_example(rs, r, &r->nomatch_ex[k], k + 1, false, out, res);
	}
	for (size_t i = 0; i < rs->nfacts; i++)
		if (defined_in(rs->facts[i].file, only))
			check_fact(rs, &rs->facts[i], out, res);
	for (size_t i = 0; i < rs->ncontexts; i++) {
		const struct context_def *cx = &rs->contexts[i];

		if (!defined_in(cx->file, only))
			continue;
		for (size_t k = 0; k < cx->nmatch_ex; k++)
			check_context(rs, cx, &cx->match_ex[k], k + 1, true, out, res);
		for (size_t k = 0; k < cx->nnomatch_ex; k++)
			check_context(rs, cx, &cx->nomatch_ex[k], k + 1, false, out, res);
	}
}

static bool
has_literal(const struct pattern *p)
{
	char **lits = p->lits;
	bool ok = lits && lits[0];

	for (; ok && *lits; lits++)
		if (strlen(*lits) < RULE_MIN_LITERAL)
			ok = false;
	return ok;
}

void
rules_check_literals(const struct ruleset *rs, struct diag *d)
{
	for (size_t i = 0; i < rs->ncontexts; i++) {
		const struct context_def *cx = &rs->contexts[i];

		for (size_t k = 0; k < cx->npats; k++)
			if (!has_literal(cx->pats[k]))
				diag_warning(d, cx->file, cx->pats[k]->line, cx->pats[k]->col,
					     "context '%s': evidence pattern has no literal of %d bytes or "
					     "more; it runs on every line", cx->id, RULE_MIN_LITERAL);
	}
	for (size_t i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];

		for (size_t k = 0; k < r->npats; k++) {
			if (!has_literal(r->pats[k]) && !r->literals)
				diag_warning(d, r->file, r->pats[k]->line, r->pats[k]->col,
					     "rule '%s': pattern has no literal of %d bytes or more and the "
					     "rule declares no 'literals'; it runs on every line", r->id,
					     RULE_MIN_LITERAL);
		}
	}
}
