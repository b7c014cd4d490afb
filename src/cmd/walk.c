/* SPDX-License-Identifier: MIT */
/*
 * The ladder walk; see pt/cmd_walk.h. This is command code: it owns the
 * terminal, the prompts and the signals, and leaves the session to the
 * session store (one transaction held for the whole walk) and the printing
 * of rungs to session_print.c. Every answer is committed the moment it is
 * given (a pending attempt holds the answers of an unfinished one), so
 * stopping at any prompt loses nothing. Signal handlers only set a flag;
 * they are installed without SA_RESTART so a blocked read returns and the
 * walk saves and leaves through its normal path.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt/advice.h"
#include "pt/buf.h"
#include "cmd.h"
#include "walk.h"
#include "pt/diag.h"
#include "pt/ladder.h"
#include "pt/session.h"
#include "pt/session_kernel.h"
#include "pt/session_print.h"
#include "pt/sha256.h"
#include "pt/suggest.h"
#include "pt/term.h"
#include "pt/util.h"
#include "pt/xalloc.h"

#define WALK_MAX_PASTE (16u * 1024 * 1024)

static volatile sig_atomic_t walk_signal;

static void
on_signal(int sig)
{
	walk_signal = sig;
}

static const int walk_signals[] = { SIGINT, SIGHUP, SIGTERM };

struct walk {
	const struct ruleset *rs;
	const struct walk_opts *o;
	struct session_txn t;   /* held from the start of the walk to its end */
	FILE *in, *out;         /* out is wrap.fp: everything said is wrapped to the terminal */
	struct wrap_out wrap;
	FILE *tty;              /* the terminal (or stdout/stderr) under wrap */
	bool echo;              /* input is a file: echo answers so the transcript reads whole */
	bool own_in, own_out;
	bool lost;              /* the terminal went away (EIO) */
	bool trapped;           /* the signal handlers are ours; old holds the previous ones */
	bool result_from_log;   /* the pending result was read from the log the user ran */
	char *line;             /* the last answer, owned here */
	size_t linecap;
	struct sigaction old[ARRAY_SIZE(walk_signals)];
};

/* How a step of the walk ended. */
enum walk_end { END_NONE, END_QUIT, END_EOF, END_STOP, END_ERROR,
		END_WAIT };            /* on no ladder: the next run's log is needed */

static void
put_untrusted(FILE *out, const char *s)
{
	term_put_untrusted(out, s, strlen(s));
}

/* Everything said so far goes out, wrapped, before the walk waits for an answer. */
static void
flush_out(struct walk *w)
{
	wrap_out_flush(&w->wrap);
	w->out = w->wrap.fp;
}

/* --- input --- */

static void
chomp(char *s, bool trim)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || (trim && (s[n - 1] == ' ' ||
	       s[n - 1] == '\t'))))
		s[--n] = '\0';
	if (trim) {
		size_t k = strspn(s, " \t");

		memmove(s, s + k, n - k + 1);
	}
}

/*
 * Read one answer into w->line after showing prompt. A terminal gets the
 * prompt first; an answers file is read first so that '#' comment lines can
 * be skipped, then prompt and answer are echoed. raw keeps the line as typed
 * (pasted logs). Returns END_NONE with a line, END_EOF, or END_STOP.
 */
static int
ask(struct walk *w, const char *prompt, bool raw)
{
	for (;;) {
		ssize_t n;

		if (walk_signal)
			return END_STOP;
		flush_out(w);
		if (!w->echo) {
			fputs(prompt, w->tty);
			fflush(w->tty);
		}
		errno = 0;
		n = getline(&w->line, &w->linecap, w->in);
		if (n < 0) {
			bool failed = ferror(w->in);

			w->lost = failed && !walk_signal && errno != EINTR;
			clearerr(w->in);
			if (!w->echo)
				fputc('\n', w->out);
			return walk_signal || failed ? END_STOP : END_EOF;
		}
		chomp(w->line, !raw);
		if (w->echo && !raw && w->line[0] == '#')
			continue;
		if (w->echo)
			fprintf(w->out, "%s%s\n", prompt, w->line);
		return END_NONE;
	}
}

static void
print_plan(struct walk *w)
{
	const struct rung **plan = NULL;
	size_t n = session_plan(w->t.s, w->rs, &plan);

	fprintf(w->out, "  %zu rung%s left on the %s ladder:\n", n, n == 1 ? "" : "s",
		class_name(w->t.s->cls));
	for (size_t i = 0; i < n; i++) {
		char *action = ladder_prose(w->rs, &w->t.s->vars, plan[i]->action);

		fprintf(w->out, "    %zu. %s%s%s%s: %s\n", i + 1, plan[i]->id,
			plan[i]->family ? " (" : "", plan[i]->family ? plan[i]->family : "",
			plan[i]->family ? ")" : "", action ? action : "");
		free(action);
	}
	free(plan);
}

static void
print_status(struct walk *w)
{
	const struct session *s = w->t.s;
	char *lab = class_label(s->cls, s->subkind);

	fprintf(w->out, "  %zu of %d attempts used; now ", s->nattempts, SESSION_ATTEMPT_CAP);
	put_untrusted(w->out, lab);
	fprintf(w->out, "; interpret mode: %s\n", interp_answer_name(s->interp));
	free(lab);
	for (size_t i = 0; i < s->nattempts; i++) {
		fprintf(w->out, "    %d. %s: %s: ", s->attempts[i].n, s->attempts[i].rung,
			attempt_result_name(s->attempts[i].result));
		put_untrusted(w->out, s->attempts[i].change);
		fputc('\n', w->out);
	}
	for (size_t i = 0; i < s->nruled; i++) {
		lab = class_label(s->ruled[i].cls, s->ruled[i].subkind);
		fputs("    ruled out ", w->out);
		put_untrusted(w->out, lab);
		fputs(": ", w->out);
		put_untrusted(w->out, s->ruled[i].reason);
		fputc('\n', w->out);
		free(lab);
	}
}

/* --- the prompt commands (style C7: a table, exact-match lookup) --- */

enum walk_act { ACT_RESULT, ACT_SHOW, ACT_LADDER, ACT_STATUS, ACT_HELP, ACT_QUIT };

static const struct walk_cmd {
	const char *name, *alias;
	enum walk_act act;
	int result;                 /* enum attempt_result for ACT_RESULT */
	const char *summary;        /* NULL: a synonym not listed in help */
} walk_cmds[] = {
	{ "fixed", "f", ACT_RESULT, RESULT_FIXED, "the failure is gone" },
	{ "same", "s", ACT_RESULT, RESULT_SAME, "the same error as before" },
	{ "different", "d", ACT_RESULT, RESULT_NEW,
	  "a different error: paste the new log or give its path" },
	{ "new", NULL, ACT_RESULT, RESULT_NEW, NULL },
	{ "n/a", "n", ACT_RESULT, RESULT_NA, "the rung does not apply (no attempt is used)" },
	{ "n-a", "na", ACT_RESULT, RESULT_NA, NULL },
	{ "show", NULL, ACT_SHOW, 0, "show the rung again" },
	{ "ladder", "l", ACT_LADDER, 0, "list the rungs still to try" },
	{ "status", NULL, ACT_STATUS, 0, "the attempts so far and what was ruled out" },
	{ "help", "h", ACT_HELP, 0, "this list" },
	{ "?", NULL, ACT_HELP, 0, NULL },
	{ "quit", "q", ACT_QUIT, 0, "save and stop; 'pallas-triage session resume' goes on" },
};

static const struct walk_cmd *
walk_cmd_find(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(walk_cmds); i++)
		if (strcmp(walk_cmds[i].name, s) == 0 ||
		    (walk_cmds[i].alias && strcmp(walk_cmds[i].alias, s) == 0))
			return &walk_cmds[i];
	return NULL;
}

/* "unknown answer 'fixd'; did you mean 'fixed'?" (or: type help) */
static void
print_unknown_answer(struct walk *w, const char *const *names, size_t n, const char *hint)
{
	struct suggest sg;
	const char *near;

	suggest_init(&sg, w->line);
	for (size_t i = 0; i < n; i++)
		if (names[i])
			suggest_offer(&sg, names[i]);
	fputs("  unknown answer '", w->out);
	put_untrusted(w->out, w->line);
	if ((near = suggest_best(&sg)))
		fprintf(w->out, "'; did you mean '%s'?\n", near);
	else
		fprintf(w->out, "': %s\n", hint);
}

static void
print_help(FILE *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(walk_cmds); i++)
		if (walk_cmds[i].summary)
			fprintf(out, "    %-10s %-3s %s\n", walk_cmds[i].name,
				walk_cmds[i].alias ? walk_cmds[i].alias : "", walk_cmds[i].summary);
}

/* --- saving --- */

/* Every answer is committed as it is given; a stopped walk's report with it. */
static int
save(struct walk *w, struct pt_err *err)
{
	return session_commit(&w->t, w->rs, w->o->redact, err) < 0 ? END_ERROR : END_NONE;
}

static int
ask_interpret(struct walk *w, struct pt_err *err)
{
	struct session_news nw = SESSION_NEWS_INIT;
	enum interp_answer a;
	int end;

	session_print_interpret(w->out, w->rs, w->t.s, session_class_changed(w->t.s));
	fputs("  answer yes, no, or skip when you cannot run it now\n", w->out);
	for (;;) {
		if ((end = ask(w, "interpret> ", false)) != END_NONE)
			return end;
		if (interp_answer_parse(w->line, &a) == 0 && a != INTERP_UNASKED)
			break;
		if (strcmp(w->line, "quit") == 0 || strcmp(w->line, "q") == 0)
			return END_QUIT;
		if (*w->line) {
			static const char *const answers[] = { "yes", "no", "skip", "quit" };

			print_unknown_answer(w, answers, ARRAY_SIZE(answers),
					     "answer yes, no or skip (or quit)");
		}
	}
	if (session_interpret(w->t.s, w->rs, a, &nw, err) < 0)
		return END_ERROR;
	session_check_exhausted(w->t.s, w->rs, &nw);
	session_print_news(w->out, &nw);
	session_news_release(&nw);
	return save(w, err);
}

/* The result of the shown rung, or the commands that only look around. */
static int
ask_result(struct walk *w, const struct rung *r, int *res)
{
	const struct walk_cmd *c;
	int end;

	fputs("  try it, then answer: fixed, same, different, n/a, quit (help lists all)\n", w->out);
	for (;;) {
		if ((end = ask(w, "result> ", false)) != END_NONE)
			return end;
		if (!*w->line)
			continue;
		if (!(c = walk_cmd_find(w->line))) {
			const char *names[ARRAY_SIZE(walk_cmds)];

			/* full names only: a one-letter alias is close to every typo */
			for (size_t i = 0; i < ARRAY_SIZE(walk_cmds); i++)
				names[i] = walk_cmds[i].name;
			print_unknown_answer(w, names, ARRAY_SIZE(names), "type help");
			continue;
		}
		if (c->act == ACT_RESULT && !r && c->result == RESULT_NA) {
			fputs("  no rung was shown, so there is nothing to be not applicable\n", w->out);
			continue;
		}
		if (c->act == ACT_RESULT) {
			*res = c->result;
			return END_NONE;
		}
		if (c->act == ACT_QUIT)
			return END_QUIT;
		if (c->act == ACT_SHOW && r)
			session_print_rung(w->out, w->t.s, w->rs, r);
		else if (c->act == ACT_LADDER)
			print_plan(w);
		else if (c->act == ACT_STATUS)
			print_status(w);
		else
			print_help(w->out);
	}
}

/* What changed, when the walk stood on no ladder and nobody said. */
#define CHANGE_UNSTATED "not stated (no rung was shown: the log before showed no failure " \
	"the rules know)"

/* r NULL: an attempt off the ladder, with no change to suggest. */
static int
ask_change(struct walk *w, const struct rung *r)
{
	char *change;
	int end;

	fputs(r ? "  what did you change? (Enter: the change shown above)\n"
		: "  what did you change? (Enter: not stated)\n", w->out);
	if ((end = ask(w, "changed> ", false)) != END_NONE)
		return end;
	if (*w->line)
		change = xstrdup(w->line);
	else
		change = r ? ladder_change_text(w->rs, r, &w->t.s->vars, NULL) : xstrdup(CHANGE_UNSTATED);
	session_pending_set_change(w->t.s, change);
	free(change);
	return END_NONE;
}

static int
save_paste(struct walk *w, const struct buf *paste, struct pt_err *err)
{
	char *path;

	char digest[SHA256_HEX_LEN + 1];

	if (session_txn_save_log(&w->t, NULL, paste->data, paste->len, &path, digest, err) < 0)
		return END_ERROR;
	session_pending_set_log(w->t.s, path, digest);
	fprintf(w->out, "  saved the pasted log as %s\n", path);
	free(path);
	return END_NONE;
}

/*
 * A line typed at log> that names a file rather than starting a log: one
 * word with a directory or a log's extension. A pasted log starts with a
 * message ("Traceback (most recent call last):"), which has spaces.
 */
static bool
looks_like_path(const char *s)
{
	size_t n = strlen(s);

	if (!n || strpbrk(s, " \t"))
		return false;
	if (strchr(s, '/') || s[0] == '~')
		return true;
	return (n > 4 && (strcmp(s + n - 4, ".log") == 0 || strcmp(s + n - 4, ".txt") == 0 ||
			  strcmp(s + n - 4, ".out") == 0 || strcmp(s + n - 4, ".err") == 0));
}

/*
 * The new log of a "different" answer: a path, or a paste ended by a line
 * holding only "." (or by the end of input). A path that does not exist is
 * said so and asked again (looks_like_path()). A paste is kept under
 * dir/logs/, also when Ctrl-C cuts it short. pending.log = "" records "no log".
 */
static int
ask_log(struct walk *w, struct pt_err *err)
{
	struct buf paste;
	int end, saved;
	bool cut = false;

	fputs("  paste the new log and end it with a line holding only '.', or type its path\n"
	      "  (Enter: no log)\n", w->out);
	for (;;) {
		if ((end = ask(w, "log> ", false)) != END_NONE)
			return end;
		if (!*w->line || util_is_file(w->line)) {
			session_pending_set_log(w->t.s, w->line, NULL);
			return END_NONE;
		}
		if (!looks_like_path(w->line))
			break;
		fputs("  no file '", w->out);
		put_untrusted(w->out, w->line);
		fputs("': type its path again, or paste the log itself\n", w->out);
	}
	buf_init(&paste, WALK_MAX_PASTE);
	buf_addf(&paste, "%s\n", w->line);
	while ((end = ask(w, "", true)) == END_NONE && strcmp(w->line, ".") != 0)
		if (!cut && buf_addf(&paste, "%s\n", w->line) < 0)
			cut = true;
	if (cut)
		fprintf(w->out, "  the paste was cut at %u bytes\n", WALK_MAX_PASTE);
	saved = save_paste(w, &paste, err);
	buf_release(&paste);
	if (saved != END_NONE)
		return saved;
	return end == END_STOP ? END_STOP : END_NONE;
}

static void
print_new_verdict(FILE *out, const struct verdict *v)
{
	char *lab = class_label(v->cls, v->subkind);

	fprintf(out, "  the new log: %s", lab);
	free(lab);
	if (v->cls != CLASS_UNKNOWN)
		fprintf(out, " (confidence %.0f%%)", v->confidence * 100.0);
	fputc('\n', out);
	if (v->message || v->reason) {
		fputs("    ", out);
		put_untrusted(out, v->message ? v->message : v->reason);
		fputc('\n', out);
	}
}

/* r NULL: the attempt is off the ladder (pending.rung is SESSION_RUNG_CUSTOM). */
static int
finish_attempt(struct walk *w, const struct rung *r, struct pt_err *err)
{
	struct session_news nw = SESSION_NEWS_INIT;
	const struct pending *p = &w->t.s->pending;
	struct attempt_in in = {
		.rung = r ? r->id : SESSION_RUNG_CUSTOM, .change = p->change,
		.result = (enum attempt_result)p->result,
		.log = p->log && *p->log ? p->log : NULL, .log_digest = p->log_digest,
	};
	char digest[SHA256_HEX_LEN + 1];
	struct session_known sk;
	struct verdict nv;
	bool have = false;
	size_t before;
	int rc;

	/* any result's log is read: its numbers are the next rung's */
	if (in.log && in.result != RESULT_NA) {
		session_known_init(&sk, w->t.s, w->rs, NULL);
		rc = classify_path_digest(w->rs, in.log, &sk.k, w->o->threads, digest, &nv, err);
		session_known_release(&sk);
		if (rc < 0)
			return END_ERROR;
		have = true;
		if (!in.log_digest)
			in.log_digest = digest;
		if (in.result == RESULT_NEW)
			print_new_verdict(w->out, &nv);
	}
	before = w->t.s->nattempts;
	rc = session_record(w->t.s, w->rs, &in, have ? &nv : NULL, session_txn_now(&w->t), &nw,
			    err);
	if (have)
		verdict_release(&nv);
	if (rc < 0)
		return END_ERROR;
	if (w->t.s->nattempts > before)
		session_kernel_recheck(&w->t, w->rs);
	if (in.result != RESULT_NA)
		fprintf(w->out, "  recorded attempt %zu of %d: %s\n", w->t.s->nattempts,
			SESSION_ATTEMPT_CAP,
			attempt_result_name(w->t.s->attempts[w->t.s->nattempts - 1].result));
	session_print_news(w->out, &nw);
	session_news_release(&nw);
	return save(w, err);
}

/* An unfinished attempt off the ladder: the log of a run after the walk stood on none. */
static bool
pending_custom(const struct walk *w)
{
	return w->t.s->pending.rung && strcmp(w->t.s->pending.rung, SESSION_RUNG_CUSTOM) == 0;
}

/* The rung to show: the one an unfinished attempt was about, else the next. */
static const struct rung *
current_rung(struct walk *w)
{
	const struct rung **plan = NULL, *r = NULL;
	size_t n = session_plan(w->t.s, w->rs, &plan);

	for (size_t i = 0; w->t.s->pending.rung && i < n; i++)
		if (strcmp(plan[i]->id, w->t.s->pending.rung) == 0)
			r = plan[i];
	if (!r && !pending_custom(w)) {
		session_pending_clear(w->t.s);
		r = n ? plan[0] : NULL;
	}
	free(plan);
	return r;
}

/*
 * Off every ladder (the last log showed no failure the rules know): there
 * is no rung to ask about, and the walk waits for the next run's log. It
 * says what to capture and stops, keeping the session in progress.
 */
static int
wait_for_log(struct walk *w)
{
	session_print_next(w->out, w->t.s, w->rs, NULL);
	return END_WAIT;
}

static int
step(struct walk *w, struct pt_err *err)
{
	struct pending *p = &w->t.s->pending;
	const struct rung *r = current_rung(w);
	int end, res;

	if (!r && !pending_custom(w)) {
		if (session_off_ladder(w->t.s))
			return wait_for_log(w);
		session_check_exhausted(w->t.s, w->rs, NULL);
		return END_NONE;
	}
	if (r)
		session_print_rung(w->out, w->t.s, w->rs, r);
	if (p->result < 0) {
		if ((end = ask_result(w, r, &res)) != END_NONE)
			return end;
		session_pending_start(w->t.s, r ? r->id : SESSION_RUNG_CUSTOM);
		session_pending_set_result(w->t.s, (enum attempt_result)res);
		if ((end = save(w, err)) != END_NONE)
			return end;
	} else {
		fprintf(w->out, "  result: %s (%s)\n",
			attempt_result_name((enum attempt_result)p->result),
			w->result_from_log ? "from the log you ran" : "answered before");
	}
	if (p->result != RESULT_NA && !p->change &&
	    ((end = ask_change(w, r)) != END_NONE || (end = save(w, err)) != END_NONE))
		return end;
	if (p->result == RESULT_NEW && !p->log) {
		end = ask_log(w, err);
		if (end == END_NONE || end == END_STOP) {
			int saved = save(w, err);

			end = end == END_NONE ? saved : end;
		}
		if (end != END_NONE)
			return end;
	}
	return finish_attempt(w, r, err);
}

static int
open_terminal_out(struct walk *w, bool json, struct pt_err *err)
{
	int fd = json ? STDERR_FILENO : STDOUT_FILENO;

	if (isatty(fd)) {
		w->tty = json ? stderr : stdout;
		return 0;
	}
	if (!(w->tty = fopen("/dev/tty", "w")))
		return pt_err_errno(err, PT_EXIT_USAGE, "cannot write to the terminal");
	w->own_out = true;
	return 0;
}

/* The terminal (or the answers file) to talk on; the session is opened after. */
static int
walk_setup(struct walk *w, const struct ruleset *rs, const struct walk_opts *o,
	   struct pt_err *err)
{
	struct session_txn t = SESSION_TXN_INIT;

	memset(w, 0, sizeof(*w));
	w->rs = rs;
	w->o = o;
	w->t = t;
	if (o->answers) {
		w->in = strcmp(o->answers, "-") == 0 ? stdin : fopen(o->answers, "r");
		if (!w->in)
			return pt_err_errno(err, PT_EXIT_DATA, "cannot open '%s'", o->answers);
		w->own_in = w->in != stdin;
		w->echo = !isatty(fileno(w->in));
		w->tty = o->json ? stderr : stdout;
	} else {
		if (!(w->in = fopen("/dev/tty", "r")))
			return pt_err_set(err, PT_EXIT_USAGE, "no terminal to ask on: give --answers "
					  "FILE, or record attempts with 'pallas-triage attempt'");
		w->own_in = true;
		if (open_terminal_out(w, o->json, err) < 0)
			return -1;
	}
	cmd_wrap_open(&w->wrap, w->tty);
	w->out = w->wrap.fp;
	return 0;
}

/* Once the session is open: from here on a signal saves it and ends the walk. */
static void
trap_signals(struct walk *w)
{
	struct sigaction sa;

	fflush(stdout);
	walk_signal = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;   /* no SA_RESTART: a read at a prompt must return */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(walk_signals); i++)
		sigaction(walk_signals[i], &sa, &w->old[i]);
	w->trapped = true;
}

static void
walk_teardown(struct walk *w)
{
	if (w->trapped)
		for (size_t i = 0; i < ARRAY_SIZE(walk_signals); i++)
			sigaction(walk_signals[i], &w->old[i], NULL);
	session_txn_release(&w->t);
	if (w->wrap.real)
		wrap_out_close(&w->wrap);
	if (w->own_in)
		fclose(w->in);
	if (w->own_out)
		fclose(w->tty);
	free(w->line);
}

static int
walk_conclude(struct walk *w, int end, struct pt_err *err)
{
	struct session *s = w->t.s;
	int sig = walk_signal;

	if (end == END_ERROR || save(w, err) != END_NONE) {
		flush_out(w);
		return pt_report(err);
	}
	if (s->status != SESSION_IN_PROGRESS) {
		session_print_closing(w->out, s);
		return s->status == SESSION_BLOCKED ? PT_EXIT_FINDING : PT_EXIT_OK;
	}
	if (end == END_STOP) {
		fprintf(w->out, "\n%s: the session is saved; 'pallas-triage session resume' goes on\n",
			sig == SIGINT ? "interrupted" : sig ? "stopped" : "lost the terminal");
		return sig ? 128 + sig : PT_EXIT_SYSTEM;
	}
	if (end == END_WAIT) {
		fprintf(w->out, "\nthe session is saved (%zu of %d attempts used) and waits for the "
			"next run: pipe its whole output in again (python k.py 2>&1 | pallas-triage)\n",
			s->nattempts, SESSION_ATTEMPT_CAP);
		return PT_EXIT_OK;
	}
	fprintf(w->out, "\nthe session is saved (%zu of %d attempts used); 'pallas-triage session "
		"resume' goes on\n", s->nattempts, SESSION_ATTEMPT_CAP);
	return PT_EXIT_OK;
}

static int
walk_run(struct walk *w)
{
	struct session_news nw = SESSION_NEWS_INIT;
	struct pt_err err = PT_ERR_INIT;
	int end = END_NONE;

	fprintf(w->out, "\nwalking the fix ladder one rung at a time; type help at a prompt, "
		"quit saves and stops\n");
	/* an unfinished attempt (or the log just run) is answered before anything new */
	if (w->t.s->pending.rung && w->t.s->status == SESSION_IN_PROGRESS)
		end = step(w, &err);
	if (end == END_NONE && w->t.s->status == SESSION_IN_PROGRESS)
		session_print_no_interpret(w->out, w->rs, w->t.s);
	if (end == END_NONE && session_interpret_applies(w->t.s, w->rs))
		end = ask_interpret(w, &err);
	if (end == END_NONE) {
		session_check_exhausted(w->t.s, w->rs, &nw);
		session_print_news(w->out, &nw);
		session_news_release(&nw);
	}
	/* A failure of another class is asked about again (session_record()). */
	while (end == END_NONE && w->t.s->status == SESSION_IN_PROGRESS)
		end = session_interpret_applies(w->t.s, w->rs) ? ask_interpret(w, &err) : step(w, &err);
	return walk_conclude(w, end, &err);
}

/*
 * The log the user ran during a session in progress is the result of the
 * last change: it becomes the pending answer to the rung they were on
 * (the pending one, else the next), with its result read from the log
 * when the log can tell (the same failure, or another one) and asked when
 * it cannot (no Pallas failure: fixed, or a failure the rules do not know).
 */
static void
take_result(struct walk *w, const struct verdict *v, const struct session_log *log,
	    const struct session_opened *o)
{
	const struct rung *r = current_rung(w);
	const char *id = r ? r->id : session_off_ladder(w->t.s) ? SESSION_RUNG_CUSTOM : NULL;
	int res = session_result_of(w->t.s, v);

	if (!id)
		return;         /* no rung left: the walk stops at once and says so */
	session_pending_start(w->t.s, id);
	if (res >= 0)   /* else the walk asks */
		session_pending_set_result(w->t.s, (enum attempt_result)res);
	session_pending_set_log(w->t.s, o->saved ? o->saved : log->name,
				o->saved_digest ? o->saved_digest : log->digest);
	w->result_from_log = res >= 0;
	if (r)
		fprintf(w->out, "\nthis log is the result of attempt %zu (%s): ",
			w->t.s->nattempts + 1, r->id);
	else
		fprintf(w->out, "\nthis log is the result of attempt %zu (off the ladder: no rung "
			"was shown): ", w->t.s->nattempts + 1);
	if (res == RESULT_SAME)
		fputs("the same error as before\n", w->out);
	else if (res == RESULT_NEW)
		fputs("a different error\n", w->out);
	else
		fputs("it shows no Pallas failure\n  answer fixed if the kernel works now, or "
		      "different if it fails in a way the rules do not know\n", w->out);
	if (o->saved) {
		fputs("  the log is kept as ", w->out);
		put_untrusted(w->out, o->saved);
		fputc('\n', w->out);
	}
}

/* Where no session can be kept: why, for the user (NULL when one can). */
static char *
no_session_reason(const char *dir)
{
	if (session_dir_writable(dir))
		return NULL;
	if (util_is_dir(dir))
		return xasprintf("no session was kept: '%s' is not writable here; --session-dir DIR "
				 "or PALLAS_TRIAGE_SESSION_DIR keeps it elsewhere", dir);
	return xasprintf("no session was kept: '%s' cannot be created (the directory is "
			 "read-only); --session-dir DIR or PALLAS_TRIAGE_SESSION_DIR keeps it "
			 "elsewhere", dir);
}

int
walk_loop(const struct ruleset *rs, const struct verdict *v, const struct session_log *log,
	  const struct walk_opts *o, walk_show_fn show, void *arg)
{
	struct pt_err err = PT_ERR_INIT;
	struct session_opened opened = { 0 };
	const char *dir = o->dir ? o->dir : SESSION_DIR;
	char *why = no_session_reason(dir);
	int vrc = v->cls == CLASS_UNKNOWN ? PT_EXIT_FINDING : PT_EXIT_OK, rc;
	struct walk w;

	if (why || (v->cls == CLASS_UNKNOWN && !session_in_progress(dir))) {
		show(arg, true, why);
		free(why);
		return vrc;
	}
	if (walk_setup(&w, rs, o, &err) < 0 ||
	    session_open_loop(&w.t, rs, dir, v, log, o->kernel, o->fixed_now, &opened, &err) < 0) {
		show(arg, true, NULL);
		rc = pt_report(&err);
	} else {
		show(arg, false, NULL);
		session_print_opened(w.out, dir, w.t.s, &opened);
		if (opened.result_log)
			take_result(&w, v, log, &opened);
		trap_signals(&w);
		rc = walk_run(&w);
	}
	session_opened_release(&opened);
	walk_teardown(&w);
	return rc;
}

int
walk_resume(const struct ruleset *rs, const struct walk_opts *o)
{
	struct pt_err err = PT_ERR_INIT;
	const char *dir = o->dir ? o->dir : SESSION_DIR;
	struct session *s;
	struct walk w;
	int rc;

	if (walk_setup(&w, rs, o, &err) < 0 ||
	    session_open_locked(&w.t, dir, o->fixed_now, &err) < 0) {
		rc = pt_report(&err);
	} else if ((s = w.t.s)->status != SESSION_IN_PROGRESS) {
		fprintf(w.out, "the session is %s after %zu attempt%s; 'pallas-triage report' shows "
			"it, 'pallas-triage session reset' starts over\n",
			session_status_name(s->status), s->nattempts, s->nattempts == 1 ? "" : "s");
		rc = s->status == SESSION_BLOCKED ? PT_EXIT_FINDING : PT_EXIT_OK;
	} else {
		fputs("resuming the session for ", w.out);
		put_untrusted(w.out, s->log);
		fprintf(w.out, ": %zu of %d attempts used\n", s->nattempts, SESSION_ATTEMPT_CAP);
		trap_signals(&w);
		rc = walk_run(&w);
	}
	walk_teardown(&w);
	return rc;
}

bool
walk_interactive(bool no_input, FILE *talk)
{
	int fd;

	if (no_input || !isatty(fileno(talk)))
		return false;
	if ((fd = open("/dev/tty", O_RDWR | O_CLOEXEC)) < 0)
		return false;
	close(fd);
	return true;
}
