/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage explain ID|CLASS|EXXXX`: offline long-form help on a rule,
 * a class and its ladder, or an XLA/Mosaic error code. Everything printed
 * comes from the rule files.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "pt/cmd.h"
#include "pt/ladder.h"
#include "pt/rules.h"
#include "pt/term.h"
#include "pt/vars.h"

static int cmd_explain_run(int argc, char **argv, struct pt_ctx *ctx);

const struct cmd_entry cmd_explain_entry = {
	.name = "explain",
	.usage = "explain RULE-ID | CLASS | CODE",
	.summary = "explain a rule, a class and its fix ladder, or an error code such as E1001",
	.help = "exit status: 0 explained, 2 nothing has that name\n",
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_NEEDS_RULES,
	.run = cmd_explain_run,
};

static void
print_block(const char *label, const char *text)
{
	if (text && *text) {
		printf("\n%s\n", label);
		term_puts_untrusted_lines(stdout, text);
		fputs(text[strlen(text) - 1] == '\n' ? "" : "\n", stdout);
	}
}

static void
explain_class(const struct ruleset *rs, enum pt_class c)
{
	const struct class_def *cd = &rs->classes[c];
	const struct ladder *l = &rs->ladders[c];
	size_t n = 0;

	for (size_t i = 0; i < rs->nrules; i++)
		n += rs->rules[i]->cls == c;
	printf("%s: %s\n%s\n", class_name(c), cd->title, cd->summary);
	print_block("explanation:", cd->explain);
	printf("\ninterpret mode: %s%s%s\n", cd->interpret, cd->interpret_note ? " - " : "",
	       cd->interpret_note ? cd->interpret_note : "");
	if (l->nrungs)
		printf("\nfix ladder, cheapest first:\n");
	for (size_t i = 0; i < l->nrungs; i++) {
		const struct rung *r = &l->rungs[i];

		printf("  %zu. %s: %s\n", i + 1, r->id, r->action);
		if (r->fallback || r->change)
			printf("     change: %s\n", r->fallback ? r->fallback : r->change);
		printf("     expect: %s\n", r->expect);
		if (r->subkinds)
			printf("     only for: %s\n", r->subkinds[0]);
	}
	printf("\n%zu rule%s classify into %s; list them with 'pallas-triage rules list --class %s'\n",
	       n, n == 1 ? "" : "s", class_name(c), class_name(c));
}

/* A rule may come from a pack: everything in it but the checked enums and numbers is escaped. */
static void
explain_rule(const struct rule *r)
{
	term_puts_untrusted(stdout, r->id);
	printf("\n  class:   %s%s", class_name(r->cls), r->subkind ? "/" : "");
	term_puts_untrusted(stdout, r->subkind);
	printf("\n  stage:   %s\n  weight:  %d\n  message: ", stage_name(r->stage), r->weight);
	term_puts_untrusted(stdout, r->message);
	fputs("\n  defined: ", stdout);
	term_puts_untrusted(stdout, r->file);
	printf(":%d%s", r->line, r->origin ? " (pack " : "");
	term_puts_untrusted(stdout, r->origin);
	fputs(r->origin ? ")\n" : "\n", stdout);
	print_block("explanation:", r->explain);
	printf("\npatterns:\n");
	for (size_t i = 0; i < r->npats; i++) {
		printf("  %-4s ", r->pats[i]->role == PAT_ANY ? "any" :
		       r->pats[i]->role == PAT_ALL ? "all" : "none");
		term_puts_untrusted(stdout, r->pats[i]->src);
		putchar('\n');
	}
	if (r->links) {
		printf("\nlinks:\n");
		for (char **l = r->links; *l; l++) {
			fputs("  ", stdout);
			term_puts_untrusted(stdout, *l);
			putchar('\n');
		}
	}
}

static void
explain_code(const struct ruleset *rs, const struct code_def *cd)
{
	printf("%s%s%s (%s)\n%s\n", cd->code, cd->name ? " " : "", cd->name ? cd->name : "",
	       class_name(cd->cls), cd->summary);
	if (cd->link)
		printf("see %s\n", cd->link);
	for (size_t i = 0; i < rs->nrules; i++)
		for (size_t k = 0; k < rs->rules[i]->npats; k++)
			if (strstr(rs->rules[i]->pats[k]->src, cd->code)) {
				printf("recognised by rule %s\n", rs->rules[i]->id);
				break;
			}
}

static int
cmd_explain_run(int argc, char **argv, struct pt_ctx *ctx)
{
	static const struct option opts[] = { CMD_GLOBAL_LONGOPTS, { NULL, 0, NULL, 0 } };
	const struct ruleset *rs = ctx->rules;
	const struct rule *r;
	const struct code_def *cd;
	enum pt_class c;
	const char *what;
	int ch, rc;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1)
		if ((rc = cmd_global_option(&cmd_explain_entry, ctx, ch, optarg)) != 0)
			return rc;
	if ((rc = cmd_check_args(&cmd_explain_entry, argc, optind)) != 0)
		return rc;
	what = argv[optind];
	if ((c = class_from_name(what)) != CLASS_COUNT)
		explain_class(rs, c);
	else if ((r = ruleset_find_rule(rs, what)))
		explain_rule(r);
	else if ((cd = ruleset_find_code(rs, what)))
		explain_code(rs, cd);
	else
		return cmd_usage_error(&cmd_explain_entry,
				       "no rule, class or error code is named '%s' (see 'pallas-triage rules list')",
				       what);
	return PT_EXIT_OK;
}
