/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage rules validate|test|list|export-patterns`: tooling for
 * rule authors. validate and test take an optional DIR so a rule pack can
 * be checked before it is installed; without DIR they use the rules the
 * tool would use.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "pt/suggest.h"
#include "rules_packs.h"
#include "pt/jaxapi.h"
#include "pt/rules.h"
#include "pt/packs.h"
#include "pt/rules_check.h"
#include "pt/term.h"
#include "pt/xalloc.h"

static int rules_validate_run(int argc, char **argv, struct pt_ctx *ctx);
static int rules_test_run(int argc, char **argv, struct pt_ctx *ctx);
static int rules_list_run(int argc, char **argv, struct pt_ctx *ctx);
static int rules_export_run(int argc, char **argv, struct pt_ctx *ctx);

static const struct cmd_entry rules_validate_entry = {
	.name = "validate",
	.usage = "rules validate [DIR]",
	.summary = "check rule files against the schema and report every problem",
	.help = "without DIR: the rules in use, installed rule packs included\n"
		"exit status: 0 valid, 1 problems found, 2 usage error\n",
	.min_args = 0, .max_args = 1, .run = rules_validate_run,
};

static const struct cmd_entry rules_test_entry = {
	.name = "test",
	.usage = "rules test [DIR]",
	.summary = "run every rule's examples through the classifier",
	.help = "prints each failing example and a final 'N passed, N failed' line;\n"
		"without DIR: the rules in use, installed rule packs included\n"
		"exit status: 0 all passed, 1 some failed, 3 the rules do not load\n",
	.min_args = 0, .max_args = 1, .run = rules_test_run,
};

static const struct cmd_entry rules_list_entry = {
	.name = "list",
	.usage = "rules list [--class CLASS]",
	.summary = "list the loaded rules: id, class, weight, message",
	.min_args = 0, .max_args = 0, .flags = CMD_NEEDS_RULES, .run = rules_list_run,
};

static const struct cmd_entry rules_export_entry = {
	.name = "export-patterns",
	.usage = "rules export-patterns [--specific]",
	.summary = "print every rule pattern, one per line (for grep -f / rg -f comparisons)",
	.help =
	"options:\n"
	"  --specific   only what marks a failure line: the patterns of specific rules\n"
	"               and facts, without context evidence and the fallback tier\n",
	.min_args = 0, .max_args = 0, .flags = CMD_NEEDS_RULES, .run = rules_export_run,
};

static const struct cmd_entry *const rules_sub[] = {
	&rules_export_entry,
	&cmd_rules_fetch_entry,
	&rules_list_entry,
	&cmd_rules_remove_entry,
	&cmd_rules_sources_entry,
	&rules_test_entry,
	&cmd_rules_update_entry,
	&rules_validate_entry,
	NULL,
};

const struct cmd_entry cmd_rules_entry = {
	.name = "rules",
	.usage = "rules COMMAND [ARGS]",
	.summary = "validate, test, list and export the rules; fetch and manage rule packs",
	.flags = CMD_GROUP,
	.sub = rules_sub,
};

static const struct option plain_options[] = {
	CMD_GLOBAL_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

static int
parse_plain(const struct cmd_entry *e, int argc, char **argv, struct pt_ctx *ctx)
{
	int c, rc;

	while ((c = getopt_long(argc, argv, "", plain_options, NULL)) != -1)
		if ((rc = cmd_global_option(e, ctx, c, optarg)) != 0)
			return rc;
	return cmd_check_args(e, argc, optind);
}

/* A directory that does not describe all six classes holds extra rules (a team's). */
static bool
is_extra_rules(const struct ruleset *rs)
{
	for (int c = 0; c < CLASS_COUNT; c++)
		if (!rs->have_class[c])
			return true;
	return false;
}

/* A load that failed before any diagnostic: say why and free rs. Returns NULL for the caller. */
static struct ruleset *
load_failed(struct ruleset *rs, const struct pt_err *err, int *rc)
{
	*rc = pt_report(err);
	ruleset_free(rs);
	return NULL;
}

/*
 * The rules in use (the located rules and the installed packs), then the
 * extra rules of dir on top, like a pack: a rule that replaces one of
 * them must say `overrides: true`. *base_out gets the located directory.
 */
static struct ruleset *
load_on_top(const char *dir, struct pt_ctx *ctx, struct diag *d, char **base_out, int *rc)
{
	struct pt_err err = PT_ERR_INIT;
	struct ruleset *rs = ruleset_new();

	if (!(*base_out = rules_locate(ctx->rules_dir, ctx->env.rules_dir, &err)) ||
	    (ruleset_load_dir(rs, *base_out, NULL, d, &err) < 0 && !d->nerrors))
		return load_failed(rs, &err, rc);
	if (!d->nerrors)
		packs_load(rs, d);
	if (!d->nerrors && ruleset_load_dir(rs, dir, dir, d, &err) < 0 && !d->nerrors)
		return load_failed(rs, &err, rc);
	return rs;
}

/*
 * Load DIR, or the located rules and the installed packs (what triage
 * uses), with all diagnostics kept. A DIR of extra rules is loaded on top
 * of the rules in use; *base_out (NULL otherwise) names them.
 */
static struct ruleset *
load_for_check(const char *dir_arg, struct pt_ctx *ctx, struct diag *d, char **dir_out,
	       char **base_out, int *rc)
{
	struct pt_err err = PT_ERR_INIT;
	struct ruleset *rs = ruleset_new();
	char *dir = dir_arg ? xstrdup(dir_arg) : rules_locate(ctx->rules_dir, ctx->env.rules_dir, &err);

	*dir_out = dir;
	*base_out = NULL;
	*rc = 0;
	if (!dir || (ruleset_load_dir(rs, dir, NULL, d, &err) < 0 && !d->nerrors))
		return load_failed(rs, &err, rc);
	if (dir_arg && !d->nerrors && is_extra_rules(rs)) {
		ruleset_free(rs);
		if (!(rs = load_on_top(dir, ctx, d, base_out, rc)))
			return NULL;
	} else if (!dir_arg && !d->nerrors) {
		packs_load(rs, d);
	}
	if (!d->nerrors)
		ruleset_finish(rs, d);
	return rs;
}

static size_t
count_rungs(const struct ruleset *rs)
{
	size_t n = 0;

	for (int c = 0; c < CLASS_COUNT; c++)
		n += rs->ladders[c].nrungs;
	return n;
}

/* What validate and test work on: see checked_load(). */
struct checked {
	struct diag d;              /* every problem found while loading */
	struct ruleset *rs;
	char *dir;                  /* DIR, or the located rules */
	char *base;                 /* the rules in use under a DIR of extra rules, else NULL */
};

/*
 * Parse validate's or test's arguments and load their rules into ck (see
 * load_for_check()); checked_release() frees ck either way. Returns 0, or
 * the exit status to return at once: help, a usage error, unreadable rules.
 */
static int
checked_load(struct checked *ck, const struct cmd_entry *e, int argc, char **argv,
	     struct pt_ctx *ctx)
{
	int rc;

	*ck = (struct checked){ DIAG_INIT, NULL, NULL, NULL };
	if ((rc = parse_plain(e, argc, argv, ctx)) != 0)
		return rc;
	ck->rs = load_for_check(optind < argc ? argv[optind] : NULL, ctx, &ck->d, &ck->dir,
				&ck->base, &rc);
	return ck->rs ? 0 : rc;
}

static void
checked_release(struct checked *ck)
{
	diag_release(&ck->d);
	ruleset_free(ck->rs);
	free(ck->dir);
	free(ck->base);
}

static int
rules_validate_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct checked ck;
	struct diag *d = &ck.d;
	int rc;

	if ((rc = checked_load(&ck, &rules_validate_entry, argc, argv, ctx)) != 0)
		goto out;
	if (!d->nerrors)
		rules_check_literals(ck.rs, d);
	diag_print(d, stderr);
	if (d->nerrors)
		printf("%s: %zu error%s, %zu warning%s\n", ck.dir, d->nerrors,
		       d->nerrors == 1 ? "" : "s", d->nwarnings, d->nwarnings == 1 ? "" : "s");
	else
		printf("%s: %zu rules, %zu rungs, %zu facts in %zu files: valid%s%s%s\n", ck.dir,
		       ck.rs->nrules, count_rungs(ck.rs), ck.rs->nfacts, ck.rs->nfiles,
		       d->nwarnings ? " (with warnings)" : "",
		       ck.base ? "; extra rules on top of " : "", ck.base ? ck.base : "");
	rc = d->nerrors ? PT_EXIT_FINDING : PT_EXIT_OK;
out:
	checked_release(&ck);
	return rc;
}

static int
rules_test_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct check_result res = { 0, 0 };
	struct checked ck;
	int rc;

	if ((rc = checked_load(&ck, &rules_test_entry, argc, argv, ctx)) != 0)
		goto out;
	if (ck.d.nerrors) {
		diag_print(&ck.d, stderr);
		fprintf(stderr, "pallas-triage: error: the rules in '%s' do not load; run 'pallas-triage "
			"rules validate'\n", ck.dir);
		rc = PT_EXIT_DATA;
	} else {
		if (ck.base)
			printf("extra rules in %s, tested on top of %s\n", ck.dir, ck.base);
		rules_check_examples(ck.rs, ck.base ? ck.dir : NULL, stdout, &res);
		printf("%zu passed, %zu failed\n", res.passed, res.failed);
		rc = res.failed ? PT_EXIT_FINDING : PT_EXIT_OK;
	}
out:
	checked_release(&ck);
	return rc;
}

/* No class is called that: the six, and the one it is probably a typo of. */
static int
class_not_found(const char *name)
{
	struct suggest sg;

	suggest_init(&sg, name);
	for (int c = 0; c < CLASS_COUNT; c++)
		suggest_offer(&sg, class_name((enum pt_class)c));
	return cmd_not_found(suggest_best(&sg), "no class '%s' (the classes: layout, capacity, "
			     "synchronization, numerics, unsupported, unknown)", name);
}

static int
rules_list_run(int argc, char **argv, struct pt_ctx *ctx)
{
	static const struct option opts[] = {
		{ "class", required_argument, NULL, 'c' },
		CMD_GLOBAL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	enum pt_class only = CLASS_COUNT;
	struct api_render ar;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'c') {
			if ((only = class_from_name(optarg)) == CLASS_COUNT)
				return class_not_found(optarg);
		} else if ((rc = cmd_global_option(&rules_list_entry, ctx, c, optarg)) != 0) {
			return rc;
		}
	}
	if ((rc = cmd_check_args(&rules_list_entry, argc, optind)) != 0)
		return rc;
	/* no log: API names in messages are spelled for the newest release */
	api_render_init(&ar, ctx->rules->api, NULL);
	for (size_t i = 0; i < ctx->rules->nrules; i++) {
		const struct rule *r = ctx->rules->rules[i];

		if (only != CLASS_COUNT && r->cls != only)
			continue;
		/* a rule pack's text is not ours: escaped like a log's */
		printf("%-44s %-15s %3d  ", r->id, class_name(r->cls), r->weight);
		term_puts_untrusted(stdout, api_render_prose(&ar, r->message));
		putchar('\n');
	}
	api_render_release(&ar);
	return PT_EXIT_OK;
}

/* Context evidence (no rule, no fact) and fallback rules match ordinary lines too. */
static bool
marks_failure_line(const struct ruleset *rs, const struct pattern *p)
{
	if (p->rule)
		return p->rule->tier == TIER_SPECIFIC;
	for (size_t i = 0; i < rs->nfacts; i++)
		if (rs->facts[i].pat == p)
			return true;
	return false;
}

static int
rules_export_run(int argc, char **argv, struct pt_ctx *ctx)
{
	static const struct option opts[] = {
		{ "specific", no_argument, NULL, 's' },
		CMD_GLOBAL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	bool specific = false;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
		if (c == 's')
			specific = true;
		else if ((rc = cmd_global_option(&rules_export_entry, ctx, c, optarg)) != 0)
			return rc;
	if ((rc = cmd_check_args(&rules_export_entry, argc, optind)) != 0)
		return rc;
	for (size_t i = 0; i < ctx->rules->npatterns; i++) {
		const struct pattern *p = ctx->rules->patterns[i];

		if (p->role == PAT_NONE || p->role == PAT_CAPTURE ||
		    (specific && !marks_failure_line(ctx->rules, p)))
			continue;
		/* \xNN is also how PCRE2 writes a byte: the pattern means the same */
		term_puts_untrusted(stdout, p->src);
		putchar('\n');
	}
	return PT_EXIT_OK;
}
