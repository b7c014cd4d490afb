/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage report`: the escalation report of the session, on demand,
 * in markdown (the default: it is meant to be pasted into a bug), JSON or
 * plain text. The walk writes the same report by itself at attempt 10.
 * Reading takes no lock: saves are atomic renames. --post hands over to
 * cmd_report_post.c, which writes the report files and sends them.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report_post.h"
#include "pt/report.h"
#include "pt/session.h"

static int cmd_report_run(int argc, char **argv, struct pt_ctx *ctx);

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "report [--format md|json|text] [--redact] [--output FILE]\n"
		 "       pallas-triage report --post URL [--allow-http] [--redact]",
	.summary = "write the escalation report of the debugging session",
	.help =
	"options:\n"
	"  --format F         md (default), json or text\n"
	"  --redact           mask home directories (as ~) and host names (as <host>)\n"
	"  --output FILE      write FILE (replaced atomically; a device or FIFO is\n"
	"                     written through) instead of stdout\n"
	"  --post URL         write pallas-triage-report.md and .json, then POST them to\n"
	"                     URL (https; bearer token from $PALLAS_TRIAGE_TOKEN)\n"
	"  --allow-http       let --post use plain http:// (local test servers)\n"
	"\n"
	"exit status: 0 written (posted), 1 no session here (nothing to post), 2 usage\n"
	"error, 3 corrupt session or report, 4 I/O error (the webhook failed)\n",
	.min_args = 0, .max_args = 0, .flags = CMD_NEEDS_RULES, .run = cmd_report_run,
};

enum { OPT_FORMAT = 1, OPT_REDACT, OPT_OUTPUT, OPT_POST, OPT_ALLOW_HTTP };

static const struct option report_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "redact", no_argument, NULL, OPT_REDACT },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "post", required_argument, NULL, OPT_POST },
	{ "allow-http", no_argument, NULL, OPT_ALLOW_HTTP },
	CMD_GLOBAL_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

static int
cmd_report_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct pt_err err = PT_ERR_INIT;
	struct session *s = NULL;
	struct report r;
	const char *format = "md", *output = NULL, *post = NULL;
	bool redact = false, allow_http = false;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", report_options, NULL)) != -1) {
		if (c == OPT_FORMAT)
			format = optarg;
		else if (c == OPT_REDACT)
			redact = true;
		else if (c == OPT_OUTPUT)
			output = optarg;
		else if (c == OPT_POST)
			post = optarg;
		else if (c == OPT_ALLOW_HTTP)
			allow_http = true;
		else if ((rc = cmd_global_option(&cmd_report_entry, ctx, c, optarg)) != 0)
			return rc;
	}
	if ((rc = cmd_check_args(&cmd_report_entry, argc, optind)) != 0)
		return rc;
	if (post && output)
		return cmd_usage_error(&cmd_report_entry, "--post writes the report files itself; "
				       "drop --output");
	if (post)
		return cmd_report_post(post, allow_http, redact, ctx);
	if (!report_format_known(format))
		return cmd_usage_error(&cmd_report_entry, "--format takes md, json or text, not '%s'",
				       format);
	if (session_load(cmd_session_dir(ctx), &s, &err) < 0)
		return pt_report(&err);
	report_build(&r, s, ctx->rules, redact);
	rc = output ? report_write_file(&r, format, output, true, &err) :
	     report_write(&r, format, stdout, &err);
	report_release(&r);
	session_free(s);
	return rc < 0 ? pt_report(&err) : PT_EXIT_OK;
}
