/* SPDX-License-Identifier: MIT */
/*
 * The interpret-mode partition of the method (debugging-method.md) in the
 * session model: when the question is worth asking, what each answer rules
 * out, where a ruled-out diagnosis moves, a log that is interpret-mode
 * output answering the question by itself, and the walk stopping with a
 * finding when every explanation of a class is ruled out. The walk never
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

/*
 * What each answer rules out, and where a ruled-out diagnosis moves to.
 * Candidates are tried by the first verdict's score, skipping those ruled
 * out; the last one is the default. `from_log` is the reason when the log
 * itself came from interpret mode.
 */
struct partition {
	enum interp_answer when;
	const char *reason, *from_log;
	struct { enum pt_class cls; const char *subkind; } out[3], to[3];
	size_t nout, nto;
};

static const struct partition partitions[] = {
	{ INTERP_REPRODUCES,
	  "reproduces under interpret mode, so not layout, capacity or precision: "
	  "interpret mode models none of them",
	  "the log is interpret-mode output and shows the failure, so not layout, capacity or "
	  "precision: interpret mode models none of them",
	  { { CLASS_LAYOUT, NULL }, { CLASS_CAPACITY, NULL }, { CLASS_NUMERICS, "precision" } },
	  { { CLASS_SYNCHRONIZATION, NULL }, { CLASS_NUMERICS, "logic" } }, 3, 2 },
	{ INTERP_NO_REPRO,
	  "does not reproduce under interpret mode, so not a logic or indexing bug: "
	  "those fail on CPU too",
	  NULL,
	  { { CLASS_NUMERICS, "logic" } },
	  { { CLASS_LAYOUT, NULL }, { CLASS_CAPACITY, NULL }, { CLASS_NUMERICS, "precision" } }, 1, 3 },
};

/*
 * The explanations of a class that evidence can rule out one by one. When
 * all of a class's are ruled out, nothing on its ladder is left to believe.
 */
static const struct {
	enum pt_class cls;
	const char *subkinds[3];
} explanations[] = {
	{ CLASS_NUMERICS, { "precision", "logic", NULL } },
};

bool
session_numerics_undecided(const struct session *s)
{
	return s->cls == CLASS_NUMERICS && (!s->subkind || strcmp(s->subkind, "mismatch") == 0);
}

bool
session_ruling_from_interpret(const struct ruled_out *r)
{
	for (size_t i = 0; i < ARRAY_SIZE(partitions); i++)
		if (strcmp(r->reason, partitions[i].reason) == 0 ||
		    (partitions[i].from_log && strcmp(r->reason, partitions[i].from_log) == 0))
			return true;
	return false;
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
	cd = rs->have_class[s->cls] ? &rs->classes[s->cls] : NULL;
	/* layout, capacity, a lowering gap: the answer is known before the run
	 * ("no"), so the question would only cost the user a run */
	return !cd || !cd->interpret || strcmp(cd->interpret, "not-modelled") != 0;
}

static bool
current_ruled_out(const struct session *s)
{
	if (s->cls == CLASS_UNKNOWN || session_ruled_out_has(s, s->cls, NULL) ||
	    session_numerics_undecided(s))
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

/* Are all of class c's explanations ruled out? False for a class without any. */
static bool
all_explanations_out(const struct session *s, enum pt_class c)
{
	for (size_t i = 0; i < ARRAY_SIZE(explanations); i++) {
		if (explanations[i].cls != c)
			continue;
		for (const char *const *k = explanations[i].subkinds; *k; k++)
			if (!session_ruled_out_has(s, c, *k))
				return false;
		return true;
	}
	return session_ruled_out_has(s, c, NULL);
}

static void
rerank(struct session *s, const struct partition *p, const char *why, struct session_news *nw)
{
	size_t best = p->nto, last = p->nto - 1;
	double best_score = 0.0;

	/* a class the log gave no score is no candidate, except the default */
	for (size_t i = 0; i < p->nto; i++)
		if (s->first.scores[p->to[i].cls] > best_score &&
		    !session_ruled_out_has(s, p->to[i].cls, p->to[i].subkind)) {
			best_score = s->first.scores[p->to[i].cls];
			best = i;
		}
	if (best == p->nto && !session_ruled_out_has(s, p->to[last].cls, p->to[last].subkind))
		best = last;
	if (best == p->nto) {
		session_escalate_ruled_out(s, nw);
		return;
	}
	session_move_to(s, p->to[best].cls, p->to[best].subkind, "re-ranked", why, nw);
	if (all_explanations_out(s, s->cls))
		session_escalate_ruled_out(s, nw);
}

static const struct partition *
partition_for(enum interp_answer a)
{
	for (size_t i = 0; i < ARRAY_SIZE(partitions); i++)
		if (partitions[i].when == a)
			return &partitions[i];
	return NULL;
}

/* Rule out what answer p says, and move off a diagnosis it ruled out. */
static void
apply_partition(struct session *s, const struct partition *p, bool from_log,
		struct session_news *nw)
{
	char why[96];

	for (size_t i = 0; i < p->nout; i++)
		session_rule_out(s, p->out[i].cls, p->out[i].subkind,
				 from_log ? p->from_log : p->reason, nw);
	snprintf(why, sizeof(why), "interpret mode: %s%s", interp_answer_name(p->when),
		 from_log ? ", read from the log" : "");
	if (current_ruled_out(s))
		rerank(s, p, why, nw);
	session_interp_sync_vars(s);
}

int
session_interpret(struct session *s, enum interp_answer a, struct session_news *nw,
		  struct pt_err *err)
{
	const struct partition *p;

	if (s->interp != INTERP_UNASKED)
		return pt_err_set(err, PT_EXIT_USAGE, "the interpret-mode question was already "
				  "answered: '%s'", interp_answer_name(s->interp));
	if (a == INTERP_UNASKED || a >= INTERP_COUNT)
		return pt_err_set(err, PT_EXIT_USAGE, "bad interpret-mode answer");
	s->interp = a;
	if (!(p = partition_for(a))) {
		session_news_add(nw, "interpret mode not tried: the diagnosis stays as it is");
		return 0;
	}
	apply_partition(s, p, false, nw);
	if (a == INTERP_NO_REPRO && s->cls == CLASS_SYNCHRONIZATION)
		session_news_add(nw, "the race detector has no false positives but can miss races: "
				 "synchronization stays the diagnosis");
	return 0;
}

void
session_interpret_from_log(struct session *s, struct session_news *nw)
{
	const struct partition *p = partition_for(INTERP_REPRODUCES);

	if (s->interp != INTERP_UNASKED)
		return;
	s->interp = INTERP_REPRODUCES;
	session_news_add(nw, "the log is interpret-mode output: the failure reproduces there, so "
			 "the interpret-mode question is answered (yes)");
	apply_partition(s, p, true, nw);
}
