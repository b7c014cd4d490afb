/* SPDX-License-Identifier: MIT */
/* `pallas-triage help [COMMAND [SUBCOMMAND]]`, generated from the command tables. */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "pt/xalloc.h"

static int cmd_help_run(int argc, char **argv, struct pt_ctx *ctx);

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.usage = "help [COMMAND [SUBCOMMAND]]",
	.summary = "show help for pallas-triage or one of its commands",
	.min_args = 0,
	.max_args = 2,
	.run = cmd_help_run,
};

static void
overview(void)
{
	printf("usage: pallas-triage [--rules DIR] [--color WHEN] [--no-input] [--session-dir DIR]\n"
	       "                     [COMMAND] [ARGS]\n"
	       "       pallas-triage [OPTIONS] LOG\n"
	       "       python kernel.py 2>&1 | pallas-triage\n\n"
	       "Classify a JAX Pallas TPU kernel failure (layout, capacity, synchronization,\n"
	       "numerics, unsupported, or not a Pallas failure), show the evidence, and walk\n"
	       "the class's fix ladder.\n\ncommands:\n");
	for (const struct cmd_entry *const *e = cmd_table; *e; e++)
		if (!((*e)->flags & CMD_HIDDEN))
			printf("  %-12s %s\n", (*e)->name, (*e)->summary);
	printf("\nexit status: 0 a Pallas failure class was identified (or success),\n"
	       "1 no Pallas failure recognized (or a negative check), 2 usage error,\n"
	       "3 bad input data (rules, log, session), 4 system error\n"
	       "\nSee 'pallas-triage help COMMAND' and docs/ in the source tree.\n");
}

static int
cmd_help_run(int argc, char **argv, struct pt_ctx *ctx)
{
	const struct cmd_entry *e;

	(void)ctx;
	if (argc < 2) {
		overview();
		return PT_EXIT_OK;
	}
	if (!(e = cmd_lookup(cmd_table, argv[1])))
		return cmd_not_found(cmd_suggest(cmd_table, argv[1]), "no command '%s' (see "
				     "'pallas-triage help')", argv[1]);
	if (argc > 2 && e->sub) {
		const struct cmd_entry *s = cmd_lookup(e->sub, argv[2]);

		if (!s) {
			const char *near = cmd_suggest(e->sub, argv[2]);
			char *full = near ? xasprintf("%s %s", argv[1], near) : NULL;
			int rc = cmd_not_found(full, "no command '%s %s' (see 'pallas-triage help "
					       "%s')", argv[1], argv[2], argv[1]);

			free(full);
			return rc;
		}
		e = s;
	}
	cmd_print_usage(e, stdout);
	return PT_EXIT_OK;
}
