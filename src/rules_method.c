/* SPDX-License-Identifier: MIT */
/*
 * The debugging method's keys of a class (docs/rules.md, "Classes"): what
 * each interpret-mode answer rules out of the class (`rules_out`), where a
 * ruled-out diagnosis goes (`moves_to`), why it may stand (`keeps`), which
 * subkinds are not settled yet (`undecided`) and which are the class's
 * explanations (`explanations`), what a report asks for (`more_info`,
 * also top-level), and the values that tell two failures of the class
 * apart (`fingerprint`); and a rule's `refine`, which the values decide.
 * Parsing and the cross-checks ruleset_finish() runs; the session model
 * (session_interp.c, session.c), the report and the verdict read them.
 */
#include <stdlib.h>
#include <string.h>

#include "pt/rules.h"
#include "pt/rules_parse.h"
#include "pt/util.h"
#include "pt/xalloc.h"

static const char *const outcome_names[OUTCOME_COUNT] = { "reproduces", "does-not-reproduce" };

const char *
interp_outcome_name(enum interp_outcome o)
{
	return o < OUTCOME_COUNT ? outcome_names[o] : "?";
}

bool
class_undecided(const struct class_def *cd, const char *subkind)
{
	if (!cd || !cd->explanations)
		return false;
	return !subkind || util_strv_has(cd->undecided, subkind);
}

/* A mapping whose keys are the interpret outcomes; an unknown key is an error. */
static int
want_outcome_map(const struct ynode *cn, const char *key, const struct ynode **out,
		 const char *file, struct diag *d)
{
	static const char *const keys[] = { "reproduces", "does-not-reproduce", NULL };

	if (ynode_want(cn, key, YNODE_MAP, false, out, file, "a class", d) < 0)
		return -1;
	if (!*out)
		return 0;
	return ynode_check_keys(*out, keys, file, key, d);
}

/* `rules_out: {reproduces: [{subkind: S, reason: R}, ...]}` into SUBKIND, REASON pairs. */
static int
parse_rules_out(struct class_def *cd, const struct ynode *list, enum interp_outcome o,
		const char *file, struct diag *d)
{
	static const char *const keys[] = { "subkind", "reason", NULL };
	char **v;
	size_t n = 0;

	if (list->kind != YNODE_SEQ) {
		diag_error(d, file, list->line, list->col, "rules_out.%s must be a list of "
			   "{subkind, reason}", interp_outcome_name(o));
		return -1;
	}
	v = xcalloc(2 * list->n + 1, sizeof(*v));
	cd->rules_out[o] = v;
	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *e = list->items[i];
		const char *subkind = NULL, *reason = NULL;

		if (e->kind != YNODE_MAP) {
			diag_error(d, file, e->line, e->col, "a rules_out entry must be {subkind, reason}");
			return -1;
		}
		if (ynode_check_keys(e, keys, file, "a rules_out entry", d) < 0 ||
		    ynode_want_str(e, "subkind", false, &subkind, file, "a rules_out entry", d) < 0 ||
		    ynode_want_str(e, "reason", true, &reason, file, "a rules_out entry", d) < 0)
			return -1;
		v[n++] = xstrdup(subkind ? subkind : "");
		v[n++] = xstrdup(reason);
	}
	return 0;
}

/* A "class" or "class/subkind" target names a class. */
static int
check_target(const char *t, const struct ynode *at, const char *file, struct diag *d)
{
	const char *slash = strchr(t, '/');
	char *name = slash ? xstrndup(t, (size_t)(slash - t)) : xstrdup(t);
	enum pt_class c = class_from_name(name);

	xfree(name);
	if (c == CLASS_COUNT || c == CLASS_UNKNOWN || (slash && !slash[1])) {
		diag_error(d, file, at->line, at->col, "moves_to names '%s'; it must be a kernel "
			   "class, or class/subkind", t);
		return -1;
	}
	return 0;
}

static int
parse_per_outcome(struct class_def *cd, const struct ynode *cn, const char *file,
		  struct diag *d)
{
	const struct ynode *ro = NULL, *mt = NULL, *kp = NULL;
	int bad = 0;

	bad |= want_outcome_map(cn, "rules_out", &ro, file, d) < 0;
	bad |= want_outcome_map(cn, "moves_to", &mt, file, d) < 0;
	bad |= want_outcome_map(cn, "keeps", &kp, file, d) < 0;
	for (int o = 0; !bad && o < OUTCOME_COUNT; o++) {
		const char *name = interp_outcome_name((enum interp_outcome)o);
		const struct ynode *n;
		const char *keep = NULL;

		if (ro && (n = ynode_get(ro, name)))
			bad |= parse_rules_out(cd, n, (enum interp_outcome)o, file, d) < 0;
		if (mt && ynode_want_strv(mt, name, false, &cd->moves_to[o], NULL, file,
					  "moves_to", d) < 0)
			bad = 1;
		for (char **t = cd->moves_to[o]; t && *t && !bad; t++)
			bad |= check_target(*t, ynode_get(mt, name), file, d) < 0;
		if (kp && ynode_want_str(kp, name, false, &keep, file, "keeps", d) < 0)
			bad = 1;
		cd->keeps[o] = dup_or_null(keep);
	}
	return bad ? -1 : 0;
}

int
class_method_parse(struct class_def *cd, const struct ynode *cn, const char *file,
		   struct diag *d)
{
	int bad = 0;

	bad |= parse_per_outcome(cd, cn, file, d) < 0;
	bad |= ynode_want_strv(cn, "undecided", false, &cd->undecided, NULL, file, "a class", d) < 0;
	bad |= ynode_want_strv(cn, "explanations", false, &cd->explanations, NULL, file, "a class",
			       d) < 0;
	bad |= ynode_want_strv(cn, "more_info", false, &cd->more_info, NULL, file, "a class", d) < 0;
	bad |= ynode_want_strv(cn, "fingerprint", false, &cd->fingerprint, NULL, file, "a class",
			       d) < 0;
	if (!bad && cd->undecided && !cd->explanations) {
		const struct ynode *n = ynode_get(cn, "undecided");

		diag_error(d, file, n->line, n->col, "'undecided' needs 'explanations': the "
			   "subkinds an undecided diagnosis is settled into");
		bad = 1;
	}
	return bad ? -1 : 0;
}

void
class_method_release(struct class_def *cd)
{
	for (int o = 0; o < OUTCOME_COUNT; o++) {
		strv_free(cd->rules_out[o]);
		strv_free(cd->moves_to[o]);
		xfree(cd->keeps[o]);
	}
	strv_free(cd->undecided);
	strv_free(cd->explanations);
	strv_free(cd->more_info);
	strv_free(cd->fingerprint);
}

int
more_info_parse(struct ruleset *rs, const struct ynode *root, const char *file, struct diag *d)
{
	char **v = NULL;
	size_t n = 0, have = 0;

	if (!ynode_get(root, "more_info"))
		return 0;
	if (ynode_want_strv(root, "more_info", false, &v, &n, file, "the file", d) < 0)
		return -1;
	/* several files may add to the list */
	while (rs->more_info && rs->more_info[have])
		have++;
	rs->more_info = xrealloc(rs->more_info, (have + n + 1) * sizeof(*rs->more_info));
	memcpy(rs->more_info + have, v, n * sizeof(*v));
	rs->more_info[have + n] = NULL;
	xfree(v);
	return 0;
}

int
rule_refine_parse(struct rule *r, const struct ynode *rn, const char *file, struct diag *d)
{
	static const char *const keys[] = { "when", "subkind", "message", NULL };
	const struct ynode *list = NULL;
	size_t n = 0;

	if (ynode_want(rn, "refine", YNODE_SEQ, false, &list, file, "a rule", d) < 0)
		return -1;
	if (!list)
		return 0;
	r->refine = xcalloc(3 * list->n + 1, sizeof(*r->refine));
	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *e = list->items[i];
		const char *when = NULL, *subkind = NULL, *message = NULL;

		if (e->kind != YNODE_MAP) {
			diag_error(d, file, e->line, e->col, "a refine entry must be {when, subkind, "
				   "message}");
			return -1;
		}
		if (ynode_check_keys(e, keys, file, "a refine entry", d) < 0 ||
		    ynode_want_str(e, "when", true, &when, file, "a refine entry", d) < 0 ||
		    ynode_want_str(e, "subkind", true, &subkind, file, "a refine entry", d) < 0 ||
		    ynode_want_str(e, "message", true, &message, file, "a refine entry", d) < 0)
			return -1;
		r->refine[n++] = xstrdup(when);
		r->refine[n++] = xstrdup(subkind);
		r->refine[n++] = xstrdup(message);
	}
	return 0;
}

/* A rung's hypothesis is one of its class's explanations, or ruling it out moves nothing. */
void
method_check(const struct ruleset *rs, struct diag *d)
{
	for (int c = 0; c < CLASS_COUNT; c++)
		for (size_t i = 0; i < rs->ladders[c].nrungs; i++) {
			const struct rung *r = &rs->ladders[c].rungs[i];

			if (r->hypothesis && !util_strv_has(rs->classes[c].explanations, r->hypothesis))
				diag_error(d, r->file, r->line, r->col, "rung '%s' tests hypothesis "
					   "'%s', which is not one of the explanations of class '%s'",
					   r->id, r->hypothesis, class_name((enum pt_class)c));
		}
}
