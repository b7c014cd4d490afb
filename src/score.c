/* SPDX-License-Identifier: MIT */
/*
 * From pattern hits to a decision (pt/engine.h, docs/accuracy.md):
 * contexts first, then which rules fired, then the class scores, the
 * winner, and a confidence capped by the rules' `confidence` policy.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt/engine.h"
#include "pt/xalloc.h"

/* 1 - prod(1 - w/100): independent pieces of evidence. */
static double
combine(double score, int weight)
{
	return 1.0 - (1.0 - score) * (1.0 - weight / 100.0);
}

static bool
all_held(const struct engine_result *e, const int *idx)
{
	for (; idx && *idx >= 0; idx++)
		if (!e->ctx_held[*idx])
			return false;
	return true;
}

static bool
none_held(const struct engine_result *e, const int *idx)
{
	for (; idx && *idx >= 0; idx++)
		if (e->ctx_held[*idx])
			return false;
	return true;
}

const char *
engine_asserted_why(const struct engine_result *e, const char *id)
{
	for (size_t i = 0; i < e->nasserted; i++)
		if (e->asserted[i].context && strcmp(e->asserted[i].context, id) == 0)
			return e->asserted[i].why ? e->asserted[i].why : "asserted";
	return NULL;
}

static bool
reaches(double s, int threshold)
{
	return s * 100.0 + 1e-9 >= threshold;
}

/*
 * A context's own evidence, line by line, up to the line where it reaches
 * the threshold: what made it hold. Later evidence adds nothing (not to
 * the score, not to the lines shown), so its patterns can stop there.
 * *done is that line, or SIZE_MAX while it does not hold on its own.
 */
double
score_context_own(const struct engine_result *e, const struct context_def *cx, size_t *done)
{
	double s = 0.0;
	size_t line = 0;

	*done = SIZE_MAX;
	for (;;) {
		size_t next = SIZE_MAX;

		/* the next line with evidence: contexts have a few dozen patterns */
		for (size_t k = 0; k < cx->npats; k++) {
			const struct pat_state *st = &e->ps[cx->pats[k]->index];

			if (st->hit && st->line > line && st->line < next)
				next = st->line;
		}
		if (next == SIZE_MAX)
			return s;
		for (size_t k = 0; k < cx->npats; k++) {
			const struct pat_state *st = &e->ps[cx->pats[k]->index];

			if (st->hit && st->line == next)
				s = combine(s, cx->weights[k]);
		}
		line = next;
		if (reaches(s, cx->threshold)) {
			*done = line;
			return s;
		}
	}
}

/* In declaration order: a context names only earlier ones (contexts_link). */
void
score_contexts(struct engine_result *e)
{
	const struct ruleset *rs = e->rs;

	for (size_t i = 0; i < rs->ncontexts; i++) {
		const struct context_def *cx = &rs->contexts[i];
		double s = score_context_own(e, cx, &e->ctx_done[i]);

		if (engine_asserted_why(e, cx->id))
			s = 1.0;
		e->ctx_score[i] = s;
		e->ctx_held[i] = (reaches(s, cx->threshold) && all_held(e, cx->req_ctx) &&
				  none_held(e, cx->exc_ctx)) || !none_held(e, cx->imp_ctx);
	}
}

/* The rule's patterns alone: an `any` hit (if it has any), every `all`, no `none`. */
static bool
patterns_fire(const struct engine_result *e, const struct rule *r)
{
	bool any = r->nany == 0;

	for (size_t i = 0; i < r->npats; i++) {
		const struct pattern *p = r->pats[i];
		bool hit = e->ps[p->index].hit;

		if (p->role == PAT_ANY && hit)
			any = true;
		else if (p->role == PAT_ALL && !hit)
			return false;
		else if (p->role == PAT_NONE && hit)
			return false;
	}
	return any;
}

bool
score_rule_fired(const struct engine_result *e, const struct rule *r)
{
	return patterns_fire(e, r) && all_held(e, r->req_ctx) && none_held(e, r->exc_ctx);
}

const struct pat_state *
score_rule_key(const struct engine_result *e, const struct rule *r)
{
	const struct pat_state *best = NULL;

	for (int pass = 0; pass < 2 && !best; pass++)
		for (size_t i = 0; i < r->npats; i++) {
			const struct pattern *p = r->pats[i];
			const struct pat_state *st = &e->ps[p->index];

			if (!st->hit || p->role != (pass == 0 ? PAT_ANY : PAT_ALL))
				continue;
			if (!best || st->line < best->line)
				best = st;
		}
	return best;
}

/* Strongest first; ties go to the earlier key line (the innermost cause
 * of a Python exception chain is printed first). */
static int
fired_cmp(const void *a, const void *b, void *ctx)
{
	const struct engine_result *e = ctx;
	const struct rule *ra = *(const struct rule *const *)a, *rb = *(const struct rule *const *)b;
	const struct pat_state *ka = score_rule_key(e, ra), *kb = score_rule_key(e, rb);

	if (ra->weight != rb->weight)
		return rb->weight - ra->weight;
	if (ka && kb && ka->line != kb->line)
		return ka->line < kb->line ? -1 : 1;
	return strcmp(ra->id, rb->id);
}

/*
 * The rules that count: every fired specific rule, and the fired fallback
 * rules only when no specific rule named a kernel class. A specific
 * `unknown` rule (an environment problem, an XLA fusion) still competes
 * with the fallback tier, so a strong one keeps the verdict unknown.
 */
static void
select_fired(const struct engine_result *e, struct verdict *v)
{
	const struct ruleset *rs = e->rs;
	bool specific_kernel = false;

	v->fired = xcalloc(rs->nrules + 1, sizeof(*v->fired));
	for (size_t i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];

		if (!score_rule_fired(e, r))
			continue;
		if (r->tier != TIER_FALLBACK && r->cls != CLASS_UNKNOWN)
			specific_kernel = true;
		v->fired[v->nfired++] = r;
	}
	if (specific_kernel) {
		size_t n = 0;

		for (size_t i = 0; i < v->nfired; i++)
			if (v->fired[i]->tier != TIER_FALLBACK)
				v->fired[n++] = v->fired[i];
		v->nfired = n;
	}
	qsort_r(v->fired, v->nfired, sizeof(*v->fired), fired_cmp, (void *)e);
}

static void
score_classes(const struct engine_result *e, struct verdict *v)
{
	for (int k = 0; k < CLASS_COUNT; k++)
		v->scores[k].score = 0.0;
	for (size_t i = 0; i < v->nfired; i++) {
		const struct rule *r = v->fired[i];
		struct class_score *cs = &v->scores[r->cls];
		const struct pat_state *key = score_rule_key(e, r);

		/* Fallback rules are rival readings of one error, not independent
		 * evidence: a class counts its strongest one only. */
		if (r->tier == TIER_FALLBACK)
			cs->score = cs->score > r->weight / 100.0 ? cs->score : r->weight / 100.0;
		else
			cs->score = combine(cs->score, r->weight);
		if (!cs->top_rule) {
			cs->top_rule = r;
			cs->top_weight = r->weight;
		}
		if (key && (!cs->first_line || key->line < cs->first_line))
			cs->first_line = key->line;
		cs->nrules++;
	}
}

static bool
class_beats(const struct class_score *a, const struct class_score *b)
{
	if (a->score != b->score)
		return a->score > b->score;
	if (a->top_weight != b->top_weight)
		return a->top_weight > b->top_weight;
	return a->first_line && (!b->first_line || a->first_line < b->first_line);
}

static double
capped(double x, int percent)
{
	return x > percent / 100.0 ? percent / 100.0 : x;
}

/* A clear winner keeps its own score; a close runner-up halves it at worst.
 * Then the policy: a kernel class without the kernel context, or a verdict
 * of the fallback tier, cannot claim more than the rules allow. */
static void
set_confidence(const struct engine_result *e, struct verdict *v, double s1, double s2)
{
	const struct confidence_policy *pol = &e->rs->policy;

	v->confidence = s1 > 0 ? s1 * (1.0 - s2 / (2.0 * s1)) : 0.0;
	if (v->cls == CLASS_UNKNOWN)
		return;
	if (pol->kernel_ctx >= 0 && !e->ctx_held[pol->kernel_ctx])
		v->confidence = capped(v->confidence, pol->without_context_max);
	if (v->fallback)
		v->confidence = capped(v->confidence, pol->fallback_max);
}

/* Classes an observed rule named: when there are any, only they may win. */
static void
observed_classes(const struct verdict *v, bool may_win[CLASS_COUNT])
{
	bool any = false;

	for (int k = 0; k < CLASS_COUNT; k++)
		may_win[k] = false;
	for (size_t i = 0; i < v->nfired; i++)
		if (v->fired[i]->tier == TIER_OBSERVED) {
			may_win[v->fired[i]->cls] = true;
			any = true;
		}
	for (int k = 0; k < CLASS_COUNT && !any; k++)
		may_win[k] = true;
}

void
score_verdict(const struct engine_result *e, struct verdict *v)
{
	enum pt_class best = CLASS_COUNT, second = CLASS_COUNT;
	bool may_win[CLASS_COUNT];

	select_fired(e, v);
	score_classes(e, v);
	observed_classes(v, may_win);
	for (int k = 0; k < CLASS_COUNT; k++)
		if (v->scores[k].nrules && may_win[k] &&
		    (best == CLASS_COUNT || class_beats(&v->scores[k], &v->scores[best])))
			best = (enum pt_class)k;
	for (int k = 0; k < CLASS_COUNT; k++)
		if (v->scores[k].nrules && k != (int)best &&
		    (second == CLASS_COUNT || class_beats(&v->scores[k], &v->scores[second])))
			second = (enum pt_class)k;
	v->cls = best == CLASS_COUNT ? CLASS_UNKNOWN : best;
	v->runner_up = second;
	v->top_rule = best == CLASS_COUNT ? NULL : v->scores[best].top_rule;
	v->fallback = v->top_rule && v->top_rule->tier == TIER_FALLBACK;
	v->observed = best != CLASS_COUNT && may_win[best] && !may_win[second < CLASS_COUNT ? second : best];
	/* a class that run saw happen is not made less sure by patterns it outranked */
	set_confidence(e, v, best == CLASS_COUNT ? 0.0 : v->scores[best].score,
		       second == CLASS_COUNT || v->observed ? 0.0 : v->scores[second].score);
	/* the subkind of what was observed, else of the strongest rule of the class */
	for (int pass = 0; pass < 2 && v->top_rule && !v->subkind; pass++)
		for (size_t i = 0; i < v->nfired; i++)
			if (v->fired[i]->cls == v->cls && v->fired[i]->subkind &&
			    (pass == 1 || v->fired[i]->tier == TIER_OBSERVED)) {
				v->subkind = v->fired[i]->subkind;
				break;
			}
}

enum { CTX_OPEN, CTX_FINAL, CTX_NEVER };

static bool
all_in(const unsigned char *state, const int *idx, int want)
{
	for (; idx && *idx >= 0; idx++)
		if (state[*idx] != want)
			return false;
	return true;
}

static bool
any_in(const unsigned char *state, const int *idx, int want)
{
	for (; idx && *idx >= 0; idx++)
		if (state[*idx] == want)
			return true;
	return false;
}

/* Whether each context holds for good, can no longer hold, or is open;
 * patterns of a context that held on its own evidence go quiet. */
static void
settle_contexts(const struct engine_result *e, struct settle *st)
{
	const struct ruleset *rs = e->rs;

	for (size_t i = 0; i < rs->ncontexts; i++) {
		const struct context_def *cx = &rs->contexts[i];
		size_t done;
		bool own_final, own_never, open = false;

		score_context_own(e, cx, &done);
		for (size_t k = 0; k < cx->npats; k++) {
			size_t p = cx->pats[k]->index;

			open |= !e->ps[p].hit;
			if (done == SIZE_MAX)
				st->quiet[p] = false;
		}
		own_final = done != SIZE_MAX || engine_asserted_why(e, cx->id) != NULL;
		own_never = !own_final && !open;
		if ((own_final && all_in(st->ctx, cx->req_ctx, CTX_FINAL) &&
		     all_in(st->ctx, cx->exc_ctx, CTX_NEVER)) || any_in(st->ctx, cx->imp_ctx, CTX_FINAL))
			st->ctx[i] = CTX_FINAL;
		else if ((own_never || any_in(st->ctx, cx->req_ctx, CTX_NEVER) ||
			  any_in(st->ctx, cx->exc_ctx, CTX_FINAL)) && all_in(st->ctx, cx->imp_ctx, CTX_NEVER))
			st->ctx[i] = CTX_NEVER;
		else
			st->ctx[i] = CTX_OPEN;
	}
}

/* A `none` pattern hit, or a context it names settled the wrong way. */
static bool
rule_cannot_fire(const struct engine_result *e, const struct settle *st, const struct rule *r)
{
	for (size_t k = 0; k < r->npats; k++)
		if (r->pats[k]->role == PAT_NONE && e->ps[r->pats[k]->index].hit)
			return true;
	return any_in(st->ctx, r->req_ctx, CTX_NEVER) || any_in(st->ctx, r->exc_ctx, CTX_FINAL);
}

/* Fired, and nothing later can take it back: no `none` pattern, contexts settled. */
static bool
rule_fired_final(const struct engine_result *e, const struct settle *st, const struct rule *r)
{
	return r->nnone == 0 && all_in(st->ctx, r->req_ctx, CTX_FINAL) &&
	       all_in(st->ctx, r->exc_ctx, CTX_NEVER) && patterns_fire(e, r);
}

void
score_settle(const struct engine_result *e, struct settle *st)
{
	const struct ruleset *rs = e->rs;
	bool specific_final = false, keyless = false;

	for (size_t i = 0; i < rs->npatterns; i++)
		st->quiet[i] = true;
	for (size_t f = 0; f < rs->nfacts; f++)
		st->quiet[rs->facts[f].pat->index] = false;
	settle_contexts(e, st);
	st->rule_fired_final = false;
	for (size_t i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];

		keyless |= r->nany == 0 && r->nall == 0;
		if (!rule_fired_final(e, st, r))
			continue;
		st->rule_fired_final = true;
		specific_final |= r->tier != TIER_FALLBACK && r->cls != CLASS_UNKNOWN;
	}
	/* a rule with no key line would leave the fingerprint to the last error line */
	st->rule_fired_final &= !keyless;
	for (size_t i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];

		if (rule_cannot_fire(e, st, r) || (r->tier == TIER_FALLBACK && specific_final))
			continue;
		for (size_t k = 0; k < r->npats; k++)
			st->quiet[r->pats[k]->index] = false;
	}
}
