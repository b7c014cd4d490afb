/* SPDX-License-Identifier: MIT */
/*
 * The JAX API table: versions, the `jax_api` / `jax_gaps` / `jax_releases`
 * sections and their checks, and the gaps; see pt/jaxapi.h. Rendering
 * ${api:NAME} lives in jaxapi_render.c, the lint of `rules validate` in
 * jaxapi_lint.c.
 *
 * A fact the table does not have is never invented here: a release inside
 * a range's span is "maybe", and "maybe" is said to the user as such. A
 * release the table gives must come with where it was read, as
 * TAG:path:line, and the tag must be that release's.
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
	xfree(r->text);
	memset(r, 0, sizeof(*r));
}

void
jaxver_format(const struct jaxver *v, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d.%d", v->part[0], v->part[1], v->part[2]);
}

void
jaxrange_describe(const struct jaxrange *r, char *buf, size_t len)
{
	char lo[24], hi[24];

	jaxver_format(&r->lo, lo, sizeof(lo));
	jaxver_format(&r->hi, hi, sizeof(hi));
	if (r->has_lo && jaxver_cmp(&r->lo, &r->hi) == 0)
		snprintf(buf, len, "in %s", hi);
	else if (r->has_lo)
		snprintf(buf, len, "between %s and %s", lo, hi);
	else
		snprintf(buf, len, "by %s", hi);
}

/* ---- the table ---- */

static void
name_free(struct api_name *n)
{
	if (!n)
		return;
	xfree(n->name);
	xfree(n->render);
	jaxrange_release(&n->since);
	jaxrange_release(&n->removed);
	xfree(n->deprecated);
	xfree(n->replaced_by);
	xfree(n->since_at);
	xfree(n->deprecated_at);
	xfree(n->removed_at);
	xfree(n->call);
	xfree(n->instead);
	xfree(n->undecided);
	xfree(n->source);
	xfree(n->note);
	xfree(n->file);
	xfree(n);
}

static void
gap_free(struct api_gap *g)
{
	if (!g)
		return;
	xfree(g->id);
	xfree(g->what);
	jaxrange_release(&g->closed_in);
	xfree(g->closed_at);
	xfree(g->undecided);
	for (size_t i = 0; i < g->nwhen; i++) {
		xfree(g->when_names[i]);
		strv_free(g->when_values[i]);
	}
	xfree(g->when_names);
	xfree(g->when_values);
	xfree(g->source);
	xfree(g->file);
	xfree(g);
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
	xfree(t->names);
	xfree(t->by_name);
	xfree(t->gaps);
	xfree(t->releases);
	xfree(t->releases_source);
	xfree(t->releases_file);
	xfree(t);
}

/* The first of equal names wins, as in a walk of the file. */
static int
by_name_cmp(const void *a, const void *b)
{
	const struct api_name *x = *(const struct api_name *const *)a;
	const struct api_name *y = *(const struct api_name *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* A binary search once finished: every rung's advice looks names up, for every log a scan reads. */
const struct api_name *
jaxapi_find(const struct jaxapi *t, const char *name)
{
	size_t lo = 0, hi;

	if (!t)
		return NULL;
	if (!t->by_name) {
		for (size_t i = 0; i < t->nnames; i++)
			if (strcmp(t->names[i]->name, name) == 0)
				return t->names[i];
		return NULL;
	}
	hi = t->nnames;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(t->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nnames && strcmp(t->by_name[lo]->name, name) == 0 ? t->by_name[lo] : NULL;
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

const struct jaxver *
jaxapi_newest(const struct jaxapi *t)
{
	return t && t->nreleases ? &t->releases[t->nreleases - 1] : NULL;
}

bool
jaxapi_versioned(const struct jaxapi *t, const struct api_name *n)
{
	/* a name every listed release has is spelled one way for all of them */
	bool late = n->since.set &&
		    (!t->nreleases || jaxver_cmp(&n->since.hi, &t->releases[0]) > 0);

	return late || n->removed.set || n->replaced_by || has_predecessor(t, n);
}

enum api_presence
jaxrange_reached(const struct jaxrange *r, const struct jaxver *v)
{
	if (jaxver_cmp(v, &r->hi) >= 0)
		return API_PRESENT;
	if (r->has_lo && jaxver_cmp(v, &r->lo) < 0)
		return API_ABSENT;
	return API_MAYBE;
}

enum api_presence
jaxapi_presence(const struct api_name *n, const struct jaxver *v)
{
	enum api_presence in = n->since.set ? jaxrange_reached(&n->since, v) : API_PRESENT;
	enum api_presence gone = n->removed.set ? jaxrange_reached(&n->removed, v) : API_ABSENT;
	enum api_presence still = gone == API_PRESENT ? API_ABSENT :
				  gone == API_ABSENT ? API_PRESENT : API_MAYBE;

	return in < still ? in : still;
}

const struct api_name *
jaxapi_keyword(const struct jaxapi *t, const struct api_name *n, const char *kw, size_t kwlen)
{
	const struct api_name *cur = jaxapi_current(t, n);
	size_t len = strlen(cur->name);

	for (size_t i = 0; t && i < t->nnames; i++) {
		const char *k = t->names[i]->name;

		if (strncmp(k, cur->name, len) == 0 && k[len] == '.' &&
		    strncmp(k + len + 1, kw, kwlen) == 0 && k[len + 1 + kwlen] == '\0')
			return t->names[i];
	}
	return NULL;
}

int
jaxapi_provenance(const char *at, struct jaxver *tag)
{
	const char *p, *colon;

	if (!at || strncmp(at, "jax-v", 5) != 0 || parse_version(at + 5, tag, &p) < 0)
		return -1;
	/* jax-v0.9.0.1 re-released 0.9.0 with an XLA patch: it counts as 0.9.0 */
	while (*p == '.' && isdigit((unsigned char)p[1]))
		for (p++; isdigit((unsigned char)*p); p++)
			;
	tag->stage = JAXVER_FINAL;
	if (*p++ != ':' || !(colon = strchr(p, ':')) || colon == p)
		return -1;
	return isdigit((unsigned char)colon[1]) ? 0 : -1;
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

/*
 * A release and where it was read: `key` set needs `at_key`, a provenance
 * whose tag is in the release's range (for `removed`, the last release
 * that still has it will do: a name that vanished has no line to point at).
 */
static int
check_provenance(const struct ynode *m, const char *what, const char *key,
		 const struct jaxrange *r, const char *at_key, const char *at, const char *file,
		 struct diag *d)
{
	const struct ynode *n = ynode_get(m, at_key);
	struct jaxver tag;
	char want[64];

	if (!r->set) {
		if (!at)
			return 0;
		diag_error(d, file, n->line, n->col, "'%s' without '%s'", at_key, key);
		return -1;
	}
	jaxrange_describe(r, want, sizeof(want));
	if (!at) {
		diag_error(d, file, m->line, m->col, "%s gives '%s' (%s) without '%s', where it "
			   "was read: 'jax-vX.Y.Z:path:line'", what, key, r->text, at_key);
		return -1;
	}
	if (jaxapi_provenance(at, &tag) < 0) {
		diag_error(d, file, n->line, n->col, "'%s' must start with a release tag, a path "
			   "and a line: 'jax-v0.6.2:jax/experimental/pallas/tpu.py:27', not '%s'",
			   at_key, at);
		return -1;
	}
	if (jaxver_cmp(&tag, &r->hi) > 0 || (r->has_lo && jaxver_cmp(&tag, &r->lo) < 0 &&
					    strcmp(key, "removed") != 0)) {
		diag_error(d, file, n->line, n->col, "'%s' reads a release tag outside '%s' (%s)",
			   at_key, key, want);
		return -1;
	}
	return 0;
}

/* The optional text fields of an API name, in the order of the schema. */
#define NAME_TEXTS(X) X(render) X(replaced_by) X(since_at) X(deprecated_at) X(removed_at) \
	X(call) X(instead) X(undecided) X(source) X(note)

static struct api_name *
name_parse(const struct ynode *m, const char *file, struct diag *d)
{
	static const char *const keys[] = {
		"name", "since", "removed", "deprecated",
#define KEY(f) #f,
		NAME_TEXTS(KEY)
#undef KEY
		NULL,
	};
	const char *name = NULL, *dep = NULL;
#define VAR(f) const char *f = NULL;
	NAME_TEXTS(VAR)
#undef VAR
	struct api_name *n = xcalloc(1, sizeof(*n));
	struct jaxrange dep_r = { 0 };
	int bad = 0;

	bad |= ynode_check_keys(m, keys, file, "an API name", d) < 0;
	bad |= ynode_want_str(m, "name", true, &name, file, "an API name", d) < 0;
	bad |= want_range(m, "since", &n->since, file, "an API name", d) < 0;
	bad |= want_range(m, "removed", &n->removed, file, "an API name", d) < 0;
	bad |= ynode_want_str(m, "deprecated", false, &dep, file, "an API name", d) < 0;
	bad |= check_deprecated(m, dep, file, d) < 0;
#define WANT(f) bad |= ynode_want_str(m, #f, false, &f, file, "an API name", d) < 0;
	NAME_TEXTS(WANT)
#undef WANT
#define SET(f) n->f = dup_or_null(f);
	NAME_TEXTS(SET)
#undef SET
	n->name = dup_or_null(name);
	n->deprecated = dup_or_null(dep);
	n->file = xstrdup(file);
	n->line = m->line;
	n->col = m->col;
	if (!bad && !source && !since_at) {
		diag_error(d, file, m->line, m->col, "API name '%s' needs 'since' with 'since_at', or "
			   "a 'source'", name);
		bad = 1;
	}
	if (!bad) {
		if (dep)
			jaxrange_parse(dep, &dep_r);
		bad |= check_provenance(m, "an API name", "since", &n->since, "since_at", since_at,
					file, d) < 0;
		bad |= check_provenance(m, "an API name", "deprecated", &dep_r, "deprecated_at",
					deprecated_at, file, d) < 0;
		bad |= check_provenance(m, "an API name", "removed", &n->removed, "removed_at",
					removed_at, file, d) < 0;
		jaxrange_release(&dep_r);
	}
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
	static const char *const keys[] = {
		"id", "what", "closed_in", "closed_at", "undecided", "when", "source", NULL,
	};
	const char *id = NULL, *what = NULL, *src = NULL, *at = NULL, *undecided = NULL;
	struct api_gap *g = xcalloc(1, sizeof(*g));
	int bad = 0;

	bad |= ynode_check_keys(m, keys, file, "a gap", d) < 0;
	bad |= ynode_want_str(m, "id", true, &id, file, "a gap", d) < 0;
	bad |= ynode_want_str(m, "what", true, &what, file, "a gap", d) < 0;
	bad |= ynode_want_str(m, "source", true, &src, file, "a gap", d) < 0;
	bad |= ynode_want_str(m, "closed_at", false, &at, file, "a gap", d) < 0;
	bad |= ynode_want_str(m, "undecided", false, &undecided, file, "a gap", d) < 0;
	bad |= want_range(m, "closed_in", &g->closed_in, file, "a gap", d) < 0;
	if (!bad && !g->closed_in.set) {
		diag_error(d, file, m->line, m->col, "a gap is missing required field 'closed_in'");
		bad = 1;
	}
	if (!bad)
		bad |= check_provenance(m, "a gap", "closed_in", &g->closed_in, "closed_at", at,
					file, d) < 0;
	bad |= parse_when(g, m, file, d) < 0;
	g->id = dup_or_null(id);
	g->what = dup_or_null(what);
	g->source = dup_or_null(src);
	g->closed_at = dup_or_null(at);
	g->undecided = dup_or_null(undecided);
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

/* jax_releases: { releases: [X.Y.Z, ...], source: TEXT }, oldest first, in one file only. */
static int
parse_releases(struct jaxapi *t, const struct ynode *m, const char *file, struct diag *d)
{
	static const char *const keys[] = { "releases", "source", NULL };
	const char *src = NULL;
	char **list = NULL;
	size_t n = 0;
	int bad = 0;

	if (m->kind != YNODE_MAP) {
		diag_error(d, file, m->line, m->col, "section 'jax_releases' must be a mapping");
		return -1;
	}
	if (t->releases_file) {
		diag_error(d, file, m->line, m->col, "jax_releases is given twice (first at %s:%d)",
			   t->releases_file, t->releases_line);
		return -1;
	}
	bad |= ynode_check_keys(m, keys, file, "jax_releases", d) < 0;
	bad |= ynode_want_str(m, "source", true, &src, file, "jax_releases", d) < 0;
	bad |= ynode_want_strv(m, "releases", true, &list, NULL, file, "jax_releases", d) < 0;
	for (char **r = list; !bad && r && *r; r++)
		n++;
	if (!bad) {
		t->releases = xcalloc(n ? n : 1, sizeof(*t->releases));
		for (size_t i = 0; i < n; i++) {
			if (parse_final(list[i], strlen(list[i]), &t->releases[i]) < 0 ||
			    (i && jaxver_cmp(&t->releases[i - 1], &t->releases[i]) >= 0)) {
				diag_error(d, file, m->line, m->col, "jax_releases: '%s' is not a final "
					   "release X.Y.Z newer than the one before it", list[i]);
				bad = 1;
				break;
			}
		}
	}
	strv_free(list);
	if (bad || n == 0) {
		xfree(t->releases);
		t->releases = NULL;
		if (!bad)
			diag_error(d, file, m->line, m->col, "jax_releases lists no release");
		return -1;
	}
	t->nreleases = n;
	t->releases_source = xstrdup(src);
	t->releases_file = xstrdup(file);
	t->releases_line = m->line;
	return 0;
}

int
jaxapi_parse(struct jaxapi **out, const struct ynode *names, const struct ynode *gaps,
	     const struct ynode *releases, const char *file, struct diag *d)
{
	struct jaxapi *t = *out;
	int ret = 0;

	if (!names && !gaps && !releases)
		return 0;
	if (want_list(names, "jax_api", file, d) < 0 || want_list(gaps, "jax_gaps", file, d) < 0)
		return -1;
	if (!t)
		t = xcalloc(1, sizeof(*t));
	if (names && parse_names(t, names, file, d) < 0)
		ret = -1;
	if (gaps && parse_gaps(t, gaps, file, d) < 0)
		ret = -1;
	if (releases && parse_releases(t, releases, file, d) < 0)
		ret = -1;
	*out = t;
	return ret;
}

/* The index of v in the release list, or -1. */
static long
release_index(const struct jaxapi *t, const struct jaxver *v)
{
	for (size_t i = 0; i < t->nreleases; i++)
		if (jaxver_cmp(&t->releases[i], v) == 0)
			return (long)i;
	return -1;
}

/* Each bound of r is a release of the list. */
static int
check_listed(const struct jaxapi *t, const struct jaxrange *r, const char *what, const char *key,
	     const char *file, int line, int col, struct diag *d)
{
	char v[24];

	if (!r->set)
		return 0;
	for (int end = 0; end < 2; end++) {
		const struct jaxver *b = end ? &r->hi : &r->lo;

		if ((end || r->has_lo) && release_index(t, b) < 0) {
			jaxver_format(b, v, sizeof(v));
			diag_error(d, file, line, col, "'%s': '%s' names %s, which is not in jax_releases "
				   "(%s:%d)", what, key, v, t->releases_file, t->releases_line);
			return -1;
		}
	}
	return 0;
}

/* With a release list: every release named is in it, removed_at reads the removal or the release before it. */
static int
check_against_releases(const struct jaxapi *t, struct diag *d)
{
	int ret = 0;

	for (size_t i = 0; t->nreleases && i < t->nnames; i++) {
		const struct api_name *n = t->names[i];
		struct jaxrange dep = { 0 };
		struct jaxver tag;
		long k;

		if (n->deprecated)
			jaxrange_parse(n->deprecated, &dep);
		ret |= check_listed(t, &n->since, n->name, "since", n->file, n->line, n->col, d);
		ret |= check_listed(t, &n->removed, n->name, "removed", n->file, n->line, n->col, d);
		ret |= check_listed(t, &dep, n->name, "deprecated", n->file, n->line, n->col, d);
		jaxrange_release(&dep);
		if (n->removed.set && n->removed.has_lo && n->removed_at &&
		    jaxapi_provenance(n->removed_at, &tag) == 0 &&
		    (k = release_index(t, &n->removed.lo)) >= 0 &&
		    jaxver_cmp(&tag, &n->removed.lo) != 0 &&
		    (k == 0 || jaxver_cmp(&tag, &t->releases[k - 1]) != 0)) {
			diag_error(d, n->file, n->line, n->col, "'%s': removed_at must read the "
				   "release that removed it or the one before it", n->name);
			ret = -1;
		}
	}
	for (size_t i = 0; t->nreleases && i < t->ngaps; i++)
		ret |= check_listed(t, &t->gaps[i]->closed_in, t->gaps[i]->id, "closed_in",
				    t->gaps[i]->file, t->gaps[i]->line, 1, d);
	return ret ? -1 : 0;
}

int
jaxapi_finish(struct jaxapi *t, struct diag *d)
{
	int ret = 0;

	if (t) {
		for (size_t i = 0; i < t->nnames; i++)
			t->names[i]->order = i;
		xfree(t->by_name);
		t->by_name = xcalloc(t->nnames + 1, sizeof(*t->by_name));
		if (t->nnames) {	/* names is NULL in an empty table */
			memcpy(t->by_name, t->names, t->nnames * sizeof(*t->names));
			qsort(t->by_name, t->nnames, sizeof(*t->by_name), by_name_cmp);
		}
	}

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
	if (t && check_against_releases(t, d) < 0)
		ret = -1;
	return ret;
}

/* ---- rendering ---- */

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
		jaxver_format(&g->closed_in.hi, hi, sizeof(hi));
		from = known ? xasprintf("the log shows JAX %s", version)
			     : xstrdup("the log does not say which JAX ran");
		vars_set(vs, "jax_upgrade_to", hi, false);
		vars_set(vs, "jax_upgrade_what", g->what, false);
		vars_set(vs, "jax_upgrade_from", from, false);
		xfree(from);
		return;
	}
}
