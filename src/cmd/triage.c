/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage [triage] [OPTIONS] [LOG]`: classify a failure log and show
 * the evidence and the fix ladder. This is also what runs when no command
 * is named. A log is read from the file, or from stdin when LOG is `-` or
 * absent and stdin is not a terminal. At a terminal (or with --answers) the
 * ladder walk follows; otherwise the whole ladder is printed and it exits.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt/advice.h"
#include "pt/classify.h"
#include "cmd.h"
#include "pt/diagnosis.h"
#include "pt/json.h"
#include "pt/rules.h"
#include "walk.h"

static int cmd_triage_run(int argc, char **argv, struct pt_ctx *ctx);

const struct cmd_entry cmd_triage_entry = {
	.name = "triage",
	.usage = "[triage] [--json] [--no-input] [--answers FILE] [--kernel FILE] [--redact] [--rules DIR] [--color WHEN] [LOG | -]",
	.summary = "classify a Pallas failure log and show the fix ladder",
	.help =
	"options:\n"
	"  --json            print one JSON object (docs/json.md) instead of text\n"
	"  --no-input        never ask questions; print the diagnosis and the whole ladder\n"
	"  --answers FILE    walk the ladder with the answers in FILE ('-': stdin), see docs/sessions.md\n"
	"  --kernel FILE     save FILE.pre-debug before the first attempt (never overwritten)\n"
	"  --redact          mask home paths and host names in the escalation report\n"
	"  --rules DIR       use the rules in DIR\n"
	"  --color WHEN      auto (default), always or never; NO_COLOR is respected\n"
	"\n"
	"LOG is a file, or '-' for standard input; with no LOG, standard input is read\n"
	"when it is not a terminal. When standard output is a terminal (also when the\n"
	"log is piped in), the diagnosis is followed by the walk of the fix ladder,\n"
	"asked on /dev/tty; piped on (| less) or with --json, nothing is asked.\n"
	"\n"
	"exit status: 0 a Pallas failure class was identified, 1 no Pallas failure\n"
	"recognized, 2 usage error, 3 bad input data (rules, log, session), 4 system error;\n"
	"after a walk, the walk's status (docs/sessions.md)\n",
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_NEEDS_RULES,
	.run = cmd_triage_run,
};

static const struct option triage_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "answers", required_argument, NULL, 'a' },
	{ "kernel", required_argument, NULL, 'k' },
	{ "redact", no_argument, NULL, 'r' },
	CMD_GLOBAL_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

static int
print_verdict(struct pt_ctx *ctx, const struct verdict *v, const char *name, bool json,
	      bool whole_ladder)
{
	if (json) {
		struct json *j = diagnosis_json(ctx->rules, v, name);

		json_print(j, stdout);
		json_free(j);
	} else {
		struct diagnosis_opts o = {
			.color = cmd_use_color(ctx, stdout),
			.whole_ladder = whole_ladder,
			.source = name,
		};
		struct wrap_out wo;

		cmd_wrap_open(&wo, stdout);
		diagnosis_print(wo.fp, ctx->rules, v, &o);
		wrap_out_close(&wo);
	}
	return v->cls == CLASS_UNKNOWN ? PT_EXIT_FINDING : PT_EXIT_OK;
}

static int
cmd_triage_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct pt_err err = PT_ERR_INIT;
	struct walk_opts wo = { 0 };
	struct verdict v;
	const char *path, *name;
	bool json = false, walk;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", triage_options, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'a')
			wo.answers = optarg;
		else if (c == 'k')
			wo.kernel = optarg;
		else if (c == 'r')
			wo.redact = true;
		else if ((rc = cmd_global_option(&cmd_triage_entry, ctx, c, optarg)) != 0)
			return rc;
	}
	if ((rc = cmd_check_args(&cmd_triage_entry, argc, optind)) != 0)
		return rc;
	path = optind < argc ? argv[optind] : "-";
	if (strcmp(path, "-") == 0 && optind == argc && isatty(STDIN_FILENO))
		return cmd_usage_error(&cmd_triage_entry,
				       "no log given: name a file, or pipe one in (python k.py 2>&1 | pallas-triage)");
	if (wo.answers && json)
		return cmd_usage_error(&cmd_triage_entry, "--json never walks the ladder; "
				       "--answers walks it");
	if (wo.answers && strcmp(wo.answers, "-") == 0 && strcmp(path, "-") == 0)
		return cmd_usage_error(&cmd_triage_entry,
				       "the log and --answers cannot both come from standard input");
	if (classify_path(ctx->rules, path, wo.kernel, ctx->env.threads, &v, &err) < 0)
		return pt_report(&err);
	name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	if (v.nbytes == 0) {
		verdict_release(&v);
		fprintf(stderr, "pallas-triage: error: '%s' is empty: there is nothing to triage\n", name);
		return PT_EXIT_DATA;
	}
	/* A walk shows the rungs one at a time; without one, the whole ladder is
	 * the answer. JSON is for programs: nobody is there to answer. */
	walk = v.cls != CLASS_UNKNOWN && !json &&
	       (wo.answers || walk_interactive(ctx->no_input, stdout));
	rc = print_verdict(ctx, &v, name, json, !walk);
	if (walk) {
		wo.json = json;
		wo.fixed_now = ctx->env.now;
		wo.dir = cmd_session_dir(ctx);
		wo.threads = ctx->env.threads;
		fflush(stdout);
		rc = walk_after_triage(ctx->rules, &v, name, &wo);
	}
	verdict_release(&v);
	return rc;
}
