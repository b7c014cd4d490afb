/* SPDX-License-Identifier: MIT */
/*
 * The API lint of `rules validate` (see jaxapi_lint() in pt/jaxapi.h):
 * every text a user reads must name JAX APIs through the table, or a
 * rename would have to be found and fixed in every rung by hand, and a
 * name could be offered to a release that lacks it. The check works on
 * words (a run of letters, digits, '_' and '.'); in a snippet it also
 * follows calls, so that it knows whose keyword a "name=" is.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "pt/chips.h"
#include "pt/gpus.h"
#include "pt/jaxapi.h"
#include "pt/rules.h"
#include "pt/xalloc.h"

/* Words that are Pallas API names by their prefix, in the table or not. */
static const char *const api_prefixes[] = {
	"pl.", "pltpu.", "plgpu.", "pltriton.", "plsc.", "jax_pallas_",
};

#define STACK_MAX 32

enum text_kind {
	TEXT_SNIPPET,             /* change, fallback, snippet: code, rendered for the release */
	TEXT_PROSE,               /* an explanation: rendered, names marked where missing */
	TEXT_PLAIN,               /* never rendered: may not name an API at all */
};

/* Where a text comes from, for the message. */
struct lint_at {
	const char *file;
	int line, col;
	const char *owner;        /* "rung 'sync.barrier-at-start'" */
	const char *field;        /* "change" */
	enum text_kind kind;
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

/*
 * The entry spelled w: by name, or by what it renders as when that depends
 * on the release and is no plain word (a keyword "mask" is English,
 * "detect_races" is not; "index_map", which every release has, may be
 * written as it is).
 */
static const struct api_name *
find_written(const struct jaxapi *t, const char *w)
{
	const struct api_name *n = jaxapi_find(t, w);

	for (size_t i = 0; !n && t && i < t->nnames; i++) {
		const char *r = t->names[i]->render;

		if (r && strpbrk(r, "_.") && strcmp(r, w) == 0 && jaxapi_versioned(t, t->names[i]))
			n = t->names[i];
	}
	return n;
}

/* A plain-word keyword ("packed") used as one ("packed=True") in prose, whose releases matter. */
static const struct api_name *
find_keyword_written(const struct jaxapi *t, const char *w)
{
	for (size_t i = 0; t && i < t->nnames; i++) {
		const struct api_name *n = t->names[i];

		if (n->render && strcmp(n->render, w) == 0 && strchr(n->name, '.') &&
		    jaxapi_versioned(t, n))
			return n;
	}
	return NULL;
}

/* Is kw the keyword of some table entry, and may it be written without its owner (no release lacks it)? */
static bool
keyword_known(const struct jaxapi *t, const char *kw, bool *versioned)
{
	bool known = false;

	*versioned = false;
	for (size_t i = 0; i < t->nnames; i++) {
		const struct api_name *n = t->names[i];
		const char *dot = strrchr(n->name, '.');

		if (n->render && dot && strcmp(dot + 1, kw) == 0 && strcmp(n->render, kw) == 0) {
			known = true;
			*versioned |= jaxapi_versioned(t, n);
		}
	}
	return known;
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

static const struct api_name *
lint_placeholder(const struct jaxapi *t, const char *name, const struct lint_at *at,
		 struct diag *d)
{
	const struct api_name *n = jaxapi_find(t, name);

	if (at->kind == TEXT_PLAIN)
		lint_error(d, at, "${api:%s}: this text is not rendered; API names go in snippets "
			   "and explanations", name);
	else if (!t)
		lint_error(d, at, "${api:%s}: no JAX API table (jax_api section) is loaded", name);
	else if (!n)
		lint_error(d, at, "${api:%s}: '%s' is not in the JAX API table", name, name);
	else if (n->replaced_by)
		lint_error(d, at, "${api:%s} names an old spelling; write ${api:%s}", name,
			   jaxapi_current(t, n)->name);
	return n;
}

static void
lint_word(const struct jaxapi *t, const char *w, const struct lint_at *at, struct diag *d)
{
	const struct api_name *n = find_written(t, w);

	if (!t)
		return;
	if (n && at->kind == TEXT_PLAIN)
		lint_error(d, at, "'%s' is a JAX API name in a text that is not rendered for the JAX "
			   "version; say it in an explanation or a snippet", w);
	else if (n)
		lint_error(d, at, "'%s' is written out; write ${api:%s} so that it is spelled for "
			   "the JAX version in the log", w, jaxapi_current(t, n)->name);
	else if (has_api_prefix(w))
		lint_error(d, at, "'%s' is not in the JAX API table; add it to the jax_api section "
			   "(with its releases) and write ${api:%s}", w, w);
}

/* A keyword "kw=" in a snippet: of the call of table API owner, or of no call at all. */
static void
lint_keyword(const struct jaxapi *t, const struct api_name *owner, bool in_call, const char *kw,
	     const struct lint_at *at, struct diag *d)
{
	bool versioned;

	if (!t)
		return;
	if (owner && !jaxapi_keyword(t, owner, kw, strlen(kw)))
		lint_error(d, at, "keyword '%s' of %s is not in the JAX API table; add %s.%s to the "
			   "jax_api section with its releases", kw, jaxapi_current(t, owner)->name,
			   jaxapi_current(t, owner)->name, kw);
	else if (!owner && !in_call && !keyword_known(t, kw, &versioned))
		lint_error(d, at, "keyword '%s=' is not in the JAX API table; add OWNER.%s to the "
			   "jax_api section with its releases and write ${api:OWNER.%s}=", kw, kw, kw);
	else if (!owner && !in_call && versioned)
		lint_error(d, at, "keyword '%s=' outside a call of a table API depends on the "
			   "release: write ${api:OWNER.%s}=", kw, kw);
}

static bool
all_caps(const char *w)
{
	for (; *w; w++)
		if (islower((unsigned char)*w))
			return false;
	return true;
}

/* The state of the walk through a snippet: open brackets, each with its API call if any. */
struct walk {
	const struct api_name *frame[STACK_MAX];
	size_t depth;
	char quote;                /* inside a Python string: its quote, else 0 */
};

static void
push(struct walk *w, const struct api_name *n)
{
	if (w->depth < STACK_MAX)
		w->frame[w->depth] = n;
	w->depth++;
}

/* ${api:NAME} at p; returns where the walk goes on. */
static const char *
lint_api_at(const struct jaxapi *t, const char *p, const char *end, struct walk *w,
	    const struct lint_at *at, struct diag *d)
{
	char *name = xstrndup(p + 6, (size_t)(end - p - 6));
	const struct api_name *n = lint_placeholder(t, name, at, d);

	p = end + 1;
	if (*p == '.' && word_char(p[1]) && p[1] != '.') {
		int len = (int)strcspn(p + 1, " (),[]=");

		lint_error(d, at, "${api:%s}.%.*s: write the attribute into the name, "
			   "${api:%s.%.*s}, so that it is checked for the release", name, len, p + 1,
			   name, len, p + 1);
		p += 1 + len;
	}
	if (*p == '(' && at->kind != TEXT_PLAIN && !w->quote) {
		push(w, n);
		p++;
	}
	free(name);
	return p;
}

static const char *
lint_word_at(const struct jaxapi *t, const char *start, const char *p, struct walk *w,
	     const struct lint_at *at, struct diag *d)
{
	const char *e = p;
	char *word;
	size_t len;

	while (word_char(*e))
		e++;
	while (*p == '.')
		p++;
	if (e <= p)
		return e;
	len = (size_t)(e - p);
	while (len && p[len - 1] == '.')
		len--;
	word = xstrndup(p, len);
	/* NAME=value in capitals is an environment variable, --name=value a flag: no keywords */
	bool kw = !w->quote && *e == '=' && e[1] != '=' && !strchr(word, '.') && !all_caps(word) &&
		  !(p > start && p[-1] == '-');
	const struct api_name *owner = w->depth && w->depth <= STACK_MAX ? w->frame[w->depth - 1]
								       : NULL;

	if (kw && (at->kind == TEXT_SNIPPET || (at->kind == TEXT_PROSE && owner))) {
		lint_keyword(t, owner, w->depth > 0, word, at, d);
	} else if (kw && at->kind != TEXT_SNIPPET && w->depth == 0 &&
		   find_keyword_written(t, word) && !find_written(t, word)) {
		lint_error(d, at, "'%s=' is a keyword whose releases matter; write ${api:%s}=", word,
			   jaxapi_current(t, find_keyword_written(t, word))->name);
	} else {
		lint_word(t, word, at, d);
	}
	free(word);
	return e;
}

static void
lint_text(const struct jaxapi *t, const char *text, const struct lint_at *at, struct diag *d)
{
	struct walk w = { { NULL }, 0, 0 };
	const char *p = text;

	while (p && *p) {
		if (strncmp(p, "${", 2) == 0) {
			const char *end = strchr(p + 2, '}');

			if (!end) {
				lint_error(d, at, "'${' without a closing '}'");
				return;
			}
			if (strncmp(p, "${api:", 6) == 0 && end >= p + 6)
				p = lint_api_at(t, p, end, &w, at, d);
			else
				p = end + 1;
		} else if (w.quote && *p == w.quote) {
			w.quote = 0;
			p++;
		} else if (!w.quote && (*p == '"' || *p == '\'') &&
			   (p == text || !word_char(p[-1]))) {
			w.quote = *p++;
		} else if (!w.quote && (*p == '(' || *p == '[' || *p == '{')) {
			push(&w, NULL);
			p++;
		} else if (!w.quote && (*p == ')' || *p == ']' || *p == '}')) {
			if (w.depth)
				w.depth--;
			p++;
		} else if (word_char(*p) && (p == text || !word_char(p[-1]))) {
			p = lint_word_at(t, text, p, &w, at, d);
		} else {
			p++;
		}
	}
}

static void
lint_field(const struct jaxapi *t, struct lint_at *at, const char *field, enum text_kind kind,
	   const char *text, struct diag *d)
{
	at->field = field;
	at->kind = kind;
	lint_text(t, text, at, d);
}

static void
lint_rung(const struct jaxapi *t, const struct rung *r, struct diag *d)
{
	char *owner = xasprintf("rung '%s'", r->id);
	struct lint_at at = { r->file ? r->file : "rules", r->line, r->col, owner, NULL, 0 };

	lint_field(t, &at, "change", TEXT_SNIPPET, r->change, d);
	lint_field(t, &at, "fallback", TEXT_SNIPPET, r->fallback, d);
	lint_field(t, &at, "action", TEXT_PROSE, r->action, d);
	lint_field(t, &at, "expect", TEXT_PROSE, r->expect, d);
	free(owner);
}

static void
lint_flag(const struct jaxapi *t, const struct flag_def *f, struct diag *d)
{
	char *owner = xasprintf("flag '%s'", f->id);
	struct lint_at at = { f->file ? f->file : "rules", f->line, f->col, owner, NULL, 0 };

	lint_field(t, &at, "snippet", TEXT_SNIPPET, f->snippet, d);
	lint_field(t, &at, "why", TEXT_PROSE, f->why, d);
	free(owner);
}

static void
lint_rule(const struct jaxapi *t, const struct rule *r, struct diag *d)
{
	char *owner = xasprintf("rule '%s'", r->id);
	struct lint_at at = { r->file, r->line, 1, owner, NULL, 0 };

	lint_field(t, &at, "message", TEXT_PROSE, r->message, d);
	lint_field(t, &at, "explain", TEXT_PROSE, r->explain, d);
	free(owner);
}

static void
lint_class(const struct jaxapi *t, enum pt_class c, const struct class_def *cd, struct diag *d)
{
	char *owner = xasprintf("class '%s'", class_name(c));
	struct lint_at at = { "rules", 0, 0, owner, NULL, 0 };

	lint_field(t, &at, "title", TEXT_PLAIN, cd->title, d);
	lint_field(t, &at, "summary", TEXT_PROSE, cd->summary, d);
	lint_field(t, &at, "explain", TEXT_PROSE, cd->explain, d);
	lint_field(t, &at, "interpret_note", TEXT_PROSE, cd->interpret_note, d);
	lint_field(t, &at, "gpu_interpret_note", TEXT_PROSE, cd->gpu_interpret_note, d);
	for (char **s = cd->next_steps; s && *s; s++)
		lint_field(t, &at, "next_steps", TEXT_PROSE, *s, d);
	for (char **s = cd->next_steps_run; s && *s; s++)
		lint_field(t, &at, "next_steps_run", TEXT_PROSE, *s, d);
	for (char **s = cd->more_info; s && *s; s++)
		lint_field(t, &at, "more_info", TEXT_PROSE, *s, d);
	/* rulings are saved in the session as they read: never rendered */
	for (int o = 0; o < OUTCOME_COUNT; o++) {
		for (char **p = cd->rules_out[o]; p && p[0] && p[1]; p += 2)
			lint_field(t, &at, "rules_out", TEXT_PLAIN, p[1], d);
		lint_field(t, &at, "keeps", TEXT_PLAIN, cd->keeps[o], d);
	}
	free(owner);
}

/* Texts no command renders for a JAX version. */
static void
lint_plain(const struct ruleset *rs, struct diag *d)
{
	for (size_t i = 0; i < rs->ncontexts; i++) {
		const struct context_def *cx = &rs->contexts[i];
		char *owner = xasprintf("context '%s'", cx->id);
		struct lint_at at = { cx->file, cx->line, 1, owner, NULL, 0 };

		lint_field(rs->api, &at, "summary", TEXT_PLAIN, cx->summary, d);
		lint_field(rs->api, &at, "missing", TEXT_PLAIN, cx->missing, d);
		free(owner);
	}
	for (size_t i = 0; rs->chips && i < rs->chips->ngpus; i++) {
		const struct gpu *g = rs->chips->gpus[i];
		char *owner = xasprintf("gpu '%s'", g->name);
		struct lint_at at = { g->file, g->line, 1, owner, NULL, 0 };

		lint_field(rs->api, &at, "note", TEXT_PLAIN, g->note, d);
		free(owner);
	}
	for (size_t i = 0; rs->chips && i < rs->chips->nchips; i++) {
		const struct chip *ch = rs->chips->chips[i];
		char *owner = xasprintf("chip '%s'", ch->name);
		struct lint_at at = { ch->file, ch->line, 1, owner, NULL, 0 };

		lint_field(rs->api, &at, "note", TEXT_PLAIN, ch->note, d);
		free(owner);
	}
}

int
jaxapi_lint(const struct ruleset *rs, struct diag *d)
{
	size_t before = d->nerrors;

	for (int c = 0; c < CLASS_COUNT; c++) {
		for (size_t i = 0; i < rs->ladders[c].nrungs; i++)
			lint_rung(rs->api, &rs->ladders[c].rungs[i], d);
		lint_class(rs->api, (enum pt_class)c, &rs->classes[c], d);
	}
	for (size_t i = 0; i < rs->nflags; i++)
		lint_flag(rs->api, &rs->flags[i], d);
	for (char **s = rs->more_info; s && *s; s++) {
		struct lint_at at = { "rules", 0, 0, "the top-level more_info", NULL, 0 };

		lint_field(rs->api, &at, "more_info", TEXT_PROSE, *s, d);
	}
	for (size_t i = 0; i < rs->nrules; i++)
		lint_rule(rs->api, rs->rules[i], d);
	lint_plain(rs, d);
	return d->nerrors > before ? -1 : 0;
}
