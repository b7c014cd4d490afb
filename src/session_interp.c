/* SPDX-License-Identifier: MIT */
/*
 * The interpret-mode partition of the method (debugging-method.md) in the
 * session model: when the question is worth asking, what each answer rules
 * out, where a ruled-out diagnosis moves, a log that is interpret-mode
 * output answering the question by itself, and the walk stopping with a
 * finding when every explanation of a class is ruled out. What an answer
 * means is the rules' (classes.yaml: rules_out, moves_to, keeps,
 * undecided, explanations); this file only applies it. The walk never
 * stands on a diagnosis it has ruled out. See pt/session.h.
 */
#include <stdlib.h>
#include <string.h>

#include "pt/buf.h"
#include "pt/session.h"
#include "pt/session_model.h"
#include "pt/xalloc.h"

/* The value a rung's `unless` names to hide a test the answer already gave. */
#define INTERP_VAR "interpret_answered"

/* The prefix of a ruling read from an interpret-mode log rather than answered. */
#define FROM_LOG "the log is interpret-mode output and shows the failure: "

static const struct class_def *
class_of(const struct ruleset *rs, enum pt_class c)
{
	return rs && c < CLASS_COUNT && rs->have_class[c] ? &rs->classes[c] : NULL;
}

static bool
outcome_of(enum interp_answer a, enum interp_outcome *o)
{
	if (a == INTERP_REPRODUCES)
		*o = OUTCOME_REPRODUCES;
	else if (a == INTERP_NO_REPRO)
		*o = OUTCOME_NO_REPRO;
	else
		return false;
	return true;
}

void
session_interp_sync_vars(struct session *s)
{
	bool answered = s->interp == INTERP_REPRODUCES || s->interp == INTERP_NO_REPRO;

	vars_unset(&s->vars, INTERP_VAR);
	if (answered)
		vars_set(&s->vars, INTERP_VAR, interp_answer_name(s->interp), false);
}

bool
session_interpret_applies(const struct session *s, const struct ruleset *rs)
{
	const struct class_def *cd;

	if (s->interp != INTERP_UNASKED || s->status != SESSION_IN_PROGRESS || s->cls >= CLASS_COUNT)
		return false;
	cd = class_of(rs, s->cls);
	/* layout, capacity, a lowering gap: the answer is known before the run
	 * ("no"), so the question would only cost the user a run */
	return !cd || !cd->interpret || strcmp(cd->interpret, "not-modelled") != 0;
}

static bool
current_ruled_out(const struct session *s, const struct ruleset *rs)
{
	if (session_ruled_out_has(s, s->cls, NULL) || class_undecided(class_of(rs, s->cls), s->subkind))
		return true;
	return s->subkind && session_ruled_out_has(s, s->cls, s->subkind);
}

void
session_escalate_ruled_out(struct session *s, struct session_news *nw)
{
	struct buf b = BUF_INIT;
	enum pt_class c = s->cls;

	for (size_t i = 0; i < s->nruled; i++) {
		char *lab;

		if (s->ruled[i].cls != c)
			continue;
		lab = class_label(c, s->ruled[i].subkind);
		buf_addf(&b, "%s%s (%s)", b.len ? "; " : "", lab, s->ruled[i].reason);
		free(lab);
	}
	free(s->finding);
	s->finding = xasprintf("every explanation of %s is ruled out: %s", class_name(c),
			       b.len ? b.data : "");
	buf_release(&b);
	/* the walk stands on the class, not on a subkind it has ruled out */
	session_move_to(s, c, NULL, "stopped", "every explanation ruled out", nw);
	s->status = SESSION_BLOCKED;
	if (nw)
		nw->flags |= NEWS_BLOCKED | NEWS_RULED_OUT;
	session_news_add(nw, "%s", s->finding);
	session_news_add(nw, "the evidence contradicts itself: check the reference values and the "
			 "interpret-mode run themselves, then stop here and escalate with the "
			 "report, which leads with this finding");
}

void
session_settle(struct session *s, const struct ruleset *rs, const char *verb, const char *why,
	       struct session_news *nw)
{
	const struct class_def *cd = class_of(rs, s->cls);

	for (char **k = cd ? cd->explanations : NULL; k && *k; k++)
		if (!session_ruled_out_has(s, s->cls, *k)) {
			session_move_to(s, s->cls, *k, verb, why, nw);
			return;
		}
	session_escalate_ruled_out(s, nw);
}

/* Are all of class c's explanations ruled out? For a class without any: the whole class. */
static bool
all_explanations_out(const struct session *s, const struct ruleset *rs, enum pt_class c)
{
	const struct class_def *cd = class_of(rs, c);

	if (!cd || !cd->explanations)
		return session_ruled_out_has(s, c, NULL);
	for (char **k = cd->explanations; *k; k++)
		if (!session_ruled_out_has(s, c, *k))
			return false;
	return true;
}

/* "class" or "class/subkind" into its parts; subkind is a new string or NULL. */
static enum pt_class
parse_target(const char *t, char **subkind)
{
	const char *slash = strchr(t, '/');
	char *name = slash ? xstrndup(t, (size_t)(slash - t)) : xstrdup(t);
	enum pt_class c = class_from_name(name);

	free(name);
	*subkind = slash ? xstrdup(slash + 1) : NULL;
	return c;
}

/*
 * Move along the current class's moves_to for outcome o: the candidate the
 * first log scored highest, skipping those ruled out; a class the first
 * log gave no score is a candidate only as the default (the last).
 */
static void
rerank(struct session *s, const struct ruleset *rs, enum interp_outcome o, const char *why,
       struct session_news *nw)
{
	const struct class_def *cd = class_of(rs, s->cls);
	char **to = cd ? cd->moves_to[o] : NULL, *sub, *best_sub = NULL;
	enum pt_class best = CLASS_COUNT, c;
	double best_score = 0.0;
	size_t n = 0;

	for (char **t = to; t && *t; t++, n++) {
		c = parse_target(*t, &sub);
		if (c < CLASS_COUNT && s->first.scores[c] > best_score &&
		    !session_ruled_out_has(s, c, sub)) {
			best_score = s->first.scores[c];
			best = c;
			free(best_sub);
			best_sub = sub;
			sub = NULL;
		}
		free(sub);
	}
	if (best == CLASS_COUNT && n) {
		c = parse_target(to[n - 1], &sub);
		if (c < CLASS_COUNT && !session_ruled_out_has(s, c, sub)) {
			best = c;
			best_sub = sub;
		} else {
			free(sub);
		}
	}
	if (best == CLASS_COUNT) {
		/* nowhere to go: a class with explanations settles, any other stops */
		if (cd && cd->explanations && !session_ruled_out_has(s, s->cls, NULL))
			session_settle(s, rs, "re-ranked", why, nw);
		else if (n)
			session_escalate_ruled_out(s, nw);
		return;
	}
	session_move_to(s, best, best_sub, "re-ranked", why, nw);
	free(best_sub);
	if (all_explanations_out(s, rs, s->cls))
		session_escalate_ruled_out(s, nw);
}

/* Rule out what outcome o says of every class, and move off a diagnosis it ruled out. */
static void
apply_outcome(struct session *s, const struct ruleset *rs, enum interp_outcome o,
	      bool from_log, struct session_news *nw)
{
	const struct class_def *cd;
	char why[96];

	for (int c = 0; c < CLASS_COUNT; c++) {
		if (!(cd = class_of(rs, (enum pt_class)c)))
			continue;
		for (char **p = cd->rules_out[o]; p && p[0] && p[1]; p += 2) {
			char *reason = from_log ? xasprintf(FROM_LOG "%s", p[1]) : xstrdup(p[1]);

			session_rule_out(s, (enum pt_class)c, *p[0] ? p[0] : NULL, reason,
					 from_log ? RULING_INTERPRET_LOG : RULING_INTERPRET, nw);
			free(reason);
		}
	}
	snprintf(why, sizeof(why), "interpret mode: %s%s", interp_outcome_name(o),
		 from_log ? ", read from the log" : "");
	if (current_ruled_out(s, rs))
		rerank(s, rs, o, why, nw);
	else if ((cd = class_of(rs, s->cls)) && cd->keeps[o])
		session_news_add(nw, "%s", cd->keeps[o]);
	session_interp_sync_vars(s);
}

int
session_interpret(struct session *s, const struct ruleset *rs, enum interp_answer a,
		  struct session_news *nw, struct pt_err *err)
{
	enum interp_outcome o;

	if (s->interp != INTERP_UNASKED)
		return pt_err_set(err, PT_EXIT_USAGE, "the interpret-mode question was already "
				  "answered: '%s'", interp_answer_name(s->interp));
	if (a == INTERP_UNASKED || a >= INTERP_COUNT)
		return pt_err_set(err, PT_EXIT_USAGE, "bad interpret-mode answer");
	s->interp = a;
	if (!outcome_of(a, &o)) {
		session_news_add(nw, "interpret mode not tried: the diagnosis stays as it is");
		return 0;
	}
	apply_outcome(s, rs, o, false, nw);
	return 0;
}

void
session_interpret_from_log(struct session *s, const struct ruleset *rs, struct session_news *nw)
{
	if (s->interp != INTERP_UNASKED)
		return;
	s->interp = INTERP_REPRODUCES;
	session_news_add(nw, "the log is interpret-mode output: the failure reproduces there, so "
			 "the interpret-mode question is answered (yes)");
	apply_outcome(s, rs, OUTCOME_REPRODUCES, true, nw);
}
