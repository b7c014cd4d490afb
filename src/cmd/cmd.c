/* SPDX-License-Identifier: MIT */
/*
 * The command table and the dispatcher shared by every level (top level,
 * `rules ...`, `session ...`). Exact-name lookup only: prefixes would break
 * as commands are added.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "pt/classify.h"
#include "pt/suggest.h"
#include "pt/packs.h"
#include "pt/rules.h"
#include "pt/rules_cache.h"
#include "pt/session.h"
#include "pt/term.h"
#include "pt/xalloc.h"

const struct cmd_entry *const cmd_table[] = {
	&cmd_attempt_entry,
	&cmd_check_entry,
	&cmd_check_block_entry,
	&cmd_explain_entry,
	&cmd_help_entry,
	&cmd_mcp_entry,
	&cmd_report_entry,
	&cmd_rules_entry,
	&cmd_run_entry,
	&cmd_scan_entry,
	&cmd_session_entry,
	&cmd_smem_entry,
	&cmd_triage_entry,
	&cmd_version_entry,
	&cmd_vmem_entry,
	NULL,
};

const char *
cmd_suggest(const struct cmd_entry *const *table, const char *word)
{
	struct suggest s;

	suggest_init(&s, word);
	for (const struct cmd_entry *const *e = table; *e; e++)
		suggest_offer_ranked(&s, (*e)->name, ((*e)->flags & CMD_DESTRUCTIVE) != 0);
	return suggest_best(&s);
}

/* Every "--option" written in text (a usage line, a help text), appended to v[*n]. */
static void
collect_options(const char *text, char ***v, size_t *n, size_t *alloc)
{
	for (const char *p = text; p && (p = strstr(p, "--")); ) {
		size_t len = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");

		if (len >= 2 && (p == text || strchr(" [(|", p[-1]))) {
			XGROW(*v, *alloc, *n + 2);
			(*v)[(*n)++] = xasprintf("--%.*s", (int)len, p + 2);
			(*v)[*n] = NULL;
		}
		p += 2 + len;
	}
}

/*
 * getopt_long said an option was not recognised: the one it probably
 * means, from the options the command's usage and help name and the global
 * ones, copied into out; false when none is close.
 */
static bool
option_suggest(const struct cmd_entry *e, const struct pt_ctx *ctx, char *out, size_t size)
{
	char **opts = NULL, word[64];
	size_t n = 0, alloc = 0;
	struct suggest s;
	const char *bad, *best;

	if (!ctx->argv || optind < 1 || optind > ctx->argc || !(bad = ctx->argv[optind - 1]) ||
	    strncmp(bad, "--", 2) != 0)
		return false;
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(bad, "="), bad);
	collect_options(e->usage, &opts, &n, &alloc);
	collect_options(e->help, &opts, &n, &alloc);
	collect_options("--help --rules --color --no-input --session-dir", &opts, &n, &alloc);
	suggest_init(&s, word);
	for (size_t i = 0; i < n; i++)
		suggest_offer(&s, opts[i]);
	if ((best = suggest_best(&s)))
		snprintf(out, size, "%s", best);
	for (size_t i = 0; i < n; i++)
		free(opts[i]);
	free(opts);
	return best != NULL;
}

const struct cmd_entry *
cmd_lookup(const struct cmd_entry *const *table, const char *name)
{
	for (const struct cmd_entry *const *e = table; *e; e++)
		if (strcmp((*e)->name, name) == 0)
			return *e;
	return NULL;
}

void
cmd_print_usage(const struct cmd_entry *e, FILE *fp)
{
	fprintf(fp, "usage: pallas-triage %s\n\n%s\n", e->usage, e->summary);
	if (e->help)
		fprintf(fp, "\n%s", e->help);
	if (e->sub) {
		fputs("\ncommands:\n", fp);
		for (const struct cmd_entry *const *s = e->sub; *s; s++)
			if (!((*s)->flags & CMD_HIDDEN))
				fprintf(fp, "  %-16s %s\n", (*s)->name, (*s)->summary);
	}
}

/* The command words at the start of the usage line ("rules list"), for 'help'. */
static int
help_target_len(const struct cmd_entry *e)
{
	const char *u = e->usage, *p = u;

	/* stop at the first option or operand; a '-' inside a word ("check-block") is part of it */
	while (*p && *p != '[' && !(*p == '-' && (p == u || p[-1] == ' ')) && !(*p >= 'A' && *p <= 'Z'))
		p++;
	while (p > u && p[-1] == ' ')
		p--;
	return (int)(p - u);
}

/* "pallas-triage: error: MSG" on stderr, after what stdout holds. MSG quotes
 * operands, which may be names of planted files: it is escaped. */
static void
print_error(const char *fmt, va_list ap)
{
	char msg[2048];

	fflush(stdout);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	fputs("pallas-triage: error: ", stderr);
	term_puts_untrusted(stderr, msg);
	fputc('\n', stderr);
}

int
cmd_usage_error(const struct cmd_entry *e, const char *fmt, ...)
{
	va_list ap;
	int n;

	fflush(stdout);
	if (fmt) {
		va_start(ap, fmt);
		print_error(fmt, ap);
		va_end(ap);
	}
	if (!e) {
		fputs("try 'pallas-triage help'\n", stderr);
		return PT_EXIT_USAGE;
	}
	n = help_target_len(e);
	fprintf(stderr, "usage: pallas-triage %s\ntry 'pallas-triage help %.*s'\n", e->usage,
		n ? n : (int)strlen(e->name), n ? e->usage : e->name);
	return PT_EXIT_USAGE;
}

int
cmd_not_found(const char *near, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_error(fmt, ap);
	va_end(ap);
	if (near) {
		fputs("did you mean '", stderr);
		term_puts_untrusted(stderr, near);
		fputs("'?\n", stderr);
	}
	return PT_EXIT_USAGE;
}

int
cmd_check_args(const struct cmd_entry *e, int argc, int optind_)
{
	int n = argc - optind_;

	if (n < e->min_args)
		return cmd_usage_error(e, "'%s' needs %s operand%s", e->name,
				       e->min_args == 1 ? "an" : "more", e->min_args == 1 ? "" : "s");
	if (e->max_args >= 0 && n > e->max_args)
		return cmd_usage_error(e, "too many operands for '%s'", e->name);
	return 0;
}

/* Read and validate the YAML (and the installed packs); errors are printed here. */
static struct ruleset *
load_rules_fresh(const char *dir, int *rc)
{
	struct pt_err err = PT_ERR_INIT;
	struct diag d = DIAG_INIT;
	struct ruleset *rs = ruleset_new();

	if (ruleset_load_dir(rs, dir, NULL, &d, &err) < 0 || packs_load(rs, &d) < 0 ||
	    ruleset_finish(rs, &d) < 0) {
		diag_print(&d, stderr);
		if (d.nerrors)
			fprintf(stderr, "pallas-triage: error: %zu problem%s in the rules at '%s'; "
				"refusing to run on a partial rule set\n",
				d.nerrors, d.nerrors == 1 ? "" : "s", dir);
		else
			pt_report(&err);
		*rc = d.nerrors ? PT_EXIT_DATA : (err.status ? err.status : PT_EXIT_DATA);
		diag_release(&d);
		ruleset_free(rs);
		return NULL;
	}
	diag_release(&d);
	/* built here once, so that the rules cache keeps it for every later run */
	rs->prefilter = classify_prefilter_new(rs);
	return rs;
}

/* The base rules' files and the installed packs (metadata included: removing
 * a pack deletes its metadata first). */
static char *
cache_key(const char *const *dirs)
{
	char *base = rules_cache_key(dirs), *packs = packs_cache_key();
	char *key = xasprintf("%s%s", base, packs);

	free(base);
	free(packs);
	return key;
}

int
cmd_load_rules(struct pt_ctx *ctx)
{
	struct pt_err err = PT_ERR_INIT;
	const char *dirs[2] = { NULL, NULL };
	char *dir, *key;
	struct ruleset *rs;
	int rc = 0;

	if (ctx->rules)
		return 0;
	if (!(dir = rules_locate(ctx->rules_dir, ctx->env.rules_dir, &err)))
		return pt_report(&err);
	dirs[0] = dir;
	key = cache_key(dirs);
	if (ctx->env.no_cache)
		rs = load_rules_fresh(dir, &rc);
	else if (!(rs = rules_cache_load(key)) && (rs = load_rules_fresh(dir, &rc)))
		rules_cache_save(rs, key);
	free(key);
	if (!rs) {
		free(dir);
		return rc;
	}
	ctx->rules = rs;
	ctx->rules_origin = dir;
	return 0;
}

bool
cmd_use_color(const struct pt_ctx *ctx, FILE *fp)
{
	const char *nc = getenv("NO_COLOR"), *term;

	if (ctx->color == COLOR_NEVER)
		return false;
	if (ctx->color == COLOR_ALWAYS)
		return true;
	if (nc && *nc)
		return false;
	/* a terminal that says it understands no escape sequences gets none */
	if ((term = getenv("TERM")) && strcmp(term, "dumb") == 0)
		return false;
	return isatty(fileno(fp));
}

void
cmd_wrap_open(struct wrap_out *o, FILE *fp)
{
	/* COLUMNS is the shell's, not ours: it says how wide the terminal is */
	wrap_out_open(o, fp, wrap_width(fileno(fp), getenv("COLUMNS")));
}

const char *
cmd_session_dir(const struct pt_ctx *ctx)
{
	if (ctx->session_dir)
		return ctx->session_dir;
	return ctx->env.session_dir ? ctx->env.session_dir : SESSION_DIR;
}

/*
 * The rules must be loaded before run(), but --rules may come after the
 * command name (`pallas-triage triage --rules DIR log`): look for the global
 * options first. Parsing stops at "--", after which arguments belong to a
 * command line being wrapped (`run -- python k.py --rules x`).
 */
static int
prescan_globals(const struct cmd_entry *e, int argc, char **argv, struct pt_ctx *ctx)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i], *val = NULL;

		if (strncmp(a, "--rules=", 8) == 0)
			val = a + 8;
		else if (strcmp(a, "--rules") == 0 && i + 1 < argc)
			val = argv[++i];
		if (val && cmd_global_option(e, ctx, OPT_GLOBAL_RULES, val) != 0)
			return PT_EXIT_USAGE;
	}
	return 0;
}

int
cmd_dispatch(const struct cmd_entry *const *table, int argc, char **argv, struct pt_ctx *ctx,
	     const char *prefix)
{
	const struct cmd_entry *e = cmd_lookup(table, argv[0]);
	int rc;

	if (!e) {
		const char *near = cmd_suggest(table, argv[0]);

		fprintf(stderr, "pallas-triage: error: unknown command '%s%s", prefix ? prefix : "",
			prefix ? " " : "");
		term_puts_untrusted(stderr, argv[0]);
		fputs("'\n", stderr);
		if (near)
			fprintf(stderr, "did you mean 'pallas-triage %s%s%s'?\n", prefix ? prefix : "",
				prefix ? " " : "", near);
		else
			fprintf(stderr, "try 'pallas-triage help%s%s'\n", prefix ? " " : "",
				prefix ? prefix : "");
		return PT_EXIT_USAGE;
	}
	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		cmd_print_usage(e, stdout);
		return PT_EXIT_OK;
	}
	if (e->flags & CMD_GROUP) {
		if (argc < 2) {
			cmd_print_usage(e, stderr);
			return PT_EXIT_USAGE;
		}
		return cmd_dispatch(e->sub, argc - 1, argv + 1, ctx, e->name);
	}
	if (e->flags & CMD_NEEDS_RULES) {
		if ((rc = prescan_globals(e, argc, argv, ctx)) != 0 || (rc = cmd_load_rules(ctx)) != 0)
			return rc;
	}
	{
		/* getopt's messages start with argv[0]: make them read like every
		 * other error ("pallas-triage: error: unrecognized option ..."); the
		 * usage line that follows names the command */
		char *saved = argv[0], *label = xstrdup("pallas-triage: error");

		argv[0] = label;
		optind = 0;
		ctx->argc = argc;
		ctx->argv = argv;
		rc = e->run(argc, argv, ctx);
		ctx->argv = NULL;
		argv[0] = saved;
		free(label);
		return rc;
	}
}

int
cmd_global_option(const struct cmd_entry *e, struct pt_ctx *ctx, int c, const char *arg)
{
	switch (c) {
	case OPT_GLOBAL_RULES:
		ctx->rules_dir = arg;
		return 0;
	case OPT_GLOBAL_COLOR:
		if (strcmp(arg, "auto") == 0)
			ctx->color = COLOR_AUTO;
		else if (strcmp(arg, "always") == 0)
			ctx->color = COLOR_ALWAYS;
		else if (strcmp(arg, "never") == 0)
			ctx->color = COLOR_NEVER;
		else
			return cmd_usage_error(e, "--color takes auto, always or never, not '%s'", arg);
		return 0;
	case OPT_GLOBAL_NO_INPUT:
		ctx->no_input = true;
		return 0;
	case OPT_GLOBAL_SESSION_DIR:
		if (!*arg)
			return cmd_usage_error(e, "--session-dir needs a directory");
		ctx->session_dir = arg;
		return 0;
	default: {
		/* getopt_long already said what was wrong; say what it was probably meant to be */
		char near[64];

		if (e && option_suggest(e, ctx, near, sizeof(near)))
			fprintf(stderr, "did you mean '%s'?\n", near);
		return cmd_usage_error(e, NULL);
	}
	}
}
