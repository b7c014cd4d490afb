/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage scan [--jsonl] [--jobs N] PATH...`: classify many logs
 * (files, or directories walked recursively) on every core and print one
 * JSON line per log, or a summary table that counts the logs per class and
 * per failure fingerprint, so the same failure across 300 CI jobs is one row.
 * Output is in walk order whatever the number of workers. The workers share
 * one copy of the rules (pt/scan.h). See docs/scan.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "pt/rules.h"
#include "pt/scan.h"

static int cmd_scan_run(int argc, char **argv, struct pt_ctx *ctx);

const struct cmd_entry cmd_scan_entry = {
	.name = "scan",
	.usage = "scan [--json | --jsonl | --format FMT] [--jobs N] [--rules DIR] [PATH...]",
	.summary = "classify many logs (files or directories) and group them by failure",
	.help =
	"options:\n"
	"  --json            the summary as one JSON object (docs/scan.md)\n"
	"  --jsonl           one JSON object per log and line (the --json diagnosis of\n"
	"                    docs/json.md), in walk order, instead of the summary table\n"
	"  --format FMT      text (the table, default), json, jsonl, or github: one\n"
	"                    '::error file=...,line=...' line per failing log, on the\n"
	"                    kernel's source line, for GitHub Actions\n"
	"  -j, --jobs N      worker threads (default: one per CPU)\n"
	"  --rules DIR       use the rules in DIR\n"
	"\n"
	"With no PATH the working directory is scanned. Directories are walked\n"
	"recursively in name order; hidden entries and links to directories are\n"
	"skipped. The summary counts logs per class and per fingerprint, most frequent\n"
	"first, with the first log of each as an example.\n"
	"\n"
	"exit status: 0 a Pallas failure class was identified in at least one log,\n"
	"1 none was, 2 usage error, 3 a path could not be read (the others are still\n"
	"reported), 4 system error\n",
	.min_args = 0,
	.max_args = -1,
	.flags = CMD_NEEDS_RULES,
	.run = cmd_scan_run,
};

enum scan_format { SCAN_TEXT, SCAN_JSON, SCAN_JSONL, SCAN_GITHUB };

static const struct option scan_options[] = {
	{ "json", no_argument, NULL, 'J' },
	{ "jsonl", no_argument, NULL, 'l' },
	{ "format", required_argument, NULL, 'f' },
	{ "jobs", required_argument, NULL, 'j' },
	CMD_GLOBAL_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

struct scan_out {
	enum scan_format format;
	bool found;                 /* some log had a Pallas failure class */
	struct scan_summary sum;
};

static void
scan_print(const struct scan_result *r, void *arg)
{
	struct scan_out *out = arg;

	if (r->error)
		fprintf(stderr, "pallas-triage: error: %s\n", r->error);
	else if (r->cls != CLASS_UNKNOWN)
		out->found = true;
	if (out->format == SCAN_JSONL && r->json)
		printf("%s\n", r->json);
	if (out->format == SCAN_GITHUB && r->github)
		fputs(r->github, stdout);
	scan_summary_add(&out->sum, r);
}

static int
parse_jobs(const char *s, unsigned *jobs)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || *end || n < 1 || n > 64)
		return -1;
	*jobs = (unsigned)n;
	return 0;
}

static int
parse_format(const char *s, enum scan_format *f)
{
	static const char *const names[] = { "text", "json", "jsonl", "github" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0)
			return *f = (enum scan_format)i, 0;
	return cmd_usage_error(&cmd_scan_entry, "--format takes text, json, jsonl or github, "
			       "not '%s'", s);
}

static int
parse_args(int argc, char **argv, struct pt_ctx *ctx, struct scan_out *out, struct scan_opts *o)
{
	int c, rc;

	while ((c = getopt_long(argc, argv, "j:", scan_options, NULL)) != -1) {
		if (c == 'J')
			out->format = SCAN_JSON;
		else if (c == 'l')
			out->format = SCAN_JSONL;
		else if (c == 'f' && (rc = parse_format(optarg, &out->format)) != 0)
			return rc;
		else if (c == 'j' && parse_jobs(optarg, &o->jobs) < 0)
			return cmd_usage_error(&cmd_scan_entry, "--jobs takes a number from 1 to 64, "
					       "not '%s'", optarg);
		else if (c != 'f' && c != 'j' && (rc = cmd_global_option(&cmd_scan_entry, ctx, c,
									 optarg)) != 0)
			return rc;
	}
	o->jsonl = out->format == SCAN_JSONL;
	o->github = out->format == SCAN_GITHUB;
	/* GitHub checks the repository out there: annotations name files from it */
	o->workspace = getenv("GITHUB_WORKSPACE");
	return cmd_check_args(&cmd_scan_entry, argc, optind);
}

static int
cmd_scan_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct pt_err err = PT_ERR_INIT;
	struct scan_list list = SCAN_LIST_INIT;
	struct scan_out out = { .sum = SCAN_SUMMARY_INIT };
	struct scan_opts o = { 0 };
	int rc, w = 0;

	if ((rc = parse_args(argc, argv, ctx, &out, &o)) != 0)
		return rc;
	if (optind == argc)
		scan_list_add(&list, ".");
	for (int i = optind; i < argc; i++)
		scan_list_add(&list, argv[i]);
	if (scan_run(&list, ctx->rules, &o, scan_print, &out, &err) < 0) {
		rc = pt_report(&err);
		goto out;
	}
	if (out.format == SCAN_TEXT)
		w = scan_summary_write(&out.sum, stdout);
	else if (out.format == SCAN_JSON)
		w = scan_summary_json(&out.sum, stdout);
	if (w < 0) {
		rc = PT_EXIT_SYSTEM;    /* main reports the write error */
		goto out;
	}
	if (out.sum.errors)
		rc = PT_EXIT_DATA;
	else
		rc = out.found ? PT_EXIT_OK : PT_EXIT_FINDING;
out:
	scan_summary_release(&out.sum);
	scan_list_release(&list);
	return rc;
}
