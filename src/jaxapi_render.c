/* SPDX-License-Identifier: MIT */
/*
 * Rendering ${api:NAME} for one JAX version; see pt/jaxapi.h. A snippet is
 * code a user pastes, so a name it cannot spell for the release turns the
 * code into a sentence saying so; prose only marks such a name. Calls are
 * read with a small scanner that knows brackets, Python strings and ${...}
 * placeholders, enough for the one-line snippets of the rules: a call's
 * keywords are looked up as OWNER.kw, and a spelling with a `call` form
 * lays the arguments out as that release wants them.
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
#define ARGS_MAX 32
#define MISS_MAX 8
#define DEPTH_MAX 8

/* A name of which no spelling exists in the release. */
struct miss {
	const char *spelled;          /* the current spelling, as a snippet writes it */
	const struct api_name *cur;
	bool gone;                    /* removed, and nothing newer exists there */
	struct jaxver when;           /* the release it arrives in, or was removed in */
};

struct rctx {
	struct api_render *ar;
	bool prose;                   /* mark missing names instead of collecting them */
	struct miss miss[MISS_MAX];
	size_t nmiss;
	char vtext[32];               /* the release names are spelled for, once asked
	                               * (version_text()); empty before */
};

/* ---- the scanner ---- */

/* Past a ${...} placeholder at p, or NULL. */
static const char *
skip_placeholder(const char *p, const char *end)
{
	const char *q;

	if (end - p < 2 || p[0] != '$' || p[1] != '{')
		return NULL;
	for (q = p + 2; q < end && *q != '}'; q++)
		;
	return q < end ? q + 1 : NULL;
}

/* A Python string starts at a quote that follows no word character (an apostrophe in "program's" is none). */
static const char *
skip_string(const char *start, const char *p, const char *end)
{
	char q = *p;

	if ((q != '"' && q != '\'') || (p > start && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
		return NULL;
	for (p++; p < end && *p != q; p++)
		if (*p == '\\' && p + 1 < end)
			p++;
	return p < end ? p + 1 : NULL;
}

/* The bracket that closes the one before p, or NULL. */
static const char *
find_close(const char *start, const char *p, const char *end)
{
	char stack[64];
	size_t depth = 1;

	stack[0] = ')';
	while (p < end) {
		const char *q;

		if ((q = skip_placeholder(p, end)) || (q = skip_string(start, p, end))) {
			p = q;
			continue;
		}
		if (*p == '(' || *p == '[' || *p == '{') {
			if (depth == sizeof(stack))
				return NULL;
			stack[depth++] = *p == '(' ? ')' : *p == '[' ? ']' : '}';
		} else if (*p == ')' || *p == ']' || *p == '}') {
			if (*p != stack[--depth])
				return NULL;
			if (depth == 0)
				return p;
		}
		p++;
	}
	return NULL;
}

/* The first c in [p, end) outside brackets, strings and placeholders, or end; start begins the text. */
static const char *
find_top(const char *start, const char *p, const char *end, char c)
{
	int depth = 0;

	while (p < end) {
		const char *q;

		if ((q = skip_placeholder(p, end)) || (q = skip_string(start, p, end))) {
			p = q;
			continue;
		}
		if (*p == '(' || *p == '[' || *p == '{')
			depth++;
		else if (*p == ')' || *p == ']' || *p == '}')
			depth--;
		else if (*p == c && depth <= 0)
			return p;
		p++;
	}
	return end;
}

/* Split [p, end) at commas outside brackets; returns the number of pieces (at most max). */
static size_t
split_top(const char *p, const char *end, const char **from, const char **to, size_t max)
{
	const char *start = p, *item = p;
	size_t n = 0;

	while (n < max) {
		const char *comma = find_top(start, item, end, ',');

		from[n] = item;
		to[n++] = comma;
		if (comma == end)
			break;
		item = comma + 1;
	}
	return n;
}

static const char *
trim_left(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

static const char *
trim_right(const char *p, const char *end)
{
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	return end;
}

/* The length of a keyword "name=" at p (not "=="), or 0. */
static size_t
keyword_at(const char *p, const char *end)
{
	const char *q = p;

	if (q >= end || !(isalpha((unsigned char)*q) || *q == '_'))
		return 0;
	while (q < end && (isalnum((unsigned char)*q) || *q == '_'))
		q++;
	if (q < end && *q == '=' && (q + 1 >= end || q[1] != '='))
		return (size_t)(q - p);
	return 0;
}

/* Where a snippet's trailing "# comment" starts (a '#' after a blank, outside strings and brackets), or end. */
static const char *
find_comment(const char *p, const char *end)
{
	const char *start = p, *hash = p;

	while ((hash = find_top(start, hash, end, '#')) < end) {
		if (hash == start || isspace((unsigned char)hash[-1]))
			return hash;
		hash++;
	}
	return end;
}

/* ---- notes and spellings ---- */

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

/* The release as a note or message names it. */
static const char *
version_text(struct rctx *c)
{
	struct api_render *ar = c->ar;

	if (c->vtext[0])
		return c->vtext;
	if (ar->known)
		snprintf(c->vtext, sizeof(c->vtext), "%s", ar->version);
	else if (ar->have_ver)
		jaxver_format(&ar->ver, c->vtext, sizeof(c->vtext));
	return c->vtext;
}

static void
note_maybe(struct rctx *c, const struct api_name *n)
{
	char when[64];
	bool arriving = n->since.set && jaxrange_reached(&n->since, &c->ar->ver) == API_MAYBE;

	jaxrange_describe(arriving ? &n->since : &n->removed, when, sizeof(when));
	add_note(c->ar, "not known whether JAX %s %s %s (%s %s)", version_text(c),
		 arriving ? "has" : "still has", spelling(n),
		 arriving ? "it arrived" : "it was removed", when);
}

/* Why no spelling of cur's API exists in the release: one arrives later, or all were removed. */
static struct miss
explain_miss(struct rctx *c, const struct api_name *cur, const struct api_name **v, size_t k)
{
	struct miss m = { spelling(cur), cur, true, { { 0, 0, 0 }, 0 } };

	/* named by the spelling that comes first: what an upgrade would give */
	for (size_t i = 0; i < k; i++)
		if (v[i]->since.set && jaxver_cmp(&c->ar->ver, &v[i]->since.hi) < 0 &&
		    (m.gone || jaxver_cmp(&v[i]->since.hi, &m.when) < 0)) {
			m.gone = false;
			m.when = v[i]->since.hi;
			m.spelled = spelling(v[i]);
		}
	if (m.gone)
		m.when = cur->removed.set ? cur->removed.hi : c->ar->ver;
	return m;
}

static void
collect_miss(struct rctx *c, const struct miss *m)
{
	for (size_t i = 0; i < c->nmiss; i++)
		if (c->miss[i].cur == m->cur)
			return;
	if (c->nmiss < MISS_MAX)
		c->miss[c->nmiss++] = *m;
}

/*
 * The spelling of n for the release, or NULL when none exists there (then
 * *m says why). Unversioned names are spelled one way.
 */
static const struct api_name *
pick(struct rctx *c, const struct api_name *n, struct miss *m)
{
	struct api_render *ar = c->ar;
	const struct api_name *cur = jaxapi_current(ar->table, n), *v[CHAIN_MAX];
	size_t k = chain(ar->table, cur, v);

	if (!jaxapi_versioned(ar->table, cur))
		return cur;
	ar->versioned = true;
	if (!ar->known)
		ar->guessed = true;
	if (!ar->have_ver)
		return cur;
	for (size_t i = 0; i < k; i++)
		if (jaxapi_presence(v[i], &ar->ver) == API_PRESENT)
			return v[i];
	for (size_t i = 0; i < k; i++)
		if (jaxapi_presence(v[i], &ar->ver) == API_MAYBE) {
			note_maybe(c, v[i]);
			return v[i];
		}
	*m = explain_miss(c, cur, v, k);
	return NULL;
}

/* A chosen spelling whose releases the sources cannot settle says so. */
static void
note_undecided(struct rctx *c, const struct api_name *s)
{
	if (s && s->undecided)
		add_note(c->ar, "%s: %s", spelling(s), s->undecided);
}

/* " (JAX >= 0.5.1)" or " (removed in JAX 0.11.0)": how prose marks a name the release lacks. */
static void
add_mark(struct buf *out, const struct miss *m)
{
	char when[24];

	jaxver_format(&m->when, when, sizeof(when));
	if (m->gone)
		buf_addf(out, " (removed in JAX %s)", when);
	else
		buf_addf(out, " (JAX >= %s)", when);
}

/* ---- rendering ---- */

static void render_span(struct rctx *c, const char *p, const char *end, struct buf *out,
			int depth);

/*
 * The spelling of n for the release: in prose a name the release lacks
 * gets its mark in place; in code the lack is collected for the caller.
 */
static const struct api_name *
spell(struct rctx *c, const struct api_name *n, struct buf *out)
{
	struct miss m;
	const struct api_name *s = pick(c, n, &m);

	note_undecided(c, s);
	buf_adds(out, s ? spelling(s) : m.spelled);
	if (!s && c->prose)
		add_mark(out, &m);
	else if (!s && !c->prose)
		collect_miss(c, &m);
	return s;
}

/* One argument of a call of API n: a keyword gets its spelling, the value is rendered. */
static char *
render_arg(struct rctx *c, const struct api_name *n, const char *p, const char *end, bool *is_kw,
	   int depth)
{
	struct buf b = BUF_INIT;
	size_t kwlen;

	p = trim_left(p, end);
	end = trim_right(p, end);
	*is_kw = (kwlen = keyword_at(p, end)) > 0;
	if (*is_kw) {
		const struct api_name *kw = jaxapi_keyword(c->ar->table, n, p, kwlen);

		if (kw)
			spell(c, kw, &b);
		else
			buf_add(&b, p, kwlen);
		buf_addch(&b, '=');
		p += kwlen + 1;
	}
	render_span(c, p, end, &b, depth + 1);
	return buf_detach(&b, NULL);
}

struct call_args {
	char *text[ARGS_MAX];
	bool kw[ARGS_MAX];
	size_t n;
};

/* "$*": every argument; "$k": the keywords; "$1".."$9": the positional ones. */
static void
put_args(const struct call_args *a, char which, struct buf *out)
{
	size_t pos = 0, put = 0;

	for (size_t i = 0; i < a->n; i++) {
		bool want = which == '*' || (which == 'k' && a->kw[i]);

		if (!a->kw[i] && ++pos == (size_t)(which - '0'))
			want = true;
		if (want) {
			buf_addf(out, "%s%s", put++ ? ", " : "", a->text[i]);
			if (which >= '1' && which <= '9')
				return;
		}
	}
}

/* An argument item of a call form that came out empty ("" or "name=") is left out. */
static bool
empty_item(const char *s)
{
	const char *end = s + strlen(s);
	size_t kw;

	s = trim_left(s, end);
	end = trim_right(s, end);
	kw = keyword_at(s, end);
	return s == end || (kw && trim_left(s + kw + 1, end) == end);
}

static void fill_list(const char *p, const char *end, const struct call_args *a, struct buf *out);

/* A piece of a call form: text, $-markers and bracketed lists. */
static void
fill_item(const char *p, const char *end, const struct call_args *a, struct buf *out)
{
	while (p < end) {
		const char *close;

		if (*p == '$' && p + 1 < end && (p[1] == '*' || p[1] == 'k' ||
						 (p[1] >= '1' && p[1] <= '9'))) {
			put_args(a, p[1], out);
			p += 2;
		} else if (*p == '(' && (close = find_close(p, p + 1, end))) {
			buf_addch(out, '(');
			fill_list(p + 1, close, a, out);
			buf_addch(out, ')');
			p = close + 1;
		} else {
			buf_addch(out, *p++);
		}
	}
}

static void
fill_list(const char *p, const char *end, const struct call_args *a, struct buf *out)
{
	const char *from[ARGS_MAX], *to[ARGS_MAX];
	size_t n = split_top(p, end, from, to, ARGS_MAX), put = 0;

	for (size_t i = 0; i < n; i++) {
		struct buf item = BUF_INIT;

		fill_item(trim_left(from[i], to[i]), trim_right(from[i], to[i]), a, &item);
		if (!empty_item(item.data))
			buf_addf(out, "%s%s", put++ ? ", " : "", item.data);
		buf_release(&item);
	}
}

/* ${api:NAME}(ARGS) at [p, close]: the spelling for the release, its keywords, its call form. */
static void
render_call(struct rctx *c, const struct api_name *n, const char *p, const char *close,
	    struct buf *out, int depth)
{
	const char *from[ARGS_MAX], *to[ARGS_MAX];
	size_t k = split_top(p, close, from, to, ARGS_MAX);
	struct call_args a = { { NULL }, { false }, 0 };
	struct miss m;
	const struct api_name *s = pick(c, n, &m);

	note_undecided(c, s);
	if (!s && !c->prose)
		collect_miss(c, &m);
	/* "f()" is a call without arguments, not one empty argument */
	if (k == 1 && trim_left(from[0], to[0]) == to[0])
		k = 0;
	for (size_t i = 0; i < k; i++, a.n++)
		a.text[a.n] = render_arg(c, n, from[i], to[i], &a.kw[a.n], depth);
	if (s && s->call) {
		fill_item(s->call, s->call + strlen(s->call), &a, out);
	} else {
		/* prose marks a name the release lacks where it stands, before its arguments */
		buf_adds(out, s ? spelling(s) : m.spelled);
		if (!s && c->prose)
			add_mark(out, &m);
		buf_addch(out, '(');
		put_args(&a, '*', out);
		buf_addch(out, ')');
	}
	for (size_t i = 0; i < a.n; i++)
		free(a.text[i]);
}

static void
render_span(struct rctx *c, const char *p, const char *end, struct buf *out, int depth)
{
	while (p < end) {
		const char *start = NULL, *q, *name_end, *close;
		const struct api_name *n;
		char *name;

		for (q = p; q + 6 <= end; q++)
			if (memcmp(q, "${api:", 6) == 0) {
				start = q;
				break;
			}
		if (!start || !(name_end = memchr(start + 6, '}', (size_t)(end - start - 6)))) {
			buf_add(out, p, (size_t)(end - p));
			return;
		}
		buf_add(out, p, (size_t)(start - p));
		name = xstrndup(start + 6, (size_t)(name_end - start - 6));
		n = jaxapi_find(c->ar->table, name);
		p = name_end + 1;
		if (!n) {
			buf_adds(out, name);
		} else if (depth < DEPTH_MAX && p < end && *p == '(' &&
			   (close = find_close(p, p + 1, end))) {
			render_call(c, n, p + 1, close, out, depth);
			p = close + 1;
		} else {
			spell(c, n, out);
		}
		free(name);
	}
}

/* The misses are read only up to nmiss: not cleared, nor the version
 * spelled, for each of the many renders that need neither. */
static void
rctx_init(struct rctx *c, struct api_render *ar, bool prose)
{
	c->ar = ar;
	c->prose = prose;
	c->nmiss = 0;
	c->vtext[0] = '\0';
}

/* "not available in JAX 0.4.30: pl.Buffered (JAX >= 0.5.1); upgrade JAX to 0.5.1 or later; instead: ..." */
static void
put_unavailable(struct rctx *c, struct buf *out)
{
	struct jaxver up = { { 0, 0, 0 }, 0 };
	const char *instead = NULL;
	bool upgrade = false;
	char v[24];

	buf_addf(out, "not available in JAX %s: ", version_text(c));
	for (size_t i = 0; i < c->nmiss; i++) {
		const struct miss *m = &c->miss[i];

		buf_addf(out, "%s%s", i ? ", " : "", m->spelled);
		add_mark(out, m);
		if (!m->gone && (!upgrade || jaxver_cmp(&m->when, &up) > 0)) {
			up = m->when;
			upgrade = true;
		}
		if (!instead)
			instead = m->cur->instead;
	}
	if (upgrade) {
		jaxver_format(&up, v, sizeof(v));
		buf_addf(out, "; upgrade JAX to %s or later", v);
	}
	if (instead) {
		struct buf alt = BUF_INIT;
		struct rctx p;

		/* an alternative the release lacks too is no help: leave it out */
		rctx_init(&p, c->ar, false);
		render_span(&p, instead, instead + strlen(instead), &alt, 0);
		if (!p.nmiss)
			buf_addf(out, "%s%s", upgrade ? ", or instead: " : "; instead: ", alt.data);
		buf_release(&alt);
	}
}

static void
render_text(struct api_render *ar, const char *tmpl, struct buf *out)
{
	const char *end = tmpl + strlen(tmpl), *hash = find_comment(tmpl, end);
	struct buf code = BUF_INIT;
	struct rctx c;

	rctx_init(&c, ar, false);
	render_span(&c, tmpl, hash, &code, 0);
	if (c.nmiss) {
		put_unavailable(&c, out);
	} else {
		buf_add(out, code.data, code.len);
		rctx_init(&c, ar, true);
		render_span(&c, hash, end, out, 0);
	}
	buf_release(&code);
}

/*
 * The memo (api_render_memo_begin()). A render reads only the table, the
 * release (as parsed and as the log spelled it) and the template, and it
 * only appends: to the output, to the notes (without duplicates) and to
 * the two flags. So rendering with ar is rendering with a fresh state for
 * the same release and adopting what it noted, and that is what is kept.
 */
#define MEMO_ENTRIES 64

struct memo_entry {
	const char *tmpl;             /* borrowed from the ruleset, like noted.table */
	struct api_render noted;      /* the release it was rendered for (its own copy
	                               * of the spelling), and what the render noted */
	char *text;
};

struct render_memo {
	struct memo_entry e[MEMO_ENTRIES];
	size_t n;
};

static _Thread_local struct render_memo *memo;

static bool
same_release(const struct api_render *a, const struct api_render *b)
{
	return a->table == b->table && a->known == b->known && a->have_ver == b->have_ver &&
	       memcmp(&a->ver, &b->ver, sizeof(a->ver)) == 0 &&
	       (a->version && b->version ? strcmp(a->version, b->version) == 0 :
					   a->version == b->version);
}

static const struct memo_entry *
memo_find(const struct api_render *ar, const char *tmpl)
{
	for (size_t i = 0; i < memo->n; i++)
		if (memo->e[i].tmpl == tmpl && same_release(&memo->e[i].noted, ar))
			return &memo->e[i];
	return NULL;
}

/* Render tmpl for ar's release from scratch into m. */
static void
memo_render(const struct api_render *ar, const char *tmpl, struct memo_entry *m)
{
	struct buf text = BUF_INIT;

	m->tmpl = tmpl;
	m->noted = (struct api_render){
		.table = ar->table, .known = ar->known, .ver = ar->ver, .have_ver = ar->have_ver,
		.version = ar->version ? xstrdup(ar->version) : NULL,
	};
	render_text(&m->noted, tmpl, &text);
	m->text = buf_detach(&text, NULL);
}

static void
memo_entry_release(struct memo_entry *m)
{
	api_render_release(&m->noted);
	free(m->text);
	memset(m, 0, sizeof(*m));
}

void
api_render_memo_begin(void)
{
	if (memo)
		PT_BUG("api_render_memo_begin() twice");
	memo = xcalloc(1, sizeof(*memo));
}

void
api_render_memo_end(void)
{
	for (size_t i = 0; memo && i < memo->n; i++)
		memo_entry_release(&memo->e[i]);
	free(memo);
	memo = NULL;
}

void
api_render_text(struct api_render *ar, const char *tmpl, struct buf *out)
{
	struct memo_entry scratch, *kept;
	const struct memo_entry *m;

	if (!memo) {
		render_text(ar, tmpl, out);
		return;
	}
	if (!(m = memo_find(ar, tmpl))) {
		/* kept while there is room, else rendered for this call only */
		kept = memo->n < MEMO_ENTRIES ? &memo->e[memo->n++] : &scratch;
		memo_render(ar, tmpl, kept);
		m = kept;
	}
	buf_adds(out, m->text);
	api_render_adopt(ar, &m->noted);
	if (m == &scratch)
		memo_entry_release(&scratch);
}

void
api_render_prose_into(struct api_render *ar, const char *text, struct buf *out)
{
	struct rctx c;

	rctx_init(&c, ar, true);
	render_span(&c, text, text + strlen(text), out, 0);
}

const char *
api_render_prose(struct api_render *ar, const char *text)
{
	struct buf b = BUF_INIT;
	char *s;

	if (!text || !strstr(text, "${api:"))
		return text;
	api_render_prose_into(ar, text, &b);
	s = buf_detach(&b, NULL);
	ar->kept = xrealloc(ar->kept, (ar->nkept + 1) * sizeof(*ar->kept));
	ar->kept[ar->nkept++] = s;
	return s;
}

void
api_render_init(struct api_render *ar, const struct jaxapi *t, const char *version)
{
	const struct jaxver *newest = jaxapi_newest(t);

	memset(ar, 0, sizeof(*ar));
	ar->table = t;
	if (version && jaxver_parse(version, &ar->ver) == 0) {
		ar->known = ar->have_ver = true;
		ar->version = xstrdup(version);
	} else if (newest) {
		/* nobody said which JAX ran: spell for the newest release, never
		 * for a name that only the development tree has */
		ar->ver = *newest;
		ar->have_ver = true;
	}
}

void
api_render_adopt(struct api_render *ar, const struct api_render *from)
{
	for (size_t i = 0; i < from->nnotes; i++)
		add_note(ar, "%s", from->notes[i]);
	ar->versioned |= from->versioned;
	ar->guessed |= from->guessed;
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
	for (size_t i = 0; i < ar->nkept; i++)
		free(ar->kept[i]);
	free(ar->kept);
	free(ar->version);
	memset(ar, 0, sizeof(*ar));
}
