/* SPDX-License-Identifier: MIT */
/*
 * Entry point: global options, then a command from the table. With no
 * command name the arguments go to `triage`, so `pallas-triage run.log` and
 * `python k.py 2>&1 | pallas-triage` do the main job.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "pt/rules.h"
#include "pt/term.h"
#include "pt/xalloc.h"

/* The rule set outlives main(): the process's end gives its memory back at
 * once, where freeing its many small blocks one by one took a sixth of a
 * small log's run. Held here, it stays reachable for leak checkers. */
static struct ruleset *volatile rules_at_exit;

static int
finish(int rc, struct pt_ctx *ctx)
{
	rules_at_exit = ctx->rules;
	free(ctx->rules_origin);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fputs("pallas-triage: error: cannot write to standard output\n", stderr);
		return PT_EXIT_SYSTEM;
	}
	return rc;
}

/* Global options before the command name, parsed by hand so that a triage
 * option such as --json can come first without being mistaken for a typo. */
static int
parse_globals(int argc, char **argv, struct pt_ctx *ctx, int *next)
{
	int i = 1;

	while (i < argc) {
		const char *a = argv[i];
		const char *val = NULL;
		int code = 0;

		if (strcmp(a, "--rules") == 0 || strncmp(a, "--rules=", 8) == 0)
			code = OPT_GLOBAL_RULES;
		else if (strcmp(a, "--color") == 0 || strncmp(a, "--color=", 8) == 0)
			code = OPT_GLOBAL_COLOR;
		else if (strcmp(a, "--no-input") == 0)
			code = OPT_GLOBAL_NO_INPUT;
		else if (strcmp(a, "--session-dir") == 0 || strncmp(a, "--session-dir=", 14) == 0)
			code = OPT_GLOBAL_SESSION_DIR;
		else
			break;
		if (code != OPT_GLOBAL_NO_INPUT) {
			const char *eq = strchr(a, '=');

			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return cmd_usage_error(NULL, "option '%s' needs a value", a);
		}
		if (cmd_global_option(NULL, ctx, code, val) != 0)
			return PT_EXIT_USAGE;
		i++;
	}
	*next = i;
	return 0;
}

/*
 * `pallas-triage sesion`: a word that is no file but is one typo away from
 * a command is not a log to open. Says so (as git does) and returns true.
 */
static bool
is_mistyped_command(const char *word)
{
	const char *near;

	if (word[0] == '-' || strchr(word, '/') || access(word, F_OK) == 0 ||
	    !(near = cmd_suggest(cmd_table, word)))
		return false;
	fputs("pallas-triage: error: '", stderr);
	term_puts_untrusted(stderr, word);
	fprintf(stderr, "' is neither a command nor a log file\ndid you mean 'pallas-triage %s'?\n",
		near);
	return true;
}

static int
run_named(const char *name, struct pt_ctx *ctx)
{
	char *argv[2] = { xstrdup(name), NULL };
	int rc = cmd_dispatch(cmd_table, 1, argv, ctx, NULL);

	free(argv[0]);
	return rc;
}

int
main(int argc, char **argv)
{
	struct pt_ctx ctx = { 0 };
	char **triage_argv;
	int next = 1, rc;

	settings_read(&ctx.env);
	if ((rc = parse_globals(argc, argv, &ctx, &next)) != 0)
		return rc;
	if (next < argc && cmd_lookup(cmd_table, argv[next]))
		return finish(cmd_dispatch(cmd_table, argc - next, argv + next, &ctx, NULL), &ctx);
	if (next < argc && (strcmp(argv[next], "--version") == 0 || strcmp(argv[next], "-V") == 0))
		return finish(run_named("version", &ctx), &ctx);
	if (next < argc && is_mistyped_command(argv[next]))
		return finish(PT_EXIT_USAGE, &ctx);
	if (next < argc && (strcmp(argv[next], "-h") == 0 || strcmp(argv[next], "--help") == 0))
		return finish(run_named("help", &ctx), &ctx);
	triage_argv = xcalloc((size_t)argc + 2, sizeof(*triage_argv));
	triage_argv[0] = (char *)"triage";
	for (int i = next; i < argc; i++)
		triage_argv[i - next + 1] = argv[i];
	rc = cmd_dispatch(cmd_table, argc - next + 1, triage_argv, &ctx, NULL);
	free(triage_argv);
	return finish(rc, &ctx);
}
