/* SPDX-License-Identifier: MIT */
/*
 * The command table. Every subcommand lives in its own src/cmd_<name>.c and
 * exports one `struct cmd_entry`; src/cmd.c lists them. The dispatcher looks
 * commands up by exact name, answers -h/--help from the entry, and loads the
 * rules once for commands that need them.
 */
#ifndef PT_CMD_H
#define PT_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include "pt/diag.h"
#include "pt/settings.h"
#include "pt/wrap.h"

struct ruleset;

enum color_mode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

/* Global options and shared state, passed to every run function. */
struct pt_ctx {
	const char *rules_dir;       /* --rules DIR, or NULL for the search order */
	enum color_mode color;       /* --color */
	bool no_input;               /* --no-input: never prompt */
	const char *session_dir;     /* --session-dir DIR, or NULL (see cmd_session_dir()) */
	struct ruleset *rules;       /* loaded by the dispatcher for CMD_NEEDS_RULES */
	char *rules_origin;          /* where the rules were found (owned) */
	struct settings env;         /* the PALLAS_TRIAGE_* environment, read once by main() */
	int argc;                    /* the running command's arguments (borrowed), for */
	char **argv;                 /* "did you mean" after a mistyped option */
};

enum cmd_flags {
	CMD_NEEDS_RULES = 1 << 0,    /* load and validate the rules before run */
	CMD_GROUP = 1 << 1,          /* has a sub-table; run is not called */
	CMD_HIDDEN = 1 << 2,         /* not listed in help */
	CMD_DESTRUCTIVE = 1 << 3,    /* changes or removes state: never the preferred typo fix */
};

struct cmd_entry {
	const char *name;            /* "check-block" */
	const char *usage;           /* "check-block --chip CHIP --block DIMS ..." */
	const char *summary;         /* one line for `help` */
	const char *help;            /* option list and details for `help NAME`, may be NULL */
	int min_args, max_args;      /* operands after options; -1 = no max */
	unsigned flags;
	int (*run)(int argc, char **argv, struct pt_ctx *ctx); /* returns PT_EXIT_* */
	const struct cmd_entry *const *sub; /* CMD_GROUP: NULL-terminated table */
};

extern const struct cmd_entry *const cmd_table[];

/* Find an entry by exact name in a NULL-terminated table. */
const struct cmd_entry *cmd_lookup(const struct cmd_entry *const *table, const char *name);
/* The command of table that word is probably a typo of (borrowed), or NULL. */
const char *cmd_suggest(const struct cmd_entry *const *table, const char *word);
/* Run argv[0] of table (argv[0] is the command name). */
int cmd_dispatch(const struct cmd_entry *const *table, int argc, char **argv, struct pt_ctx *ctx,
		 const char *prefix);
/* Print "usage: pallas-triage USAGE" plus help to fp. */
void cmd_print_usage(const struct cmd_entry *e, FILE *fp);
/* Print a one-line reason (none when fmt is NULL), the usage and "try 'pallas-triage help NAME'"
 * to stderr; returns PT_EXIT_USAGE. */
int cmd_usage_error(const struct cmd_entry *e, const char *fmt, ...) PT_PRINTF(2, 3);
/*
 * The thing named does not exist (a chip, a pack, a command for help): the
 * command line was well formed, so the message alone, without the usage
 * block; near (may be NULL) is offered as "did you mean". Returns PT_EXIT_USAGE.
 */
int cmd_not_found(const char *near, const char *fmt, ...) PT_PRINTF(2, 3);
/* After getopt_long: check the operand count (argc - optind); returns 0 or PT_EXIT_USAGE. */
int cmd_check_args(const struct cmd_entry *e, int argc, int optind_);
/* Load ctx->rules if not loaded yet (also used by commands that need rules only sometimes). */
int cmd_load_rules(struct pt_ctx *ctx);
/* Should output to fp be coloured, given --color and NO_COLOR? */
bool cmd_use_color(const struct pt_ctx *ctx, FILE *fp);
/*
 * Print to fp through o, wrapped at the terminal's width when fp is a
 * terminal (COLUMNS, else the terminal's own width); wrap_out_close(o) at
 * the end, wrap_out_flush(o) before waiting for the user.
 */
void cmd_wrap_open(struct wrap_out *o, FILE *fp);
/* The session directory: --session-dir, else $PALLAS_TRIAGE_SESSION_DIR, else SESSION_DIR. */
const char *cmd_session_dir(const struct pt_ctx *ctx);

extern const struct cmd_entry cmd_attempt_entry;
extern const struct cmd_entry cmd_check_entry;
extern const struct cmd_entry cmd_check_block_entry;
extern const struct cmd_entry cmd_explain_entry;
extern const struct cmd_entry cmd_help_entry;
extern const struct cmd_entry cmd_mcp_entry;
extern const struct cmd_entry cmd_report_entry;
extern const struct cmd_entry cmd_rules_entry;
extern const struct cmd_entry cmd_run_entry;
extern const struct cmd_entry cmd_scan_entry;
extern const struct cmd_entry cmd_session_entry;
extern const struct cmd_entry cmd_smem_entry;
extern const struct cmd_entry cmd_triage_entry;
extern const struct cmd_entry cmd_version_entry;
extern const struct cmd_entry cmd_vmem_entry;


/*
 * Global options, accepted before the command name and by every command:
 * --rules DIR, --color WHEN, --no-input, --session-dir DIR. Commands put CMD_GLOBAL_LONGOPTS in
 * their option table and pass unknown option codes to cmd_global_option().
 */
enum { OPT_GLOBAL_RULES = 0x1000, OPT_GLOBAL_COLOR, OPT_GLOBAL_NO_INPUT, OPT_GLOBAL_SESSION_DIR };
#define CMD_GLOBAL_LONGOPTS \
	{ "rules", required_argument, NULL, OPT_GLOBAL_RULES }, \
	{ "color", required_argument, NULL, OPT_GLOBAL_COLOR }, \
	{ "no-input", no_argument, NULL, OPT_GLOBAL_NO_INPUT }, \
	{ "session-dir", required_argument, NULL, OPT_GLOBAL_SESSION_DIR }
/* Returns 0 if c was a global option and was applied, PT_EXIT_USAGE otherwise. */
int cmd_global_option(const struct cmd_entry *e, struct pt_ctx *ctx, int c, const char *arg);

#endif
