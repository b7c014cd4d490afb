/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage session start|status|resume|log|reset`: the debugging
 * session kept in .pallas-triage/ of the working directory. `start` is the
 * non-interactive way in (agents, CI); `resume` goes back to the
 * interactive walk. Reading commands take no lock: saves are atomic renames,
 * so a reader sees the old or the new file, never half of one.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "logread.h"
#include "pt/jaxapi.h"
#include "walk.h"
#include "pt/session.h"
#include "pt/session_print.h"
#include "pt/term.h"
#include "pt/util.h"
#include "pt/xalloc.h"

static int session_start_run(int argc, char **argv, struct pt_ctx *ctx);
static int session_status_run(int argc, char **argv, struct pt_ctx *ctx);
static int session_resume_run(int argc, char **argv, struct pt_ctx *ctx);
static int session_log_run(int argc, char **argv, struct pt_ctx *ctx);
static int session_reset_run(int argc, char **argv, struct pt_ctx *ctx);
static int session_restore_run(int argc, char **argv, struct pt_ctx *ctx);

#define SESSION_EXIT_HELP \
	"exit status: 0 done, 1 no session here (or it is closed), 2 usage error,\n" \
	"3 corrupt session file (kept; see 'session reset'), 4 locked or I/O error\n"

static const struct cmd_entry session_start_entry = {
	.name = "start",
	.usage = "session start [--kernel FILE] [--jax VERSION] [--interpret yes|no|skip] [--json] LOG|-",
	.summary = "classify LOG and open a session without asking anything",
	.help =
	"options:\n"
	"  --kernel FILE      save FILE.pre-debug first (an existing copy is never replaced)\n"
	"  --jax VERSION      the JAX release that ran, over the one the log names\n"
	"  --interpret ANS    does the failure reproduce under interpret mode: yes, no, skip\n"
	"  --json             print the session status as JSON\n"
	"\n"
	"A session in progress for the same failure is resumed; any other session is\n"
	"moved to .pallas-triage/archive/ first.\n"
	"exit status: 0 session open, 1 it stopped at once (no rung applies), 2 usage\n"
	"error, 3 unreadable log or corrupt session, 4 locked or I/O error\n",
	/* it sets another session aside: a typo is never taken to mean it */
	.min_args = 1, .max_args = 1, .flags = CMD_NEEDS_RULES | CMD_DESTRUCTIVE,
	.run = session_start_run,
};

static const struct cmd_entry session_status_entry = {
	.name = "status",
	.usage = "session status [--json]",
	.summary = "where the walk stands: attempts used, class, ruled out, next rung",
	.help = SESSION_EXIT_HELP,
	.min_args = 0, .max_args = 0, .flags = CMD_NEEDS_RULES, .run = session_status_run,
};

static const struct cmd_entry session_resume_entry = {
	.name = "resume",
	.usage = "session resume [--answers FILE] [--redact] [--json]",
	.summary = "go back to the interactive walk where it stopped",
	.help =
	"options:\n"
	"  --answers FILE     read the answers from FILE ('-': stdin), not the terminal\n"
	"  --redact           mask home paths and host names in the report\n"
	"  --json             talk on stderr (stdout stays free)\n"
	"\n"
	"exit status: 0 fixed or saved, 1 stopped without a fix (report written) or no\n"
	"session, 2 no terminal and no --answers, 3 corrupt session, 4 locked or I/O\n"
	"error, 128+N stopped by signal N (130: Ctrl-C); the session is saved\n",
	.min_args = 0, .max_args = 0, .flags = CMD_NEEDS_RULES, .run = session_resume_run,
};

static const struct cmd_entry session_log_entry = {
	.name = "log",
	.usage = "session log [--json]",
	.summary = "every attempt: rung, what changed, result, class after",
	.help = SESSION_EXIT_HELP,
	.min_args = 0, .max_args = 0, .run = session_log_run,
};

static const struct cmd_entry session_reset_entry = {
	.name = "reset",
	.usage = "session reset",
	.summary = "move the session to .pallas-triage/archive/ and start over",
	.help = "Works on a corrupt session file too. Pre-debug copies are left alone.\n"
		"exit status: 0 done (also when there was no session), 4 I/O error\n",
	.min_args = 0, .max_args = 0, .flags = CMD_DESTRUCTIVE, .run = session_reset_run,
};

static const struct cmd_entry session_restore_entry = {
	.name = "restore",
	.usage = "session restore [N]",
	.summary = "bring back archived session N (default: the latest)",
	.help = "The session in its place, if any, is archived first, so nothing is lost;\n"
		"'ls .pallas-triage/archive' lists them.\n"
		"exit status: 0 restored, 1 no such archived session, 2 usage error, 3 it is\n"
		"corrupt (it stays in the archive), 4 locked or I/O error\n",
	.min_args = 0, .max_args = 1, .flags = CMD_DESTRUCTIVE, .run = session_restore_run,
};

static const struct cmd_entry *const session_sub[] = {
	&session_log_entry,
	&session_reset_entry,
	&session_restore_entry,
	&session_resume_entry,
	&session_start_entry,
	&session_status_entry,
	NULL,
};

const struct cmd_entry cmd_session_entry = {
	.name = "session",
	.usage = "session COMMAND [ARGS]",
	.summary = "start, inspect, resume or reset the debugging session",
	.flags = CMD_GROUP,
	.sub = session_sub,
};

enum { OPT_JSON = 1, OPT_KERNEL, OPT_INTERPRET, OPT_ANSWERS, OPT_REDACT, OPT_JAX };

static const struct option session_options[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "interpret", required_argument, NULL, OPT_INTERPRET },
	{ "answers", required_argument, NULL, OPT_ANSWERS },
	{ "redact", no_argument, NULL, OPT_REDACT },
	{ "jax", required_argument, NULL, OPT_JAX },
	CMD_GLOBAL_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

struct session_args {
	bool json, redact;
	const char *kernel, *interpret, *answers, *jax;
};

/* Parse the options; `allowed` lists the OPT_* codes e accepts. */
static int
parse(const struct cmd_entry *e, int argc, char **argv, struct pt_ctx *ctx,
      struct session_args *a, unsigned allowed)
{
	int c, rc, idx = 0;

	memset(a, 0, sizeof(*a));
	while ((c = getopt_long(argc, argv, "", session_options, &idx)) != -1) {
		if (c >= OPT_JSON && c <= OPT_JAX && !(allowed & (1u << c)))
			return cmd_usage_error(e, "'session %s' has no option '--%s'", e->name,
					       session_options[idx].name);
		switch (c) {
		case OPT_JSON: a->json = true; break;
		case OPT_KERNEL: a->kernel = optarg; break;
		case OPT_INTERPRET: a->interpret = optarg; break;
		case OPT_ANSWERS: a->answers = optarg; break;
		case OPT_REDACT: a->redact = true; break;
		case OPT_JAX: a->jax = optarg; break;
		default:
			if ((rc = cmd_global_option(e, ctx, c, optarg)) != 0)
				return rc;
		}
	}
	return cmd_check_args(e, argc, optind);
}

#define ALLOW(x) (1u << (x))

static int
print_json(char *text)
{
	fputs(text, stdout);
	free(text);
	return 0;
}

/* One line "label value\n": the value comes from the session file or names a
 * file (a log named with escape sequences must not reach the terminal raw). */
static void
put_line(FILE *out, const char *label, const char *value)
{
	fputs(label, out);
	term_puts_untrusted(out, value);
	fputc('\n', out);
}

/* A label holds the subkind, which comes from the session file. */
static void
put_class(FILE *out, enum pt_class c, const char *subkind)
{
	char *lab = class_label(c, subkind);

	term_puts_untrusted(out, lab);
	free(lab);
}

/* The text form of `session status`; also printed after `session start`. */
static void
print_status(FILE *out, const struct session *s, const struct ruleset *rs)
{
	fprintf(out, "session: %s, %zu of %d attempts used\n", session_status_name(s->status),
		s->nattempts, SESSION_ATTEMPT_CAP);
	fputs("failure: ", out);
	put_class(out, s->first.cls, s->first.subkind);
	fputs(" from ", out);
	term_puts_untrusted(out, s->log);
	if (s->log_saved) {
		fputs(" (kept as ", out);
		term_puts_untrusted(out, s->log_saved);
		fputc(')', out);
	}
	if (s->first.fingerprint) {
		fputs(" (fingerprint ", out);
		term_puts_untrusted(out, s->first.fingerprint);
		fputc(')', out);
	}
	fputs("\nnow: ", out);
	put_class(out, s->cls, s->subkind);
	fprintf(out, "\ninterpret mode: %s\n", interp_answer_name(s->interp));
	for (size_t i = 0; i < s->nruled; i++) {
		fputs("ruled out: ", out);
		put_class(out, s->ruled[i].cls, s->ruled[i].subkind);
		put_line(out, ": ", s->ruled[i].reason);
	}
	if (s->nattempts) {
		const struct attempt *a = &s->attempts[s->nattempts - 1];

		fprintf(out, "last attempt: %d. ", a->n);
		term_puts_untrusted(out, a->rung);
		fprintf(out, ": %s\n", attempt_result_name(a->result));
	}
	if (s->same_streak)
		fprintf(out, "same error %d time%s in a row (%d moves on to the next family)\n",
			s->same_streak, s->same_streak == 1 ? "" : "s", SESSION_SAME_LIMIT);
	if (s->pre_debug)
		put_line(out, "pre-debug copy: ", s->pre_debug);
	if (s->report_md) {
		fputs("report: ", out);
		term_puts_untrusted(out, s->report_md);
		put_line(out, ", ", s->report_json);
	}
	session_print_next(out, s, rs, NULL);
}

static int
print_result(FILE *out, const struct session *s, const struct ruleset *rs,
	     const struct session_news *nw, bool json)
{
	const struct rung **plan = NULL;
	size_t n = session_plan(s, rs, &plan);

	if (json)
		print_json(session_status_json(s, rs, plan, n, nw));
	else
		print_status(out, s, rs);
	free(plan);
	return 0;
}

static int
session_start_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct pt_err err = PT_ERR_INIT;
	struct session_news nw = SESSION_NEWS_INIT;
	struct session_txn t = SESSION_TXN_INIT;
	struct session_opened opened = { 0 };
	struct session_args a;
	struct wrap_out wo;
	struct known_ctx known;
	struct logread lr;
	struct session_log sl;
	struct verdict v;
	enum interp_answer ans = INTERP_UNASKED;
	struct jaxver jv;
	int rc;
	bool have_v = false;

	if ((rc = parse(&session_start_entry, argc, argv, ctx, &a,
			ALLOW(OPT_JSON) | ALLOW(OPT_KERNEL) | ALLOW(OPT_INTERPRET) | ALLOW(OPT_JAX))) != 0)
		return rc;
	if (a.jax && jaxver_parse(a.jax, &jv) < 0)
		return cmd_usage_error(&session_start_entry, "--jax '%s' is not a JAX release such as "
				       "0.4.35", a.jax);
	if (a.interpret && (interp_answer_parse(a.interpret, &ans) < 0 || ans == INTERP_UNASKED))
		return cmd_usage_error(&session_start_entry, "--interpret takes yes, no or skip, "
				       "not '%s'", a.interpret);
	logread_init(&lr);
	lr.path = argv[optind];
	lr.name = strcmp(argv[optind], "-") == 0 ? "<stdin>" : argv[optind];
	lr.keep = true;
	/* a start reads its log alone: it begins, or resumes, by this log's failure */
	known_ctx_init(&known, ctx, a.kernel, false);
	lr.jax = a.jax;
	rc = logread_run(&lr, ctx, &known.sk.k, &v, &err);
	known_ctx_release(&known);
	if (rc < 0) {
		logread_release(&lr);
		return pt_report(&err);
	}
	have_v = true;
	cmd_wrap_open(&wo, a.json ? stderr : stdout);
	sl = logread_session_log(&lr);
	logread_warn_cut(&lr);
	if (session_open_for(&t, ctx->rules, cmd_session_dir(ctx), &v, &sl, a.kernel, ctx->env.now,
			     &opened, &err) < 0)
		goto fail;
	session_print_opened(wo.fp, cmd_session_dir(ctx), t.s, &opened);
	if (ans != INTERP_UNASKED && t.s->interp == INTERP_UNASKED &&
	    session_interpret(t.s, ctx->rules, ans, &nw, &err) < 0)
		goto fail;
	session_check_exhausted(t.s, ctx->rules, &nw);
	if (session_commit(&t, ctx->rules, false, &err) < 0)
		goto fail;
	if (!a.json)
		session_print_news(wo.fp, &nw);
	wrap_out_flush(&wo);
	print_result(wo.fp, t.s, ctx->rules, &nw, a.json);
	if (!a.json)
		session_print_closing(wo.fp, t.s);
	rc = t.s->status == SESSION_BLOCKED ? PT_EXIT_FINDING : PT_EXIT_OK;
	goto out;
fail:
	wrap_out_flush(&wo);
	rc = pt_report(&err);
out:
	wrap_out_close(&wo);
	session_news_release(&nw);
	session_opened_release(&opened);
	session_txn_release(&t);
	logread_release(&lr);
	if (have_v)
		verdict_release(&v);
	return rc;
}

static int
session_status_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct pt_err err = PT_ERR_INIT;
	struct wrap_out wo;
	struct session_args a;
	struct session *s = NULL;
	int rc;

	if ((rc = parse(&session_status_entry, argc, argv, ctx, &a, ALLOW(OPT_JSON))) != 0)
		return rc;
	if (session_load(cmd_session_dir(ctx), &s, &err) < 0)
		return pt_report(&err);
	cmd_wrap_open(&wo, stdout);
	print_result(wo.fp, s, ctx->rules, NULL, a.json);
	wrap_out_close(&wo);
	session_free(s);
	return PT_EXIT_OK;
}

static int
session_resume_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct session_args a;
	struct walk_opts o = { 0 };
	int rc;

	if ((rc = parse(&session_resume_entry, argc, argv, ctx, &a,
			ALLOW(OPT_JSON) | ALLOW(OPT_ANSWERS) | ALLOW(OPT_REDACT))) != 0)
		return rc;
	o.answers = a.answers;
	o.redact = a.redact;
	o.json = a.json;
	o.fixed_now = ctx->env.now;
	o.threads = ctx->env.threads;
	o.dir = cmd_session_dir(ctx);
	if (!a.answers && !walk_interactive(ctx->no_input, a.json ? stderr : stdout))
		return cmd_usage_error(&session_resume_entry, "no terminal to ask on: give "
				       "--answers FILE, or record attempts with 'pallas-triage attempt'");
	return walk_resume(ctx->rules, &o);
}

/* A session file is data a user (or anyone) may have edited: escape it. */
static void
put(const char *text)
{
	if (text)
		term_put_untrusted(stdout, text, strlen(text));
}

static void
print_log(const struct session *s)
{
	fputs("session for ", stdout);
	put(s->log);
	if (s->log_saved) {
		fputs(" (kept as ", stdout);
		put(s->log_saved);
		fputc(')', stdout);
	}
	printf(": %s, %zu of %d attempts used\n", session_status_name(s->status), s->nattempts,
	       SESSION_ATTEMPT_CAP);
	for (size_t i = 0; i < s->nattempts; i++) {
		const struct attempt *t = &s->attempts[i];

		printf("%d. ", t->n);
		put(t->rung);
		printf(": %s -> ", attempt_result_name(t->result));
		put_class(stdout, t->cls_after, t->subkind_after);
		fputs("\n   changed: ", stdout);
		put(t->change);
		if (t->log) {
			fputs("\n   log: ", stdout);
			put(t->log);
		}
		if (t->note) {
			fputs("\n   note: ", stdout);
			put(t->note);
		}
		fputs("\n   at: ", stdout);
		put(t->time);
		fputc('\n', stdout);
	}
	for (size_t i = 0; i < s->nskipped; i++) {
		fputs("skipped as not applicable: ", stdout);
		put(s->skipped[i].rung);
		putchar('\n');
	}
	fputs("trajectory:", stdout);
	for (size_t i = 0; i < s->ntraj; i++) {
		fputs(i ? " -> " : " ", stdout);
		put_class(stdout, s->traj[i].cls, s->traj[i].subkind);
		fputs(" (", stdout);
		put(s->traj[i].why);
		putchar(')');
	}
	putchar('\n');
}

static int
session_log_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct pt_err err = PT_ERR_INIT;
	struct session_args a;
	struct session *s = NULL;
	int rc;

	if ((rc = parse(&session_log_entry, argc, argv, ctx, &a, ALLOW(OPT_JSON))) != 0)
		return rc;
	if (session_load(cmd_session_dir(ctx), &s, &err) < 0)
		return pt_report(&err);
	if (a.json)
		print_json(session_log_json(s));
	else
		print_log(s);
	session_free(s);
	return PT_EXIT_OK;
}

static int
session_reset_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct pt_err err = PT_ERR_INIT;
	struct session_args a;
	char *arch = NULL;
	int rc, lock;

	if ((rc = parse(&session_reset_entry, argc, argv, ctx, &a, 0)) != 0)
		return rc;
	if (!session_exists(cmd_session_dir(ctx))) {
		printf("no session in %s: nothing to reset\n", cmd_session_dir(ctx));
		return PT_EXIT_OK;
	}
	if ((lock = session_lock(cmd_session_dir(ctx), &err)) < 0)
		return pt_report(&err);
	rc = session_archive(cmd_session_dir(ctx), &arch, &err);
	session_unlock(lock);
	if (rc < 0)
		return pt_report(&err);
	printf("the session is moved to %s; the next 'pallas-triage LOG' starts a new one "
	       "('pallas-triage session restore' brings it back)\n", arch);
	free(arch);
	return PT_EXIT_OK;
}

static int
session_restore_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct pt_err err = PT_ERR_INIT;
	struct session_args a;
	const char *dir = cmd_session_dir(ctx);
	char *restored = NULL, *archived = NULL, *end;
	long n = 0;
	int rc, lock;

	if ((rc = parse(&session_restore_entry, argc, argv, ctx, &a, 0)) != 0)
		return rc;
	if (optind < argc && ((n = strtol(argv[optind], &end, 10)) <= 0 || *end))
		return cmd_usage_error(&session_restore_entry, "N is the number of an archived "
				       "session (archive/session-N.json), not '%s'", argv[optind]);
	if (!util_is_dir(dir)) {
		fprintf(stderr, "pallas-triage: error: no session directory '%s': nothing to "
			"restore\n", dir);
		return PT_EXIT_FINDING;
	}
	if ((lock = session_lock(dir, &err)) < 0)
		return pt_report(&err);
	rc = session_restore(dir, n, &restored, &archived, &err);
	session_unlock(lock);
	if (rc == 0) {
		printf("restored %s", restored);
		if (archived)
			printf("; the session that was here is kept as %s", archived);
		putchar('\n');
	}
	free(restored);
	free(archived);
	return rc < 0 ? pt_report(&err) : PT_EXIT_OK;
}
