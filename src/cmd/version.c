/* SPDX-License-Identifier: MIT */
/* `pallas-triage version` (also --version). */
#include "cmd.h"

static int
cmd_version_run(int argc, char **argv, struct pt_ctx *ctx)
{
	(void)argc;
	(void)argv;
	(void)ctx;
	printf("pallas-triage %s\n", PT_VERSION);
	return PT_EXIT_OK;
}

const struct cmd_entry cmd_version_entry = {
	.name = "version",
	.usage = "version",
	.summary = "print the version",
	.min_args = 0,
	.max_args = 0,
	.run = cmd_version_run,
};
