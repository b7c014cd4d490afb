/* SPDX-License-Identifier: MIT */
/*
 * Rule files -> struct ruleset, with strict validation: every problem in a
 * file is reported (file:line:col) before the caller refuses the set. The
 * schema is docs/rules.md; this file is its only implementation.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pt/checktab.h"
#include "pt/chips.h"
#include "pt/gpus.h"
#include "pt/jaxapi.h"
#include "pt/ladder.h"
#include "pt/literal.h"
#include "pt/litset.h"
#include "pt/match.h"
#include "pt/rules.h"
#include "pt/rules_parse.h"
#include "pt/run_texts.h"
#include "pt/util.h"
#include "pt/xalloc.h"
#include "pt/ytree.h"

#define RULES_FILE_MAX (16u << 20)

static const char *const class_names[CLASS_COUNT] = {
	"layout", "capacity", "synchronization", "numerics", "unsupported", "unknown",
};

const char *
class_name(enum pt_class c)
{
	return c < CLASS_COUNT ? class_names[c] : "none";
}

char *
class_label(enum pt_class c, const char *subkind)
{
	if (c >= CLASS_COUNT)
		return xstrdup("fixed");
	return subkind ? xasprintf("%s/%s", class_names[c], subkind) : xstrdup(class_names[c]);
}

enum pt_class
class_from_name(const char *name)
{
	for (int c = 0; c < CLASS_COUNT; c++)
		if (strcmp(class_names[c], name) == 0)
			return (enum pt_class)c;
	return CLASS_COUNT;
}

const char *
stage_name(enum stage s)
{
	switch (s) {
	case STAGE_COMPILE: return "compile";
	case STAGE_RUNTIME: return "runtime";
	case STAGE_NUMERIC: return "numeric";
	}
	return "?";
}

struct ruleset *
ruleset_new(void)
{
	struct ruleset *rs = xcalloc(1, sizeof(*rs));

	for (int c = 0; c < CLASS_COUNT; c++) {
		rs->classes[c].cls = (enum pt_class)c;
		rs->ladders[c].cls = (enum pt_class)c;
	}
	return rs;
}

void
pattern_free(struct pattern *p)
{
	if (!p)
		return;
	match_free(p->m);
	xfree(p->src);
	literal_list_free(p->lits);
	literal_list_free(p->ahead);
	literal_list_free(p->also);
	xfree(p->tail);
	xfree(p);
}

void
examples_free(struct example *ex, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		xfree(ex[i].log);
		strv_free(ex[i].cap_names);
		strv_free(ex[i].cap_values);
	}
	xfree(ex);
}

static void
rule_free(struct rule *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->npats; i++)
		pattern_free(r->pats[i]);
	xfree(r->pats);
	xfree(r->id);
	xfree(r->subkind);
	strv_free(r->literals);
	xfree(r->message);
	xfree(r->explain);
	strv_free(r->links);
	examples_free(r->match_ex, r->nmatch_ex);
	examples_free(r->nomatch_ex, r->nnomatch_ex);
	xfree(r->file);
	xfree(r->origin);
	strv_free(r->requires);
	strv_free(r->excludes);
	strv_free(r->refine);
	xfree(r->req_ctx);
	xfree(r->exc_ctx);
	xfree(r);
}

static void
rung_release(struct rung *r)
{
	xfree(r->id);
	xfree(r->family);
	xfree(r->action);
	xfree(r->change);
	xfree(r->fallback);
	xfree(r->expect);
	strv_free(r->requires);
	strv_free(r->unless);
	strv_free(r->subkinds);
	strv_free(r->flags);
	strv_free(r->backends);
	xfree(r->hypothesis);
	xfree(r->file);
}

void
ruleset_free(struct ruleset *rs)
{
	if (!rs)
		return;
	for (size_t i = 0; i < rs->nrules; i++)
		rule_free(rs->rules[i]);
	xfree(rs->rules);
	xfree(rs->patterns);
	xfree(rs->always);
	xfree(rs->env_fields);
	litset_free(rs->prefilter);
	for (int c = 0; c < CLASS_COUNT; c++) {
		struct class_def *cd = &rs->classes[c];

		xfree(cd->title);
		xfree(cd->summary);
		xfree(cd->interpret);
		xfree(cd->interpret_note);
		xfree(cd->gpu_interpret_note);
		xfree(cd->explain);
		strv_free(cd->next_steps);
		class_method_release(cd);
		strv_free(cd->next_steps_run);
		for (size_t i = 0; i < rs->ladders[c].nrungs; i++)
			rung_release(&rs->ladders[c].rungs[i]);
		xfree(rs->ladders[c].rungs);
	}
	for (size_t i = 0; i < rs->nflags; i++) {
		xfree(rs->flags[i].id);
		xfree(rs->flags[i].snippet);
		xfree(rs->flags[i].why);
		xfree(rs->flags[i].file);
	}
	xfree(rs->flags);
	for (size_t i = 0; i < rs->ncodes; i++) {
		xfree(rs->codes[i].code);
		xfree(rs->codes[i].name);
		xfree(rs->codes[i].summary);
		xfree(rs->codes[i].link);
	}
	xfree(rs->codes);
	for (size_t i = 0; i < rs->nfacts; i++) {
		xfree(rs->facts[i].id);
		xfree(rs->facts[i].sets);
		xfree(rs->facts[i].file);
		pattern_free(rs->facts[i].pat);
		strv_free(rs->facts[i].examples);
	}
	xfree(rs->facts);
	contexts_free(rs);
	run_texts_free(rs);
	chiptab_free(rs->chips);
	jaxapi_free(rs->api);
	checktab_free(rs->checks);
	for (size_t i = 0; i < rs->nfiles; i++)
		xfree(rs->files[i]);
	xfree(rs->files);
	strv_free(rs->more_info);
	/* last: until here its strings, records and lists were lent from these */
	if (rs->cache_bytes) {
		xalloc_unlend(rs->cache_bytes);
		if (rs->cache_mapped)
			munmap(rs->cache_bytes, rs->cache_len);
		else
			free(rs->cache_bytes);
	}
	xarena_free(rs->cache_arena);
	free(rs);
}

struct pattern *
pattern_parse(const struct ynode *n, enum pat_role role, const char *file, struct diag *d)
{
	struct pt_err err = PT_ERR_INIT;
	struct pattern *p;
	size_t off = 0;

	if (n->kind != YNODE_SCALAR || n->len == 0) {
		diag_error(d, file, n->line, n->col, "a pattern must be a non-empty string");
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	p->src = xstrdup(n->str);
	p->role = role;
	p->line = n->line;
	p->col = n->col;
	if (!(p->m = match_compile(p->src, &off, &err))) {
		diag_error(d, file, n->line, n->col, "bad regex at offset %zu: %s", off, err.msg);
		pattern_free(p);
		return NULL;
	}
	return p;
}

static int
parse_match(struct rule *r, const struct ynode *mn, const char *file, struct diag *d)
{
	static const char *const keys[] = { "any", "all", "none", "capture", NULL };
	static const enum pat_role roles[] = { PAT_ANY, PAT_ALL, PAT_NONE, PAT_CAPTURE };
	size_t alloc = 0;
	int ret = 0;

	if (ynode_check_keys(mn, keys, file, "'match'", d) < 0)
		ret = -1;
	for (int k = 0; k < 4; k++) {
		const struct ynode *list = ynode_get(mn, keys[k]);

		if (!list)
			continue;
		if (list->kind == YNODE_SCALAR) {
			diag_error(d, file, list->line, list->col, "'%s' must be a list of patterns", keys[k]);
			ret = -1;
			continue;
		}
		for (size_t i = 0; i < list->n; i++) {
			struct pattern *p = pattern_parse(list->items[i], roles[k], file, d);

			if (!p) {
				ret = -1;
				continue;
			}
			p->rule = r;
			XGROW(r->pats, alloc, r->npats + 1);
			r->pats[r->npats++] = p;
			if (roles[k] == PAT_ANY)
				r->nany++;
			else if (roles[k] == PAT_ALL)
				r->nall++;
			else if (roles[k] == PAT_NONE)
				r->nnone++;
		}
	}
	if (ret == 0 && r->nany + r->nall == 0) {
		diag_error(d, file, mn->line, mn->col, "'match' needs at least one 'any' or 'all' pattern");
		ret = -1;
	}
	return ret;
}

static int
parse_example(struct example *ex, const struct ynode *n, const char *file, struct diag *d)
{
	static const char *const keys[] = { "log", "captures", NULL };
	const struct ynode *caps = NULL;
	const char *log = NULL;

	ex->line = n->line;
	if (n->kind == YNODE_SCALAR) {
		ex->log = xstrdup(n->str);
		return 0;
	}
	if (n->kind != YNODE_MAP) {
		diag_error(d, file, n->line, n->col, "an example must be a log text or a mapping with 'log'");
		return -1;
	}
	if (ynode_check_keys(n, keys, file, "an example", d) < 0 ||
	    ynode_want_str(n, "log", true, &log, file, "an example", d) < 0 ||
	    ynode_want(n, "captures", YNODE_MAP, false, &caps, file, "an example", d) < 0)
		return -1;
	ex->log = xstrdup(log);
	if (caps) {
		size_t nc = ynode_map_len(caps);

		ex->cap_names = xcalloc(nc + 1, sizeof(char *));
		ex->cap_values = xcalloc(nc + 1, sizeof(char *));
		for (size_t i = 0; i < nc; i++) {
			const struct ynode *k = caps->items[2 * i], *v = caps->items[2 * i + 1];

			if (k->kind != YNODE_SCALAR || v->kind != YNODE_SCALAR) {
				diag_error(d, file, k->line, k->col, "captures must map names to strings");
				return -1;
			}
			ex->cap_names[i] = xstrdup(k->str);
			ex->cap_values[i] = xstrdup(v->str);
		}
	}
	return 0;
}

int
examples_parse(const struct ynode *en, struct example_lists *out, const char *file, struct diag *d)
{
	static const char *const keys[] = { "match", "no_match", NULL };
	const struct ynode *m = NULL, *nm = NULL;
	int ret = 0;

	if (ynode_check_keys(en, keys, file, "'examples'", d) < 0)
		ret = -1;
	if (ynode_want(en, "match", YNODE_SEQ, true, &m, file, "'examples'", d) < 0 ||
	    ynode_want(en, "no_match", YNODE_SEQ, false, &nm, file, "'examples'", d) < 0)
		return -1;
	if (m->n == 0) {
		diag_error(d, file, m->line, m->col, "'examples.match' needs at least one example");
		ret = -1;
	}
	*out->match = xcalloc(m->n + 1, sizeof(**out->match));
	for (size_t i = 0; i < m->n; i++, (*out->nmatch)++)
		if (parse_example(&(*out->match)[i], m->items[i], file, d) < 0)
			ret = -1;
	if (nm) {
		*out->nomatch = xcalloc(nm->n + 1, sizeof(**out->nomatch));
		for (size_t i = 0; i < nm->n; i++, (*out->nnomatch)++)
			if (parse_example(&(*out->nomatch)[i], nm->items[i], file, d) < 0)
				ret = -1;
	}
	return ret;
}

static bool
name_char(char c, bool upper)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
	       c == '_' || (upper && c >= 'A' && c <= 'Z');
}

static bool
name_of(const char *s, bool upper)
{
	size_t n = 0;

	/* a value's name may start with '_' (PCRE2 group names may) */
	if (!s || !*s || *s == '-' || *s == '.' || (!upper && *s == '_'))
		return false;
	for (; s[n]; n++)
		if (!name_char(s[n], upper))
			return false;
	return n <= RULES_NAME_MAX;
}

bool
rules_name_valid(const char *s)
{
	return name_of(s, false);
}

bool
rules_var_name_valid(const char *s)
{
	return name_of(s, true);
}

bool
rules_rule_id_valid(const char *s)
{
	const char *dot = s ? strchr(s, '.') : NULL;

	return dot && dot != s && dot[1] && name_of(s, false);
}

static int
parse_stage(const struct ynode *rn, enum stage *out, const char *file, struct diag *d)
{
	const char *s = NULL;
	const struct ynode *n = ynode_get(rn, "stage");

	if (ynode_want_str(rn, "stage", true, &s, file, "a rule", d) < 0)
		return -1;
	for (int i = STAGE_COMPILE; i <= STAGE_NUMERIC; i++)
		if (strcmp(stage_name((enum stage)i), s) == 0) {
			*out = (enum stage)i;
			return 0;
		}
	diag_error(d, file, n->line, n->col, "stage must be compile, runtime or numeric, not '%s'", s);
	return -1;
}

static int
parse_class_field(const struct ynode *m, enum pt_class *out, bool required, const char *file,
		  const char *what, struct diag *d)
{
	const char *s = NULL;
	const struct ynode *n = ynode_get(m, "class");

	if (ynode_want_str(m, "class", required, &s, file, what, d) < 0)
		return -1;
	if (!s)
		return 0;
	if ((*out = class_from_name(s)) == CLASS_COUNT) {
		diag_error(d, file, n->line, n->col,
			   "unknown class '%s' (layout, capacity, synchronization, numerics, unsupported, unknown)", s);
		return -1;
	}
	return 0;
}

static int
parse_tier(const struct ynode *rn, enum rule_tier *out, const char *file, struct diag *d)
{
	const char *s = NULL;
	const struct ynode *n = ynode_get(rn, "tier");

	*out = TIER_SPECIFIC;
	if (ynode_want_str(rn, "tier", false, &s, file, "a rule", d) < 0)
		return -1;
	if (!s || strcmp(s, "specific") == 0)
		return 0;
	if (strcmp(s, "fallback") == 0) {
		*out = TIER_FALLBACK;
		return 0;
	}
	if (strcmp(s, "observed") == 0) {
		*out = TIER_OBSERVED;
		return 0;
	}
	diag_error(d, file, n->line, n->col, "tier must be specific, fallback or observed, not '%s'", s);
	return -1;
}

/* Fields a session records (rung, family, subkind) must be names: the
 * session loader refuses anything else. Checks s, or each of v. */
static int
want_names(const struct ynode *m, const char *key, const char *s, char *const *v,
	   const char *file, const char *what, struct diag *d)
{
	const char *const one[] = { s, NULL };
	const struct ynode *n = ynode_get(m, key);

	for (const char *const *p = s ? one : (const char *const *)v; p && *p; p++)
		if (!rules_name_valid(*p)) {
			diag_error(d, file, n->line, n->col, "'%s' in %s must be a name (a-z, 0-9, "
				   "'.', '_', '-'; at most %d bytes), not '%s'", key, what,
				   RULES_NAME_MAX, *p);
			return -1;
		}
	return 0;
}

static struct rule *
rule_parse(const struct ynode *rn, const char *file, const char *origin, struct diag *d)
{
	static const char *const keys[] = {
		"id", "class", "subkind", "stage", "weight", "match", "literals", "message",
		"explain", "links", "overrides", "examples", "tier", "requires", "excludes", "refine",
		NULL,
	};
	struct rule *r = xcalloc(1, sizeof(*r));
	const char *id = NULL, *sub = NULL, *msg = NULL, *ex = NULL;
	const struct ynode *mn = NULL, *en = NULL;
	long weight = 0;
	int bad = 0;

	r->file = xstrdup(file);
	r->line = rn->line;
	r->origin = dup_or_null(origin);
	if (ynode_check_keys(rn, keys, file, "a rule", d) < 0)
		bad = 1;
	if (ynode_want_str(rn, "id", true, &id, file, "a rule", d) < 0)
		bad = 1;
	else if (!rules_rule_id_valid(id)) {
		const struct ynode *n = ynode_get(rn, "id");

		diag_error(d, file, n->line, n->col,
			   "rule id '%s' must look like family.kebab-name (lowercase, digits, '-')", id);
		bad = 1;
	}
	r->id = xstrdup(id ? id : "?");
	bad |= parse_class_field(rn, &r->cls, true, file, "a rule", d) < 0;
	bad |= ynode_want_str(rn, "subkind", false, &sub, file, "a rule", d) < 0 ||
	       want_names(rn, "subkind", sub, NULL, file, "a rule", d) < 0;
	bad |= parse_stage(rn, &r->stage, file, d) < 0;
	bad |= ynode_want_int(rn, "weight", true, 1, 100, &weight, file, "a rule", d) < 0;
	bad |= ynode_want_str(rn, "message", true, &msg, file, "a rule", d) < 0;
	bad |= ynode_want_str(rn, "explain", false, &ex, file, "a rule", d) < 0;
	bad |= ynode_want_strv(rn, "links", false, &r->links, NULL, file, "a rule", d) < 0;
	bad |= ynode_want_strv(rn, "literals", false, &r->literals, NULL, file, "a rule", d) < 0;
	for (char **l = r->literals; l && *l; l++)
		if (strlen(*l) < RULE_MIN_LITERAL) {
			const struct ynode *n = ynode_get(rn, "literals");

			diag_error(d, file, n->line, n->col, "literal '%s' is shorter than %d bytes: the "
				   "prefilter cannot use it", *l, RULE_MIN_LITERAL);
			bad = 1;
		}
	bad |= ynode_want_bool(rn, "overrides", &r->overrides, file, "a rule", d) < 0;
	if (ynode_want(rn, "match", YNODE_MAP, true, &mn, file, "a rule", d) < 0 ||
	    parse_match(r, mn, file, d) < 0)
		bad = 1;
	bad |= parse_tier(rn, &r->tier, file, d) < 0;
	bad |= ynode_want_strv(rn, "requires", false, &r->requires, NULL, file, "a rule", d) < 0;
	bad |= ynode_want_strv(rn, "excludes", false, &r->excludes, NULL, file, "a rule", d) < 0;
	bad |= rule_refine_parse(r, rn, file, d) < 0;
	if (ynode_want(rn, "examples", YNODE_MAP, true, &en, file, "a rule", d) < 0 ||
	    examples_parse(en, &(struct example_lists){ &r->match_ex, &r->nmatch_ex, &r->nomatch_ex,
							&r->nnomatch_ex }, file, d) < 0)
		bad = 1;
	r->weight = (int)weight;
	r->subkind = dup_or_null(sub);
	r->message = dup_or_null(msg);
	r->explain = dup_or_null(ex);
	if (bad) {
		rule_free(r);
		return NULL;
	}
	return r;
}

static void
ruleset_add_pattern(struct ruleset *rs, struct pattern *p)
{
	XGROW(rs->patterns, rs->alloc_patterns, rs->npatterns + 1);
	p->index = rs->npatterns;
	rs->patterns[rs->npatterns++] = p;
}

/* A later rule with the same id replaces a shipped one only when it says so. */
static int
ruleset_add_rule(struct ruleset *rs, struct rule *r, const struct ynode *rn, const char *file,
		 struct diag *d)
{
	for (size_t i = 0; i < rs->nrules; i++) {
		struct rule *old = rs->rules[i];

		if (strcmp(old->id, r->id) != 0)
			continue;
		if (r->origin && r->overrides) {
			r->index = i;
			rs->rules[i] = r;
			rule_free(old);
			return 0;
		}
		diag_error(d, file, rn->line, rn->col, "duplicate rule id '%s' (first defined at %s:%d)%s",
			   r->id, old->file, old->line,
			   r->origin ? "; a pack rule must say 'overrides: true' to replace it" : "");
		rule_free(r);
		return -1;
	}
	r->index = rs->nrules;
	XGROW(rs->rules, rs->alloc_rules, rs->nrules + 1);
	rs->rules[rs->nrules++] = r;
	return 0;
}

static int
parse_rules_section(struct ruleset *rs, const struct ynode *list, const char *file,
		    const char *origin, struct diag *d)
{
	int ret = 0;

	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *rn = list->items[i];
		struct rule *r;

		if (rn->kind != YNODE_MAP) {
			diag_error(d, file, rn->line, rn->col, "each rule must be a mapping");
			ret = -1;
			continue;
		}
		if (!(r = rule_parse(rn, file, origin, d)) || ruleset_add_rule(rs, r, rn, file, d) < 0)
			ret = -1;
	}
	return ret;
}

static int
parse_classes_section(struct ruleset *rs, const struct ynode *list, const char *file,
		      struct diag *d)
{
	static const char *const keys[] = {
		"name", "title", "summary", "interpret", "interpret_note", "gpu_interpret_note",
		"explain", "next_steps", "next_steps_run", "rules_out", "moves_to", "keeps",
		"undecided", "explanations", "more_info", "fingerprint", NULL,
	};
	int ret = 0;

	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *cn = list->items[i];
		const char *name = NULL, *title = NULL, *summary = NULL, *interp = NULL,
			   *note = NULL, *gnote = NULL, *explain = NULL;
		char **next = NULL, **next_run = NULL;
		enum pt_class c;
		struct class_def *cd;

		if (cn->kind != YNODE_MAP) {
			diag_error(d, file, cn->line, cn->col, "each class must be a mapping");
			ret = -1;
			continue;
		}
		if (ynode_check_keys(cn, keys, file, "a class", d) < 0 ||
		    ynode_want_str(cn, "name", true, &name, file, "a class", d) < 0 ||
		    ynode_want_str(cn, "title", true, &title, file, "a class", d) < 0 ||
		    ynode_want_str(cn, "summary", true, &summary, file, "a class", d) < 0 ||
		    ynode_want_str(cn, "interpret", true, &interp, file, "a class", d) < 0 ||
		    ynode_want_str(cn, "interpret_note", false, &note, file, "a class", d) < 0 ||
		    ynode_want_str(cn, "gpu_interpret_note", false, &gnote, file, "a class", d) < 0 ||
		    ynode_want_str(cn, "explain", false, &explain, file, "a class", d) < 0 ||
		    ynode_want_strv(cn, "next_steps", false, &next, NULL, file, "a class", d) < 0 ||
		    ynode_want_strv(cn, "next_steps_run", false, &next_run, NULL, file, "a class",
				    d) < 0) {
			strv_free(next);
			strv_free(next_run);
			ret = -1;
			continue;
		}
		if ((c = class_from_name(name)) == CLASS_COUNT) {
			diag_error(d, file, cn->line, cn->col, "unknown class '%s'", name);
			strv_free(next);
			strv_free(next_run);
			ret = -1;
			continue;
		}
		if (strcmp(interp, "reproduces") && strcmp(interp, "not-modelled") &&
		    strcmp(interp, "partly")) {
			const struct ynode *n = ynode_get(cn, "interpret");

			diag_error(d, file, n->line, n->col,
				   "interpret must be reproduces, not-modelled or partly, not '%s'", interp);
			strv_free(next);
			strv_free(next_run);
			ret = -1;
			continue;
		}
		if (rs->have_class[c]) {
			diag_error(d, file, cn->line, cn->col, "class '%s' is defined twice", name);
			strv_free(next);
			strv_free(next_run);
			ret = -1;
			continue;
		}
		cd = &rs->classes[c];
		rs->have_class[c] = true;
		if (class_method_parse(cd, cn, file, d) < 0)
			ret = -1;
		cd->title = xstrdup(title);
		cd->summary = xstrdup(summary);
		cd->interpret = xstrdup(interp);
		cd->interpret_note = dup_or_null(note);
		cd->gpu_interpret_note = dup_or_null(gnote);
		cd->explain = dup_or_null(explain);
		cd->next_steps = next;
		cd->next_steps_run = next_run;
	}
	return ret;
}

static int
parse_flags_section(struct ruleset *rs, const struct ynode *list, const char *file,
		    struct diag *d)
{
	static const char *const keys[] = { "id", "snippet", "why", NULL };
	int ret = 0;

	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *fn = list->items[i];
		const char *id = NULL, *snippet = NULL, *why = NULL;

		if (fn->kind != YNODE_MAP || ynode_check_keys(fn, keys, file, "a flag", d) < 0 ||
		    ynode_want_str(fn, "id", true, &id, file, "a flag", d) < 0 ||
		    ynode_want_str(fn, "snippet", true, &snippet, file, "a flag", d) < 0 ||
		    ynode_want_str(fn, "why", true, &why, file, "a flag", d) < 0) {
			if (fn->kind != YNODE_MAP)
				diag_error(d, file, fn->line, fn->col, "each flag must be a mapping");
			ret = -1;
			continue;
		}
		if (ruleset_find_flag(rs, id)) {
			diag_error(d, file, fn->line, fn->col, "duplicate flag id '%s'", id);
			ret = -1;
			continue;
		}
		XGROW(rs->flags, rs->alloc_flags, rs->nflags + 1);
		rs->flags[rs->nflags].id = xstrdup(id);
		rs->flags[rs->nflags].snippet = xstrdup(snippet);
		rs->flags[rs->nflags].why = xstrdup(why);
		rs->flags[rs->nflags].file = xstrdup(file);
		rs->flags[rs->nflags].line = fn->line;
		rs->flags[rs->nflags].col = fn->col;
		rs->nflags++;
	}
	return ret;
}

/*
 * A ${name} filled from the log; ${api:NAME} is spelled from the API table
 * and ${name|default} has its default: both always render.
 */
static bool
has_value_placeholder(const char *s)
{
	for (const char *p = s; (p = strstr(p, "${")); p += 2) {
		const char *end = strchr(p, '}'), *bar = strchr(p, '|');

		if (strncmp(p, "${api:", 6) != 0 && !(bar && end && bar < end))
			return true;
	}
	return false;
}

static int
parse_rung(struct rung *r, const struct ynode *n, const char *file, struct diag *d)
{
	static const char *const keys[] = {
		"id", "family", "action", "change", "fallback", "expect", "requires", "unless",
		"subkinds", "flags", "backends", "hypothesis", NULL,
	};
	const char *id = NULL, *family = NULL, *action = NULL, *change = NULL, *fallback = NULL,
		   *expect = NULL, *hypothesis = NULL;
	int bad = 0;

	if (n->kind != YNODE_MAP) {
		diag_error(d, file, n->line, n->col, "each rung must be a mapping");
		return -1;
	}
	bad |= ynode_check_keys(n, keys, file, "a rung", d) < 0;
	bad |= ynode_want_str(n, "id", true, &id, file, "a rung", d) < 0 ||
	       want_names(n, "id", id, NULL, file, "a rung", d) < 0;
	bad |= ynode_want_str(n, "family", true, &family, file, "a rung", d) < 0 ||
	       want_names(n, "family", family, NULL, file, "a rung", d) < 0;
	bad |= ynode_want_str(n, "action", true, &action, file, "a rung", d) < 0;
	bad |= ynode_want_str(n, "change", false, &change, file, "a rung", d) < 0;
	bad |= ynode_want_str(n, "fallback", false, &fallback, file, "a rung", d) < 0;
	bad |= ynode_want_str(n, "expect", true, &expect, file, "a rung", d) < 0;
	bad |= ynode_want_strv(n, "requires", false, &r->requires, NULL, file, "a rung", d) < 0;
	bad |= ynode_want_strv(n, "unless", false, &r->unless, NULL, file, "a rung", d) < 0;
	bad |= ynode_want_strv(n, "subkinds", false, &r->subkinds, NULL, file, "a rung", d) < 0 ||
	       want_names(n, "subkinds", NULL, r->subkinds, file, "a rung", d) < 0;
	bad |= ynode_want_strv(n, "flags", false, &r->flags, NULL, file, "a rung", d) < 0;
	bad |= ynode_want_strv(n, "backends", false, &r->backends, NULL, file, "a rung", d) < 0;
	bad |= ynode_want_str(n, "hypothesis", false, &hypothesis, file, "a rung", d) < 0;
	if (!bad && change && has_value_placeholder(change) && !fallback) {
		const struct ynode *c = ynode_get(n, "change");

		diag_error(d, file, c->line, c->col,
			   "a 'change' with ${values} needs a 'fallback' for logs that lack them");
		bad = 1;
	}
	r->id = xstrdup(id ? id : "?");
	r->file = xstrdup(file);
	r->line = n->line;
	r->col = n->col;
	r->family = dup_or_null(family);
	r->action = dup_or_null(action);
	r->change = dup_or_null(change);
	r->fallback = dup_or_null(fallback);
	r->expect = dup_or_null(expect);
	r->hypothesis = dup_or_null(hypothesis);
	return bad ? -1 : 0;
}

/* Rungs without their own `backends` take the entry's. */
static void
inherit_backends(struct rung *r, char *const *backends)
{
	size_t n = 0;

	if (r->backends || !backends)
		return;
	while (backends[n])
		n++;
	r->backends = xcalloc(n + 1, sizeof(*r->backends));
	for (size_t i = 0; i < n; i++)
		r->backends[i] = xstrdup(backends[i]);
}

static int
parse_ladders_section(struct ruleset *rs, const struct ynode *list, const char *file,
		      struct diag *d)
{
	static const char *const keys[] = { "class", "backends", "rungs", NULL };
	int ret = 0;

	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *ln = list->items[i], *rungs = NULL;
		enum pt_class c = CLASS_COUNT;
		char **backends = NULL;
		struct ladder *l;
		size_t first;

		if (ln->kind != YNODE_MAP || ynode_check_keys(ln, keys, file, "a ladder", d) < 0 ||
		    parse_class_field(ln, &c, true, file, "a ladder", d) < 0 ||
		    ynode_want_strv(ln, "backends", false, &backends, NULL, file, "a ladder", d) < 0 ||
		    ynode_want(ln, "rungs", YNODE_SEQ, true, &rungs, file, "a ladder", d) < 0) {
			if (ln->kind != YNODE_MAP)
				diag_error(d, file, ln->line, ln->col, "each ladder must be a mapping");
			strv_free(backends);
			ret = -1;
			continue;
		}
		l = &rs->ladders[c];
		if (!backends && l->have_plain) {
			diag_error(d, file, ln->line, ln->col, "the ladder of '%s' is defined twice "
				   "(a second entry must say which 'backends' it is for)", class_name(c));
			ret = -1;
			continue;
		}
		l->have_plain |= !backends;
		first = l->nrungs;
		l->rungs = xrealloc(l->rungs, (first + rungs->n + 1) * sizeof(*l->rungs));
		memset(&l->rungs[first], 0, (rungs->n + 1) * sizeof(*l->rungs));
		for (size_t k = 0; k < rungs->n; k++, l->nrungs++) {
			l->rungs[first + k].index = first + k;
			if (parse_rung(&l->rungs[first + k], rungs->items[k], file, d) < 0)
				ret = -1;
			inherit_backends(&l->rungs[first + k], backends);
		}
		strv_free(backends);
	}
	return ret;
}

static int
parse_codes_section(struct ruleset *rs, const struct ynode *list, const char *file,
		    struct diag *d)
{
	static const char *const keys[] = { "code", "name", "class", "summary", "link", NULL };
	int ret = 0;

	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *cn = list->items[i];
		const char *code = NULL, *name = NULL, *summary = NULL, *link = NULL;
		enum pt_class c = CLASS_UNKNOWN;
		struct code_def *cd;

		if (cn->kind != YNODE_MAP || ynode_check_keys(cn, keys, file, "a code", d) < 0 ||
		    ynode_want_str(cn, "code", true, &code, file, "a code", d) < 0 ||
		    ynode_want_str(cn, "name", false, &name, file, "a code", d) < 0 ||
		    parse_class_field(cn, &c, true, file, "a code", d) < 0 ||
		    ynode_want_str(cn, "summary", true, &summary, file, "a code", d) < 0 ||
		    ynode_want_str(cn, "link", false, &link, file, "a code", d) < 0) {
			if (cn->kind != YNODE_MAP)
				diag_error(d, file, cn->line, cn->col, "each code must be a mapping");
			ret = -1;
			continue;
		}
		if (ruleset_find_code(rs, code)) {
			diag_error(d, file, cn->line, cn->col, "duplicate code '%s'", code);
			ret = -1;
			continue;
		}
		XGROW(rs->codes, rs->alloc_codes, rs->ncodes + 1);
		cd = &rs->codes[rs->ncodes++];
		cd->code = xstrdup(code);
		cd->name = dup_or_null(name);
		cd->cls = c;
		cd->summary = xstrdup(summary);
		cd->link = dup_or_null(link);
	}
	return ret;
}

/* A fact's value is stored in the session under its name. */
static bool
sets_name_ok(const struct ynode *fn, const char *sets, const char *file, struct diag *d)
{
	const struct ynode *n = ynode_get(fn, "sets");

	if (rules_var_name_valid(sets))
		return true;
	diag_error(d, file, n->line, n->col, "'sets' in a fact must be a value's name (A-Z, a-z, "
		   "0-9, '.', '_', '-'; at most %d bytes), not '%s'", RULES_NAME_MAX, sets);
	return false;
}

static int
parse_facts_section(struct ruleset *rs, const struct ynode *list, const char *file,
		    struct diag *d)
{
	static const char *const keys[] = { "id", "sets", "pattern", "examples", NULL };
	int ret = 0;

	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *fn = list->items[i], *pn = NULL;
		const char *id = NULL, *sets = NULL;
		char **examples = NULL;
		struct pattern *p = NULL;
		struct fact_def *f;

		if (fn->kind != YNODE_MAP || ynode_check_keys(fn, keys, file, "a fact", d) < 0 ||
		    ynode_want_str(fn, "id", true, &id, file, "a fact", d) < 0 ||
		    ynode_want_str(fn, "sets", true, &sets, file, "a fact", d) < 0 ||
		    !sets_name_ok(fn, sets, file, d) ||
		    ynode_want(fn, "pattern", YNODE_SCALAR, true, &pn, file, "a fact", d) < 0 ||
		    ynode_want_strv(fn, "examples", true, &examples, NULL, file, "a fact", d) < 0 ||
		    !(p = pattern_parse(pn, PAT_ANY, file, d))) {
			if (fn->kind != YNODE_MAP)
				diag_error(d, file, fn->line, fn->col, "each fact must be a mapping");
			strv_free(examples);
			ret = -1;
			continue;
		}
		XGROW(rs->facts, rs->alloc_facts, rs->nfacts + 1);
		f = &rs->facts[rs->nfacts++];
		f->id = xstrdup(id);
		f->sets = xstrdup(sets);
		f->file = xstrdup(file);
		f->pat = p;
		f->examples = examples;
	}
	return ret;
}

typedef int (*section_fn)(struct ruleset *, const struct ynode *, const char *, struct diag *);

/* Every section but `rules`, which also needs the pack origin. */
static const struct {
	const char *key;
	section_fn fn;
} sections[] = {
	{ "classes", parse_classes_section },
	{ "ladders", parse_ladders_section },
	{ "flags", parse_flags_section },
	{ "codes", parse_codes_section },
	{ "facts", parse_facts_section },
	{ "contexts", contexts_parse_section },
	{ "run_texts", run_texts_parse },
};

static int
parse_schema_version(const struct ynode *root, const char *file, struct diag *d)
{
	long v = 1;

	if (ynode_want_int(root, "schema_version", false, 0, 1000000, &v, file, "the file", d) < 0)
		return -1;
	if (v != 1) {
		const struct ynode *n = ynode_get(root, "schema_version");

		diag_error(d, file, n->line, n->col,
			   "schema_version %ld is not supported by this pallas-triage (it reads 1)", v);
		return -1;
	}
	return 0;
}

/* Each file may add chips and dtypes; redefining a name is an error inside chiptab_parse. */
static int
parse_chips(struct ruleset *rs, const struct ynode *root, const char *file, struct diag *d)
{
	const struct ynode *chips = ynode_get(root, "chips"), *dtypes = ynode_get(root, "dtypes");
	int ret = 0;

	if (chips || dtypes)
		ret = chiptab_parse(&rs->chips, chips, dtypes, file, d);
	if (gputab_parse(&rs->chips, ynode_get(root, "gpus"), file, d) < 0)
		ret = -1;
	return ret;
}

/* The JAX API table (jaxapi.c): names and gaps may come from any file. */
static int
parse_jax_api(struct ruleset *rs, const struct ynode *root, const char *file, struct diag *d)
{
	const struct ynode *names = ynode_get(root, "jax_api"), *gaps = ynode_get(root, "jax_gaps");
	const struct ynode *releases = ynode_get(root, "jax_releases");

	if (!names && !gaps && !releases)
		return 0;
	return jaxapi_parse(&rs->api, names, gaps, releases, file, d);
}

static int
section_list(const struct ynode *root, const char *key, const char *file, struct diag *d,
	     const struct ynode **out)
{
	const struct ynode *sec = ynode_get(root, key);

	*out = NULL;
	if (sec && sec->kind != YNODE_SEQ) {
		diag_error(d, file, sec->line, sec->col, "section '%s' must be a list", key);
		return -1;
	}
	*out = sec;
	return 0;
}

int
ruleset_load_buf(struct ruleset *rs, const char *buf, size_t len, const char *name,
		 const char *origin, struct diag *d)
{
	static const char *const keys[] = {
		"schema_version", "rules", "classes", "ladders", "flags", "codes", "facts", "chips",
		"dtypes", "gpus", "contexts", "confidence", "jax_api", "jax_gaps", "jax_releases",
		"more_info", "run_texts", "run_pass", "checks", "check_modules", "check_primitives",
		NULL,
	};
	struct ydoc doc = YDOC_INIT;
	size_t before = d->nerrors;
	const struct ynode *root, *sec = NULL;

	if (ydoc_parse(&doc, buf, len, name, d) < 0)
		return -1;
	XGROW(rs->files, rs->alloc_files, rs->nfiles + 1);
	rs->files[rs->nfiles++] = xstrdup(name);
	root = doc.root;
	if (!root) {
		diag_error(d, name, 0, 0, "the file is empty");
		goto out;
	}
	if (root->kind != YNODE_MAP) {
		diag_error(d, name, root->line, root->col, "the file must be a mapping of sections "
			   "(rules, classes, ladders, ...), not %s", ynode_kind_name(root->kind));
		goto out;
	}
	ynode_check_keys(root, keys, name, "the file", d);
	parse_schema_version(root, name, d);
	if (section_list(root, "rules", name, d, &sec) == 0 && sec)
		parse_rules_section(rs, sec, name, origin, d);
	for (size_t i = 0; i < ARRAY_SIZE(sections); i++)
		if (section_list(root, sections[i].key, name, d, &sec) == 0 && sec)
			sections[i].fn(rs, sec, name, d);
	parse_chips(rs, root, name, d);
	if ((sec = ynode_get(root, "confidence")))
		confidence_parse(rs, sec, name, d);
	if ((sec = ynode_get(root, "run_pass")))
		run_pass_parse(rs, sec, name, d);
	parse_jax_api(rs, root, name, d);
	more_info_parse(rs, root, name, d);
	checktab_parse(&rs->checks, ynode_get(root, "checks"), ynode_get(root, "check_modules"),
		       ynode_get(root, "check_primitives"), name, d);
out:
	ydoc_release(&doc);
	return d->nerrors > before ? -1 : 0;
}

static bool
is_yaml_name(const char *n)
{
	size_t len = strlen(n);

	return n[0] != '.' && len > 5 && strcmp(n + len - 5, ".yaml") == 0;
}

int
ruleset_load_dir(struct ruleset *rs, const char *dir, const char *origin, struct diag *d,
		 struct pt_err *err)
{
	char **names = util_list_dir(dir, is_yaml_name);
	int ret = 0;

	if (!names)
		return pt_err_errno(err, PT_EXIT_DATA, "cannot read the rules directory '%s'", dir);
	for (char **name = names; *name; name++) {
		char *path = xasprintf("%s/%s", dir, *name);
		struct buf text = BUF_INIT;
		struct pt_err ferr = PT_ERR_INIT;

		if (util_read_file(path, &text, RULES_FILE_MAX, &ferr) < 0) {
			diag_error(d, path, 0, 0, "%s", ferr.msg);
			ret = -1;
		} else if (ruleset_load_buf(rs, text.data, text.len, path, origin, d) < 0)
			ret = -1;
		buf_release(&text);
		xfree(path);
	}
	if (!names[0]) {
		diag_error(d, dir, 0, 0, "no *.yaml rule files in this directory");
		ret = -1;
	}
	util_names_free(names);
	return ret;
}

static void
check_ladder_refs(const struct ruleset *rs, struct diag *d)
{
	for (int c = 0; c < CLASS_COUNT; c++)
		for (size_t i = 0; i < rs->ladders[c].nrungs; i++) {
			const struct rung *r = &rs->ladders[c].rungs[i];

			const struct rung *first = ladder_find_rung(rs, r->id, NULL);

			for (char **f = r->flags; f && *f; f++)
				if (!ruleset_find_flag(rs, *f))
					diag_error(d, "rules", 0, 0, "rung '%s' names unknown flag '%s'",
						   r->id, *f);
			/* sessions record rungs by id: one id, one rung */
			if (first != r)
				diag_error(d, r->file, r->line, r->col, "duplicate rung id '%s' (first "
					   "defined at %s:%d)", r->id, first->file, first->line);
		}
}

/*
 * The literals the prefilter keys p on: its own when every one is long
 * enough for the prefilter's window, else the rule's declared ones; NULL
 * when there are none either.
 */
static char **
scan_literals(const struct pattern *p)
{
	bool usable = p->lits && p->lits[0];

	for (char **l = p->lits; usable && *l; l++)
		if (strlen(*l) < RULE_MIN_LITERAL)
			usable = false;
	return usable ? p->lits : p->rule ? p->rule->literals : NULL;
}

/* Append name to names[0..*n) unless it is there. */
static void
add_field(const char **names, size_t *n, const char *name)
{
	for (size_t k = 0; k < *n; k++)
		if (strcmp(names[k], name) == 0)
			return;
	names[(*n)++] = name;
}

/*
 * The values the contexts set (backend, platform) come first: they say
 * what kind of machine the rest describes. Once here: every JSON document
 * asks for each value it prints.
 */
static void
index_env_fields(struct ruleset *rs)
{
	size_t cap = rs->nfacts + 1, n = 0;

	for (size_t i = 0; i < rs->ncontexts; i++)
		for (char **kv = rs->contexts[i].sets; kv && kv[0]; kv += 2)
			cap++;
	xfree(rs->env_fields);
	rs->env_fields = xcalloc(cap, sizeof(*rs->env_fields));
	for (size_t i = 0; i < rs->ncontexts; i++)
		for (char **kv = rs->contexts[i].sets; kv && kv[0]; kv += 2)
			add_field(rs->env_fields, &n, kv[0]);
	for (size_t i = 0; i < rs->nfacts; i++)
		add_field(rs->env_fields, &n, rs->facts[i].sets);
}

/* Done once here, not per log: scan sets up a classifier for each of thousands. */
static void
index_scan_literals(struct ruleset *rs)
{
	xfree(rs->always);
	rs->always = xcalloc(rs->npatterns + 1, sizeof(*rs->always));
	rs->nalways = 0;
	for (size_t i = 0; i < rs->npatterns; i++) {
		struct pattern *p = rs->patterns[i];

		p->scan_lits = scan_literals(p);
		if (!p->scan_lits)
			rs->always[rs->nalways++] = i;
	}
}

int
ruleset_finish(struct ruleset *rs, struct diag *d)
{
	size_t before = d->nerrors;

	if (rs->nrules == 0)
		diag_error(d, "rules", 0, 0, "no rules were loaded");
	for (int c = 0; c < CLASS_COUNT; c++)
		if (!rs->have_class[c])
			diag_error(d, "rules", 0, 0, "class '%s' is not described (classes.yaml)",
				   class_name((enum pt_class)c));
	check_ladder_refs(rs, d);
	method_check(rs, d);
	contexts_link(rs, d);
	run_texts_finish(rs, d);
	if (rs->chips)
		chiptab_finish(rs->chips, d);
	jaxapi_finish(rs->api, d);
	checktab_finish(rs, d);
	/* a cached set passed the lint when it was written; it costs 0.4 ms a run */
	if (!rs->from_cache)
		jaxapi_lint(rs, d);
	/* The scanner's pattern index: rules in order, then facts. Rebuilt here
	 * because a pack may have replaced rules after they were first added. */
	rs->npatterns = 0;
	for (size_t i = 0; i < rs->nrules; i++)
		for (size_t k = 0; k < rs->rules[i]->npats; k++)
			ruleset_add_pattern(rs, rs->rules[i]->pats[k]);
	for (size_t i = 0; i < rs->nfacts; i++)
		ruleset_add_pattern(rs, rs->facts[i].pat);
	for (size_t i = 0; i < rs->ncontexts; i++)
		for (size_t k = 0; k < rs->contexts[i].npats; k++)
			ruleset_add_pattern(rs, rs->contexts[i].pats[k]);
	for (size_t i = 0; i < rs->npatterns; i++) {
		struct pattern *p = rs->patterns[i];

		/* the three lists from one reading: extraction is most of an uncached
		 * load's allocations */
		if (!p->lits || !p->ahead) {
			struct literal_reading r;

			literal_list_free(p->lits);
			literal_list_free(p->ahead);
			literal_list_free(p->also);
			literal_read(p->src, &r);
			p->lits = r.lits;
			p->ahead = r.ahead;
			/* most patterns have none: NULL, which a cached load reads without an allocation */
			p->also = r.nalso ? r.also : NULL;
			if (!r.nalso)
				literal_list_free(r.also);
		}
		xfree(p->tail);
		p->tail = literal_lookahead_tail(p->src);
	}
	index_scan_literals(rs);
	index_env_fields(rs);
	/* built from what this finish may have changed */
	litset_free(rs->prefilter);
	rs->prefilter = NULL;
	return d->nerrors > before ? -1 : 0;
}

const struct rule *
ruleset_find_rule(const struct ruleset *rs, const char *id)
{
	for (size_t i = 0; i < rs->nrules; i++)
		if (strcmp(rs->rules[i]->id, id) == 0)
			return rs->rules[i];
	return NULL;
}

const struct code_def *
ruleset_find_code(const struct ruleset *rs, const char *code)
{
	for (size_t i = 0; i < rs->ncodes; i++)
		if (strcasecmp(rs->codes[i].code, code) == 0)
			return &rs->codes[i];
	return NULL;
}

const struct flag_def *
ruleset_find_flag(const struct ruleset *rs, const char *id)
{
	for (size_t i = 0; i < rs->nflags; i++)
		if (strcmp(rs->flags[i].id, id) == 0)
			return &rs->flags[i];
	return NULL;
}


const char *const *
ruleset_env_fields(const struct ruleset *rs)
{
	static const char *const none[1] = { NULL };

	return rs->env_fields ? rs->env_fields : none;
}

bool
ruleset_is_env_field(const struct ruleset *rs, const char *name)
{
	for (const char *const *f = ruleset_env_fields(rs); *f; f++)
		if (strcmp(*f, name) == 0)
			return true;
	return false;
}

char *
rules_user_dir(void)
{
	return util_xdg_dir("XDG_DATA_HOME", ".local/share", "rules");
}

char *
rules_locate(const char *opt, const char *env, struct pt_err *err)
{
	char *user;

	if (opt) {
		if (!util_is_dir(opt)) {
			pt_err_set(err, PT_EXIT_USAGE, "--rules '%s' is not a directory", opt);
			return NULL;
		}
		return xstrdup(opt);
	}
	if (env && *env) {
		if (!util_is_dir(env)) {
			pt_err_set(err, PT_EXIT_DATA, "PALLAS_TRIAGE_RULES='%s' is not a directory", env);
			return NULL;
		}
		return xstrdup(env);
	}
	user = rules_user_dir();
	if (user && util_is_dir(user))
		return user;
	xfree(user);
	if (util_is_dir(PT_DATADIR "/rules"))
		return xstrdup(PT_DATADIR "/rules");
	if (util_is_dir(PT_SRCDIR "/rules"))
		return xstrdup(PT_SRCDIR "/rules");
	pt_err_set(err, PT_EXIT_DATA, "no rules directory found (tried --rules, $PALLAS_TRIAGE_RULES, "
		   "the user rules directory, " PT_DATADIR "/rules, " PT_SRCDIR "/rules)");
	return NULL;
}
