/* SPDX-License-Identifier: MIT */
/*
 * The `contexts` and `confidence` sections of the rules (docs/rules.md):
 * parsing, validation and the resolution of context names into indexes.
 * Evaluating contexts on a log is the scorer's job (score.c).
 */
#include <stdlib.h>
#include <string.h>

#include "pt/rules.h"
#include "pt/rules_parse.h"
#include "pt/util.h"
#include "pt/xalloc.h"
#include "pt/ytree.h"

static bool
valid_context_id(const char *id)
{
	if (!*id)
		return false;
	for (const char *p = id; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
			return false;
	return true;
}

static void
context_release(struct context_def *cx)
{
	xfree(cx->id);
	xfree(cx->summary);
	xfree(cx->missing);
	for (size_t i = 0; i < cx->npats; i++)
		pattern_free(cx->pats[i]);
	xfree(cx->pats);
	xfree(cx->weights);
	strv_free(cx->requires);
	strv_free(cx->excludes);
	strv_free(cx->implied_by);
	xfree(cx->req_ctx);
	xfree(cx->exc_ctx);
	xfree(cx->imp_ctx);
	strv_free(cx->sets);
	examples_free(cx->match_ex, cx->nmatch_ex);
	examples_free(cx->nomatch_ex, cx->nnomatch_ex);
	xfree(cx->file);
}

void
contexts_free(struct ruleset *rs)
{
	for (size_t i = 0; i < rs->ncontexts; i++)
		context_release(&rs->contexts[i]);
	xfree(rs->contexts);
	xfree(rs->policy.kernel_context);
}

/* One `evidence` item: {weight: N, pattern: '...'}. */
static int
parse_evidence_item(struct context_def *cx, const struct ynode *n, size_t alloc[2],
		    const char *file, struct diag *d)
{
	static const char *const keys[] = { "weight", "pattern", NULL };
	const struct ynode *pn = NULL;
	struct pattern *p;
	long w = 0;

	if (n->kind != YNODE_MAP) {
		diag_error(d, file, n->line, n->col, "an evidence item must be {weight: N, pattern: '...'}");
		return -1;
	}
	if (ynode_check_keys(n, keys, file, "an evidence item", d) < 0 ||
	    ynode_want_int(n, "weight", true, 1, 100, &w, file, "an evidence item", d) < 0 ||
	    ynode_want(n, "pattern", YNODE_SCALAR, true, &pn, file, "an evidence item", d) < 0 ||
	    !(p = pattern_parse(pn, PAT_ANY, file, d)))
		return -1;
	XGROW(cx->pats, alloc[0], cx->npats + 1);
	XGROW(cx->weights, alloc[1], cx->npats + 1);
	cx->pats[cx->npats] = p;
	cx->weights[cx->npats++] = (int)w;
	return 0;
}

static int
parse_evidence(struct context_def *cx, const struct ynode *cn, const char *file, struct diag *d)
{
	const struct ynode *list = NULL;
	size_t alloc[2] = { 0, 0 };
	int ret = 0;

	if (ynode_want(cn, "evidence", YNODE_SEQ, true, &list, file, "a context", d) < 0)
		return -1;
	if (list->n == 0) {
		diag_error(d, file, list->line, list->col, "'evidence' needs at least one item");
		return -1;
	}
	for (size_t i = 0; i < list->n; i++)
		if (parse_evidence_item(cx, list->items[i], alloc, file, d) < 0)
			ret = -1;
	return ret;
}

/* `sets: {backend: mosaic-gpu, platform: gpu}`: plain names to plain values. */
static int
parse_sets(struct context_def *cx, const struct ynode *cn, const char *file, struct diag *d)
{
	const struct ynode *m = NULL;
	size_t n = 0;

	if (ynode_want(cn, "sets", YNODE_MAP, false, &m, file, "a context", d) < 0)
		return -1;
	if (!m)
		return 0;
	cx->sets = xcalloc(m->n + 1, sizeof(*cx->sets));
	for (size_t i = 0; i + 1 < m->n; i += 2) {
		const struct ynode *k = m->items[i], *v = m->items[i + 1];

		if (k->kind != YNODE_SCALAR || v->kind != YNODE_SCALAR || !k->len || !v->len) {
			diag_error(d, file, k->line, k->col, "'sets' in a context maps value names to "
				   "non-empty strings");
			return -1;
		}
		cx->sets[n++] = xstrdup(k->str);
		cx->sets[n++] = xstrdup(v->str);
	}
	return 0;
}

static int
parse_context(struct context_def *cx, const struct ynode *cn, const char *file, struct diag *d)
{
	static const char *const keys[] = {
		"id", "summary", "missing", "threshold", "evidence", "requires", "excludes",
		"implied_by", "sets", "examples", NULL,
	};
	const char *id = NULL, *summary = NULL, *missing = NULL;
	const struct ynode *en = NULL;
	long threshold = 0;
	int bad = 0;

	cx->file = xstrdup(file);
	cx->line = cn->line;
	bad |= ynode_check_keys(cn, keys, file, "a context", d) < 0;
	bad |= ynode_want_str(cn, "id", true, &id, file, "a context", d) < 0;
	if (id && !valid_context_id(id)) {
		const struct ynode *n = ynode_get(cn, "id");

		diag_error(d, file, n->line, n->col, "context id '%s' must be kebab-case (a-z, 0-9, '-')", id);
		bad = 1;
	}
	cx->id = xstrdup(id ? id : "?");
	bad |= ynode_want_str(cn, "summary", true, &summary, file, "a context", d) < 0;
	bad |= ynode_want_str(cn, "missing", false, &missing, file, "a context", d) < 0;
	bad |= ynode_want_int(cn, "threshold", true, 1, 100, &threshold, file, "a context", d) < 0;
	bad |= parse_evidence(cx, cn, file, d) < 0;
	bad |= ynode_want_strv(cn, "requires", false, &cx->requires, NULL, file, "a context", d) < 0;
	bad |= ynode_want_strv(cn, "excludes", false, &cx->excludes, NULL, file, "a context", d) < 0;
	bad |= ynode_want_strv(cn, "implied_by", false, &cx->implied_by, NULL, file, "a context", d) < 0;
	bad |= parse_sets(cx, cn, file, d) < 0;
	if (ynode_want(cn, "examples", YNODE_MAP, true, &en, file, "a context", d) < 0 ||
	    examples_parse(en, &(struct example_lists){ &cx->match_ex, &cx->nmatch_ex,
							&cx->nomatch_ex, &cx->nnomatch_ex }, file, d) < 0)
		bad = 1;
	cx->summary = dup_or_null(summary);
	cx->missing = dup_or_null(missing);
	cx->threshold = (int)threshold;
	return bad ? -1 : 0;
}

int
contexts_parse_section(struct ruleset *rs, const struct ynode *list, const char *file,
		       struct diag *d)
{
	int ret = 0;

	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *cn = list->items[i];
		struct context_def cx = { 0 };

		if (cn->kind != YNODE_MAP) {
			diag_error(d, file, cn->line, cn->col, "each context must be a mapping");
			ret = -1;
			continue;
		}
		if (parse_context(&cx, cn, file, d) < 0) {
			context_release(&cx);
			ret = -1;
			continue;
		}
		if (ruleset_find_context(rs, cx.id) >= 0) {
			diag_error(d, file, cn->line, cn->col, "duplicate context id '%s'", cx.id);
			context_release(&cx);
			ret = -1;
			continue;
		}
		XGROW(rs->contexts, rs->alloc_contexts, rs->ncontexts + 1);
		cx.index = rs->ncontexts;
		rs->contexts[rs->ncontexts++] = cx;
	}
	return ret;
}

int
confidence_parse(struct ruleset *rs, const struct ynode *map, const char *file, struct diag *d)
{
	static const char *const keys[] = {
		"kernel_context", "without_context_max", "fallback_max", NULL,
	};
	const char *kc = NULL;
	long wo = 100, fb = 100;

	if (map->kind != YNODE_MAP) {
		diag_error(d, file, map->line, map->col, "'confidence' must be a mapping");
		return -1;
	}
	if (ynode_check_keys(map, keys, file, "'confidence'", d) < 0 ||
	    ynode_want_str(map, "kernel_context", false, &kc, file, "'confidence'", d) < 0 ||
	    ynode_want_int(map, "without_context_max", false, 1, 100, &wo, file, "'confidence'", d) < 0 ||
	    ynode_want_int(map, "fallback_max", false, 1, 100, &fb, file, "'confidence'", d) < 0)
		return -1;
	xfree(rs->policy.kernel_context);
	rs->policy.kernel_context = dup_or_null(kc);
	rs->policy.without_context_max = (int)wo;
	rs->policy.fallback_max = (int)fb;
	return 0;
}

/* Whose names link_names() reads: diagnostics only, so no label is built unless one is given. */
struct link_owner {
	const char *kind, *id, *file;
	int line;
};

/*
 * Names -> a -1-terminated index list. A context may only name contexts
 * declared before it (limit), so that one pass in order evaluates them all.
 */
static int *
link_names(const struct ruleset *rs, char **names, size_t limit, const struct link_owner *o,
	   struct diag *d)
{
	size_t n = 0;
	int *out;

	for (char **p = names; p && *p; p++)
		n++;
	out = xcalloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		int k = ruleset_find_context(rs, names[i]);

		if (k < 0)
			diag_error(d, o->file, o->line, 0, "%s '%s' names unknown context '%s'", o->kind,
				   o->id, names[i]);
		else if ((size_t)k >= limit)
			diag_error(d, o->file, o->line, 0, "%s '%s' names context '%s', which is not "
				   "declared before it", o->kind, o->id, names[i]);
		out[i] = k < 0 || (size_t)k >= limit ? -1 : k;
	}
	out[n] = -1;
	return out;
}

void
contexts_link(struct ruleset *rs, struct diag *d)
{
	for (size_t i = 0; i < rs->ncontexts; i++) {
		struct context_def *cx = &rs->contexts[i];
		struct link_owner o = { "context", cx->id, cx->file, cx->line };

		xfree(cx->req_ctx);
		xfree(cx->exc_ctx);
		xfree(cx->imp_ctx);
		cx->req_ctx = link_names(rs, cx->requires, i, &o, d);
		cx->exc_ctx = link_names(rs, cx->excludes, i, &o, d);
		cx->imp_ctx = link_names(rs, cx->implied_by, i, &o, d);
	}
	for (size_t i = 0; i < rs->nrules; i++) {
		struct rule *r = rs->rules[i];
		struct link_owner o = { "rule", r->id, r->file, r->line };

		xfree(r->req_ctx);
		xfree(r->exc_ctx);
		r->req_ctx = link_names(rs, r->requires, rs->ncontexts, &o, d);
		r->exc_ctx = link_names(rs, r->excludes, rs->ncontexts, &o, d);
	}
	rs->policy.kernel_ctx = -1;
	if (rs->policy.kernel_context &&
	    (rs->policy.kernel_ctx = ruleset_find_context(rs, rs->policy.kernel_context)) < 0)
		diag_error(d, "rules", 0, 0, "confidence.kernel_context names unknown context '%s'",
			   rs->policy.kernel_context);
	if (!rs->policy.without_context_max)
		rs->policy.without_context_max = 100;
	if (!rs->policy.fallback_max)
		rs->policy.fallback_max = 100;
}

int
ruleset_find_context(const struct ruleset *rs, const char *id)
{
	for (size_t i = 0; i < rs->ncontexts; i++)
		if (strcmp(rs->contexts[i].id, id) == 0)
			return (int)i;
	return -1;
}
