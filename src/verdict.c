/* SPDX-License-Identifier: MIT */
/*
 * The verdict's contents once the scorer has decided (pt/engine.h): the
 * evidence lines, the values, where in the user's code, the key line and
 * message, the reason for an unknown, the fingerprint and the contexts.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt/buf.h"
#include "pt/engine.h"
#include "pt/ladder.h"
#include "pt/util.h"
#include "pt/xalloc.h"

static int
evidence_cmp(const void *a, const void *b)
{
	const struct evidence *ea = a, *eb = b;

	if (ea->line != eb->line)
		return ea->line < eb->line ? -1 : 1;
	return strcmp(ea->rule->id, eb->rule->id);
}

static void
collect_evidence(const struct engine_result *e, struct verdict *v)
{
	size_t alloc = 0;

	for (size_t i = 0; i < v->nfired && v->nev < CLASSIFY_MAX_EVIDENCE; i++) {
		const struct rule *r = v->fired[i];
		size_t first = v->nev;

		for (size_t k = 0; k < r->npats && v->nev < CLASSIFY_MAX_EVIDENCE; k++) {
			const struct pattern *p = r->pats[k];
			const struct pat_state *st = &e->ps[p->index];
			struct evidence *ev;
			bool seen = false;

			if (!st->hit || p->role == PAT_NONE || p->role == PAT_CAPTURE)
				continue;
			/* two patterns of one rule on one line are one piece of evidence */
			for (size_t j = first; j < v->nev; j++)
				seen |= v->ev[j].line == st->line;
			if (seen)
				continue;
			XGROW(v->ev, alloc, v->nev + 1);
			ev = &v->ev[v->nev++];
			ev->line = st->line;
			ev->text = xstrdup(st->text);
			ev->mstart = st->mstart;
			ev->mend = st->mend;
			ev->rule = r;
			ev->role = p->role;
		}
	}
	/* no evidence leaves v->ev NULL, and qsort(NULL, 0, ...) is undefined */
	if (v->nev > 1)
		qsort(v->ev, v->nev, sizeof(*v->ev), evidence_cmp);
}

/* Captures: the deciding rule's first, then its class's, then the rest;
 * environment facts after that, then the values of the contexts that
 * held (backend, platform). The calculators' values are not the engine's
 * business: verdict_derive() (pt/advice.h) adds them. */
static void
collect_vars(const struct engine_result *e, struct verdict *v)
{
	if (v->top_rule)
		vars_copy(&v->vars, &e->rcaps[v->top_rule->index], false);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < v->nfired; i++)
			if ((v->fired[i]->cls == v->cls) == (pass == 0))
				vars_copy(&v->vars, &e->rcaps[v->fired[i]->index], false);
	vars_copy(&v->vars, e->env, false);
	/* values of the contexts that held (backend, platform), in declaration order */
	for (size_t i = 0; i < v->ncontexts; i++)
		for (char **kv = v->contexts[i].def->sets; v->contexts[i].held && kv && kv[0];
		     kv += 2)
			vars_set(&v->vars, kv[0], kv[1], false);
}

static void
set_location(const struct engine_result *e, struct verdict *v)
{
	const struct snap_frame *f = NULL;
	const char *how = NULL;
	const struct pat_state *key = v->top_rule ? score_rule_key(e, v->top_rule) : NULL;

	if (e->loc_frame->file) {
		f = e->loc_frame;
		how = "loc";
	} else if (key && key->where.file) {
		f = &key->where;
		how = "traceback";
	} else if (e->last_frame->file) {
		f = e->last_frame;
		how = "traceback";
	}
	if (!f)
		return;
	v->loc.file = xstrdup(f->file);
	v->loc.func = f->func ? xstrdup(f->func) : NULL;
	v->loc.line = f->line;
	v->loc.col = f->col;
	v->loc.how = how;
}

/* A path starts at "/x" or "~/" after a separator, not at " / " in "12 / 4096". */
static bool
starts_path(const char *text, const char *p)
{
	unsigned char next;

	if (!(p[0] == '/' || (p[0] == '~' && p[1] == '/')))
		return false;
	/* only now is p[2] known to be inside the string (a line may end in "~") */
	next = (unsigned char)p[p[0] == '~' ? 2 : 1];
	if (p > text && !strchr(" \t\"'(=:[", p[-1]))
		return false;
	return isalnum(next) || next == '.' || next == '_' || next == '-';
}

/*
 * What tells two failures of one class apart beyond the masked key line
 * (the class's `fingerprint` values: the test, the file, the dtype, the
 * size): " [name=value, ...]" with the values as the log wrote them, since
 * a test id's numbers are part of its name.
 */
static void
add_identity(const struct ruleset *rs, const struct verdict *v, struct buf *b)
{
	const struct class_def *cd = v->cls < CLASS_COUNT && rs->have_class[v->cls] ?
				     &rs->classes[v->cls] : NULL;
	size_t before = b->len;
	const char *val;

	for (char **n = cd ? cd->fingerprint : NULL; n && *n; n++)
		if ((val = vars_get(&v->vars, *n)))
			buf_addf(b, "%s%s=%s", b->len > before ? ", " : " [", *n, val);
	if (b->len > before)
		buf_addch(b, ']');
}

/*
 * The failure's identity, stable across machines: the key line with
 * numbers, hex addresses, quoted strings and paths masked, and the values
 * that tell failures of its class apart, hashed with FNV-1a together with
 * the class.
 */
static void
set_fingerprint(const struct ruleset *rs, struct verdict *v, const char *text)
{
	struct buf b = BUF_INIT;
	uint64_t h;
	const char *p = text ? text : "";

	while (*p) {
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			for (p += 2; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F'); p++)
				;
			buf_adds(&b, "0x#");
		} else if (*p >= '0' && *p <= '9') {
			while ((*p >= '0' && *p <= '9') || *p == '.')
				p++;
			buf_addch(&b, '#');
		} else if (starts_path(text, p)) {
			while (*p && *p != ' ' && *p != '"' && *p != '\'' && *p != ',' && *p != ')' && *p != ':')
				p++;
			buf_adds(&b, "<path>");
		} else {
			buf_addch(&b, *p++);
		}
	}
	add_identity(rs, v, &b);
	h = util_fnv1a(UTIL_FNV1A_INIT, class_name(v->cls), strlen(class_name(v->cls)));
	h = util_fnv1a(h, b.data, b.len);
	v->fingerprint = xasprintf("%s-%016llx", class_name(v->cls), (unsigned long long)h);
	v->fingerprint_text = buf_detach(&b, NULL);
}

/* What an unknown verdict lacked: the kernel context, or an error a rule knows. */
static void
set_reason(const struct engine_result *e, struct verdict *v)
{
	const struct confidence_policy *pol = &e->rs->policy;
	struct buf b = BUF_INIT;

	if (v->cls != CLASS_UNKNOWN)
		return;
	if (v->top_rule) {
		v->reason = ladder_message(e->rs, &v->vars, v->top_rule->message);
		return;
	}
	if (pol->kernel_ctx >= 0 && !e->ctx_held[pol->kernel_ctx] &&
	    e->rs->contexts[pol->kernel_ctx].missing)
		buf_addf(&b, "%s; ", e->rs->contexts[pol->kernel_ctx].missing);
	else if (pol->kernel_ctx >= 0 && e->ctx_held[pol->kernel_ctx])
		buf_adds(&b, "a Pallas kernel is in the log, but no rule recognised a failure of it; ");
	if (e->last_error)
		buf_addf(&b, "the last error line (line %zu of %zu) matches no rule", e->last_error_line,
			 v->nlines);
	else
		buf_addf(&b, "no error line in %zu lines", v->nlines);
	v->reason = buf_detach(&b, NULL);
}

/* The first lines of its own evidence, up to the one that made it hold. */
static void
add_context_evidence(const struct engine_result *e, const struct context_def *cx,
		     struct verdict_context *vc, size_t done)
{
	for (size_t k = 0; k < cx->npats; k++) {
		const struct pat_state *st = &e->ps[cx->pats[k]->index];
		size_t at = vc->nev;

		if (!st->hit || st->line > done)
			continue;
		for (size_t j = 0; j < vc->nev; j++)
			if (vc->ev[j].line == st->line)
				at = SIZE_MAX;
		if (at == SIZE_MAX)
			continue;
		/* keep the earliest lines: insert in order, drop the last when full */
		while (at > 0 && vc->ev[at - 1].line > st->line)
			at--;
		if (at >= CONTEXT_MAX_EVIDENCE)
			continue;
		if (vc->nev == CONTEXT_MAX_EVIDENCE)
			free(vc->ev[--vc->nev].text);
		memmove(&vc->ev[at + 1], &vc->ev[at], (vc->nev - at) * sizeof(vc->ev[0]));
		vc->ev[at].line = st->line;
		vc->ev[at].text = xstrdup(st->text);
		vc->nev++;
	}
}

static void
collect_contexts(const struct engine_result *e, struct verdict *v)
{
	const struct ruleset *rs = e->rs;

	v->ncontexts = rs->ncontexts;
	v->contexts = xcalloc(rs->ncontexts + 1, sizeof(*v->contexts));
	for (size_t i = 0; i < rs->ncontexts; i++) {
		struct verdict_context *vc = &v->contexts[i];
		const char *why;

		vc->def = &rs->contexts[i];
		vc->held = e->ctx_held[i];
		vc->score = e->ctx_score[i];
		add_context_evidence(e, vc->def, vc, e->ctx_done[i]);
		if ((why = engine_asserted_why(e, vc->def->id)))
			vc->asserted = xstrdup(why);
	}
}

const struct verdict_context *
verdict_context(const struct verdict *v, const char *id)
{
	for (size_t i = 0; i < v->ncontexts; i++)
		if (strcmp(v->contexts[i].def->id, id) == 0)
			return &v->contexts[i];
	return NULL;
}

void
verdict_build(const struct engine_result *e, struct verdict *v)
{
	const struct pat_state *key = v->top_rule ? score_rule_key(e, v->top_rule) : NULL;

	collect_contexts(e, v);
	collect_evidence(e, v);
	collect_vars(e, v);
	set_location(e, v);
	if (key) {
		v->key_line = xstrdup(key->text);
		v->key_lineno = key->line;
	}
	if (v->top_rule)
		v->message = ladder_message(e->rs, &v->vars, v->top_rule->message);
	set_reason(e, v);
	set_fingerprint(e->rs, v, v->key_line ? v->key_line : e->last_error);
}

void
verdict_release(struct verdict *v)
{
	for (size_t i = 0; i < v->nev; i++)
		free(v->ev[i].text);
	free(v->ev);
	free(v->fired);
	free(v->reason);
	free(v->message);
	free(v->key_line);
	free(v->fingerprint);
	free(v->fingerprint_text);
	vars_release(&v->vars);
	free(v->loc.file);
	free(v->loc.func);
	for (size_t i = 0; i < v->ncontexts; i++) {
		for (size_t k = 0; k < v->contexts[i].nev; k++)
			free(v->contexts[i].ev[k].text);
		free(v->contexts[i].asserted);
	}
	free(v->contexts);
	memset(v, 0, sizeof(*v));
}

