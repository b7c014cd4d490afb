/* SPDX-License-Identifier: MIT */
/*
 * The source checker's rule data (pt/checktab.h): finding codes with their
 * texts, the modules it recognises and the primitives that do not lower.
 * Parsing and validation, lookups, and the rules cache's encoding of the
 * table (the fields are listed once, for the writer and the reader).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt/check.h"
#include "pt/checktab.h"
#include "pt/chips.h"
#include "pt/ladder.h"
#include "pt/rules_cache_io.h"
#include "pt/xalloc.h"
#include "pt/ytree.h"

static void
def_free(struct check_def *c)
{
	if (!c)
		return;
	xfree(c->code);
	xfree(c->name);
	xfree(c->summary);
	xfree(c->message);
	xfree(c->fix);
	strv_free(c->rung_ids);
	strv_free(c->rung_fixes);
	xfree(c->explain);
	xfree(c->file);
	xfree(c);
}

static void
mod_free(struct check_module *m)
{
	if (!m)
		return;
	xfree(m->module);
	xfree(m->prefix);
	xfree(m);
}

static void
prim_free(struct check_prim *p)
{
	if (!p)
		return;
	xfree(p->id);
	strv_free(p->calls);
	strv_free(p->dtypes);
	strv_free(p->backends);
	jaxrange_release(&p->lowered_in);
	xfree(p->what);
	xfree(p->fix);
	xfree(p->source);
	xfree(p->file);
	xfree(p);
}

void
checktab_free(struct checktab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ndefs; i++)
		def_free(t->defs[i]);
	for (size_t i = 0; i < t->nmods; i++)
		mod_free(t->mods[i]);
	for (size_t i = 0; i < t->nprims; i++)
		prim_free(t->prims[i]);
	xfree(t->defs);
	xfree(t->mods);
	xfree(t->prims);
	xfree(t);
}

const struct check_def *
checktab_find(const struct checktab *t, const char *code)
{
	for (size_t i = 0; t && i < t->ndefs; i++)
		if (strcmp(t->defs[i]->code, code) == 0 || strcmp(t->defs[i]->name, code) == 0)
			return t->defs[i];
	return NULL;
}

const char *
checktab_module_prefix(const struct checktab *t, const char *module)
{
	for (size_t i = 0; t && i < t->nmods; i++)
		if (strcmp(t->mods[i]->module, module) == 0)
			return t->mods[i]->prefix;
	return NULL;
}

/* ---- parsing ---- */

/* A class letter (L C S N U) and three digits, the letter matching the class. */
static bool
valid_code(const char *code, enum pt_class cls)
{
	static const char letters[] = "LCSNU";

	if (strlen(code) != 4 || cls >= CLASS_UNKNOWN || code[0] != letters[cls])
		return false;
	for (int i = 1; i < 4; i++)
		if (!isdigit((unsigned char)code[i]))
			return false;
	return true;
}

static int
parse_severity(const char *s)
{
	for (int k = CHECK_ERROR; k <= CHECK_NOTE; k++)
		if (strcmp(s, check_severity_name((enum check_severity)k)) == 0)
			return k;
	return -1;
}

/* `rungs`: a mapping of rung id to the change text its fix gives that rung. */
static int
parse_rungs(struct check_def *c, const struct ynode *m, const char *file, struct diag *d)
{
	const struct ynode *r = ynode_get(m, "rungs");
	size_t n = r && r->kind == YNODE_MAP ? ynode_map_len(r) : 0;

	c->rung_ids = xcalloc(n + 1, sizeof(char *));
	c->rung_fixes = xcalloc(n + 1, sizeof(char *));
	if (!r)
		return 0;
	if (r->kind != YNODE_MAP) {
		diag_error(d, file, r->line, r->col, "'rungs' must map rung ids to change texts");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ynode *k = r->items[2 * i], *v = r->items[2 * i + 1];

		if (v->kind != YNODE_SCALAR) {
			diag_error(d, file, v->line, v->col, "the change for rung '%s' must be a string",
				   k->str);
			return -1;
		}
		c->rung_ids[i] = xstrdup(k->str);
		c->rung_fixes[i] = xstrdup(v->str);
	}
	return 0;
}

static struct check_def *
def_parse(const struct ynode *m, const char *file, struct diag *d)
{
	static const char *const keys[] = {
		"code", "name", "class", "severity", "summary", "message", "fix", "rungs", "explain",
		"compiled", NULL,
	};
	const char *code = NULL, *name = NULL, *cls = NULL, *sev = NULL, *summary = NULL,
		   *message = NULL, *fix = NULL, *explain = NULL;
	struct check_def *c = xcalloc(1, sizeof(*c));
	bool compiled = false;
	int bad = 0;

	bad |= ynode_check_keys(m, keys, file, "a check", d) < 0;
	bad |= ynode_want_str(m, "code", true, &code, file, "a check", d) < 0;
	bad |= ynode_want_str(m, "name", true, &name, file, "a check", d) < 0;
	bad |= ynode_want_str(m, "class", true, &cls, file, "a check", d) < 0;
	bad |= ynode_want_str(m, "severity", true, &sev, file, "a check", d) < 0;
	bad |= ynode_want_str(m, "summary", true, &summary, file, "a check", d) < 0;
	bad |= ynode_want_str(m, "message", true, &message, file, "a check", d) < 0;
	bad |= ynode_want_str(m, "fix", false, &fix, file, "a check", d) < 0;
	bad |= ynode_want_str(m, "explain", false, &explain, file, "a check", d) < 0;
	bad |= ynode_want_bool(m, "compiled", &compiled, file, "a check", d) < 0;
	bad |= parse_rungs(c, m, file, d) < 0;
	c->code = dup_or_null(code);
	c->name = dup_or_null(name);
	c->summary = dup_or_null(summary);
	c->message = dup_or_null(message);
	c->fix = dup_or_null(fix);
	c->explain = dup_or_null(explain);
	c->file = xstrdup(file);
	c->line = m->line;
	c->compiled = compiled;
	if (!bad) {
		c->cls = class_from_name(cls);
		c->severity = parse_severity(sev);
		if (c->cls >= CLASS_UNKNOWN) {
			diag_error(d, file, m->line, m->col, "check '%s': class must be one of layout, "
				   "capacity, synchronization, numerics, unsupported, not '%s'", code, cls);
			bad = 1;
		} else if (!valid_code(code, c->cls)) {
			diag_error(d, file, m->line, m->col, "check code '%s' must be the class's letter "
				   "(L, C, S, N or U) and three digits", code);
			bad = 1;
		}
		if (c->severity < 0) {
			diag_error(d, file, m->line, m->col, "check '%s': severity must be error, warning "
				   "or note, not '%s'", code, sev);
			bad = 1;
		}
	}
	if (bad) {
		def_free(c);
		return NULL;
	}
	return c;
}

static struct check_module *
mod_parse(const struct ynode *m, const char *file, struct diag *d)
{
	static const char *const keys[] = { "module", "prefix", NULL };
	const char *module = NULL, *prefix = NULL;

	if (ynode_check_keys(m, keys, file, "a module", d) < 0 ||
	    ynode_want_str(m, "module", true, &module, file, "a module", d) < 0 ||
	    ynode_want_str(m, "prefix", true, &prefix, file, "a module", d) < 0)
		return NULL;
	{
		struct check_module *c = xcalloc(1, sizeof(*c));

		c->module = xstrdup(module);
		c->prefix = xstrdup(prefix);
		return c;
	}
}

static bool
valid_backend(const char *b)
{
	return strcmp(b, "mosaic-tpu") == 0 || strcmp(b, "triton") == 0 ||
	       strcmp(b, "mosaic-gpu") == 0;
}

static struct check_prim *
prim_parse(const struct ynode *m, const char *file, struct diag *d)
{
	static const char *const keys[] = {
		"id", "calls", "dtypes", "backends", "lowered_in", "what", "fix", "source", NULL,
	};
	const char *id = NULL, *what = NULL, *fix = NULL, *src = NULL, *low = NULL;
	struct check_prim *p = xcalloc(1, sizeof(*p));
	size_t n = 0;
	int bad = 0;

	bad |= ynode_check_keys(m, keys, file, "a primitive", d) < 0;
	bad |= ynode_want_str(m, "id", true, &id, file, "a primitive", d) < 0;
	bad |= ynode_want_strv(m, "calls", true, &p->calls, &n, file, "a primitive", d) < 0;
	bad |= ynode_want_strv(m, "dtypes", false, &p->dtypes, &n, file, "a primitive", d) < 0;
	bad |= ynode_want_strv(m, "backends", true, &p->backends, &n, file, "a primitive", d) < 0;
	bad |= ynode_want_str(m, "lowered_in", false, &low, file, "a primitive", d) < 0;
	bad |= ynode_want_str(m, "what", true, &what, file, "a primitive", d) < 0;
	bad |= ynode_want_str(m, "fix", true, &fix, file, "a primitive", d) < 0;
	bad |= ynode_want_str(m, "source", true, &src, file, "a primitive", d) < 0;
	p->id = dup_or_null(id);
	p->what = dup_or_null(what);
	p->fix = dup_or_null(fix);
	p->source = dup_or_null(src);
	p->file = xstrdup(file);
	p->line = m->line;
	if (low && jaxrange_parse(low, &p->lowered_in) < 0) {
		diag_error(d, file, m->line, m->col, "primitive '%s': 'lowered_in' must be a release "
			   "X.Y.Z, a span A..B or ..B, not '%s'", id ? id : "?", low);
		bad = 1;
	}
	for (char **b = p->backends; !bad && b && *b; b++)
		if (!valid_backend(*b)) {
			diag_error(d, file, m->line, m->col, "primitive '%s': backend '%s' is not "
				   "mosaic-tpu, triton or mosaic-gpu", id, *b);
			bad = 1;
		}
	if (bad) {
		prim_free(p);
		return NULL;
	}
	return p;
}

static int
parse_list(const struct ynode *list, const char *what, const char *file, struct diag *d,
	   void *(*one)(const struct ynode *, const char *, struct diag *), void ***arr,
	   size_t *n, size_t *alloc)
{
	int ret = 0;

	if (!list)
		return 0;
	if (list->kind != YNODE_SEQ) {
		diag_error(d, file, list->line, list->col, "'%s' must be a list", what);
		return -1;
	}
	for (size_t i = 0; i < list->n; i++) {
		void *e;

		if (list->items[i]->kind != YNODE_MAP) {
			diag_error(d, file, list->items[i]->line, list->items[i]->col,
				   "each entry of '%s' must be a mapping", what);
			ret = -1;
			continue;
		}
		if (!(e = one(list->items[i], file, d))) {
			ret = -1;
			continue;
		}
		xgrow((void **)arr, alloc, *n + 1, sizeof(void *));
		(*arr)[(*n)++] = e;
	}
	return ret;
}

static void *
def_parse_v(const struct ynode *m, const char *file, struct diag *d)
{
	return def_parse(m, file, d);
}

static void *
mod_parse_v(const struct ynode *m, const char *file, struct diag *d)
{
	return mod_parse(m, file, d);
}

static void *
prim_parse_v(const struct ynode *m, const char *file, struct diag *d)
{
	return prim_parse(m, file, d);
}

int
checktab_parse(struct checktab **out, const struct ynode *checks, const struct ynode *mods,
	       const struct ynode *prims, const char *file, struct diag *d)
{
	struct checktab *t;
	size_t before = d->nerrors, first;

	if (!checks && !mods && !prims)
		return 0;
	if (!*out)
		*out = xcalloc(1, sizeof(**out));
	t = *out;
	first = t->ndefs;
	parse_list(checks, "checks", file, d, def_parse_v, (void ***)&t->defs, &t->ndefs,
		   &t->alloc_defs);
	parse_list(mods, "check_modules", file, d, mod_parse_v, (void ***)&t->mods, &t->nmods,
		   &t->alloc_mods);
	parse_list(prims, "check_primitives", file, d, prim_parse_v, (void ***)&t->prims,
		   &t->nprims, &t->alloc_prims);
	/* codes and names are stable ids: one meaning each */
	for (size_t i = first; i < t->ndefs; i++)
		for (size_t k = 0; k < i; k++)
			if (strcmp(t->defs[i]->code, t->defs[k]->code) == 0 ||
			    strcmp(t->defs[i]->name, t->defs[k]->name) == 0)
				diag_error(d, file, t->defs[i]->line, 1, "check '%s' (%s) reuses the "
					   "code or name of '%s' (%s:%d)", t->defs[i]->code,
					   t->defs[i]->name, t->defs[k]->code, t->defs[k]->file,
					   t->defs[k]->line);
	return d->nerrors > before ? -1 : 0;
}

int
checktab_finish(const struct ruleset *rs, struct diag *d)
{
	const struct checktab *t = rs->checks;
	size_t before = d->nerrors;

	for (size_t i = 0; t && i < t->ndefs; i++)
		for (char **r = t->defs[i]->rung_ids; *r; r++)
			if (!ladder_find_rung(rs, *r, NULL))
				diag_error(d, t->defs[i]->file, t->defs[i]->line, 1, "check '%s' names "
					   "rung '%s', which no ladder has", t->defs[i]->code, *r);
	for (size_t i = 0; t && i < t->nprims; i++)
		for (char **dt = t->prims[i]->dtypes; dt && *dt; dt++)
			if (rs->chips && !chiptab_find_dtype(rs->chips, *dt))
				diag_error(d, t->prims[i]->file, t->prims[i]->line, 1, "primitive '%s' "
					   "names dtype '%s', which the chip table lacks",
					   t->prims[i]->id, *dt);
	return d->nerrors > before ? -1 : 0;
}

/* ---- the rules cache ---- */

static const struct cache_field def_fields[] = {
	CF_NEED(struct check_def, code), CF_NEED(struct check_def, name),
	CF_NEED(struct check_def, summary), CF_NEED(struct check_def, message),
	CF_STR(struct check_def, fix), CF_LIST(struct check_def, rung_ids),
	CF_LIST(struct check_def, rung_fixes), CF_STR(struct check_def, explain),
	CF_NEED(struct check_def, file), CF_INT(struct check_def, line),
	CF_INT(struct check_def, severity), CF_INT(struct check_def, compiled),
};
static const struct cache_field mod_fields[] = {
	CF_NEED(struct check_module, module), CF_NEED(struct check_module, prefix),
};
static const struct cache_field prim_fields[] = {
	CF_NEED(struct check_prim, id), CF_LIST(struct check_prim, calls),
	CF_STRV(struct check_prim, dtypes), CF_LIST(struct check_prim, backends),
	CF_RANGE(struct check_prim, lowered_in), CF_NEED(struct check_prim, what),
	CF_NEED(struct check_prim, fix), CF_NEED(struct check_prim, source),
	CF_NEED(struct check_prim, file), CF_INT(struct check_prim, line),
};
static const struct cache_record def_rec = CACHE_RECORD(struct check_def, def_fields);
static const struct cache_record mod_rec = CACHE_RECORD(struct check_module, mod_fields);
static const struct cache_record prim_rec = CACHE_RECORD(struct check_prim, prim_fields);

void
cache_put_checks(struct buf *b, const struct checktab *t)
{
	if (!t) {
		cache_put_u32(b, CACHE_NONE);
		return;
	}
	cache_put_u32(b, (uint32_t)t->ndefs);
	for (size_t i = 0; i < t->ndefs; i++) {
		cache_put_record(b, &def_rec, t->defs[i]);
		cache_put_u32(b, t->defs[i]->cls);
	}
	cache_put_u32(b, (uint32_t)t->nmods);
	for (size_t i = 0; i < t->nmods; i++)
		cache_put_record(b, &mod_rec, t->mods[i]);
	cache_put_u32(b, (uint32_t)t->nprims);
	for (size_t i = 0; i < t->nprims; i++)
		cache_put_record(b, &prim_rec, t->prims[i]);
}

static struct check_def *
get_def(struct cache_rd *r)
{
	struct check_def *c = cache_get_new(r, &def_rec);

	c->cls = (enum pt_class)cache_get_u32(r);
	if (c->cls >= CLASS_UNKNOWN || c->severity < CHECK_ERROR || c->severity > CHECK_NOTE)
		r->bad = true;
	return c;
}

struct checktab *
cache_get_checks(struct cache_rd *r)
{
	const char *at = r->p;
	struct checktab *t;

	if (cache_get_u32(r) == CACHE_NONE || r->bad)
		return NULL;
	r->p = at;
	t = xcalloc(1, sizeof(*t));
	CACHE_GET_TABLE(r, 40, t->defs, t->ndefs, t->alloc_defs, get_def(r));
	CACHE_GET_TABLE(r, 8, t->mods, t->nmods, t->alloc_mods, cache_get_new(r, &mod_rec));
	CACHE_GET_TABLE(r, 36, t->prims, t->nprims, t->alloc_prims, cache_get_new(r, &prim_rec));
	return t;
}
