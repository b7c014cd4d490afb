/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage explain ID|CLASS|EXXXX|API-NAME`: offline long-form help
 * on a rule, a class and its ladder, an XLA/Mosaic error code, or a name in
 * the JAX API table. Everything printed comes from the rule files. There
 * is no log here, so API names are spelled for current JAX unless --jax
 * names a release.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pt/buf.h"
#include "cmd.h"
#include "pt/jaxapi.h"
#include "pt/ladder.h"
#include "pt/rules.h"
#include "pt/snippet.h"
#include "pt/suggest.h"
#include "pt/term.h"
#include "pt/vars.h"
#include "pt/xalloc.h"

static int cmd_explain_run(int argc, char **argv, struct pt_ctx *ctx);

const struct cmd_entry cmd_explain_entry = {
	.name = "explain",
	.usage = "explain [--jax VERSION] RULE-ID | RUNG-ID | CLASS | CODE | API-NAME",
	.summary = "explain a rule, a class and its fix ladder, an error code such as E1001, or a JAX API name",
	.help =
	"options:\n"
	"  --jax VERSION     spell API names in the ladder for this JAX release (default: current)\n"
	"\n"
	"exit status: 0 explained, 2 nothing has that name\n",
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_NEEDS_RULES,
	.run = cmd_explain_run,
};

/*
 * A text block from the rules. Its lines are cut for an 80-column file;
 * when the output is wrapped to the terminal, each paragraph is joined into
 * one line first, so that it wraps as a paragraph and not line by line.
 */
static void
print_block(FILE *out, const char *label, const char *text, bool reflow)
{
	struct buf b = BUF_INIT;

	if (!text || !*text)
		return;
	fprintf(out, "\n%s\n", label);
	for (const char *p = text; *p; p++) {
		bool join = reflow && *p == '\n' && p > text && p[-1] != '\n' && p[1] &&
			    p[1] != '\n' && p[1] != ' ' && p[1] != '-';

		char ch = join ? ' ' : *p;

		buf_add(&b, &ch, 1);
	}
	term_puts_untrusted_lines(out, b.data);
	fputs(text[strlen(text) - 1] == '\n' ? "" : "\n", out);
	buf_release(&b);
}

/* The GPU ladder's default: every GPU backend, which needs no mention. */
static bool
strv_has_gpu_only(char *const *v)
{
	size_t n = 0;

	for (; v[n]; n++)
		if (strcmp(v[n], "triton") && strcmp(v[n], "mosaic-gpu") && strcmp(v[n], "gpu"))
			return false;
	return n == 3;
}

/* After rendering with ar: which release the names were spelled for, when any depended on it. */
static void
spelled_for(FILE *out, const struct api_render *ar, const char *indent)
{
	char newest[24];

	if (!ar->versioned)
		return;
	if (ar->known) {
		fprintf(out, "%s(API names are spelled for JAX %s)\n", indent, ar->version);
		return;
	}
	if (ar->have_ver) {
		jaxver_format(&ar->ver, newest, sizeof(newest));
		fprintf(out, "%s(API names are spelled for JAX %s, the newest release; --jax VERSION "
			"spells them for another)\n", indent, newest);
	} else {
		fprintf(out, "%s(API names are spelled for current JAX; --jax VERSION spells them for "
			"another release)\n", indent);
	}
}

/* A rung's change as a template: values stay ${name}, API names are spelled for ar. */
static void
explain_rung(FILE *out, const struct ruleset *rs, struct api_render *ar, const struct rung *r,
	     size_t k)
{
	struct buf b = BUF_INIT;

	api_render_clear_notes(ar);
	fprintf(out, "  %zu. %s: %s\n", k, r->id, api_render_prose(ar, r->action));
	if (r->fallback || r->change) {
		struct vars none = VARS_INIT;
		struct buf shown = BUF_INIT;

		/* values without a default stay ${name}; a default is what a log without it gets */
		api_render_text(ar, r->fallback ? r->fallback : r->change, &b);
		vars_expand(&none, b.data, &shown);
		snippet_print(out, "     change: ", shown.data, NULL, 9);
		buf_release(&shown);
	}
	fprintf(out, "     expect: %s\n", api_render_prose(ar, r->expect));
	for (char **f = r->flags; f && *f; f++) {
		const struct flag_def *fd = ruleset_find_flag(rs, *f);
		struct vars none = VARS_INIT;
		char *snippet = fd ? ladder_flag_render(ar, fd, &none) : NULL;

		if (snippet)
			fprintf(out, "     debug:  %s\n", snippet);
		free(snippet);
	}
	/* every subkind: the walk offers the rung for each of them */
	if (r->subkinds) {
		fputs("     only for:", out);
		for (char **sk = r->subkinds; *sk; sk++)
			fprintf(out, "%s %s", sk == r->subkinds ? "" : ",", *sk);
		fputc('\n', out);
	}
	if (r->backends && !strv_has_gpu_only(r->backends)) {
		fputs("     only on:", out);
		/* the platform names only stand in for an unknown backend */
		for (char **be = r->backends; *be; be++)
			if (strcmp(*be, "gpu") && strcmp(*be, "tpu"))
				fprintf(out, " %s", *be);
		fputc('\n', out);
	}
	for (size_t i = 0; i < ar->nnotes; i++)
		fprintf(out, "     note: %s\n", ar->notes[i]);
	buf_release(&b);
}

static void
explain_class(FILE *out, const struct ruleset *rs, enum pt_class c, const char *jax, bool reflow)
{
	const struct class_def *cd = &rs->classes[c];
	const struct ladder *l = &rs->ladders[c];
	struct api_render ar;
	size_t n = 0;

	for (size_t i = 0; i < rs->nrules; i++)
		n += rs->rules[i]->cls == c;
	api_render_init(&ar, rs->api, jax);
	fprintf(out, "%s: %s\n%s\n", class_name(c), cd->title, api_render_prose(&ar, cd->summary));
	print_block(out, "explanation:", api_render_prose(&ar, cd->explain), reflow);
	fprintf(out, "\ninterpret mode: %s%s%s\n", cd->interpret, cd->interpret_note ? " - " : "",
	       cd->interpret_note ? api_render_prose(&ar, cd->interpret_note) : "");
	if (cd->gpu_interpret_note)
		fprintf(out, "interpret mode on GPU: %s\n", api_render_prose(&ar, cd->gpu_interpret_note));
	for (char **s = cd->next_steps; s && *s; s++)
		fprintf(out, "%s  %s\n", s == cd->next_steps ? "\nnext steps:\n" : "",
			api_render_prose(&ar, *s));
	/* the plain (TPU) ladder, then the rungs for named backends (GPU) */
	for (int tagged = 0; tagged < 2; tagged++) {
		size_t k = 0;

		for (size_t i = 0; i < l->nrungs; i++) {
			if ((l->rungs[i].backends != NULL) != tagged)
				continue;
			if (k == 0)
				fprintf(out, tagged ? "\nfix ladder on GPU (Pallas Triton and Mosaic GPU), cheapest "
					"first:\n" : "\nfix ladder, cheapest first:\n");
			explain_rung(out, rs, &ar, &l->rungs[i], ++k);
		}
	}
	spelled_for(out, &ar, "  ");
	api_render_release(&ar);
	fprintf(out, "\n%zu rule%s classify into %s; list them with 'pallas-triage rules list --class %s'\n",
	       n, n == 1 ? "" : "s", class_name(c), class_name(c));
}

/* A rule may come from a pack: everything in it but the checked enums and numbers is escaped. */
static void
explain_rule(FILE *out, const struct ruleset *rs, const struct rule *r, const char *jax, bool reflow)
{
	char *lab = class_label(r->cls, r->subkind);
	struct api_render ar;

	api_render_init(&ar, rs->api, jax);
	term_puts_untrusted(out, r->id);
	fputs("\n  class:   ", out);
	term_puts_untrusted(out, lab);
	free(lab);
	fprintf(out, "\n  stage:   %s\n  weight:  %d\n  message: ", stage_name(r->stage), r->weight);
	term_puts_untrusted(out, api_render_prose(&ar, r->message));
	fputs("\n  defined: ", out);
	term_puts_untrusted(out, r->file);
	fprintf(out, ":%d%s", r->line, r->origin ? " (pack " : "");
	term_puts_untrusted(out, r->origin);
	fputs(r->origin ? ")\n" : "\n", out);
	print_block(out, "explanation:", api_render_prose(&ar, r->explain), reflow);
	for (size_t i = 0; i < ar.nnotes; i++)
		fprintf(out, "note: %s\n", ar.notes[i]);
	spelled_for(out, &ar, "");
	api_render_release(&ar);
	fprintf(out, "\npatterns:\n");
	for (size_t i = 0; i < r->npats; i++) {
		static const char *const role[] = { "any", "all", "none", "capture" };

		fprintf(out, "  %-4s ", role[r->pats[i]->role]);
		term_puts_untrusted(out, r->pats[i]->src);
		fputc('\n', out);
	}
	if (r->links) {
		fprintf(out, "\nlinks:\n");
		for (char **l = r->links; *l; l++) {
			fputs("  ", out);
			term_puts_untrusted(out, *l);
			fputc('\n', out);
		}
	}
}

static void
explain_code(FILE *out, const struct ruleset *rs, const struct code_def *cd)
{
	fprintf(out, "%s%s%s (%s)\n%s\n", cd->code, cd->name ? " " : "", cd->name ? cd->name : "",
	       class_name(cd->cls), cd->summary);
	if (cd->link)
		fprintf(out, "see %s\n", cd->link);
	for (size_t i = 0; i < rs->nrules; i++)
		for (size_t k = 0; k < rs->rules[i]->npats; k++)
			if (strstr(rs->rules[i]->pats[k]->src, cd->code)) {
				fprintf(out, "recognised by rule %s\n", rs->rules[i]->id);
				break;
			}
}

/* One line of explain NAME, when there is something to say; the text may come from a pack. */
static void
api_line(FILE *out, const char *label, const char *text, const char *at)
{
	if (!text)
		return;
	fprintf(out, "  %-13s ", label);
	term_puts_untrusted(out, text);
	if (at) {
		fputs(" (", out);
		term_puts_untrusted(out, at);
		fputc(')', out);
	}
	fputc('\n', out);
}

/* When n arrived and left, as far as the table knows, and where each was read. */
static void
explain_releases(FILE *out, const struct api_name *n)
{
	char since[64], removed[64], dep[64];

	if (n->since.set)
		jaxrange_describe(&n->since, since, sizeof(since));
	if (n->removed.set)
		jaxrange_describe(&n->removed, removed, sizeof(removed));
	snprintf(dep, sizeof(dep), "in %s", n->deprecated ? n->deprecated : "");
	api_line(out, "arrived:", n->since.set ? since : "no first release recorded", n->since_at);
	api_line(out, "deprecated:", n->deprecated ? dep : NULL, n->deprecated_at);
	api_line(out, "removed:", n->removed.set ? removed : "not as far as the table knows",
		 n->removed_at);
}

static void
explain_api(FILE *out, const struct ruleset *rs, const struct api_name *n, const char *jax)
{
	const struct api_name *cur = jaxapi_current(rs->api, n);
	struct api_render ar;
	struct buf b = BUF_INIT;
	char *tmpl = xasprintf("${api:%s}", cur->name);

	fprintf(out, "%s: a JAX API name%s%s\n", n->name, n->render ? ", written as " : "",
	       n->render ? n->render : "");
	explain_releases(out, n);
	if (n->replaced_by)
		fprintf(out, "  replaced by:  %s\n", cur->name);
	for (size_t i = 0; i < rs->api->nnames; i++)
		if (rs->api->names[i]->replaced_by &&
		    strcmp(rs->api->names[i]->replaced_by, n->name) == 0)
			fprintf(out, "  replaces:     %s\n", rs->api->names[i]->name);
	api_line(out, "written as:", n->call, NULL);
	api_line(out, "instead:", n->instead, NULL);
	api_line(out, "undecided:", n->undecided, NULL);
	api_line(out, "note:", n->note, NULL);
	api_line(out, "source:", n->source, NULL);
	if (jax) {
		api_render_init(&ar, rs->api, jax);
		api_render_text(&ar, tmpl, &b);
		fprintf(out, "  in JAX %s: %s\n", jax, b.data);
		for (size_t i = 0; i < ar.nnotes; i++)
			fprintf(out, "  note:         %s\n", ar.notes[i]);
		api_render_release(&ar);
	}
	buf_release(&b);
	free(tmpl);
}

static const struct option explain_options[] = {
	{ "jax", required_argument, NULL, 'j' },
	CMD_GLOBAL_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

/* An error code as the tool prints it (E1001), as a number (1001) or by its catalogue name. */
static const struct code_def *
find_code(const struct ruleset *rs, const char *what)
{
	const struct code_def *cd = ruleset_find_code(rs, what);

	if (!cd && what[0] && strspn(what, "0123456789") == strlen(what)) {
		char *e = xasprintf("E%s", what);

		cd = ruleset_find_code(rs, e);
		free(e);
	}
	for (size_t i = 0; !cd && i < rs->ncodes; i++)
		if (rs->codes[i].name && strcasecmp(rs->codes[i].name, what) == 0)
			cd = &rs->codes[i];
	return cd;
}

/* A rung id, as the ladder prints it: the rung alone. Returns false when none has that id. */
static bool
explain_rung_by_id(FILE *out, const struct ruleset *rs, const char *id, const char *jax)
{
	for (int c = 0; c < CLASS_COUNT; c++) {
		const struct ladder *l = &rs->ladders[c];

		for (size_t i = 0; i < l->nrungs; i++) {
			struct api_render ar;

			if (strcmp(l->rungs[i].id, id) != 0)
				continue;
			fprintf(out, "%s: a rung of the %s ladder ('pallas-triage explain %s' shows them all)\n",
			       id, class_name((enum pt_class)c), class_name((enum pt_class)c));
			api_render_init(&ar, rs->api, jax);
			explain_rung(out, rs, &ar, &l->rungs[i], i + 1);
			api_render_release(&ar);
			return true;
		}
	}
	return false;
}

/* Nothing is called that: say what it may be a typo of. */
static int
explain_unknown(const struct ruleset *rs, const char *what)
{
	struct pt_err err = PT_ERR_INIT;
	struct suggest s;
	const char *near;

	suggest_init(&s, what);
	for (int c = 0; c < CLASS_COUNT; c++) {
		suggest_offer(&s, class_name((enum pt_class)c));
		for (size_t i = 0; i < rs->ladders[c].nrungs; i++)
			suggest_offer(&s, rs->ladders[c].rungs[i].id);
	}
	for (size_t i = 0; i < rs->nrules; i++)
		suggest_offer(&s, rs->rules[i]->id);
	for (size_t i = 0; i < rs->ncodes; i++) {
		suggest_offer(&s, rs->codes[i].code);
		if (rs->codes[i].name)
			suggest_offer(&s, rs->codes[i].name);
	}
	for (size_t i = 0; rs->api && i < rs->api->nnames; i++)
		suggest_offer(&s, rs->api->names[i]->name);
	/* a name that is not there is no misuse of the command: no usage block */
	if ((near = suggest_best(&s)))
		pt_err_set(&err, PT_EXIT_USAGE, "nothing is called '%s'; did you mean '%s'?", what, near);
	else
		pt_err_set(&err, PT_EXIT_USAGE, "no rule, rung, class, error code or JAX API name is "
			   "called '%s' (see 'pallas-triage rules list')", what);
	return pt_report(&err);
}

static int
cmd_explain_run(int argc, char **argv, struct pt_ctx *ctx)
{
	const struct ruleset *rs = ctx->rules;
	const struct rule *r;
	const struct code_def *cd;
	const struct api_name *an;
	const char *what, *jax = NULL;
	struct jaxver v;
	struct wrap_out wo;
	enum pt_class c;
	int ch, rc;

	while ((ch = getopt_long(argc, argv, "", explain_options, NULL)) != -1) {
		if (ch == 'j')
			jax = optarg;
		else if ((rc = cmd_global_option(&cmd_explain_entry, ctx, ch, optarg)) != 0)
			return rc;
	}
	if ((rc = cmd_check_args(&cmd_explain_entry, argc, optind)) != 0)
		return rc;
	if (jax && jaxver_parse(jax, &v) < 0)
		return cmd_usage_error(&cmd_explain_entry,
				       "--jax '%s' is not a JAX release such as 0.4.35", jax);
	what = argv[optind];
	cmd_wrap_open(&wo, stdout);
	if ((c = class_from_name(what)) != CLASS_COUNT)
		explain_class(wo.fp, rs, c, jax, wo.width != 0);
	else if ((r = ruleset_find_rule(rs, what)))
		explain_rule(wo.fp, rs, r, jax, wo.width != 0);
	else if ((cd = find_code(rs, what)))
		explain_code(wo.fp, rs, cd);
	else if ((an = jaxapi_find(rs->api, what)))
		explain_api(wo.fp, rs, an, jax);
	else if (!explain_rung_by_id(wo.fp, rs, what, jax))
		rc = explain_unknown(rs, what);
	wrap_out_close(&wo);
	return rc;
}
