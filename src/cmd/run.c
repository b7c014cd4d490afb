/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage run [OPTIONS] [--] COMMAND [ARGS...]`: run the user's repro
 * command, show its output as it comes, and classify it together with what
 * only a run can show: a hang (--timeout), a death by signal, outcomes that
 * change between runs (--repeat) and how the error depends on the matmul
 * precision (--sweep-precision). When a session is in progress the run is
 * recorded as an attempt (the sweep instead adds to the ruled-out list).
 *
 * Deliberate choices: the session is locked for the whole run, so that "the
 * previous attempt" cannot change under us and a locked session fails before
 * a long run rather than after it; a run that is interrupted, or a command
 * that cannot be started, records nothing. Spawning lives in runner.c, the
 * sequence of runs in run_series.c, the judging in run_eval.c, what is
 * printed of the runs in run_report.c, and the session change is one
 * transaction of the session store; docs/run.md is the user's documentation.
 */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt/buf.h"
#include "pt/advice.h"
#include "pt/classify.h"
#include "cmd.h"
#include "pt/diagnosis.h"
#include "pt/json.h"
#include "pt/ladder.h"
#include "pt/rules.h"
#include "pt/run_eval.h"
#include "pt/run_report.h"
#include "pt/run_series.h"
#include "pt/runner.h"
#include "pt/session.h"
#include "pt/session_kernel.h"
#include "pt/session_print.h"
#include "pt/term.h"
#include "pt/util.h"

static int cmd_run_run(int argc, char **argv, struct pt_ctx *ctx);

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.usage = "run [--timeout S] [--grace S] [--repeat N | --sweep-precision] [--stdin] [--quiet]\n"
		 "       [--json] [--no-record] [--rung ID] [--change TEXT] [--] COMMAND [ARGS...]",
	.summary = "run the repro command, classify its output, record the attempt",
	.help =
	"options:\n"
	"  --timeout S        stop the command (its whole process group: SIGTERM, then\n"
	"                     SIGKILL after the grace period) if it runs longer than S\n"
	"                     seconds, and report a hang (synchronization evidence);\n"
	"                     default 1800, 0 waits for ever\n"
	"  --grace S          seconds between SIGTERM and SIGKILL (default 5)\n"
	"  --repeat N         run N times and compare exit status, failure and numbers:\n"
	"                     results that change point to a race\n"
	"  --sweep-precision  run under JAX_DEFAULT_MATMUL_PRECISION=default, high and\n"
	"                     highest: precision policy or logic bug\n"
	"  --stdin            let the command read our standard input (default: /dev/null)\n"
	"  -q, --quiet        do not echo the command's output\n"
	"  --json             print one JSON object (the diagnosis plus a \"run\" member);\n"
	"                     the command's output goes to standard error\n"
	"  --no-record        do not record anything in the session\n"
	"  --rung ID          the rung this run tries (default: the session's next rung)\n"
	"  --change TEXT      what was changed (default: not stated; with --rung, the\n"
	"                     rung's suggested change)\n"
	"\n"
	"The command runs directly, without a shell. In a session in progress each run\n"
	"(or --repeat series) is recorded as an attempt: fixed, same or new; a run that\n"
	"gives the same failure again without --change or --rung is no attempt (nothing\n"
	"was said to have changed) and records nothing. Ctrl-C stops the command,\n"
	"records nothing and diagnoses what it printed.\n"
	"exit status: 0 the command passed (exit 0, no failure evidence) in every run,\n"
	"1 it failed in some run (diagnosis printed), 2 usage error, 3 bad rules or a\n"
	"corrupt session, 4 the command cannot be started, the session is locked, or\n"
	"I/O error, 128+N interrupted by signal N (130: Ctrl-C; what came is diagnosed)\n",
	.min_args = 1,
	.max_args = -1,
	.run = cmd_run_run,
};

enum {
	OPT_TIMEOUT = 1, OPT_GRACE, OPT_REPEAT, OPT_SWEEP, OPT_STDIN, OPT_JSON, OPT_NO_RECORD,
	OPT_RUNG, OPT_CHANGE,
};

static const struct option run_options[] = {
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "grace", required_argument, NULL, OPT_GRACE },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "sweep-precision", no_argument, NULL, OPT_SWEEP },
	{ "stdin", no_argument, NULL, OPT_STDIN },
	{ "quiet", no_argument, NULL, 'q' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "no-record", no_argument, NULL, OPT_NO_RECORD },
	{ "rung", required_argument, NULL, OPT_RUNG },
	{ "change", required_argument, NULL, OPT_CHANGE },
	{ "help", no_argument, NULL, 'h' },
	CMD_GLOBAL_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

#define RUN_MAX_REPEAT 1000
#define RUN_MAX_SECONDS 1e6
/* A run never waits for ever unless asked to (--timeout 0): an agent that
 * runs a hung command would wait with it. Above any normal compilation. */
#define RUN_DEFAULT_TIMEOUT 1800.0

struct run_args {
	double timeout, grace;
	bool timeout_default;       /* no --timeout: RUN_DEFAULT_TIMEOUT */
	size_t repeat;
	bool sweep, pass_stdin, quiet, json, no_record;
	const char *rung, *change;
	char **cmd;
};

/* Seconds above 0 (or 0 itself when zero_ok: --timeout 0 is no timeout). */
static int
parse_seconds(const char *opt, const char *s, bool zero_ok, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !isfinite(v) || v < 0 || (v == 0 && !zero_ok) ||
	    v > RUN_MAX_SECONDS)
		return cmd_usage_error(&cmd_run_entry, "%s takes a number of seconds above 0%s, "
				       "not '%s'", opt, zero_ok ? " (0: no timeout)" : "", s);
	*out = v;
	return 0;
}

static int
parse_args(int argc, char **argv, struct pt_ctx *ctx, struct run_args *a)
{
	const struct cmd_entry *e = &cmd_run_entry;
	unsigned long long n;
	bool have_repeat = false;
	int c, rc;

	memset(a, 0, sizeof(*a));
	a->grace = 5.0;
	a->repeat = 1;
	a->timeout = RUN_DEFAULT_TIMEOUT;
	a->timeout_default = true;
	/* '+': the first operand starts the command, whose options are its own */
	while ((c = getopt_long(argc, argv, "+qh", run_options, NULL)) != -1) {
		switch (c) {
		case OPT_TIMEOUT:
			if ((rc = parse_seconds("--timeout", optarg, true, &a->timeout)) != 0)
				return rc;
			a->timeout_default = false;
			break;
		case OPT_GRACE:
			if ((rc = parse_seconds("--grace", optarg, false, &a->grace)) != 0)
				return rc;
			break;
		case OPT_REPEAT:
			if (util_parse_size(optarg, &n) < 0 || n < 1 || n > RUN_MAX_REPEAT)
				return cmd_usage_error(e, "--repeat takes a count from 1 to %d, not '%s'",
						       RUN_MAX_REPEAT, optarg);
			a->repeat = (size_t)n;
			have_repeat = true;
			break;
		case OPT_SWEEP: a->sweep = true; break;
		case OPT_STDIN: a->pass_stdin = true; break;
		case 'q': a->quiet = true; break;
		case OPT_JSON: a->json = true; break;
		case OPT_NO_RECORD: a->no_record = true; break;
		case OPT_RUNG: a->rung = optarg; break;
		case OPT_CHANGE: a->change = optarg; break;
		case 'h':
			cmd_print_usage(e, stdout);
			return -1;
		default:
			if ((rc = cmd_global_option(e, ctx, c, optarg)) != 0)
				return rc;
		}
	}
	if (optind >= argc)
		return cmd_usage_error(e, "no command to run: put it after '--', as in "
				       "'pallas-triage run --timeout 600 -- python kernel.py'");
	if (have_repeat && a->sweep)
		return cmd_usage_error(e, "--repeat and --sweep-precision do not go together");
	if ((a->rung || a->change) && (a->no_record || a->sweep))
		return cmd_usage_error(e, "--rung and --change describe a recorded attempt; "
				       "%s records none", a->sweep ? "--sweep-precision" : "--no-record");
	a->cmd = argv + optind;
	return 0;
}

/* ------------------------------------------------------------ the session */

struct run_session {
	struct session_txn t;       /* t.s NULL: nothing is recorded */
	const char *rung;           /* the rung this run tries (borrowed) */
	struct session_news nw;
	size_t ruled_before;        /* ruled-out entries before this run */
	bool recorded;
	bool reproduced;            /* the same failure, no change named: not an attempt */
};

#define RUN_REPRODUCED "the same failure as before and no change named: nothing recorded " \
	"(a rerun of an unchanged command is no attempt; say what changed with --change TEXT, " \
	"or which rung was tried with --rung ID)"

/* What an attempt records as its change when the run named none. */
#define RUN_CHANGE_UNSTATED "not stated (the run had no --change)"

/* The session in dir, peeked at without the lock: SESSION_STATUS_COUNT when there is none. */
static int
peek_status(const char *dir, enum session_status *st, struct pt_err *err)
{
	struct session *peek = NULL;

	*st = SESSION_STATUS_COUNT;
	if (!session_exists(dir))
		return 0;
	if (session_load(dir, &peek, err) < 0)
		return -1;
	*st = peek->status;
	session_free(peek);
	return 0;
}

/*
 * Find the session in progress and lock it for the whole run. No session,
 * or a closed one, is not an error: the run just records nothing. A corrupt
 * session fails now, not after a long run.
 */
static int
session_prepare(const struct run_args *a, const struct pt_ctx *ctx, struct run_session *rsn,
		struct pt_err *err)
{
	const struct ruleset *rs = ctx->rules;
	const struct rung *next;
	enum session_status st;
	bool custom = a->rung && strcmp(a->rung, SESSION_RUNG_CUSTOM) == 0;

	if (a->no_record)
		return 0;
	if (peek_status(cmd_session_dir(ctx), &st, err) < 0)
		return -1;
	if (st != SESSION_IN_PROGRESS) {
		if (a->rung || a->change)
			pt_warn("no session in progress here: --rung and --change are not used");
		return 0;
	}
	if (a->rung && !custom && !ladder_find_rung(rs, a->rung, NULL))
		return pt_err_set(err, PT_EXIT_USAGE, "unknown rung '%s'; 'pallas-triage session "
				  "status' shows the next one", a->rung);
	if (custom && (!a->change || !*a->change))
		return pt_err_set(err, PT_EXIT_USAGE, "an attempt off the ladder needs --change: "
				  "say what was changed");
	if (session_open_locked(&rsn->t, cmd_session_dir(ctx), ctx->env.now, err) < 0) {
		size_t len = strlen(err->msg);

		snprintf(err->msg + len, sizeof(err->msg) - len, "; nothing was run "
			 "(--no-record runs without the session)");
		return -1;
	}
	if (rsn->t.s->status != SESSION_IN_PROGRESS) {
		session_txn_release(&rsn->t);
		return 0;
	}
	rsn->rung = a->rung;
	if (!rsn->rung && (next = session_next_rung(rsn->t.s, rs)))
		rsn->rung = next->id;   /* borrowed from rs, which outlives the run */
	rsn->ruled_before = rsn->t.s->nruled;
	return 0;
}

/*
 * Keep the run's output as the attempt's log, under the name a pasted log
 * gets in a walk. Returns the path (free() it), or NULL when there is
 * nothing to save or it could not be saved (a warning says why: the
 * attempt is recorded all the same).
 */
static char *
save_output(struct session_txn *t, const struct buf *out)
{
	struct pt_err err = PT_ERR_INIT;
	char *path = NULL;

	if (out->len && session_txn_save_log(t, NULL, out->data, out->len, &path, NULL, &err) < 0)
		pt_warn("the run's output was not saved: %s", err.msg);
	return path;
}

/*
 * Record the attempt of the runs in sum, which gave verdict v and the
 * output out (the last run's), or the sweep's ruled-out entry; commit.
 */
static int
session_conclude(struct run_session *rsn, const struct run_args *a, const struct ruleset *rs,
		 const struct run_summary *sum, const struct verdict *v, const struct buf *out,
		 struct pt_err *err)
{
	struct session *s = rsn->t.s;
	sigset_t block, old;
	int ret = -1;

	if (!s)
		return 0;
	/* Ctrl-C from here on must not lose a finished run */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (a->sweep) {
		if (sum->sv->ruled_cls != CLASS_COUNT)
			session_rule_out(s, sum->sv->ruled_cls, sum->sv->ruled_subkind,
					 sum->sv->ruled_reason, RULING_RUN, NULL);
	} else if (rsn->rung && !run_is_attempt(run_attempt_result(s, sum->passed, v),
						     a->change || a->rung)) {
		rsn->reproduced = true;
		ret = 0;
		goto out;       /* nothing changed: the file stays as it was */
	} else if (rsn->rung) {
		/* a named rung says its change was made; with neither, the change is unknown */
		struct attempt_in in = {
			.rung = rsn->rung,
			.change = a->change ? a->change : a->rung ? NULL : RUN_CHANGE_UNSTATED,
			.result = run_attempt_result(s, sum->passed, v),
		};
		char *log = save_output(&rsn->t, out);
		int rec;

		in.log = log;
		/* a run that passed is fixed whatever else its output shows */
		rec = session_record(s, rs, &in, in.result == RESULT_FIXED ? NULL : v,
				     session_txn_now(&rsn->t), &rsn->nw, err);
		free(log);
		if (rec < 0)
			goto out;
		session_kernel_recheck(&rsn->t, rs);
		if (!s->attempts[s->nattempts - 1].note)
			s->attempts[s->nattempts - 1].note = run_attempt_note(sum->rec, sum->done,
									      sum->cmp, a->timeout);
		rsn->recorded = true;
	} else {
		session_check_exhausted(s, rs, &rsn->nw);
	}
	ret = session_commit(&rsn->t, rs, false, err);
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static void
session_print(FILE *out, const struct run_session *rsn, const struct ruleset *rs)
{
	const struct session *s = rsn->t.s;

	if (!s)
		return;
	fputc('\n', out);
	if (rsn->recorded) {
		const struct attempt *t = &s->attempts[s->nattempts - 1];

		fprintf(out, "session: recorded attempt %d of %d: %s: %s\n", t->n,
			SESSION_ATTEMPT_CAP, t->rung, attempt_result_name(t->result));
	}
	for (size_t i = rsn->ruled_before; i < s->nruled; i++) {
		char *lab = class_label(s->ruled[i].cls, s->ruled[i].subkind);

		fprintf(out, "session: ruled out %s: ", lab);
		term_puts_untrusted(out, s->ruled[i].reason);
		fputc('\n', out);
		free(lab);
	}
	if (rsn->reproduced)
		fprintf(out, "session: %s\n", RUN_REPRODUCED);
	else if (!rsn->recorded && rsn->ruled_before == s->nruled)
		fputs("session: nothing new to record\n", out);
	session_print_news(out, &rsn->nw);
	session_print_next(out, s, rs, &rsn->nw);
	session_print_closing(out, s);
}

static void
session_release(struct run_session *rsn)
{
	session_news_release(&rsn->nw);
	session_txn_release(&rsn->t);
}

/* prefix and the command line, for people; a new string. */
static char *
command_text(const char *prefix, char *const *cmd)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, prefix);
	for (size_t i = 0; cmd[i]; i++)
		buf_addf(&b, "%s%s", i ? " " : "", cmd[i]);
	return buf_detach(&b, NULL);
}

/* ------------------------------------------------------------ running */

/* Run the command as asked, echoing its output; a series says which run is which. */
static int
run_commands(const struct run_args *a, const struct run_session *rsn, const struct ruleset *rs,
	     struct classifier *all, struct run_series *rn, struct pt_err *err)
{
	struct run_series_opts o = {
		.cmd = a->cmd, .timeout = a->timeout, .timeout_default = a->timeout_default,
		.grace = a->grace,
		.pass_stdin = a->pass_stdin, .sweep = a->sweep, .repeat = a->repeat,
		.out_fd = a->quiet ? -1 : a->json ? STDERR_FILENO : STDOUT_FILENO,
		.err_fd = a->quiet ? -1 : STDERR_FILENO,
		.keep = rsn->t.s && rsn->rung && !a->sweep,
		.unbuffered = !getenv("PYTHONUNBUFFERED"),
		.progress = a->quiet ? NULL : stderr,
	};
	int rc = run_series_exec(&o, rs, all, rn, err);

	if (rn->echo_failed)
		pt_warn("could not echo all of the command's output; all of it was classified");
	if (rn->output_left_open)
		pt_warn("the command exited, but a process it started kept its output open; "
			"stopped reading after %g s", RUNNER_DRAIN_SECONDS);
	return rc;
}

/* ------------------------------------------------------------ output */

/* In a session the next rung follows, so the diagnosis shows only the first. */
static void
print_text(struct pt_ctx *ctx, const struct run_summary *sum, const struct verdict *v,
	   const char *source, const struct run_session *rsn)
{
	struct diagnosis_opts o = {
		.color = cmd_use_color(ctx, stdout),
		.whole_ladder = rsn->t.s == NULL,
		.source = source,
	};

	struct wrap_out wo;

	cmd_wrap_open(&wo, stdout);
	run_print(wo.fp, sum, v);
	if (!sum->passed) {
		fputc('\n', wo.fp);
		diagnosis_print(wo.fp, ctx->rules, v, &o);
	}
	session_print(wo.fp, rsn, ctx->rules);
	wrap_out_close(&wo);
}

/* What this run did to the session: the attempt, rulings and news. */
static void
json_session(struct json *o, const struct run_session *rsn)
{
	const struct session *s = rsn->t.s;
	struct json *arr;

	if (!s) {
		json_add_null(o, "session");
		return;
	}
	o = json_add_object(o, "session");
	json_add_str(o, "status", session_status_name(s->status));
	if (rsn->recorded) {
		const struct attempt *t = &s->attempts[s->nattempts - 1];
		struct json *at = json_add_object(o, "attempt");

		json_add_int(at, "n", t->n);
		json_add_str(at, "rung", t->rung);
		json_add_str(at, "result", attempt_result_name(t->result));
		json_add_str(at, "class_before", class_name(t->cls_before));
		json_add_str(at, "class_after", t->cls_after == CLASS_COUNT ? NULL :
			     class_name(t->cls_after));
		json_add_str(at, "fingerprint", t->fingerprint);
		json_add_str(at, "note", t->note);
	} else {
		json_add_null(o, "attempt");
	}
	arr = json_add_array(o, "ruled_out");
	for (size_t i = rsn->ruled_before; i < s->nruled; i++) {
		struct json *ro = json_push_object(arr);

		json_add_str(ro, "class", class_name(s->ruled[i].cls));
		json_add_str(ro, "subkind", s->ruled[i].subkind);
		json_add_str(ro, "reason", s->ruled[i].reason);
	}
	arr = json_add_array(o, "news");
	if (rsn->reproduced)
		json_push_str(arr, RUN_REPRODUCED);
	for (size_t i = 0; i < rsn->nw.n; i++)
		json_push_str(arr, rsn->nw.msg[i]);
}

static void
print_json(struct pt_ctx *ctx, const struct run_summary *sum, const struct verdict *v,
	   const char *source, const struct run_session *rsn)
{
	struct json *root = diagnosis_json(ctx->rules, v, source);

	json_session(run_json_add(root, sum), rsn);
	json_print(root, stdout);
	json_free(root);
}

/* ------------------------------------------------------------ the command */

/* The hints name the command run ran (${command}, docs/rules.md), not "python k.py". */
static void
set_command(struct verdict *v, char *const *cmd)
{
	char *line = util_shell_join(cmd);

	vars_set(&v->vars, "command", line, true);
	free(line);
}

/*
 * Ctrl-C stopped the command: nothing is recorded, but what it printed is
 * diagnosed, as a piped log is when Ctrl-C ends it. Returns 128+N.
 */
static int
finish_interrupted(struct pt_ctx *ctx, const struct run_args *a, const struct run_session *rsn,
		   const struct run_series *rn, const struct verdict *v, const char *source)
{
	struct run_summary sum = {
		.cmd = a->cmd, .sweep = a->sweep, .planned = rn->n, .rec = rn->rec, .done = rn->done,
		.timeout = a->timeout, .timeout_default = a->timeout_default, .interrupted = true,
	};
	const char *sig = runner_signal_name(rn->interrupted);

	fflush(stdout);
	fprintf(stderr, "pallas-triage: interrupted (%s): the command was stopped; nothing was "
		"recorded%s; what it printed is diagnosed below\n", sig ? sig : "a signal",
		rsn->t.s ? " and the session is as it was" : "");
	if (a->json) {
		struct json *root = diagnosis_json(ctx->rules, v, source);

		json_session(run_json_add(root, &sum), rsn);
		json_print(root, stdout);
		json_free(root);
	} else {
		struct diagnosis_opts o = {
			.color = cmd_use_color(ctx, stdout), .whole_ladder = true, .source = source,
		};
		struct wrap_out wo;

		cmd_wrap_open(&wo, stdout);
		fprintf(wo.fp, "run: interrupted by %s after %zu line%s of output\n\n",
			sig ? sig : "a signal", v->nlines, v->nlines == 1 ? "" : "s");
		diagnosis_print(wo.fp, ctx->rules, v, &o);
		wrap_out_close(&wo);
	}
	return 128 + rn->interrupted;
}

/* The verdict of all the output; a single run's record is filled from it. */
static void
diagnose(struct pt_ctx *ctx, const struct run_args *a, struct classifier *all,
	 struct run_series *rn, struct verdict *v, const struct log_known *known)
{
	classifier_finish(all, v);
	verdict_assume_facts(ctx->rules, v, known);
	verdict_derive(ctx->rules, v);
	set_command(v, a->cmd);
	if (rn->n == 1) {
		struct runner_result res = rn->rec[0].res;

		run_record_fill(&rn->rec[0], &res, v, NULL, ctx->rules);
	}
}

static int
cmd_run_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct pt_err err = PT_ERR_INIT;
	struct run_session rsn = { .t = SESSION_TXN_INIT, .nw = SESSION_NEWS_INIT };
	struct run_series rn = { 0 };
	struct run_args a;
	struct classifier *all = NULL;
	struct repeat_cmp cmp;
	struct sweep_verdict sv = { .ruled_cls = CLASS_COUNT };
	struct run_facts facts = RUN_FACTS_INIT;
	struct buf conclusion = BUF_INIT, lines = BUF_INIT;
	struct run_summary sum;
	struct verdict v;
	struct session_known sk;
	bool have_v = false;
	char *source = NULL;
	int rc;

	if ((rc = parse_args(argc, argv, ctx, &a)) != 0)
		return rc < 0 ? PT_EXIT_OK : rc;
	if ((rc = cmd_load_rules(ctx)) != 0)
		return rc;
	session_known_init(&sk, NULL, ctx->rules, NULL);
	if (session_prepare(&a, ctx, &rsn, &err) < 0)
		goto fail;
	/* the run is the next run of the session's program: read it as such */
	session_known_release(&sk);
	session_known_init(&sk, rsn.t.s, ctx->rules, NULL);
	all = classifier_new(ctx->rules);
	classifier_assert_contexts(all, sk.k.asserted, sk.k.nasserted);
	if (run_commands(&a, &rsn, ctx->rules, all, &rn, &err) < 0)
		goto fail;     /* cannot be started: nothing is recorded */
	source = command_text("run: ", a.cmd);
	if (rn.interrupted) {
		diagnose(ctx, &a, all, &rn, &v, &sk.k);
		have_v = true;
		rc = finish_interrupted(ctx, &a, &rsn, &rn, &v, source);
		goto out;
	}
	run_judge(ctx->rules, rn.rec, rn.n, a.sweep, &cmp, &sv, &facts, &conclusion, &lines);
	classifier_feed(all, lines.data, lines.len);
	diagnose(ctx, &a, all, &rn, &v, &sk.k);
	have_v = true;
	if (rn.out_cut)
		pt_warn("the output saved with the attempt is its first and last %zu MiB",
			RUN_KEEP_MAX >> 21);
	sum = (struct run_summary){
		.cmd = a.cmd, .sweep = a.sweep, .planned = rn.n, .rec = rn.rec, .done = rn.done,
		.timeout = a.timeout, .timeout_default = a.timeout_default,
		.passed = run_all_passed(rn.rec, rn.done), .cmp = &cmp, .sv = &sv,
		.conclusion = conclusion.data, .facts = &facts,
	};
	if (session_conclude(&rsn, &a, ctx->rules, &sum, &v, &rn.out, &err) < 0)
		goto fail;
	if (a.json)
		print_json(ctx, &sum, &v, source, &rsn);
	else
		print_text(ctx, &sum, &v, source, &rsn);
	rc = sum.passed ? PT_EXIT_OK : PT_EXIT_FINDING;
	goto out;
fail:
	rc = pt_report(&err);
out:
	if (have_v)
		verdict_release(&v);
	run_series_release(&rn);
	classifier_free(all);
	sweep_verdict_release(&sv);
	run_facts_release(&facts);
	buf_release(&conclusion);
	buf_release(&lines);
	free(source);
	session_known_release(&sk);
	session_release(&rsn);
	return rc;
}
