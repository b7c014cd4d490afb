/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage [triage] [OPTIONS] [LOG]`: classify a failure log and show
 * the evidence and the fix ladder. This is also what runs when no command
 * is named. A log is read from the file, or from stdin when LOG is `-` or
 * absent and stdin is not a terminal; a piped log is echoed as it streams
 * in, as tee would, so a program that hangs shows its last lines. With a
 * person to ask (or --answers) the edit-and-rerun loop follows
 * (walk.c: walk_loop()); otherwise the whole ladder is printed and it exits.
 */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt/advice.h"
#include "pt/buf.h"
#include "pt/check_triage.h"
#include "pt/classify.h"
#include "cmd.h"
#include "pt/diagnosis.h"
#include "pt/echo.h"
#include "pt/github.h"
#include "pt/jaxapi.h"
#include "pt/json.h"
#include "pt/rules.h"
#include "pt/session.h"
#include "pt/sha256.h"
#include "pt/term.h"
#include "logread.h"
#include "walk.h"

static int cmd_triage_run(int argc, char **argv, struct pt_ctx *ctx);

const struct cmd_entry cmd_triage_entry = {
	.name = "triage",
	.usage = "[triage] [--json | --format FMT] [--quiet] [--no-input] [--answers FILE]\n"
		 "       [--kernel FILE | --no-kernel] [--jax VERSION] [--redact] [--rules DIR] [--color WHEN] [LOG | -]",
	.summary = "classify a Pallas failure log and show the fix ladder",
	.help =
	"options:\n"
	"  --json            print one JSON object (docs/json.md) instead of text\n"
	"  --format FMT      text (default), json, or github: '::error file=...' lines\n"
	"                    that put the diagnosis on the kernel's line in GitHub Actions\n"
	"  -q, --quiet       do not echo a piped log as it streams in\n"
	"  --no-input        never ask questions; print the diagnosis and the whole ladder\n"
	"  --answers FILE    walk the ladder with the answers in FILE ('-': stdin), see docs/sessions.md\n"
	"  --kernel FILE     the kernel's source: check it (docs/check.md) and name in each rung\n"
	"                    the line to change; save FILE.pre-debug before the first attempt\n"
	"  --no-kernel       do not check the source file the log's traceback names\n"
	"  --jax VERSION     the JAX release that ran, over the one the log names: advice is\n"
	"                    spelled for it\n"
	"  --redact          mask home paths and host names in the escalation report\n"
	"  --rules DIR       use the rules in DIR\n"
	"  --color WHEN      auto (default), always or never; NO_COLOR and TERM=dumb mean never\n"
	"\n"
	"LOG is a file, or '-' for standard input; with no LOG, standard input is read\n"
	"when it is not a terminal, and a pipe is echoed as it comes (dimmed at a\n"
	"terminal), then diagnosed. When standard output is a terminal, the diagnosis is\n"
	"followed by the walk of the fix ladder, asked on /dev/tty, and the log is\n"
	"recorded in the session in .pallas-triage/: the first one starts it, each new\n"
	"one is the result of the last change (docs/sessions.md). Piped on (| less) or\n"
	"with --json, nothing is asked.\n"
	"\n"
	"exit status: 0 a Pallas failure class was identified, 1 no Pallas failure\n"
	"recognized, 2 usage error, 3 bad input data (rules, log, session), 4 system error;\n"
	"after a walk, the walk's status (docs/sessions.md); 130 interrupted while the\n"
	"piped log was still coming (what came is diagnosed)\n",
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_NEEDS_RULES,
	.run = cmd_triage_run,
};

enum { OPT_JSON = 1, OPT_ANSWERS, OPT_KERNEL, OPT_REDACT, OPT_FORMAT, OPT_JAX, OPT_NO_KERNEL };

static const struct option triage_options[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "quiet", no_argument, NULL, 'q' },
	{ "answers", required_argument, NULL, OPT_ANSWERS },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "jax", required_argument, NULL, OPT_JAX },
	{ "no-kernel", no_argument, NULL, OPT_NO_KERNEL },
	{ "redact", no_argument, NULL, OPT_REDACT },
	CMD_GLOBAL_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

enum triage_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_GITHUB };

struct triage_args {
	enum triage_format format;
	bool quiet;
	struct walk_opts wo;
	const char *path;           /* "-" for stdin */
	const char *name;           /* as shown: "<stdin>" for stdin */
	const char *jax;            /* --jax VERSION, or NULL */
	bool no_kernel;             /* --no-kernel: no source from the traceback */
	struct source_link *src;    /* the kernel's source, checked, or NULL */
};

/* ------------------------------------------------------------ output */

struct show_ctx {
	struct pt_ctx *ctx;
	const struct verdict *v;
	const char *name;
	const struct source_link *src;
};

static void
print_source(FILE *fp, void *arg, bool color)
{
	check_triage_print(fp, arg, color);
}

static void
print_text(struct pt_ctx *ctx, const struct verdict *v, const char *name, bool whole_ladder,
	   const char *why, const struct source_link *src)
{
	struct diagnosis_opts o = {
		.color = cmd_use_color(ctx, stdout),
		.whole_ladder = whole_ladder,
		.no_ladder = !whole_ladder,    /* the walk that follows shows each rung */
		.source = name,
		.extra = src ? print_source : NULL,
		.extra_arg = (void *)src,
	};
	struct wrap_out wo;

	cmd_wrap_open(&wo, stdout);
	diagnosis_print(wo.fp, ctx->rules, v, &o);
	if (why) {
		fputs("\n", wo.fp);
		term_puts_untrusted(wo.fp, why);
		fputs("\n", wo.fp);
	}
	wrap_out_close(&wo);
}

static void
show(void *arg, bool whole_ladder, const char *why)
{
	struct show_ctx *sc = arg;

	print_text(sc->ctx, sc->v, sc->name, whole_ladder, why, sc->src);
	fflush(stdout);
}

static int
verdict_status(const struct verdict *v)
{
	return v->cls == CLASS_UNKNOWN ? PT_EXIT_FINDING : PT_EXIT_OK;
}

/* Without a walk: a session in progress here does not take this log, and says so. */
static const char *
unrecorded_note(const struct pt_ctx *ctx, const struct logread *in)
{
	struct session *s = NULL;
	const char *dir = cmd_session_dir(ctx);
	bool seen;

	if (!*in->digest || !session_in_progress(dir) || session_load(dir, &s, NULL) < 0)
		return NULL;
	seen = (s->log_digest && strcmp(s->log_digest, in->digest) == 0);
	for (size_t i = 0; !seen && i < s->nattempts; i++)
		seen = s->attempts[i].log_digest && strcmp(s->attempts[i].log_digest, in->digest) == 0;
	session_free(s);
	return seen ? NULL : "this log was not recorded in the session in progress: with nobody "
	       "at a terminal to say what changed, nothing is asked; 'pallas-triage attempt "
	       "--result same|new|fixed --log LOG' records it";
}

/* ------------------------------------------------------------ the command */

static int
parse_args(int argc, char **argv, struct pt_ctx *ctx, struct triage_args *a)
{
	const struct cmd_entry *e = &cmd_triage_entry;
	struct jaxver jv;
	int c, rc;

	memset(a, 0, sizeof(*a));
	while ((c = getopt_long(argc, argv, "q", triage_options, NULL)) != -1) {
		if (c == OPT_JSON)
			a->format = FORMAT_JSON;
		else if (c == OPT_FORMAT && strcmp(optarg, "text") == 0)
			a->format = FORMAT_TEXT;
		else if (c == OPT_FORMAT && strcmp(optarg, "json") == 0)
			a->format = FORMAT_JSON;
		else if (c == OPT_FORMAT && strcmp(optarg, "github") == 0)
			a->format = FORMAT_GITHUB;
		else if (c == OPT_FORMAT)
			return cmd_usage_error(e, "--format takes text, json or github, not '%s'", optarg);
		else if (c == 'q')
			a->quiet = true;
		else if (c == OPT_ANSWERS)
			a->wo.answers = optarg;
		else if (c == OPT_KERNEL)
			a->wo.kernel = optarg;
		else if (c == OPT_JAX && jaxver_parse(optarg, &jv) < 0)
			return cmd_usage_error(e, "--jax '%s' is not a JAX release such as 0.4.35", optarg);
		else if (c == OPT_JAX)
			a->jax = optarg;
		else if (c == OPT_NO_KERNEL)
			a->no_kernel = true;
		else if (c == OPT_REDACT)
			a->wo.redact = true;
		else if ((rc = cmd_global_option(e, ctx, c, optarg)) != 0)
			return rc;
	}
	if ((rc = cmd_check_args(e, argc, optind)) != 0)
		return rc;
	if (a->no_kernel && a->wo.kernel)
		return cmd_usage_error(e, "--kernel and --no-kernel cannot both be given");
	a->path = optind < argc ? argv[optind] : "-";
	a->name = strcmp(a->path, "-") == 0 ? "<stdin>" : a->path;
	if (strcmp(a->path, "-") == 0 && optind == argc && isatty(STDIN_FILENO))
		return cmd_usage_error(e, "no log given: name a file, or pipe one in "
				       "(python k.py 2>&1 | pallas-triage)");
	if (a->wo.answers && a->format != FORMAT_TEXT)
		return cmd_usage_error(e, "--%s never walks the ladder; --answers walks it",
				       a->format == FORMAT_JSON ? "json" : "format github");
	if (a->wo.answers && strcmp(a->wo.answers, "-") == 0 && strcmp(a->path, "-") == 0)
		return cmd_usage_error(e, "the log and --answers cannot both come from standard input");
	return 0;
}

static int
print_machine(struct pt_ctx *ctx, const struct triage_args *a, const struct verdict *v);

/* The log is standard input, and that is a pipe (not a file or /dev/null). */
static bool
stdin_is_pipe(const struct triage_args *a)
{
	struct stat st;

	return strcmp(a->path, "-") == 0 && fstat(STDIN_FILENO, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* What the log came to: a diagnosis, the loop, or an error. */
static int
conclude(struct pt_ctx *ctx, struct triage_args *a, const struct logread *lr,
	 const struct verdict *v, bool walk)
{
	if (v->nbytes == 0 && !lr->interrupted && stdin_is_pipe(a)) {
		/* `python3 k.py | pallas-triage`: the traceback went to the terminal */
		fprintf(stderr, "pallas-triage: error: nothing came down the pipe: '%s' is empty\n"
			"Python writes tracebacks to standard error, and '|' carries only standard "
			"output; send both:\n"
			"  python3 your_script.py 2>&1 | pallas-triage\n"
			"or let pallas-triage run it and read both itself:\n"
			"  pallas-triage run -- python3 your_script.py\n", a->name);
		return PT_EXIT_DATA;
	}
	if (v->nbytes == 0 && !lr->interrupted) {
		fprintf(stderr, "pallas-triage: error: '%s' is empty: there is nothing to triage\n",
			a->name);
		return PT_EXIT_DATA;
	}
	if (lr->interrupted) {
		/* the log is cut short: diagnose what came, record nothing */
		print_text(ctx, v, a->name, true, "interrupted while the log was still coming: "
			   "this is what came so far, and nothing was recorded; if the program "
			   "hangs, 'pallas-triage run --timeout SECONDS -- COMMAND' stops it and "
			   "diagnoses the hang", a->src);
		return 128 + SIGINT;
	}
	if (a->format != FORMAT_TEXT)
		return print_machine(ctx, a, v);
	if (walk) {
		struct show_ctx sc = { ctx, v, a->name, a->src };
		struct session_log sl = logread_session_log(lr);

		logread_warn_cut(lr);
		a->wo.fixed_now = ctx->env.now;
		a->wo.threads = ctx->env.threads;
		a->wo.dir = cmd_session_dir(ctx);
		fflush(stdout);
		return walk_loop(ctx->rules, v, &sl, &a->wo, show, &sc);
	}
	print_text(ctx, v, a->name, true, unrecorded_note(ctx, lr), a->src);
	return verdict_status(v);
}

static int
print_machine(struct pt_ctx *ctx, const struct triage_args *a, const struct verdict *v)
{
	struct json *j;

	if (a->format == FORMAT_GITHUB) {
		/* GitHub checks out the repository there: paths become the repo's */
		github_annotate(stdout, ctx->rules, v, a->name, getenv("GITHUB_WORKSPACE"), false);
		return verdict_status(v);
	}
	j = diagnosis_json(ctx->rules, v, a->name);
	if (a->src)
		check_triage_json(j, a->src);
	json_print(j, stdout);
	json_free(j);
	return verdict_status(v);
}

/*
 * Check the kernel's source: --kernel FILE, or the file the traceback names
 * when it is under the working directory (said in the output). Returns -1
 * when the rules cannot check at all (the error is printed).
 */
static int
link_source(struct pt_ctx *ctx, struct triage_args *a, struct verdict *v, struct source_link *src)
{
	struct pt_err err = PT_ERR_INIT;
	char *found = NULL;
	const char *path = a->wo.kernel, *how = "--kernel";
	int rc = 0;

	if (v->nbytes == 0 || !ctx->rules->checks)
		return 0;
	if (!path && !a->no_kernel && (found = check_triage_find(v, "."))) {
		path = found;
		how = "traceback";
	}
	if (path) {
		if (check_triage_link(ctx->rules, v, path, how, src, &err) < 0) {
			pt_report(&err);
			rc = -1;
		} else {
			a->src = src;
		}
	}
	free(found);
	return rc;
}

static int
cmd_triage_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct pt_err err = PT_ERR_INIT;
	struct triage_args a;
	struct known_ctx known;
	struct logread lr;
	struct verdict v;
	struct source_link src = SOURCE_LINK_INIT;
	bool walk;
	int rc;

	if ((rc = parse_args(argc, argv, ctx, &a)) != 0)
		return rc;
	/* JSON and CI annotations are for programs: nobody is there to answer */
	walk = a.format == FORMAT_TEXT && (a.wo.answers || walk_interactive(ctx->no_input, stdout));
	logread_init(&lr);
	lr.path = a.path;
	lr.name = a.name;
	/* the echo is for people: programs reading JSON or annotations want the answer */
	lr.echo_to = a.quiet || a.format != FORMAT_TEXT ? NULL : stdout;
	lr.keep = walk || session_exists(cmd_session_dir(ctx));
	/* a session in progress knows the program this log is the next run of */
	known_ctx_init(&known, ctx, a.wo.kernel, true);
	lr.jax = a.jax;
	rc = logread_run(&lr, ctx, &known.sk.k, &v, &err);
	known_ctx_release(&known);
	if (rc < 0) {
		logread_release(&lr);
		return pt_report(&err);
	}
	if (lr.echoed)
		fputc('\n', stdout);
	if (link_source(ctx, &a, &v, &src) < 0) {
		logread_release(&lr);
		verdict_release(&v);
		return PT_EXIT_DATA;
	}
	rc = conclude(ctx, &a, &lr, &v, walk);
	logread_release(&lr);
	verdict_release(&v);
	source_link_release(&src);
	return rc;
}
