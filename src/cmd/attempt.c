/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage attempt`: record one step of the walk without a prompt,
 * for agents and CI. Every interactive answer has a flag here: --interpret
 * for the interpret-mode question, --result (with --rung, --change, --log)
 * for a rung. The session is locked for the whole load-change-save cycle.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "logread.h"
#include "pt/session.h"
#include "pt/session_kernel.h"
#include "pt/sha256.h"
#include "pt/session_print.h"
#include "pt/term.h"
#include "pt/xalloc.h"

static int cmd_attempt_run(int argc, char **argv, struct pt_ctx *ctx);

const struct cmd_entry cmd_attempt_entry = {
	.name = "attempt",
	.usage = "attempt [--rung ID] [--change TEXT] --result fixed|same|new|n-a [--log FILE]\n"
		 "       [--interpret yes|no|skip] [--redact] [--json]",
	.summary = "record an attempt on the fix ladder (the walk, without prompts)",
	.help =
	"options:\n"
	"  --rung ID          the rung tried (default: the next one; 'custom' for an\n"
	"                     attempt off the ladder, which needs --change)\n"
	"  --change TEXT      what was changed (default: the rung's suggested change)\n"
	"  --result R         fixed, same, new (a different error) or n-a (the rung does\n"
	"                     not apply; no attempt is used)\n"
	"  --log FILE         the log the change gave ('-': stdin, kept in the session):\n"
	"                     classified with what the session knows, its numbers are\n"
	"                     the next rung's; a log the session has is not recorded again\n"
	"  --interpret ANS    answer the interpret-mode question: yes, no or skip\n"
	"  --redact           mask home paths and host names in a report written now\n"
	"  --json             print the session status as JSON\n"
	"\n"
	"The same error 3 times in a row moves on to the next family of rungs. Attempt 10,\n"
	"or no rung left, stops the walk and writes pallas-triage-report.md and .json.\n"
	"exit status: 0 recorded (the walk goes on, or it is fixed), 1 the walk stopped\n"
	"without a fix (report written), the session is already closed, or there is no\n"
	"session, 2 usage error, 3 unreadable log or corrupt session, 4 locked or I/O error\n",
	.min_args = 0, .max_args = 0, .flags = CMD_NEEDS_RULES, .run = cmd_attempt_run,
};

enum { OPT_RUNG = 1, OPT_CHANGE, OPT_RESULT, OPT_LOG, OPT_INTERPRET, OPT_REDACT, OPT_JSON };

static const struct option attempt_options[] = {
	{ "rung", required_argument, NULL, OPT_RUNG },
	{ "change", required_argument, NULL, OPT_CHANGE },
	{ "result", required_argument, NULL, OPT_RESULT },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "interpret", required_argument, NULL, OPT_INTERPRET },
	{ "redact", no_argument, NULL, OPT_REDACT },
	{ "json", no_argument, NULL, OPT_JSON },
	CMD_GLOBAL_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

struct attempt_args {
	struct attempt_in in;
	bool have_result, redact, json;
	enum interp_answer interp;
};

static int
parse_args(int argc, char **argv, struct pt_ctx *ctx, struct attempt_args *a)
{
	const struct cmd_entry *e = &cmd_attempt_entry;
	int c, rc;

	memset(a, 0, sizeof(*a));
	while ((c = getopt_long(argc, argv, "", attempt_options, NULL)) != -1) {
		if (c == OPT_RUNG)
			a->in.rung = optarg;
		else if (c == OPT_CHANGE)
			a->in.change = optarg;
		else if (c == OPT_LOG)
			a->in.log = optarg;
		else if (c == OPT_REDACT)
			a->redact = true;
		else if (c == OPT_JSON)
			a->json = true;
		else if (c == OPT_RESULT && attempt_result_parse(optarg, &a->in.result) == 0)
			a->have_result = true;
		else if (c == OPT_RESULT)
			return cmd_usage_error(e, "--result takes fixed, same, new or n-a, not '%s'", optarg);
		else if (c == OPT_INTERPRET && (interp_answer_parse(optarg, &a->interp) < 0 ||
						a->interp == INTERP_UNASKED))
			return cmd_usage_error(e, "--interpret takes yes, no or skip, not '%s'", optarg);
		else if (c != OPT_INTERPRET && (rc = cmd_global_option(e, ctx, c, optarg)) != 0)
			return rc;
	}
	if ((rc = cmd_check_args(e, argc, optind)) != 0)
		return rc;
	if (!a->have_result && a->interp == INTERP_UNASKED)
		return cmd_usage_error(e, "say what happened: --result R, or --interpret ANS");
	if (!a->have_result && (a->in.rung || a->in.change || a->in.log))
		return cmd_usage_error(e, "--rung, --change and --log go with --result");
	if (a->in.log && a->in.result == RESULT_NA)
		return cmd_usage_error(e, "--log goes with a result: n-a uses no attempt, so no "
				       "log belongs to it");
	return 0;
}

static void
print_json_text(char *text)
{
	fputs(text, stdout);
	free(text);
}

/* What changed, when the walk stood on no ladder and nobody said. */
#define CHANGE_UNSTATED "not stated (no rung was shown: the log before showed no failure " \
	"the rules know)"

/* Which of s's logs has this digest: "its first log", "attempt N's log"; NULL: none. */
static char *
log_seen(const struct session *s, const char *digest)
{
	if (!*digest)
		return NULL;
	if (s->log_digest && strcmp(s->log_digest, digest) == 0)
		return xstrdup("its first log");
	for (size_t i = 0; i < s->nattempts; i++)
		if (s->attempts[i].log_digest && strcmp(s->attempts[i].log_digest, digest) == 0)
			return xasprintf("the log of attempt %d", s->attempts[i].n);
	return NULL;
}

/*
 * Read --log with what the session knows; keep a copy of it in the session
 * (a pipe cannot be read again, and a file such as run.log is rewritten by
 * the next run, so the report could not show what this attempt printed).
 * Returns 1 when the session has this log
 * already (nothing is to be recorded; nw says so), 0 when nv is filled.
 */
static int
read_log(struct session_txn *t, const struct pt_ctx *ctx, struct attempt_args *a,
	 struct logread *lr, struct verdict *nv, struct session_news *nw, char **kept,
	 struct pt_err *err)
{
	struct session_known sk;
	char *seen;
	int rc;

	lr->path = a->in.log;
	lr->name = strcmp(a->in.log, "-") == 0 ? "<stdin>" : a->in.log;
	lr->keep = true;
	lr->keep_files = true;
	session_known_init(&sk, t->s, ctx->rules, NULL);
	rc = logread_run(lr, ctx, &sk.k, nv, err);
	session_known_release(&sk);
	if (rc < 0)
		return -1;
	if ((seen = log_seen(t->s, lr->digest))) {
		session_news_add(nw, "this log is already in the session (%s): nothing was "
				 "recorded", seen);
		free(seen);
		verdict_release(nv);
		return 1;
	}
	logread_warn_cut(lr);
	if (session_txn_save_log(t, NULL, lr->kept.data, lr->kept.len, kept, NULL, err) == 0) {
		a->in.log = *kept;
	} else if (strcmp(a->in.log, "-") == 0) {
		verdict_release(nv);
		return -1;
	} else {
		/* the file is still there to point at */
		pt_warn("%s; the attempt points at '%s' instead", err->msg, a->in.log);
		*err = (struct pt_err)PT_ERR_INIT;
	}
	a->in.log_digest = lr->digest;
	return 0;
}

/* *kept gets the copy of --log kept in the session, if one was (free()). */
static int
record(struct session_txn *t, const struct pt_ctx *ctx, struct attempt_args *a,
       struct session_news *nw, char **kept, struct pt_err *err)
{
	const struct ruleset *rs = ctx->rules;
	struct session *s = t->s;
	struct logread lr;
	struct verdict nv;
	bool have = false;
	size_t before;
	int rc = -1;

	if (s->status != SESSION_IN_PROGRESS)
		return pt_err_set(err, PT_EXIT_FINDING, "the session is %s after %zu attempt%s: "
				  "nothing more is recorded; see 'pallas-triage report', or start "
				  "over with 'pallas-triage session reset'",
				  session_status_name(s->status), s->nattempts,
				  s->nattempts == 1 ? "" : "s");
	if (a->interp != INTERP_UNASKED && session_interpret(s, rs, a->interp, nw, err) < 0)
		return -1;
	if (!a->have_result) {
		session_check_exhausted(s, rs, nw);
		return 0;
	}
	if (!a->in.rung) {
		if (!(a->in.rung = session_default_rung(s, rs)))   /* borrowed from rs */
			return pt_err_set(err, PT_EXIT_USAGE, "no rung is left to try: name one "
					  "with --rung, or use --rung custom");
		if (strcmp(a->in.rung, SESSION_RUNG_CUSTOM) == 0 && !a->in.change)
			a->in.change = CHANGE_UNSTATED;
	}
	logread_init(&lr);
	if (a->in.log) {
		int got = read_log(t, ctx, a, &lr, &nv, nw, kept, err);

		if (got != 0) {
			rc = got < 0 ? -1 : 0;
			goto out;
		}
		have = true;
	}
	before = s->nattempts;
	rc = session_record(s, rs, &a->in, have ? &nv : NULL, session_txn_now(t), nw, err);
	if (rc >= 0 && s->nattempts > before)
		session_kernel_recheck(t, rs);
out:
	if (have)
		verdict_release(&nv);
	logread_release(&lr);
	return rc;
}

static void
print_outcome(const struct session *s, const struct ruleset *rs, const struct session_news *nw,
	      size_t before)
{
	struct wrap_out wo;

	cmd_wrap_open(&wo, stdout);
	if (s->nattempts > before) {
		const struct attempt *t = &s->attempts[s->nattempts - 1];

		fprintf(wo.fp, "recorded attempt %d of %d: %s: %s\n", t->n, SESSION_ATTEMPT_CAP,
			t->rung, attempt_result_name(t->result));
	}
	session_print_news(wo.fp, nw);
	session_print_next(wo.fp, s, rs, nw);
	session_print_closing(wo.fp, s);
	wrap_out_close(&wo);
}

static int
cmd_attempt_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct pt_err err = PT_ERR_INIT;
	struct session_news nw = SESSION_NEWS_INIT;
	struct session_txn t = SESSION_TXN_INIT;
	struct attempt_args a;
	const struct rung **plan = NULL;
	char *kept = NULL;
	size_t before, n;
	int rc;

	if ((rc = parse_args(argc, argv, ctx, &a)) != 0)
		return rc;
	if (session_open_locked(&t, cmd_session_dir(ctx), ctx->env.now, &err) < 0)
		goto fail;
	before = t.s->nattempts;
	rc = record(&t, ctx, &a, &nw, &kept, &err);
	if (rc >= 0)
		rc = session_commit(&t, ctx->rules, a.redact, &err);
	/* a copy of --log that no saved attempt names is not left behind */
	if (kept && (rc < 0 || t.s->nattempts == before))
		session_txn_drop_log(&t, kept);
	free(kept);
	if (rc < 0)
		goto fail;
	if (a.json) {
		n = session_plan(t.s, ctx->rules, &plan);
		print_json_text(session_status_json(t.s, ctx->rules, plan, n, &nw));
		free(plan);
	} else {
		print_outcome(t.s, ctx->rules, &nw, before);
	}
	rc = t.s->status == SESSION_BLOCKED ? PT_EXIT_FINDING : PT_EXIT_OK;
	goto out;
fail:
	rc = pt_report(&err);
out:
	session_news_release(&nw);
	session_txn_release(&t);
	return rc;
}
