/* SPDX-License-Identifier: MIT */
/* Human and JSON rendering of a verdict; see pt/diagnosis.h and docs/json.md. */
#include <stdlib.h>
#include <string.h>

#include "pt/buf.h"
#include "pt/diagnosis.h"
#include "pt/json.h"
#include "pt/ladder.h"
#include "pt/snippet.h"
#include "pt/ytree.h"
#include "pt/term.h"
#include "pt/xalloc.h"

static const char *
c_on(bool color, const char *code)
{
	return color ? code : "";
}

static void
put_untrusted_str(FILE *fp, const char *s)
{
	term_put_untrusted(fp, s, strlen(s));
}

char *
diagnosis_runner_up_reason(const struct verdict *v)
{
	const struct class_score *w, *r;

	if (v->runner_up >= CLASS_COUNT)
		return NULL;
	r = &v->scores[v->runner_up];
	if (v->top_rule == NULL || v->cls >= CLASS_COUNT || v->scores[v->cls].nrules == 0)
		return xasprintf("%s scored %.2f but no kernel class won", class_name(v->runner_up),
				 r->score);
	w = &v->scores[v->cls];
	for (size_t i = 0; v->observed && i < v->nfired; i++)
		if (v->fired[i]->tier == TIER_OBSERVED && v->fired[i]->cls == v->cls)
			return xasprintf("%s (score %.2f) lost: what the runs showed (%s) outranks any "
					 "count of matching patterns", class_name(v->runner_up), r->score,
					 v->fired[i]->id);
	if (w->top_weight > r->top_weight)
		return xasprintf("%s (score %.2f) lost: its strongest evidence, %s, has weight %d; "
				 "%s has %s with weight %d", class_name(v->runner_up), r->score,
				 r->top_rule->id, r->top_weight, class_name(v->cls), w->top_rule->id,
				 w->top_weight);
	if (w->nrules > r->nrules)
		return xasprintf("%s (score %.2f) lost: %zu of its rules matched against %zu for %s",
				 class_name(v->runner_up), r->score, r->nrules, w->nrules,
				 class_name(v->cls));
	return xasprintf("%s (score %.2f) lost on a tie-break: %s's evidence comes first in the "
			 "log (the innermost error of an exception chain)", class_name(v->runner_up),
			 r->score, class_name(v->cls));
}

static void
print_header(FILE *fp, const struct ruleset *rs, const struct verdict *v, bool color)
{
	const struct class_def *cd = &rs->classes[v->cls];
	char *lab = class_label(v->cls, v->subkind);

	fprintf(fp, "%s%s%s%s", c_on(color, TERM_BOLD), c_on(color, TERM_RED), lab,
		c_on(color, TERM_RESET));
	free(lab);
	fprintf(fp, ": %s", cd->title ? cd->title : "");
	if (v->cls != CLASS_UNKNOWN)
		fprintf(fp, " (confidence %.0f%%)", v->confidence * 100.0);
	fputc('\n', fp);
	if (v->message && v->cls != CLASS_UNKNOWN) {
		fputs("  ", fp);
		put_untrusted_str(fp, v->message);
		fputc('\n', fp);
	}
	if (v->reason) {
		fputs("  reason: ", fp);
		put_untrusted_str(fp, v->reason);
		fputc('\n', fp);
	}
}

/* One row per line: several rules often cite the same line. */
static void
print_evidence(FILE *fp, const struct verdict *v, bool color)
{
	if (!v->nev)
		return;
	fprintf(fp, "\n%sevidence%s\n", c_on(color, TERM_BOLD), c_on(color, TERM_RESET));
	for (size_t i = 0; i < v->nev;) {
		const struct evidence *e = &v->ev[i];
		size_t j = i;

		fprintf(fp, "  %6zu: ", e->line);
		term_put_highlight(fp, e->text, strlen(e->text), e->mstart, e->mend,
				   color ? TERM_YELLOW : NULL);
		fprintf(fp, "  %s[", c_on(color, TERM_DIM));
		for (; j < v->nev && v->ev[j].line == e->line; j++)
			fprintf(fp, "%s%s", j > i ? ", " : "", v->ev[j].rule->id);
		fprintf(fp, "]%s\n", c_on(color, TERM_RESET));
		i = j;
	}
}

/* The contexts that held, with the lines that made them hold. */
static void
print_contexts(FILE *fp, const struct verdict *v, bool color)
{
	bool any = false;

	if (!v->ncontexts)
		return;
	fprintf(fp, "%scontexts%s     ", c_on(color, TERM_BOLD), c_on(color, TERM_RESET));
	for (size_t i = 0; i < v->ncontexts; i++) {
		const struct verdict_context *vc = &v->contexts[i];

		/* held only because another context implies it: that one is shown */
		if (!vc->held || (!vc->asserted && !vc->nev))
			continue;
		fprintf(fp, "%s%s (", any ? ", " : "", vc->def->id);
		if (vc->asserted) {
			fputs("asserted: ", fp);
			put_untrusted_str(fp, vc->asserted);
			fputs(vc->nev ? "; " : "", fp);
		}
		if (vc->nev)
			fprintf(fp, "line%s ", vc->nev > 1 ? "s" : "");
		for (size_t k = 0; k < vc->nev; k++)
			fprintf(fp, "%s%zu", k ? ", " : "", vc->ev[k].line);
		fputc(')', fp);
		any = true;
	}
	fputs(any ? "\n" : "none held\n", fp);
}

/*
 * The next steps of v's class, their ${values} filled from v (the command
 * `run` ran, the kernel's file) and the log source names: under a verdict of `run`, which
 * read both streams itself, the class's next_steps_run when it has them.
 */
static char **
next_steps(const struct ruleset *rs, const struct verdict *v, const char *source)
{
	const struct class_def *cd = &rs->classes[v->cls];
	char **steps = vars_get(&v->vars, "command") && cd->next_steps_run ? cd->next_steps_run
									  : cd->next_steps;
	struct vars vs = VARS_INIT;
	struct api_render ar;
	size_t n = 0;
	char **out;

	/* the file the failure surfaced in is the one to name as the kernel's */
	vars_copy(&vs, &v->vars, true);
	if (v->loc.file)
		vars_set(&vs, "kernel_file", v->loc.file, false);
	/* the source is the log's name, unless it came from stdin or from run */
	if (source && strcmp(source, "<stdin>") != 0 && strncmp(source, "run: ", 5) != 0)
		vars_set(&vs, "log", source, false);
	while (steps && steps[n])
		n++;
	out = xcalloc(n + 1, sizeof(*out));
	ladder_render_init(&ar, rs, &v->vars);
	for (size_t i = 0; i < n; i++) {
		struct buf b = BUF_INIT;

		vars_expand(&vs, api_render_prose(&ar, steps[i]), &b);
		out[i] = buf_detach(&b, NULL);
	}
	api_render_release(&ar);
	vars_release(&vs);
	return out;
}

static void
print_next_steps(FILE *fp, const struct ruleset *rs, const struct verdict *v, bool color,
		 const char *source)
{
	char **steps = next_steps(rs, v, source);

	for (size_t i = 0; steps[i]; i++) {
		if (i == 0)
			fprintf(fp, "%snext%s         ", c_on(color, TERM_BOLD), c_on(color, TERM_RESET));
		else
			fputs("             ", fp);
		snippet_print(fp, "", steps[i], NULL, 13);
	}
	strv_free(steps);
}

static void
print_context(FILE *fp, const struct ruleset *rs, const struct verdict *v, bool color)
{
	const char *const *fields = ruleset_env_fields(rs);
	bool any_env = false;
	char *why;

	if (v->loc.file) {
		fprintf(fp, "\n%swhere%s        ", c_on(color, TERM_BOLD), c_on(color, TERM_RESET));
		put_untrusted_str(fp, v->loc.file);
		fprintf(fp, ":%ld", v->loc.line);
		if (v->loc.func) {
			fputs(" in ", fp);
			put_untrusted_str(fp, v->loc.func);
		}
		fprintf(fp, " (from the %s)\n", strcmp(v->loc.how, "loc") == 0 ?
			"Mosaic location" : "traceback");
	}
	for (const char *const *f = fields; *f; f++) {
		const char *val = vars_get(&v->vars, *f);

		/* the platform says something only when the backend is not known */
		if (!val || (strcmp(*f, "platform") == 0 && vars_get(&v->vars, "backend")))
			continue;
		if (!any_env)
			fprintf(fp, "%s%senvironment%s  ", v->loc.file ? "" : "\n",
				c_on(color, TERM_BOLD), c_on(color, TERM_RESET));
		else
			fputs("             ", fp);
		fprintf(fp, "%s=", *f);
		put_untrusted_str(fp, val);
		fputc('\n', fp);
		any_env = true;
	}
	if (!v->loc.file && !any_env)
		fputc('\n', fp);
	print_contexts(fp, v, color);
	if ((why = diagnosis_runner_up_reason(v))) {
		fprintf(fp, "%srunner-up%s    %s\n", c_on(color, TERM_BOLD), c_on(color, TERM_RESET), why);
		free(why);
	}
}

/* Did the kernel's source give this rung its change (pt/check_triage.h)? */
static bool
from_source(const struct rung *r, const struct vars *vs)
{
	char key[160];

	snprintf(key, sizeof(key), "source_fix:%s", r->id);
	return vars_get(vs, key) != NULL;
}

static void
print_rung(FILE *fp, const struct ruleset *rs, struct api_render *ar, const struct rung *r,
	   const struct vars *vs, size_t k, size_t n, bool color)
{
	bool filled = false;
	char *change;

	api_render_clear_notes(ar);
	change = ladder_change_render(ar, r, vs, &filled);

	fprintf(fp, "  %s%zu/%zu %s%s  %s\n", c_on(color, TERM_BOLD), k, n, r->id,
		c_on(color, TERM_RESET), api_render_prose(ar, r->action));
	/* code as code: never wrapped inside, several lines as lines (pt/snippet.h) */
	if (*change)
		snippet_print(fp, "       change: ", change,
			      from_source(r, vs) ? "   (from your source)" :
			      filled ? "   (from your log)" : NULL, 9);
	fprintf(fp, "       expect: %s\n", api_render_prose(ar, r->expect));
	for (char **f = r->flags; f && *f; f++) {
		const struct flag_def *fd = ruleset_find_flag(rs, *f);
		char *snippet = fd ? ladder_flag_render(ar, fd, vs) : xstrdup(*f);

		snippet_print(fp, "       debug:  ", snippet, NULL, 9);
		free(snippet);
	}
	for (size_t i = 0; i < ar->nnotes; i++)
		fprintf(fp, "       note:   %s\n", ar->notes[i]);
	free(change);
}

void
diagnosis_print_api_note(FILE *fp, const struct api_render *ar)
{
	char *sentence = ladder_api_sentence(ar);

	if (sentence)
		fprintf(fp, "  note: %s\n", sentence);
	free(sentence);
}

void
diagnosis_print_ladder(FILE *fp, const struct ruleset *rs, const struct verdict *v, bool whole,
		       bool color)
{
	const struct rung **rungs = NULL;
	size_t n = ladder_select(rs, v->cls, v->subkind, &v->vars, &rungs);
	struct api_render ar;

	ladder_render_init(&ar, rs, &v->vars);
	if (n) {
		fprintf(fp, "\n%s%s%s\n", c_on(color, TERM_BOLD),
			whole ? "fix ladder (cheapest first)" : "first step", c_on(color, TERM_RESET));
		for (size_t i = 0; i < (whole ? n : 1); i++)
			print_rung(fp, rs, &ar, rungs[i], &v->vars, i + 1, n, color);
		diagnosis_print_api_note(fp, &ar);
	}
	api_render_release(&ar);
	free(rungs);
}

void
diagnosis_print(FILE *fp, const struct ruleset *rs, const struct verdict *v,
		const struct diagnosis_opts *o)
{
	print_header(fp, rs, v, o->color);
	print_evidence(fp, v, o->color);
	print_context(fp, rs, v, o->color);
	if (o->extra)
		o->extra(fp, o->extra_arg, o->color);
	if (v->cls != CLASS_UNKNOWN) {
		const struct class_def *cd = &rs->classes[v->cls];
		const char *note = vars_is(&v->vars, "platform", "gpu") && cd->gpu_interpret_note
				   ? cd->gpu_interpret_note : cd->interpret_note;
		struct api_render ar;

		ladder_render_init(&ar, rs, &v->vars);
		if (note)
			fprintf(fp, "%sinterpret%s    %s\n", c_on(o->color, TERM_BOLD),
				c_on(o->color, TERM_RESET), api_render_prose(&ar, note));
		api_render_release(&ar);
		if (!o->no_ladder)
			diagnosis_print_ladder(fp, rs, v, o->whole_ladder, o->color);
	} else if (!o->no_ladder) {
		print_next_steps(fp, rs, v, o->color, o->source);
	}
	if (v->long_lines)
		fprintf(fp, "\nnote: %zu line%s longer than %u bytes were matched on their start only\n",
			v->long_lines, v->long_lines == 1 ? "" : "s", CLASSIFY_MAX_LINE);
	if (v->match_errors)
		fprintf(fp, "note: %zu pattern match%s hit the backtracking limit and counted as no match\n",
			v->match_errors, v->match_errors == 1 ? "" : "es");
}

static void
json_add_str_or_null(struct json *o, const char *key, const char *val)
{
	if (val)
		json_add_str(o, key, val);
	else
		json_add_null(o, key);
}

static void
json_ladder(struct json *o, const struct ruleset *rs, const struct verdict *v)
{
	const struct rung **rungs = NULL;
	size_t n = ladder_select(rs, v->cls, v->subkind, &v->vars, &rungs);
	struct json *arr = json_add_array(o, "ladder");
	struct api_render ar;

	ladder_render_init(&ar, rs, &v->vars);
	for (size_t i = 0; i < n; i++) {
		struct json *r = json_push_object(arr), *flags, *notes;
		bool filled = false;
		char *change;

		api_render_clear_notes(&ar);
		change = ladder_change_render(&ar, rungs[i], &v->vars, &filled);

		json_add_str(r, "id", rungs[i]->id);
		json_add_str(r, "family", rungs[i]->family);
		json_add_str(r, "action", api_render_prose(&ar, rungs[i]->action));
		json_add_str(r, "change", change);
		json_add_bool(r, "from_log", filled && !from_source(rungs[i], &v->vars));
		json_add_bool(r, "from_source", from_source(rungs[i], &v->vars));
		json_add_str(r, "expect", api_render_prose(&ar, rungs[i]->expect));
		flags = json_add_array(r, "flags");
		for (char **f = rungs[i]->flags; f && *f; f++) {
			const struct flag_def *fd = ruleset_find_flag(rs, *f);
			char *snippet = fd ? ladder_flag_render(&ar, fd, &v->vars) : xstrdup(*f);

			json_push_str(flags, snippet);
			free(snippet);
		}
		notes = json_add_array(r, "notes");
		for (size_t k = 0; k < ar.nnotes; k++)
			json_push_str(notes, ar.notes[k]);
		free(change);
	}
	/* the version the snippets are spelled for; null: current JAX */
	json_add_str_or_null(o, "snippets_for_jax", ar.known && ar.table ? ar.version : NULL);
	api_render_release(&ar);
	free(rungs);
}

static void
json_evidence(struct json *o, const struct verdict *v)
{
	struct json *arr = json_add_array(o, "evidence");

	for (size_t i = 0; i < v->nev; i++) {
		struct json *e = json_push_object(arr), *m;

		json_add_int(e, "line", (long long)v->ev[i].line);
		json_add_str(e, "text", v->ev[i].text);
		json_add_str(e, "rule", v->ev[i].rule->id);
		json_add_str(e, "class", class_name(v->ev[i].rule->cls));
		json_add_int(e, "weight", v->ev[i].rule->weight);
		m = json_add_array(e, "match");
		json_push_int(m, (long long)v->ev[i].mstart);
		json_push_int(m, (long long)v->ev[i].mend);
	}
}

static void
json_contexts(struct json *o, const struct verdict *v)
{
	struct json *arr = json_add_array(o, "contexts");

	for (size_t i = 0; i < v->ncontexts; i++) {
		const struct verdict_context *vc = &v->contexts[i];
		struct json *c = json_push_object(arr), *ev;

		json_add_str(c, "id", vc->def->id);
		json_add_bool(c, "held", vc->held);
		json_add_num(c, "score", (double)(long)(vc->score * 1000.0 + 0.5) / 1000.0);
		json_add_str_or_null(c, "asserted", vc->asserted);
		ev = json_add_array(c, "evidence");
		for (size_t k = 0; k < vc->nev; k++) {
			struct json *e = json_push_object(ev);

			json_add_int(e, "line", (long long)vc->ev[k].line);
			json_add_str(e, "text", vc->ev[k].text);
		}
	}
}

static void
json_context(struct json *o, const struct ruleset *rs, const struct verdict *v)
{
	struct json *env, *vals, *ru, *loc;
	char *why;

	if (v->runner_up < CLASS_COUNT) {
		ru = json_add_object(o, "runner_up");
		json_add_str(ru, "class", class_name(v->runner_up));
		json_add_num(ru, "score", v->scores[v->runner_up].score);
		why = diagnosis_runner_up_reason(v);
		json_add_str_or_null(ru, "reason", why);
		free(why);
	} else {
		json_add_null(o, "runner_up");
	}
	if (v->loc.file) {
		loc = json_add_object(o, "location");
		json_add_str(loc, "file", v->loc.file);
		json_add_int(loc, "line", v->loc.line);
		if (v->loc.col)
			json_add_int(loc, "column", v->loc.col);
		json_add_str_or_null(loc, "function", v->loc.func);
		json_add_str(loc, "source", v->loc.how);
	} else {
		json_add_null(o, "location");
	}
	env = json_add_object(o, "environment");
	vals = json_add_object(o, "values");
	/* environment fields stay text: "3.11" is a version, not a number */
	for (size_t i = 0; i < v->vars.n; i++)
		if (ruleset_is_env_field(rs, v->vars.v[i].name))
			json_add_str(env, v->vars.v[i].name, v->vars.v[i].value);
		else
			json_add_typed(vals, v->vars.v[i].name, v->vars.v[i].value);
}

struct json *
diagnosis_json(const struct ruleset *rs, const struct verdict *v, const char *source)
{
	struct json *o = json_new_object(), *scores;

	json_add_int(o, "schema_version", DIAGNOSIS_SCHEMA_VERSION);
	json_add_str_or_null(o, "source", source);
	json_add_str(o, "class", class_name(v->cls));
	json_add_str_or_null(o, "subkind", v->subkind);
	json_add_num(o, "confidence", (double)(long)(v->confidence * 1000.0 + 0.5) / 1000.0);
	json_add_str_or_null(o, "title", rs->classes[v->cls].title);
	json_add_str_or_null(o, "message", v->message);
	json_add_str_or_null(o, "reason", v->reason);
	json_add_str_or_null(o, "rule", v->top_rule ? v->top_rule->id : NULL);
	json_add_str(o, "tier", v->fallback ? "fallback" : "specific");
	/* where the kernel ran, also in `environment`: the first thing a reader checks */
	json_add_str_or_null(o, "backend", vars_get(&v->vars, "backend"));
	json_add_str_or_null(o, "chip", vars_get(&v->vars, "chip"));
	json_evidence(o, v);
	json_context(o, rs, v);
	json_contexts(o, v);
	scores = json_add_object(o, "scores");
	for (int k = 0; k < CLASS_COUNT; k++)
		json_add_num(scores, class_name((enum pt_class)k),
			     (double)(long)(v->scores[k].score * 1000.0 + 0.5) / 1000.0);
	json_add_str_or_null(o, "fingerprint", v->fingerprint);
	json_add_str_or_null(o, "fingerprint_text", v->fingerprint_text);
	if (v->cls != CLASS_UNKNOWN) {
		json_ladder(o, rs, v);
	} else {
		struct json *next = json_add_array(o, "next_steps");
		char **steps = next_steps(rs, v, source);

		for (char **s = steps; *s; s++)
			json_push_str(next, *s);
		strv_free(steps);
	}
	json_add_int(o, "lines", (long long)v->nlines);
	json_add_int(o, "bytes", (long long)v->nbytes);
	json_add_int(o, "long_lines", (long long)v->long_lines);
	json_add_int(o, "match_errors", (long long)v->match_errors);
	json_add_int(o, "threads", (long long)v->threads);
	return o;
}
