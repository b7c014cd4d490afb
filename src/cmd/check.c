/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage check PATH...`: read Pallas kernel source without running
 * it and report layout, capacity, synchronization, numerics and
 * unsupported-operation problems, each at the line to change
 * (docs/check.md). The checker is the check module (pt/check.h); this file
 * parses options and prints. Deliberate choice: notes (values the file
 * does not fix, costly but legal code) never change the exit status.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "pt/check.h"
#include "pt/check_print.h"
#include "pt/json.h"
#include "pt/xalloc.h"

static int cmd_check_run(int argc, char **argv, struct pt_ctx *ctx);

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.usage = "check [--json | --format FMT] [--chip CHIP] [--jax VERSION]\n"
		 "       [--shape NAME=DIMS[:DTYPE]]... [--set NAME=VALUE]... [--no-source] PATH...",
	.summary = "find layout, capacity, sync, numerics and unsupported bugs in Pallas source",
	.help =
	"options:\n"
	"  --json              print one JSON object (docs/json.md, \"check --json\")\n"
	"  --format FMT        text (default), json, or github: '::error file=...' annotations\n"
	"  --chip CHIP         judge tiles and VMEM on this chip (a TPU or a GPU of the chip\n"
	"                      table); without it, on every chip whose defaults are known\n"
	"  --jax VERSION       the JAX release the kernel runs on: API names and lowerings\n"
	"                      are checked as of it\n"
	"  --shape NAME=DIMS[:DTYPE]\n"
	"                      the shape of an argument the file does not fix, e.g.\n"
	"                      --shape x=1024,512:bfloat16 (dtype default float32); repeat\n"
	"  --set NAME=VALUE    the value of a parameter the file does not fix: --set bk=512\n"
	"  --no-source         do not show the source line and caret under each finding\n"
	"\n"
	"PATH is a .py file or a directory (every .py file below it; hidden directories,\n"
	"__pycache__ and symbolic links are skipped). Nothing is run: values come from what\n"
	"the file fixes (constants, defaults, call sites, functools.partial, example arrays).\n"
	"\n"
	"exit status: 0 no error or warning, 1 findings (an error or a warning), 2 usage,\n"
	"3 a path could not be read or parsed and nothing was found, 4 system error\n",
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_NEEDS_RULES,
	.run = cmd_check_run,
};

enum { OPT_JSON = 1, OPT_FORMAT, OPT_CHIP, OPT_JAX, OPT_SHAPE, OPT_SET, OPT_NO_SOURCE };

static const struct option check_options[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "chip", required_argument, NULL, OPT_CHIP },
	{ "jax", required_argument, NULL, OPT_JAX },
	{ "shape", required_argument, NULL, OPT_SHAPE },
	{ "set", required_argument, NULL, OPT_SET },
	{ "no-source", no_argument, NULL, OPT_NO_SOURCE },
	CMD_GLOBAL_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

enum check_format { FMT_TEXT, FMT_JSON, FMT_GITHUB };

struct check_args {
	enum check_format format;
	struct check_opts o;
	struct check_binding *bind;
	size_t nbind, alloc;
	bool no_source;
};

static int
add_binding(const struct cmd_entry *e, struct check_args *a, const char *arg, bool shape)
{
	const char *eq = strchr(arg, '=');
	struct check_binding *b;
	size_t n;

	if (!eq || eq == arg || !eq[1])
		return cmd_usage_error(e, "--%s takes NAME=%s, not '%s'", shape ? "shape" : "set",
				       shape ? "DIMS[:DTYPE]" : "VALUE", arg);
	for (n = 0; arg + n < eq; n++)
		if (!(arg[n] == '_' || (arg[n] >= 'a' && arg[n] <= 'z') || (arg[n] >= 'A' && arg[n] <= 'Z') ||
		      (n && arg[n] >= '0' && arg[n] <= '9')))
			return cmd_usage_error(e, "--%s: '%.*s' is not a Python name",
					       shape ? "shape" : "set", (int)(eq - arg), arg);
	XGROW(a->bind, a->alloc, a->nbind + 1);
	b = &a->bind[a->nbind++];
	b->name = xstrndup(arg, (size_t)(eq - arg));
	b->value = eq + 1;
	b->shape = shape;
	return 0;
}

static int
parse_args(int argc, char **argv, struct pt_ctx *ctx, struct check_args *a)
{
	const struct cmd_entry *e = &cmd_check_entry;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", check_options, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			a->format = FMT_JSON;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") == 0)
				a->format = FMT_TEXT;
			else if (strcmp(optarg, "json") == 0)
				a->format = FMT_JSON;
			else if (strcmp(optarg, "github") == 0)
				a->format = FMT_GITHUB;
			else
				return cmd_usage_error(e, "--format takes text, json or github, not '%s'",
						       optarg);
			break;
		case OPT_CHIP:
			a->o.chip = optarg;
			break;
		case OPT_JAX:
			a->o.jax_version = optarg;
			break;
		case OPT_SHAPE:
		case OPT_SET:
			if ((rc = add_binding(e, a, optarg, c == OPT_SHAPE)) != 0)
				return rc;
			break;
		case OPT_NO_SOURCE:
			a->no_source = true;
			break;
		default:
			if ((rc = cmd_global_option(e, ctx, c, optarg)) != 0)
				return rc;
		}
	}
	return cmd_check_args(e, argc, optind);
}

static void
release_args(struct check_args *a)
{
	for (size_t i = 0; i < a->nbind; i++)
		free((char *)a->bind[i].name);
	free(a->bind);
}

static int
status_of(const struct check_result *r)
{
	size_t e, w;

	check_counts(r, &e, &w, NULL);
	if (e || w)
		return PT_EXIT_FINDING;
	return r->np ? PT_EXIT_DATA : PT_EXIT_OK;
}

static int
cmd_check_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct check_args a;
	struct check_result r = CHECK_RESULT_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct check_print_opts po;
	int rc;

	memset(&a, 0, sizeof(a));
	if ((rc = parse_args(argc, argv, ctx, &a)) != 0) {
		release_args(&a);
		return rc;
	}
	a.o.rs = ctx->rules;
	a.o.bind = a.bind;
	a.o.nbind = a.nbind;
	for (int i = optind; i < argc; i++)
		if (check_path(&a.o, argv[i], &r, &err) < 0) {
			check_result_release(&r);
			release_args(&a);
			return pt_report(&err);
		}
	memset(&po, 0, sizeof(po));
	po.color = cmd_use_color(ctx, stdout);
	po.source_lines = !a.no_source;
	po.chip = a.o.chip;
	po.jax = a.o.jax_version;
	if (a.format == FMT_JSON) {
		struct json *j = check_json(&r, &po);

		json_print(j, stdout);
		json_free(j);
	} else if (a.format == FMT_GITHUB) {
		check_print_github(stdout, &r, getenv("GITHUB_WORKSPACE"));
	} else {
		check_print_text(stdout, stderr, &r, &po);
	}
	rc = status_of(&r);
	check_result_release(&r);
	release_args(&a);
	return rc;
}
