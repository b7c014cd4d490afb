/* SPDX-License-Identifier: MIT */
/*
 * The API lint of `rules validate` (see jaxapi_lint() in pt/jaxapi.h):
 * advice that a user pastes must name JAX APIs through the table, or a
 * rename would have to be found and fixed in every rung by hand. The check
 * works on words: a run of letters, digits, '_' and '.'.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "pt/jaxapi.h"
#include "pt/rules.h"
#include "pt/xalloc.h"

/* Words that are Pallas API names by their prefix, in the table or not. */
static const char *const api_prefixes[] = { "pl.", "pltpu.", "plgpu.", "pltriton.", "jax_pallas_" };

/* Where a text comes from, for the message. */
struct lint_at {
	const char *file;
	int line, col;
	const char *owner;        /* "rung 'sync.barrier-at-start'" */
	const char *field;        /* "change" */
	bool snippet;             /* change, fallback, snippet: rendered; else prose */
};

static bool
word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

static bool
has_api_prefix(const char *w)
{
	for (size_t i = 0; i < ARRAY_SIZE(api_prefixes); i++)
		if (strncmp(w, api_prefixes[i], strlen(api_prefixes[i])) == 0)
			return true;
	return false;
}

/* The entry spelled w, by name or by what it renders as. */
static const struct api_name *
find_written(const struct jaxapi *t, const char *w)
{
	const struct api_name *n = jaxapi_find(t, w);

	for (size_t i = 0; !n && t && i < t->nnames; i++)
		if (t->names[i]->render && strcmp(t->names[i]->render, w) == 0)
			n = t->names[i];
	return n;
}

static void PT_PRINTF(3, 4)
lint_error(struct diag *d, const struct lint_at *at, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	diag_error(d, at->file, at->line, at->col, "%s '%s': %s", at->owner, at->field, b.data);
	buf_release(&b);
}

static void
lint_placeholder(const struct jaxapi *t, const char *name, const struct lint_at *at,
		 struct diag *d)
{
	const struct api_name *n = jaxapi_find(t, name);

	if (!at->snippet)
		lint_error(d, at, "${api:%s}: API names are rendered only in change, fallback and "
			   "snippet texts", name);
	else if (!t)
		lint_error(d, at, "${api:%s}: no JAX API table (jax_api section) is loaded", name);
	else if (!n)
		lint_error(d, at, "${api:%s}: '%s' is not in the JAX API table", name, name);
	else if (n->replaced_by)
		lint_error(d, at, "${api:%s} names an old spelling; write ${api:%s}", name,
			   jaxapi_current(t, n)->name);
}

static void
lint_word(const struct jaxapi *t, const char *w, const struct lint_at *at, struct diag *d)
{
	const struct api_name *n = find_written(t, w);

	if (!t)
		return;
	if (at->snippet && n)
		lint_error(d, at, "'%s' is written out; write ${api:%s} so that it is rendered for "
			   "the JAX version in the log", w, jaxapi_current(t, n)->name);
	else if (at->snippet && has_api_prefix(w))
		lint_error(d, at, "'%s' is not in the JAX API table; add it to the jax_api section "
			   "and write ${api:%s}", w, w);
	else if (!at->snippet && n && jaxapi_versioned(t, n))
		lint_error(d, at, "'%s' depends on the JAX version, and prose is not rendered: name "
			   "it only in change, fallback or snippet texts", w);
}

static void
lint_text(const struct jaxapi *t, const char *text, const struct lint_at *at, struct diag *d)
{
	const char *p = text;

	while (p && *p) {
		if (strncmp(p, "${", 2) == 0) {
			const char *end = strchr(p + 2, '}');

			if (!end) {
				lint_error(d, at, "'${' without a closing '}'");
				return;
			}
			if (strncmp(p, "${api:", 6) == 0 && end >= p + 6) {
				char *name = xstrndup(p + 6, (size_t)(end - p - 6));

				lint_placeholder(t, name, at, d);
				free(name);
			}
			p = end + 1;
		} else if (word_char(*p) && (p == text || !word_char(p[-1]))) {
			const char *e = p;
			char *w;

			while (word_char(*e))
				e++;
			while (*p == '.')
				p++;
			if (e > p) {
				size_t len = (size_t)(e - p);

				while (len && p[len - 1] == '.')
					len--;
				w = xstrndup(p, len);
				lint_word(t, w, at, d);
				free(w);
			}
			p = e;
		} else {
			p++;
		}
	}
}

static void
lint_rung(const struct jaxapi *t, const struct rung *r, struct diag *d)
{
	char *owner = xasprintf("rung '%s'", r->id);
	struct lint_at at = { r->file ? r->file : "rules", r->line, r->col, owner, NULL, true };

	at.field = "change";
	lint_text(t, r->change, &at, d);
	at.field = "fallback";
	lint_text(t, r->fallback, &at, d);
	at.snippet = false;
	at.field = "action";
	lint_text(t, r->action, &at, d);
	at.field = "expect";
	lint_text(t, r->expect, &at, d);
	free(owner);
}

static void
lint_flag(const struct jaxapi *t, const struct flag_def *f, struct diag *d)
{
	char *owner = xasprintf("flag '%s'", f->id);
	struct lint_at at = { f->file ? f->file : "rules", f->line, f->col, owner, "snippet", true };

	lint_text(t, f->snippet, &at, d);
	at.snippet = false;
	at.field = "why";
	lint_text(t, f->why, &at, d);
	free(owner);
}

int
jaxapi_lint(const struct ruleset *rs, struct diag *d)
{
	size_t before = d->nerrors;

	for (int c = 0; c < CLASS_COUNT; c++)
		for (size_t i = 0; i < rs->ladders[c].nrungs; i++)
			lint_rung(rs->api, &rs->ladders[c].rungs[i], d);
	for (size_t i = 0; i < rs->nflags; i++)
		lint_flag(rs->api, &rs->flags[i], d);
	return d->nerrors > before ? -1 : 0;
}
