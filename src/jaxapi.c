/* SPDX-License-Identifier: MIT */
/*
 * The JAX API table: versions, the `jax_api` / `jax_gaps` sections, and
 * rendering ${api:NAME} for one JAX version; see pt/jaxapi.h. The lint of
 * `rules validate` lives in jaxapi_lint.c.
 *
 * A fact the table does not have is never invented here: a release inside
 * a range's span is "maybe", and "maybe" is said to the user as such.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/jaxapi.h"
#include "pt/xalloc.h"
#include "pt/ytree.h"

/* Replacement chains are short; the bound keeps a looping table (caught by
 * jaxapi_finish, but a cache can lie) from looping the renderer. */
#define CHAIN_MAX 16

/* ---- versions ---- */

static const char *
parse_number(const char *p, int *out)
{
	long v = 0;

	if (!isdigit((unsigned char)*p))
		return NULL;
	for (; isdigit((unsigned char)*p); p++)
		if ((v = v * 10 + (*p - '0')) > 100000)
			return NULL;
	*out = (int)v;
	return p;
}

/* X.Y.Z and an optional suffix; *end is where the version stops. */
static int
parse_version(const char *s, struct jaxver *v, const char **end)
{
	const char *p = s;

	memset(v, 0, sizeof(*v));
	for (int i = 0; i < 3; i++) {
		if (i > 0 && *p++ != '.')
			return -1;
		if (!(p = parse_number(p, &v->part[i])))
			return -1;
	}
	v->stage = JAXVER_FINAL;
	if (strncmp(p, ".dev", 4) == 0 || strncmp(p, "dev", 3) == 0)
		v->stage = JAXVER_DEV;
	else if (strncmp(p, "rc", 2) == 0 || (p[0] == 'a' || p[0] == 'b'))
		v->stage = isdigit((unsigned char)p[p[0] == 'r' ? 2 : 1]) ? JAXVER_RC : JAXVER_FINAL;
	else if (strncmp(p, ".post", 5) == 0)
		v->stage = JAXVER_POST;
	*end = p;
	return 0;
}

int
jaxver_parse(const char *s, struct jaxver *out)
{
	const char *end;

	return s ? parse_version(s, out, &end) : -1;
}

int
jaxver_cmp(const struct jaxver *a, const struct jaxver *b)
{
	for (int i = 0; i < 3; i++)
		if (a->part[i] != b->part[i])
			return a->part[i] < b->part[i] ? -1 : 1;
	return (a->stage > b->stage) - (a->stage < b->stage);
}

/* A table version: exactly X.Y.Z, a final release. */
static int
parse_final(const char *s, size_t len, struct jaxver *v)
{
	const char *end;
	char tmp[32];

	if (len == 0 || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (parse_version(tmp, v, &end) < 0 || *end)
		return -1;
	return 0;
}

int
jaxrange_parse(const char *text, struct jaxrange *out)
{
	const char *dots = strstr(text, "..");
	struct jaxrange r = { 0 };

	if (!dots) {
		if (parse_final(text, strlen(text), &r.hi) < 0)
			return -1;
		r.lo = r.hi;
		r.has_lo = true;
	} else {
		if (parse_final(dots + 2, strlen(dots + 2), &r.hi) < 0)
			return -1;
		if (dots > text) {
			if (parse_final(text, (size_t)(dots - text), &r.lo) < 0 ||
			    jaxver_cmp(&r.lo, &r.hi) > 0)
				return -1;
			r.has_lo = true;
		}
	}
	r.set = true;
	r.text = xstrdup(text);
	*out = r;
	return 0;
}

void
jaxrange_release(struct jaxrange *r)
{
	free(r->text);
	memset(r, 0, sizeof(*r));
}

static void
format_ver(const struct jaxver *v, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d.%d", v->part[0], v->part[1], v->part[2]);
}

/* ---- the table ---- */

static void
name_free(struct api_name *n)
{
	if (!n)
		return;
	free(n->name);
	free(n->render);
	jaxrange_release(&n->since);
	jaxrange_release(&n->removed);
	free(n->deprecated);
	free(n->replaced_by);
	free(n->source);
	free(n->note);
	free(n->file);
	free(n);
}

static void
gap_free(struct api_gap *g)
{
	if (!g)
		return;
	free(g->id);
	free(g->what);
	jaxrange_release(&g->closed_in);
	for (size_t i = 0; i < g->nwhen; i++) {
		free(g->when_names[i]);
		strv_free(g->when_values[i]);
	}
	free(g->when_names);
	free(g->when_values);
	free(g->source);
	free(g->file);
	free(g);
}

void
jaxapi_free(struct jaxapi *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nnames; i++)
		name_free(t->names[i]);
	for (size_t i = 0; i < t->ngaps; i++)
		gap_free(t->gaps[i]);
	free(t->names);
	free(t->gaps);
	free(t);
}

const struct api_name *
jaxapi_find(const struct jaxapi *t, const char *name)
{
	for (size_t i = 0; t && i < t->nnames; i++)
		if (strcmp(t->names[i]->name, name) == 0)
			return t->names[i];
	return NULL;
}

const struct api_name *
jaxapi_current(const struct jaxapi *t, const struct api_name *n)
{
	for (int hops = 0; n && n->replaced_by && hops < CHAIN_MAX; hops++) {
		const struct api_name *next = jaxapi_find(t, n->replaced_by);

		if (!next)
			break;
		n = next;
	}
	return n;
}

static bool
has_predecessor(const struct jaxapi *t, const struct api_name *n)
{
	for (size_t i = 0; i < t->nnames; i++)
		if (t->names[i]->replaced_by && strcmp(t->names[i]->replaced_by, n->name) == 0)
			return true;
	return false;
}

bool
jaxapi_versioned(const struct jaxapi *t, const struct api_name *n)
{
	return n->since.set || n->removed.set || n->replaced_by || has_predecessor(t, n);
}

/* A range field: absent, or text that parses. */
static int
want_range(const struct ynode *m, const char *key, struct jaxrange *out, const char *file,
	   const char *what, struct diag *d)
{
	const char *text = NULL;
	const struct ynode *n = ynode_get(m, key);

	if (ynode_want_str(m, key, false, &text, file, what, d) < 0)
		return -1;
	if (text && jaxrange_parse(text, out) < 0) {
		diag_error(d, file, n->line, n->col, "'%s' must be a release X.Y.Z, a span A..B or "
			   "..B (final releases, A <= B), not '%s'", key, text);
		return -1;
	}
	return 0;
}

static int
check_deprecated(const struct ynode *m, const char *dep, const char *file, struct diag *d)
{
	struct jaxver v;
	const struct ynode *n = ynode_get(m, "deprecated");

	if (!dep || parse_final(dep, strlen(dep), &v) == 0)
		return 0;
	diag_error(d, file, n->line, n->col, "'deprecated' must be a release X.Y.Z, not '%s'", dep);
	return -1;
}

static struct api_name *
name_parse(const struct ynode *m, const char *file, struct diag *d)
{
	static const char *const keys[] = {
		"name", "render", "since", "removed", "deprecated", "replaced_by", "source", "note",
		NULL,
	};
	const char *name = NULL, *render = NULL, *dep = NULL, *repl = NULL, *src = NULL,
		   *note = NULL;
	struct api_name *n = xcalloc(1, sizeof(*n));
	int bad = 0;

	bad |= ynode_check_keys(m, keys, file, "an API name", d) < 0;
	bad |= ynode_want_str(m, "name", true, &name, file, "an API name", d) < 0;
	bad |= ynode_want_str(m, "render", false, &render, file, "an API name", d) < 0;
	bad |= want_range(m, "since", &n->since, file, "an API name", d) < 0;
	bad |= want_range(m, "removed", &n->removed, file, "an API name", d) < 0;
	bad |= ynode_want_str(m, "deprecated", false, &dep, file, "an API name", d) < 0;
	bad |= check_deprecated(m, dep, file, d) < 0;
	bad |= ynode_want_str(m, "replaced_by", false, &repl, file, "an API name", d) < 0;
	bad |= ynode_want_str(m, "source", true, &src, file, "an API name", d) < 0;
	bad |= ynode_want_str(m, "note", false, &note, file, "an API name", d) < 0;
	n->name = dup_or_null(name);
	n->render = dup_or_null(render);
	n->deprecated = dup_or_null(dep);
	n->replaced_by = dup_or_null(repl);
	n->source = dup_or_null(src);
	n->note = dup_or_null(note);
	n->file = xstrdup(file);
	n->line = m->line;
	n->col = m->col;
	if (!bad && n->since.set && n->removed.set && jaxver_cmp(&n->removed.hi, &n->since.lo) <= 0) {
		diag_error(d, file, m->line, m->col, "'%s' is removed (%s) before it appears (%s)",
			   name, n->removed.text, n->since.text);
		bad = 1;
	}
	if (bad) {
		name_free(n);
		return NULL;
	}
	return n;
}

/* Names are code: a dotted identifier, nothing a placeholder could not hold. */
static bool
valid_api_name(const char *s)
{
	if (!*s || *s == '.')
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.'))
			return false;
	return s[-1] != '.';
}

static int
parse_names(struct jaxapi *t, const struct ynode *list, const char *file, struct diag *d)
{
	int ret = 0;

	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *m = list->items[i];
		const struct api_name *old;
		struct api_name *n;

		if (m->kind != YNODE_MAP) {
			diag_error(d, file, m->line, m->col, "each API name must be a mapping");
			ret = -1;
			continue;
		}
		if (!(n = name_parse(m, file, d))) {
			ret = -1;
			continue;
		}
		if (!valid_api_name(n->name)) {
			diag_error(d, file, m->line, m->col, "API name '%s' must be a dotted identifier "
				   "such as pl.semaphore_signal", n->name);
			name_free(n);
			ret = -1;
			continue;
		}
		if ((old = jaxapi_find(t, n->name))) {
			diag_error(d, file, m->line, m->col, "API name '%s' is defined twice (first at "
				   "%s:%d)", n->name, old->file, old->line);
			name_free(n);
			ret = -1;
			continue;
		}
		XGROW(t->names, t->alloc_names, t->nnames + 1);
		t->names[t->nnames++] = n;
	}
	return ret;
}

/* `when`: capture name -> a value or a list of values. */
static int
parse_when(struct api_gap *g, const struct ynode *m, const char *file, struct diag *d)
{
	const struct ynode *w = NULL;
	size_t n;

	if (ynode_want(m, "when", YNODE_MAP, true, &w, file, "a gap", d) < 0)
		return -1;
	if ((n = ynode_map_len(w)) == 0) {
		diag_error(d, file, w->line, w->col, "'when' needs at least one capture");
		return -1;
	}
	g->when_names = xcalloc(n + 1, sizeof(*g->when_names));
	g->when_values = xcalloc(n + 1, sizeof(*g->when_values));
	for (size_t i = 0; i < n; i++) {
		const struct ynode *k = w->items[2 * i];

		if (k->kind != YNODE_SCALAR ||
		    ynode_want_strv(w, k->str, true, &g->when_values[i], NULL, file, "'when'", d) < 0)
			return -1;
		g->when_names[i] = xstrdup(k->str);
		g->nwhen++;
	}
	return 0;
}

static struct api_gap *
gap_parse(const struct ynode *m, const char *file, struct diag *d)
{
	static const char *const keys[] = { "id", "what", "closed_in", "when", "source", NULL };
	const char *id = NULL, *what = NULL, *src = NULL;
	struct api_gap *g = xcalloc(1, sizeof(*g));
	int bad = 0;

	bad |= ynode_check_keys(m, keys, file, "a gap", d) < 0;
	bad |= ynode_want_str(m, "id", true, &id, file, "a gap", d) < 0;
	bad |= ynode_want_str(m, "what", true, &what, file, "a gap", d) < 0;
	bad |= ynode_want_str(m, "source", true, &src, file, "a gap", d) < 0;
	bad |= want_range(m, "closed_in", &g->closed_in, file, "a gap", d) < 0;
	if (!bad && !g->closed_in.set) {
		diag_error(d, file, m->line, m->col, "a gap is missing required field 'closed_in'");
		bad = 1;
	}
	bad |= parse_when(g, m, file, d) < 0;
	g->id = dup_or_null(id);
	g->what = dup_or_null(what);
	g->source = dup_or_null(src);
	g->file = xstrdup(file);
	g->line = m->line;
	if (bad) {
		gap_free(g);
		return NULL;
	}
	return g;
}

static int
parse_gaps(struct jaxapi *t, const struct ynode *list, const char *file, struct diag *d)
{
	int ret = 0;

	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *m = list->items[i];
		struct api_gap *g;

		if (m->kind != YNODE_MAP) {
			diag_error(d, file, m->line, m->col, "each gap must be a mapping");
			ret = -1;
			continue;
		}
		if (!(g = gap_parse(m, file, d))) {
			ret = -1;
			continue;
		}
		for (size_t k = 0; k < t->ngaps; k++)
			if (strcmp(t->gaps[k]->id, g->id) == 0) {
				diag_error(d, file, m->line, m->col, "gap '%s' is defined twice", g->id);
				gap_free(g);
				g = NULL;
				ret = -1;
				break;
			}
		if (!g)
			continue;
		XGROW(t->gaps, t->alloc_gaps, t->ngaps + 1);
		t->gaps[t->ngaps++] = g;
	}
	return ret;
}

static int
want_list(const struct ynode *n, const char *key, const char *file, struct diag *d)
{
	if (n && n->kind != YNODE_SEQ) {
		diag_error(d, file, n->line, n->col, "section '%s' must be a list", key);
		return -1;
	}
	return 0;
}

int
jaxapi_parse(struct jaxapi **out, const struct ynode *names, const struct ynode *gaps,
	     const char *file, struct diag *d)
{
	struct jaxapi *t = *out;
	int ret = 0;

	if (!names && !gaps)
		return 0;
	if (want_list(names, "jax_api", file, d) < 0 || want_list(gaps, "jax_gaps", file, d) < 0)
		return -1;
	if (!t)
		t = xcalloc(1, sizeof(*t));
	if (names && parse_names(t, names, file, d) < 0)
		ret = -1;
	if (gaps && parse_gaps(t, gaps, file, d) < 0)
		ret = -1;
	*out = t;
	return ret;
}

int
jaxapi_finish(const struct jaxapi *t, struct diag *d)
{
	int ret = 0;

	for (size_t i = 0; t && i < t->nnames; i++) {
		const struct api_name *n = t->names[i], *p = n;
		int hops = 0;

		if (!n->replaced_by)
			continue;
		if (!jaxapi_find(t, n->replaced_by)) {
			diag_error(d, n->file, n->line, n->col, "'%s' is replaced_by '%s', which is not "
				   "in the API table", n->name, n->replaced_by);
			ret = -1;
			continue;
		}
		while (p && p->replaced_by && hops++ <= CHAIN_MAX)
			p = jaxapi_find(t, p->replaced_by);
		if (hops > CHAIN_MAX) {
			diag_error(d, n->file, n->line, n->col, "the replacements of '%s' go round in a "
				   "circle", n->name);
			ret = -1;
		}
	}
	return ret;
}

/* ---- rendering ---- */

enum tri { TRI_NO, TRI_MAYBE, TRI_YES };

/* Had the event of range r happened by release v? */
static enum tri
reached(const struct jaxrange *r, const struct jaxver *v)
{
	if (jaxver_cmp(v, &r->hi) >= 0)
		return TRI_YES;
	if (r->has_lo && jaxver_cmp(v, &r->lo) < 0)
		return TRI_NO;
	return TRI_MAYBE;
}

static enum tri
exists_at(const struct api_name *n, const struct jaxver *v)
{
	enum tri in = n->since.set ? reached(&n->since, v) : TRI_YES;
	enum tri gone = n->removed.set ? reached(&n->removed, v) : TRI_NO;
	enum tri still = gone == TRI_YES ? TRI_NO : gone == TRI_NO ? TRI_YES : TRI_MAYBE;

	return in < still ? in : still;
}

void
api_render_init(struct api_render *ar, const struct jaxapi *t, const char *version)
{
	memset(ar, 0, sizeof(*ar));
	ar->table = t;
	if (version && jaxver_parse(version, &ar->ver) == 0) {
		ar->known = true;
		ar->version = xstrdup(version);
	}
}

void
api_render_clear_notes(struct api_render *ar)
{
	strv_free(ar->notes);
	ar->notes = NULL;
	ar->nnotes = 0;
}

void
api_render_release(struct api_render *ar)
{
	api_render_clear_notes(ar);
	free(ar->version);
	memset(ar, 0, sizeof(*ar));
}

static void PT_PRINTF(2, 3)
add_note(struct api_render *ar, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	char *s;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	s = buf_detach(&b, NULL);
	for (size_t i = 0; i < ar->nnotes; i++)
		if (strcmp(ar->notes[i], s) == 0) {
			free(s);
			return;
		}
	ar->notes = xrealloc(ar->notes, (ar->nnotes + 2) * sizeof(*ar->notes));
	ar->notes[ar->nnotes++] = s;
	ar->notes[ar->nnotes] = NULL;
}

static const char *
spelling(const struct api_name *n)
{
	return n->render ? n->render : n->name;
}

void
jaxrange_describe(const struct jaxrange *r, char *buf, size_t len)
{
	char lo[24], hi[24];

	format_ver(&r->lo, lo, sizeof(lo));
	format_ver(&r->hi, hi, sizeof(hi));
	if (r->has_lo && jaxver_cmp(&r->lo, &r->hi) == 0)
		snprintf(buf, len, "in %s", hi);
	else if (r->has_lo)
		snprintf(buf, len, "between %s and %s", lo, hi);
	else
		snprintf(buf, len, "by %s", hi);
}

/* The spellings of cur's API, newest first: cur, then what it replaced. */
static size_t
chain(const struct jaxapi *t, const struct api_name *cur, const struct api_name **out)
{
	size_t n = 0;

	out[n++] = cur;
	for (size_t k = 0; k < n && n < CHAIN_MAX; k++)
		for (size_t i = 0; i < t->nnames && n < CHAIN_MAX; i++)
			if (t->names[i]->replaced_by &&
			    strcmp(t->names[i]->replaced_by, out[k]->name) == 0)
				out[n++] = t->names[i];
	return n;
}

static void
note_maybe(struct api_render *ar, const struct api_name *n)
{
	char when[64];
	bool arriving = n->since.set && reached(&n->since, &ar->ver) == TRI_MAYBE;

	jaxrange_describe(arriving ? &n->since : &n->removed, when, sizeof(when));
	add_note(ar, "not known whether JAX %s %s %s (%s %s)", ar->version,
		 arriving ? "has" : "still has", spelling(n),
		 arriving ? "it arrived" : "it was removed", when);
}

static void
note_missing(struct api_render *ar, const struct api_name *cur)
{
	char hi[24];

	if (cur->since.set && reached(&cur->since, &ar->ver) == TRI_NO) {
		format_ver(&cur->since.hi, hi, sizeof(hi));
		add_note(ar, "needs JAX >= %s for %s (%s lacks it)", hi, spelling(cur), ar->version);
	} else {
		format_ver(&cur->removed.hi, hi, sizeof(hi));
		add_note(ar, "JAX %s no longer has %s (removed in %s)", ar->version, spelling(cur), hi);
	}
}

static const char *
render_name(struct api_render *ar, const struct api_name *n)
{
	const struct api_name *cur = jaxapi_current(ar->table, n), *v[CHAIN_MAX];
	size_t k = chain(ar->table, cur, v);

	if (!jaxapi_versioned(ar->table, cur))
		return spelling(cur);
	ar->versioned = true;
	if (!ar->known) {
		ar->guessed = true;
		return spelling(cur);
	}
	for (size_t i = 0; i < k; i++)
		if (exists_at(v[i], &ar->ver) == TRI_YES)
			return spelling(v[i]);
	for (size_t i = 0; i < k; i++)
		if (exists_at(v[i], &ar->ver) == TRI_MAYBE) {
			note_maybe(ar, v[i]);
			return spelling(v[i]);
		}
	note_missing(ar, cur);
	return spelling(cur);
}

void
api_render_text(struct api_render *ar, const char *tmpl, struct buf *out)
{
	const char *p = tmpl, *start, *end;

	while ((start = strstr(p, "${api:")) && (end = strchr(start + 6, '}'))) {
		char *name = xstrndup(start + 6, (size_t)(end - start - 6));
		const struct api_name *n = jaxapi_find(ar->table, name);

		buf_add(out, p, (size_t)(start - p));
		buf_adds(out, n ? render_name(ar, n) : name);
		free(name);
		p = end + 1;
	}
	buf_adds(out, p);
}

/* ---- gaps ---- */

static bool
strv_contains(char *const *v, const char *s)
{
	for (; v && *v; v++)
		if (strcmp(*v, s) == 0)
			return true;
	return false;
}

static bool
gap_matches(const struct api_gap *g, const struct vars *vs)
{
	for (size_t i = 0; i < g->nwhen; i++) {
		const char *val = vars_get(vs, g->when_names[i]);

		if (!val || !strv_contains(g->when_values[i], val))
			return false;
	}
	return g->nwhen > 0;
}

void
jaxapi_derive(const struct jaxapi *t, struct vars *vs)
{
	const char *version = vars_get(vs, "jax_version");
	struct jaxver v;
	bool known = version && jaxver_parse(version, &v) == 0;

	for (size_t i = 0; t && i < t->ngaps; i++) {
		const struct api_gap *g = t->gaps[i];
		char hi[24], *from;

		/* a release that surely has the lowering failed for another reason */
		if (!gap_matches(g, vs) || (known && jaxver_cmp(&v, &g->closed_in.hi) >= 0))
			continue;
		format_ver(&g->closed_in.hi, hi, sizeof(hi));
		from = known ? xasprintf("the log shows JAX %s", version)
			     : xstrdup("the log does not say which JAX ran");
		vars_set(vs, "jax_upgrade_to", hi, false);
		vars_set(vs, "jax_upgrade_what", g->what, false);
		vars_set(vs, "jax_upgrade_from", from, false);
		free(from);
		return;
	}
}
