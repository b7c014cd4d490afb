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
 * judging in run_eval.c; docs/run.md is the user's documentation.
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
#include "pt/cmd.h"
#include "pt/diagnosis.h"
#include "pt/json.h"
#include "pt/ladder.h"
#include "pt/rules.h"
#include "pt/run_eval.h"
#include "pt/runner.h"
#include "pt/session.h"
#include "pt/term.h"
#include "pt/util.h"
#include "pt/walk.h"
#include "pt/xalloc.h"

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
	"                     seconds, and report a hang (synchronization evidence)\n"
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
	"  --change TEXT      what was changed (default: the rung's suggested change)\n"
	"\n"
	"The command runs directly, without a shell. In a session in progress each run\n"
	"(or --repeat series) is recorded as an attempt: fixed, same or new. Ctrl-C stops\n"
	"the command and records nothing.\n"
	"exit status: 0 the command passed (exit 0, no failure evidence) in every run,\n"
	"1 it failed in some run (diagnosis printed), 2 usage error, 3 bad rules or a\n"
	"corrupt session, 4 the command cannot be started, the session is locked, or\n"
	"I/O error, 128+N interrupted by signal N (130: Ctrl-C)\n",
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

struct run_args {
	double timeout, grace;
	size_t repeat;
	bool sweep, pass_stdin, quiet, json, no_record;
	const char *rung, *change;
	char **cmd;
};

static int
parse_seconds(const char *opt, const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !isfinite(v) || v <= 0 || v > RUN_MAX_SECONDS)
		return cmd_usage_error(&cmd_run_entry, "%s takes a number of seconds above 0, "
				       "not '%s'", opt, s);
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
	/* '+': the first operand starts the command, whose options are its own */
	while ((c = getopt_long(argc, argv, "+qh", run_options, NULL)) != -1) {
		switch (c) {
		case OPT_TIMEOUT:
			if ((rc = parse_seconds("--timeout", optarg, &a->timeout)) != 0)
				return rc;
			break;
		case OPT_GRACE:
			if ((rc = parse_seconds("--grace", optarg, &a->grace)) != 0)
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
	struct session *s;          /* NULL: nothing is recorded */
	int lock;
	const char *rung;           /* the rung this run tries (borrowed) */
	struct session_news nw;
	size_t ruled_before;        /* ruled-out entries before this run */
	bool recorded;
};

/*
 * Find the session in progress and lock it for the whole run. No session,
 * or a closed one, is not an error: the run just records nothing.
 */
static int
session_prepare(const struct run_args *a, const struct ruleset *rs, struct run_session *rsn,
		struct pt_err *err)
{
	struct session *peek = NULL;
	const struct rung **plan = NULL;
	enum session_status st;

	bool custom = a->rung && strcmp(a->rung, SESSION_RUNG_CUSTOM) == 0;

	if (a->no_record)
		return 0;
	st = SESSION_STATUS_COUNT;
	if (session_exists(SESSION_DIR)) {
		/* a corrupt session fails now, not after a long run */
		if (session_load(SESSION_DIR, &peek, err) < 0)
			return -1;
		st = peek->status;
		session_free(peek);
	}
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
	if ((rsn->lock = session_lock(SESSION_DIR, err)) < 0) {
		size_t len = strlen(err->msg);

		snprintf(err->msg + len, sizeof(err->msg) - len, "; nothing was run "
			 "(--no-record runs without the session)");
		return -1;
	}
	if (session_load(SESSION_DIR, &rsn->s, err) < 0)
		return -1;
	if (rsn->s->status != SESSION_IN_PROGRESS) {
		session_free(rsn->s);
		rsn->s = NULL;
		return 0;
	}
	rsn->rung = a->rung;
	if (!rsn->rung && session_plan(rsn->s, rs, &plan) > 0)
		rsn->rung = plan[0]->id;   /* borrowed from rs, which outlives the run */
	free(plan);
	rsn->ruled_before = rsn->s->nruled;
	return 0;
}

static void
note_attempt(struct session *s, const struct run_args *a, const struct run_record *r, size_t n,
	     const struct repeat_cmp *cmp)
{
	struct attempt *t = &s->attempts[s->nattempts - 1];
	struct buf b = BUF_INIT;

	if (t->note)
		return;
	buf_adds(&b, "pallas-triage run");
	if (n > 1)
		buf_addf(&b, " --repeat %zu: %s", n, cmp->kind == REPEAT_DIFFERENT ?
			 "nondeterministic" : cmp->kind == REPEAT_SAME ? "deterministic" : "passed");
	buf_adds(&b, n > 1 ? ", last run: " : ": ");
	run_ending_text(&r[n - 1].res, &b);
	if (r[n - 1].res.end == RUNNER_TIMED_OUT)
		buf_addf(&b, " after %g s (a hang)", a->timeout);
	t->note = buf_detach(&b, NULL);
}

/* Record the attempt (or the sweep's ruled-out entry) and save. */
/*
 * Save the run's output as the attempt's log, under the name a pasted log
 * gets in a walk. Returns the path (free() it), or NULL when there is
 * nothing to save or it could not be saved (a warning says why: the
 * attempt is recorded all the same).
 */
static char *
save_output(const struct session *s, const struct buf *out)
{
	struct pt_err err = PT_ERR_INIT;
	char *path;

	if (!out->len)
		return NULL;
	path = xasprintf("%s/logs/attempt-%zu.log", SESSION_DIR, s->nattempts + 1);
	if (util_mkdirs(SESSION_DIR "/logs", &err) < 0 ||
	    util_write_atomic(path, out->data, out->len, &err) < 0) {
		pt_warn("the run's output was not saved: %s", err.msg);
		free(path);
		return NULL;
	}
	return path;
}

static int
session_conclude(struct run_session *rsn, const struct run_args *a, const struct ruleset *rs,
		 const struct verdict *v, bool passed, const struct run_record *r, size_t n,
		 const struct repeat_cmp *cmp, const struct sweep_verdict *sv,
		 const struct buf *out, struct pt_err *err)
{
	struct session *s = rsn->s;
	sigset_t block, old;
	char now[64];
	int ret = -1;

	if (!s)
		return 0;
	/* Ctrl-C from here on must not lose a finished run */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	util_now(now, sizeof(now));
	if (a->sweep) {
		if (sv->ruled_cls != CLASS_COUNT &&
		    run_rule_out(s, sv->ruled_cls, sv->ruled_subkind, sv->ruled_reason)) {
			free(s->updated);
			s->updated = xstrdup(now);
		}
	} else if (rsn->rung) {
		struct attempt_in in = { rsn->rung, a->change, run_attempt_result(s, passed, v), NULL };
		char *log = save_output(s, out);
		int rec;

		in.log = log;
		rec = session_record(s, rs, &in, in.result == RESULT_NEW ? v : NULL, now, &rsn->nw, err);
		free(log);
		if (rec < 0)
			goto out;
		note_attempt(s, a, r, n, cmp);
		rsn->recorded = true;
	} else {
		session_check_exhausted(s, rs, &rsn->nw);
	}
	if (walk_write_report(s, rs, false, err) < 0 || session_save(s, SESSION_DIR, err) < 0)
		goto out;
	ret = 0;
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static void
session_print(const struct run_session *rsn, const struct ruleset *rs)
{
	const struct session *s = rsn->s;
	const struct rung **plan = NULL;
	char lab[96];

	if (!s)
		return;
	fputc('\n', stdout);
	if (rsn->recorded) {
		const struct attempt *t = &s->attempts[s->nattempts - 1];

		printf("session: recorded attempt %d of %d: %s: %s\n", t->n, SESSION_ATTEMPT_CAP,
		       t->rung, attempt_result_name(t->result));
	}
	for (size_t i = rsn->ruled_before; i < s->nruled; i++) {
		snprintf(lab, sizeof(lab), "%s%s%s", class_name(s->ruled[i].cls),
			 s->ruled[i].subkind ? "/" : "", s->ruled[i].subkind ? s->ruled[i].subkind : "");
		printf("session: ruled out %s: %s\n", lab, s->ruled[i].reason);
	}
	if (!rsn->recorded && rsn->ruled_before == s->nruled)
		fputs("session: nothing new to record\n", stdout);
	walk_print_news(stdout, &rsn->nw);
	walk_print_ask_again(stdout, s, rs, &rsn->nw);
	if (s->status == SESSION_IN_PROGRESS && session_plan(s, rs, &plan) > 0) {
		fputs("next:", stdout);
		walk_print_rung(stdout, s, rs, plan[0]);
	}
	free(plan);
	walk_print_closing(stdout, s);
}

static void
session_release(struct run_session *rsn)
{
	session_news_release(&rsn->nw);
	session_free(rsn->s);
	if (rsn->lock >= 0)
		session_unlock(rsn->lock);
}

/* ------------------------------------------------------------ running */

/* A recorded attempt keeps the output of its (last) run, up to this much. */
#define RUN_KEEP_MAX ((size_t)16 << 20)

/*
 * Both classifiers see every line: the one of this run, and the one of all
 * runs; keep (NULL when nothing is recorded) collects the output to save.
 */
struct feed {
	struct classifier *all, *one;
	struct buf *keep;
	bool *cut;
};

static void
feed(void *arg, const char *data, size_t len)
{
	struct feed *f = arg;

	classifier_feed(f->all, data, len);
	if (f->one)
		classifier_feed(f->one, data, len);
	if (f->keep && !*f->cut && buf_add(f->keep, data, len) < 0) {
		buf_add(f->keep, data, RUN_KEEP_MAX - f->keep->len);
		*f->cut = true;
	}
}

static char *
command_text(char *const *cmd)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; cmd[i]; i++)
		buf_addf(&b, "%s%s", i ? " " : "", cmd[i]);
	return buf_detach(&b, NULL);
}

static void
warn_result(const struct runner_result *res)
{
	if (res->echo_failed)
		pt_warn("could not echo all of the command's output; all of it was classified");
	if (res->output_left_open)
		pt_warn("the command exited, but a process it started kept its output open; "
			"stopped reading after %g s", RUNNER_DRAIN_SECONDS);
}

struct runs {
	struct run_record *rec;
	size_t n, done;
	int interrupted;            /* the signal, or 0 */
	struct buf out;             /* the last run's output, when an attempt is recorded */
	bool out_cut;               /* ... cut at RUN_KEEP_MAX */
	bool keep;
};

/* Run the command n times; records what each run showed. */
static int
run_all(const struct run_args *a, const struct ruleset *rs, struct classifier *all,
	struct runs *rn, struct pt_err *err)
{
	char *label = command_text(a->cmd);
	int ret = 0;

	for (size_t i = 0; i < rn->n && ret == 0; i++) {
		const char *level = a->sweep ? run_precision_levels[i] : NULL;
		struct feed f = { all, rn->n > 1 ? classifier_new(rs) : NULL,
				  rn->keep ? &rn->out : NULL, &rn->out_cut };
		char *assign = level ? xasprintf("%s=%s", RUN_PRECISION_ENV, level) : NULL;
		char *set[3] = { NULL, NULL, NULL };
		char **env = NULL;
		size_t nset = 0;
		int echo_out = a->quiet ? -1 : a->json ? STDERR_FILENO : STDOUT_FILENO;
		struct runner_opts o = {
			.argv = a->cmd, .envp = NULL, .timeout = a->timeout, .grace = a->grace,
			.pass_stdin = a->pass_stdin, .out_fd = echo_out,
			.err_fd = a->quiet ? -1 : STDERR_FILENO, .sink = feed, .sink_arg = &f,
		};
		struct runner_result res;
		struct buf lines = BUF_INIT;
		struct verdict v;

		/* Python buffers a pipe in blocks: without this its output would come
		 * at exit, and be lost entirely when a hang is stopped */
		if (!getenv("PYTHONUNBUFFERED"))
			set[nset++] = (char *)"PYTHONUNBUFFERED=1";
		if (assign)
			set[nset++] = assign;
		env = runner_env_with(set);
		o.envp = env;
		buf_reset(&rn->out);
		rn->out_cut = false;
		if (rn->n > 1 && !a->quiet) {
			fprintf(stderr, "pallas-triage: run %zu of %zu", i + 1, rn->n);
			if (level)
				fprintf(stderr, " (%s=%s)", RUN_PRECISION_ENV, level);
			fputs(": ", stderr);
			term_put_untrusted(stderr, label, strlen(label));
			fputc('\n', stderr);
		}
		fflush(stdout);
		fflush(stderr);
		if ((ret = runner_exec(&o, &res, err)) == 0) {
			warn_result(&res);
			run_end_lines(&res, a->timeout, &lines);
			feed(&f, lines.data, lines.len);
			if (f.one) {
				classifier_finish(f.one, &v);
				verdict_derive(rs, &v);
				run_record_fill(&rn->rec[i], &res, &v, level);
				verdict_release(&v);
			} else {
				rn->rec[i].res = res;   /* filled from the final verdict */
			}
			rn->done = i + 1;
			if (res.end == RUNNER_INTERRUPTED)
				rn->interrupted = res.sig;
		}
		buf_release(&lines);
		classifier_free(f.one);
		free(env);
		free(assign);
		if (rn->interrupted)
			break;
	}
	free(label);
	return ret;
}

/* ------------------------------------------------------------ output */

static const char *
result_word(const struct run_record *r)
{
	return run_outcome_of(r) == OUTCOME_PASS ? "pass" : "fail";
}

static void
put_cell(const char *s, int width)
{
	char *e = s ? term_escape(s, strlen(s)) : NULL;

	printf(" %-*s", width, e ? e : "-");
	free(e);
}

static void
print_table(const struct run_args *a, const struct runs *rn)
{
	printf("%-9s %-6s %-11s %-24s %-12s %s\n", a->sweep ? "precision" : "run", "result",
	       "ending", "class", "max_abs", "max_rel");
	for (size_t i = 0; i < rn->done; i++) {
		const struct run_record *r = &rn->rec[i];
		struct buf end = BUF_INIT, cls = BUF_INIT;

		run_ending_text(&r->res, &end);
		if (run_outcome_of(r) == OUTCOME_PASS)
			buf_adds(&cls, "-");
		else
			buf_addf(&cls, "%s%s%s", class_name(r->cls), r->subkind ? "/" : "",
				 r->subkind ? r->subkind : "");
		if (a->sweep)
			printf("%-9s", r->precision);
		else
			printf("%-9zu", i + 1);
		printf(" %-6s %-11s %-24s", result_word(r), end.data, cls.data);
		put_cell(r->numbers[0], 12);
		put_cell(r->numbers[1], 0);
		fputc('\n', stdout);
		buf_release(&end);
		buf_release(&cls);
	}
}

static void
print_single(const struct run_args *a, const struct run_record *r, const struct verdict *v)
{
	struct buf b = BUF_INIT;

	run_ending_text(&r->res, &b);
	if (r->res.end == RUNNER_TIMED_OUT)
		buf_addf(&b, " after %g s: stopped with %s (a hang)", a->timeout,
			 r->res.killed ? "SIGKILL" : "SIGTERM");
	if (run_outcome_of(r) == OUTCOME_PASS)
		printf("run: %s, no failure evidence in %zu line%s of output: the command passed\n",
		       b.data, v->nlines, v->nlines == 1 ? "" : "s");
	else if (r->res.end == RUNNER_EXITED && r->res.code == 0)
		printf("run: %s, but the output shows a failure\n", b.data);
	else
		printf("run: %s\n", b.data);
	buf_release(&b);
}

/* In a session the next rung follows, so the diagnosis shows only the first. */
static void
print_text(struct pt_ctx *ctx, const struct run_args *a, const struct runs *rn,
	   const struct verdict *v, bool passed, const char *conclusion, const char *source,
	   bool in_session)
{
	struct diagnosis_opts o = {
		.color = cmd_use_color(ctx, stdout),
		.whole_ladder = !in_session,
		.source = source,
	};

	if (rn->n == 1) {
		print_single(a, &rn->rec[0], v);
	} else {
		print_table(a, rn);
		printf("%s\n", conclusion);
	}
	if (passed)
		return;
	fputc('\n', stdout);
	diagnosis_print(stdout, ctx->rules, v, &o);
}

static void
json_run(struct json *o, const struct run_record *r, size_t i)
{
	struct json *nums;

	json_add_int(o, "run", (long long)i + 1);
	json_add_str(o, "precision", r->precision);
	json_add_str(o, "result", result_word(r));
	switch (r->res.end) {
	case RUNNER_EXITED: json_add_str(o, "ending", "exit"); break;
	case RUNNER_SIGNALED: json_add_str(o, "ending", "signal"); break;
	case RUNNER_TIMED_OUT: json_add_str(o, "ending", "timeout"); break;
	case RUNNER_INTERRUPTED: json_add_str(o, "ending", "interrupted"); break;
	}
	if (r->res.end == RUNNER_EXITED)
		json_add_int(o, "exit_code", r->res.code);
	else
		json_add_null(o, "exit_code");
	if (r->res.end == RUNNER_SIGNALED)
		json_add_str(o, "signal", runner_signal_name(r->res.sig));
	else
		json_add_null(o, "signal");
	json_add_bool(o, "killed", r->res.killed);
	json_add_str(o, "class", class_name(r->cls));
	json_add_str(o, "subkind", r->subkind);
	json_add_str(o, "fingerprint", r->fingerprint);
	nums = json_add_object(o, "numbers");
	for (size_t k = 0; k < RUN_NNUMBERS; k++)
		if (r->numbers[k])
			json_add_str(nums, run_number_names[k], r->numbers[k]);
}

static void
json_session(struct json *o, const struct run_session *rsn)
{
	const struct session *s = rsn->s;
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
	for (size_t i = 0; i < rsn->nw.n; i++)
		json_push_str(arr, rsn->nw.msg[i]);
}

static void
print_json(struct pt_ctx *ctx, const struct run_args *a, const struct runs *rn,
	   const struct verdict *v, bool passed, const struct repeat_cmp *cmp,
	   const struct sweep_verdict *sv, const char *conclusion, const struct run_session *rsn,
	   const char *source)
{
	struct json *root = diagnosis_json(ctx->rules, v, source);
	struct json *o = json_add_object(root, "run"), *arr;

	arr = json_add_array(o, "command");
	for (size_t i = 0; a->cmd[i]; i++)
		json_push_str(arr, a->cmd[i]);
	json_add_str(o, "mode", a->sweep ? "sweep-precision" : rn->n > 1 ? "repeat" : "single");
	if (a->timeout > 0)
		json_add_num(o, "timeout", a->timeout);
	else
		json_add_null(o, "timeout");
	json_add_bool(o, "passed", passed);
	arr = json_add_array(o, "runs");
	for (size_t i = 0; i < rn->done; i++)
		json_run(json_push_object(arr), &rn->rec[i], i);
	if (rn->n > 1 && !a->sweep) {
		struct json *r = json_add_object(o, "repeat");

		json_add_str(r, "kind", cmp->kind == REPEAT_DIFFERENT ? "nondeterministic" :
			     cmp->kind == REPEAT_SAME ? "deterministic" : "all-pass");
		arr = json_add_array(r, "differs");
		if (cmp->ending_differs)
			json_push_str(arr, "exit status");
		if (cmp->fingerprint_differs)
			json_push_str(arr, "failure");
		for (size_t k = 0; k < RUN_NNUMBERS; k++)
			if (cmp->number_differs[k])
				json_push_str(arr, run_number_names[k]);
		json_add_str(r, "text", conclusion);
	} else {
		json_add_null(o, "repeat");
	}
	if (a->sweep) {
		struct json *s = json_add_object(o, "sweep");

		json_add_str(s, "conclusion", sweep_kind_name(sv->kind));
		json_add_str(s, "text", sv->text);
		if (sv->ruled_cls != CLASS_COUNT) {
			struct json *ro = json_add_object(s, "rules_out");

			json_add_str(ro, "class", class_name(sv->ruled_cls));
			json_add_str(ro, "subkind", sv->ruled_subkind);
			json_add_str(ro, "reason", sv->ruled_reason);
		} else {
			json_add_null(s, "rules_out");
		}
	} else {
		json_add_null(o, "sweep");
	}
	json_session(o, rsn);
	json_print(root, stdout);
	json_free(root);
}

/* ------------------------------------------------------------ the command */

static bool
all_passed(const struct runs *rn)
{
	for (size_t i = 0; i < rn->done; i++)
		if (run_outcome_of(&rn->rec[i]) != OUTCOME_PASS)
			return false;
	return rn->done > 0;
}

/* What the runs say together; returns the evidence line(s) for the classifier. */
static void
judge(const struct run_args *a, const struct runs *rn, struct repeat_cmp *cmp,
      struct sweep_verdict *sv, struct buf *conclusion, struct buf *lines)
{
	memset(cmp, 0, sizeof(*cmp));
	memset(sv, 0, sizeof(*sv));
	sv->ruled_cls = CLASS_COUNT;
	if (a->sweep) {
		run_sweep_judge(rn->rec, sv);
		buf_adds(conclusion, sv->text);
		run_sweep_line(sv, lines);
	} else if (rn->n > 1) {
		run_compare(rn->rec, rn->n, cmp);
		run_compare_text(cmp, rn->rec, conclusion);
		run_compare_line(cmp, lines);
	}
}

static int
cmd_run_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct pt_err err = PT_ERR_INIT;
	struct run_session rsn = { .lock = -1, .nw = SESSION_NEWS_INIT };
	struct runs rn = { 0 };
	struct run_args a;
	struct classifier *all = NULL;
	struct repeat_cmp cmp;
	struct sweep_verdict sv = { .ruled_cls = CLASS_COUNT };
	struct buf conclusion = BUF_INIT, lines = BUF_INIT;
	struct verdict v;
	bool have_v = false, passed;
	char *source = NULL;
	int rc;

	if ((rc = parse_args(argc, argv, ctx, &a)) != 0)
		return rc < 0 ? PT_EXIT_OK : rc;
	if ((rc = cmd_load_rules(ctx)) != 0)
		return rc;
	if (session_prepare(&a, ctx->rules, &rsn, &err) < 0)
		goto fail;
	rn.n = a.sweep ? RUN_NLEVELS : a.repeat;
	rn.rec = xcalloc(rn.n, sizeof(*rn.rec));
	rn.keep = rsn.s && rsn.rung && !a.sweep;
	buf_init(&rn.out, RUN_KEEP_MAX);
	all = classifier_new(ctx->rules);
	if (run_all(&a, ctx->rules, all, &rn, &err) < 0)
		goto fail;     /* cannot be started: nothing is recorded */
	if (rn.interrupted) {
		fflush(stdout);
		fprintf(stderr, "pallas-triage: interrupted: the command was stopped; nothing "
			"was recorded%s\n", rsn.s ? " and the session is as it was" : "");
		rc = 128 + rn.interrupted;
		goto out;
	}
	judge(&a, &rn, &cmp, &sv, &conclusion, &lines);
	classifier_feed(all, lines.data, lines.len);
	classifier_finish(all, &v);
	verdict_derive(ctx->rules, &v);
	have_v = true;
	if (rn.n == 1) {
		struct runner_result res = rn.rec[0].res;

		run_record_fill(&rn.rec[0], &res, &v, NULL);
	}
	passed = all_passed(&rn);
	if (rn.out_cut)
		pt_warn("the output saved with the attempt is its first %zu MiB", RUN_KEEP_MAX >> 20);
	if (session_conclude(&rsn, &a, ctx->rules, &v, passed, rn.rec, rn.done, &cmp, &sv, &rn.out,
			     &err) < 0)
		goto fail;
	{
		char *cmd = command_text(a.cmd);

		source = xasprintf("run: %s", cmd);
		free(cmd);
	}
	if (a.json) {
		print_json(ctx, &a, &rn, &v, passed, &cmp, &sv, conclusion.data, &rsn, source);
	} else {
		print_text(ctx, &a, &rn, &v, passed, conclusion.data, source, rsn.s != NULL);
		session_print(&rsn, ctx->rules);
	}
	rc = passed ? PT_EXIT_OK : PT_EXIT_FINDING;
	goto out;
fail:
	rc = pt_report(&err);
out:
	if (have_v)
		verdict_release(&v);
	for (size_t i = 0; i < rn.n; i++)
		run_record_release(&rn.rec[i]);
	free(rn.rec);
	buf_release(&rn.out);
	classifier_free(all);
	sweep_verdict_release(&sv);
	buf_release(&conclusion);
	buf_release(&lines);
	free(source);
	session_release(&rsn);
	return rc;
}
