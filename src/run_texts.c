/* SPDX-License-Identifier: MIT */
/*
 * The sentences of `pallas-triage run` and its pass bounds, as data; see
 * pt/run_texts.h. The fact names a `when` may test are the ones run_eval.c
 * emits (docs/run.md lists them): a `when` naming another fact simply never
 * holds, which `tests/run` would show as the facts' line printed bare.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pt/run_texts.h"
#include "pt/xalloc.h"

static int
parse_when(const struct ynode *w, char ***out, const char *file, struct diag *d)
{
	char **v;

	if (!w || w->kind != YNODE_MAP || ynode_map_len(w) == 0) {
		diag_error(d, file, w ? w->line : 0, w ? w->col : 0,
			   "'when' must be a mapping of fact names to values");
		return -1;
	}
	v = xcalloc(w->n + 1, sizeof(*v));
	for (size_t i = 0; i < w->n; i++) {
		if (w->items[i]->kind != YNODE_SCALAR || !*w->items[i]->str) {
			diag_error(d, file, w->items[i]->line, w->items[i]->col,
				   "a 'when' %s must be a word", i % 2 ? "value" : "fact name");
			strv_free(v);
			return -1;
		}
		v[i] = xstrdup(w->items[i]->str);
	}
	*out = v;
	return 0;
}

/* "class" or "class/subkind" with a known class. */
static bool
valid_rules_out(const char *s)
{
	const char *slash = strchr(s, '/');
	char *cls = xstrndup(s, slash ? (size_t)(slash - s) : strlen(s));
	bool ok = class_from_name(cls) != CLASS_COUNT && (!slash || slash[1]);

	xfree(cls);
	return ok;
}

static int
parse_text(struct ruleset *rs, const struct ynode *n, const char *file, struct diag *d)
{
	static const char *const keys[] = { "when", "text", "rules_out", "reason", NULL };
	const char *text = NULL, *out = NULL, *reason = NULL;
	struct run_text *t;
	char **when = NULL;

	if (n->kind != YNODE_MAP) {
		diag_error(d, file, n->line, n->col, "each run text must be a mapping");
		return -1;
	}
	if (ynode_check_keys(n, keys, file, "a run text", d) < 0 ||
	    ynode_want_str(n, "text", true, &text, file, "a run text", d) < 0 ||
	    ynode_want_str(n, "rules_out", false, &out, file, "a run text", d) < 0 ||
	    ynode_want_str(n, "reason", false, &reason, file, "a run text", d) < 0 ||
	    parse_when(ynode_get(n, "when"), &when, file, d) < 0)
		return -1;
	if (out && !valid_rules_out(out)) {
		diag_error(d, file, n->line, n->col, "rules_out '%s' is not 'class' or "
			   "'class/subkind' of a known class", out);
		strv_free(when);
		return -1;
	}
	if (!out != !reason) {
		diag_error(d, file, n->line, n->col, "'rules_out' and 'reason' go together");
		strv_free(when);
		return -1;
	}
	XGROW(rs->run_texts, rs->alloc_run_texts, rs->nrun_texts + 1);
	t = &rs->run_texts[rs->nrun_texts++];
	t->when = when;
	t->text = xstrdup(text);
	t->rules_out = dup_or_null(out);
	t->reason = dup_or_null(reason);
	t->file = xstrdup(file);
	t->line = n->line;
	return 0;
}

int
run_texts_parse(struct ruleset *rs, const struct ynode *list, const char *file, struct diag *d)
{
	int ret = 0;

	for (size_t i = 0; i < list->n; i++)
		if (parse_text(rs, list->items[i], file, d) < 0)
			ret = -1;
	return ret;
}

static int
want_bound(const struct ynode *m, const char *key, char **out, const char *file,
	   struct diag *d)
{
	const char *s = NULL;
	char *end;
	double v;

	if (ynode_want_str(m, key, false, &s, file, "'run_pass'", d) < 0)
		return -1;
	if (!s)
		return 0;
	v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v < 0) {
		const struct ynode *n = ynode_get(m, key);

		diag_error(d, file, n->line, n->col, "'%s' must be a number of at least 0, not '%s'",
			   key, s);
		return -1;
	}
	*out = xstrdup(s);
	return 0;
}

int
run_pass_parse(struct ruleset *rs, const struct ynode *m, const char *file, struct diag *d)
{
	static const char *const keys[] = { "rules", "max_abs", "max_rel", NULL };
	struct run_pass p = { 0 };

	if (m->kind != YNODE_MAP) {
		diag_error(d, file, m->line, m->col, "'run_pass' must be a mapping");
		return -1;
	}
	if (rs->run_pass.file) {
		diag_error(d, file, m->line, m->col, "'run_pass' is defined twice (first in %s)",
			   rs->run_pass.file);
		return -1;
	}
	if (ynode_check_keys(m, keys, file, "'run_pass'", d) < 0 ||
	    ynode_want_strv(m, "rules", true, &p.rules, NULL, file, "'run_pass'", d) < 0 ||
	    want_bound(m, "max_abs", &p.max_abs, file, d) < 0 ||
	    want_bound(m, "max_rel", &p.max_rel, file, d) < 0) {
		strv_free(p.rules);
		xfree(p.max_abs);
		return -1;
	}
	p.file = xstrdup(file);
	rs->run_pass = p;
	return 0;
}

void
run_texts_finish(const struct ruleset *rs, struct diag *d)
{
	for (char **id = rs->run_pass.rules; id && *id; id++)
		if (!ruleset_find_rule(rs, *id))
			diag_error(d, rs->run_pass.file, 0, 0, "run_pass names unknown rule '%s'", *id);
}

void
run_texts_free(struct ruleset *rs)
{
	for (size_t i = 0; i < rs->nrun_texts; i++) {
		struct run_text *t = &rs->run_texts[i];

		strv_free(t->when);
		xfree(t->text);
		xfree(t->rules_out);
		xfree(t->reason);
		xfree(t->file);
	}
	xfree(rs->run_texts);
	strv_free(rs->run_pass.rules);
	xfree(rs->run_pass.max_abs);
	xfree(rs->run_pass.max_rel);
	xfree(rs->run_pass.file);
}

const struct run_text *
run_text_pick(const struct ruleset *rs, const struct vars *facts)
{
	for (size_t i = 0; i < rs->nrun_texts; i++) {
		char **w = rs->run_texts[i].when;
		bool all = true;

		for (; all && w && w[0] && w[1]; w += 2)
			all = vars_is(facts, w[0], w[1]);
		if (all)
			return &rs->run_texts[i];
	}
	return NULL;
}

void
run_text_render(const struct run_text *t, const struct vars *vs, const char *line,
		struct buf *out)
{
	if (t)
		vars_expand(vs, t->text, out);
	else if (line)
		buf_adds(out, line);
}

bool
run_pass_rule(const struct ruleset *rs, const char *id)
{
	for (char **p = rs->run_pass.rules; p && *p; p++)
		if (strcmp(*p, id) == 0)
			return true;
	return false;
}

bool
run_pass_bound(const struct ruleset *rs, bool abs, double *out)
{
	const char *s = abs ? rs->run_pass.max_abs : rs->run_pass.max_rel;

	if (!s)
		return false;
	*out = strtod(s, NULL);
	return true;
}
