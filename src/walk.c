/* SPDX-License-Identifier: MIT */
/*
 * The ladder walk; see pt/walk.h. Every answer is written to the session the
 * moment it is given (a pending attempt holds the answers of an unfinished
 * one), so stopping at any prompt loses nothing. Signal handlers only set a
 * flag; they are installed without SA_RESTART so a blocked read returns and
 * the walk saves and leaves through its normal path.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt/buf.h"
#include "pt/cmd.h"
#include "pt/ladder.h"
#include "pt/report.h"
#include "pt/term.h"
#include "pt/util.h"
#include "pt/walk.h"
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
	struct pt_ctx *ctx;
	const struct walk_opts *o;
	const char *dir;
	struct session *s;
	FILE *in, *out;
	bool echo;              /* input is a file: echo answers so the transcript reads whole */
	bool own_in, own_out;
	bool lost;              /* the terminal went away (EIO) */
	int lockfd;
	char *line;             /* the last answer, owned here */
	size_t linecap;
	struct sigaction old[ARRAY_SIZE(walk_signals)];
};

/* How a step of the walk ended. */
enum walk_end { END_NONE, END_QUIT, END_EOF, END_STOP, END_ERROR };

static void
put_untrusted(FILE *out, const char *s)
{
	term_put_untrusted(out, s, strlen(s));
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
		if (!w->echo) {
			fputs(prompt, w->out);
			fflush(w->out);
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

/* --- output shared with the commands --- */

void
walk_print_news(FILE *out, const struct session_news *nw)
{
	for (size_t i = 0; i < nw->n; i++) {
		fputs("  * ", out);
		put_untrusted(out, nw->msg[i]);
		fputc('\n', out);
	}
}

void
walk_print_rung(FILE *out, const struct session *s, const struct ruleset *rs,
		const struct rung *r)
{
	bool filled = false;
	struct api_render ar;
	char *change, *sentence;

	ladder_render_init(&ar, rs, &s->vars);
	change = ladder_change_render(&ar, r, &s->vars, &filled);
	fprintf(out, "\nattempt %zu of %d: %s", s->nattempts + 1, SESSION_ATTEMPT_CAP, r->id);
	if (r->family)
		fprintf(out, " (family %s)", r->family);
	fprintf(out, "\n  action  %s\n", r->action ? r->action : "");
	if (*change) {
		fputs("  change  ", out);
		put_untrusted(out, change);
		fputs(filled ? "   (from your log)\n" : "\n", out);
	}
	if (r->expect)
		fprintf(out, "  expect  %s\n", r->expect);
	for (char **f = r->flags; f && *f; f++) {
		const struct flag_def *fd = ruleset_find_flag(rs, *f);

		char *snippet = fd ? ladder_flag_render(&ar, fd) : xstrdup(*f);

		fprintf(out, "  debug   %s\n", snippet);
		free(snippet);
	}
	for (size_t i = 0; i < ar.nnotes; i++)
		fprintf(out, "  note    %s\n", ar.notes[i]);
	/* each rung is its own screen in a walk, so the version is said where it matters */
	if (!ar.known && (sentence = ladder_api_sentence(&ar))) {
		fprintf(out, "  note    %s\n", sentence);
		free(sentence);
	}
	api_render_release(&ar);
	free(change);
}

void
walk_print_ask_again(FILE *out, const struct session *s, const struct ruleset *rs,
		     const struct session_news *nw)
{
	if (s->status != SESSION_IN_PROGRESS || s->interp != INTERP_UNASKED ||
	    !(nw->flags & NEWS_CLASS))
		return;
	walk_print_interpret(out, rs, s, true);
	fputs("  answer with 'pallas-triage attempt --interpret yes|no|skip' (a walk asks it "
	      "itself)\n", out);
}

/* A flag's snippet on a line of its own, spelled for ar; nothing if the rules lack it. */
static void
print_flag_line(FILE *out, const struct ruleset *rs, struct api_render *ar, const char *id,
		const char *before)
{
	const struct flag_def *fd = ruleset_find_flag(rs, id);
	char *snippet;

	if (!fd)
		return;
	snippet = ladder_flag_render(ar, fd);
	fprintf(out, "%s      %s\n", before, snippet);
	free(snippet);
}

void
walk_print_interpret(FILE *out, const struct ruleset *rs, const struct session *s, bool again)
{
	enum pt_class c = s->cls;
	const struct class_def *cd = c < CLASS_COUNT && rs->have_class[c] ? &rs->classes[c] : NULL;
	const char *platform = vars_get(&s->vars, "platform"), *backend = vars_get(&s->vars, "backend");
	bool gpu = platform && strcmp(platform, "gpu") == 0;
	/* GPU interpret mode simulates Mosaic GPU kernels; Triton has only interpret=True */
	bool gpu_sim = gpu && !(backend && strcmp(backend, "triton") == 0);
	const char *note = cd ? (gpu && cd->gpu_interpret_note ? cd->gpu_interpret_note
					      : cd->interpret_note) : NULL;
	struct api_render ar;

	ladder_render_init(&ar, rs, &s->vars);
	fputs(again ? "\nthe failure changed class: does the new one reproduce under interpret mode?\n"
		    : "\nbefore any edit: does the failure reproduce under interpret mode?\n", out);
	fputs("  It splits the problem: a failure that reproduces on CPU is a logic or indexing\n"
	      "  bug, or a race; one that does not is layout, capacity or precision.\n", out);
	/* an unmet wait polls for ever in the simulator too: the timeout ends it */
	if (c == CLASS_SYNCHRONIZATION && !gpu)
		print_flag_line(out, rs, &ar, "tpu-interpret", "  For a synchronization failure run "
				"the TPU simulation with the race detector,\n  under 'pallas-triage run "
				"--timeout' (a hang stays a hang there):\n");
	else if (c == CLASS_SYNCHRONIZATION && gpu_sim)
		print_flag_line(out, rs, &ar, "gpu-interpret", "  For a synchronization failure run "
				"GPU interpret mode (Mosaic GPU kernels) with the race\n  detector, under "
				"'pallas-triage run --timeout':\n");
	else
		print_flag_line(out, rs, &ar, "interpret", "  Run the kernel on CPU:\n");
	if (!gpu || gpu_sim)
		print_flag_line(out, rs, &ar, gpu ? "gpu-interpret-reset" : "interpret-reset",
				"  Between runs reset the simulated state, or state from one run leaks "
				"into the next:\n");
	for (size_t i = 0; i < ar.nnotes; i++)
		fprintf(out, "  note: %s\n", ar.notes[i]);
	api_render_release(&ar);
	if (cd && cd->interpret && strcmp(cd->interpret, "not-modelled") == 0 && note) {
		fprintf(out, "  Interpret mode cannot help with %s: %s.\n", class_name(c), note);
		if (c == CLASS_LAYOUT || c == CLASS_CAPACITY)
			fputs("  Answering no confirms the diagnosis.\n", out);
	}
}

static void
print_plan(struct walk *w)
{
	const struct rung **plan = NULL;
	size_t n = session_plan(w->s, w->ctx->rules, &plan);

	fprintf(w->out, "  %zu rung%s left on the %s ladder:\n", n, n == 1 ? "" : "s",
		class_name(w->s->cls));
	for (size_t i = 0; i < n; i++)
		fprintf(w->out, "    %zu. %s%s%s%s: %s\n", i + 1, plan[i]->id,
			plan[i]->family ? " (" : "", plan[i]->family ? plan[i]->family : "",
			plan[i]->family ? ")" : "", plan[i]->action ? plan[i]->action : "");
	free(plan);
}

static void
print_status(struct walk *w)
{
	const struct session *s = w->s;

	fprintf(w->out, "  %zu of %d attempts used; now %s%s%s; interpret mode: %s\n",
		s->nattempts, SESSION_ATTEMPT_CAP, class_name(s->cls), s->subkind ? "/" : "",
		s->subkind ? s->subkind : "", interp_answer_name(s->interp));
	for (size_t i = 0; i < s->nattempts; i++) {
		fprintf(w->out, "    %d. %s: %s: ", s->attempts[i].n, s->attempts[i].rung,
			attempt_result_name(s->attempts[i].result));
		put_untrusted(w->out, s->attempts[i].change);
		fputc('\n', w->out);
	}
	for (size_t i = 0; i < s->nruled; i++)
		fprintf(w->out, "    ruled out %s%s%s: %s\n", class_name(s->ruled[i].cls),
			s->ruled[i].subkind ? "/" : "", s->ruled[i].subkind ? s->ruled[i].subkind : "",
			s->ruled[i].reason);
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

static void
print_help(FILE *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(walk_cmds); i++)
		if (walk_cmds[i].summary)
			fprintf(out, "    %-10s %-3s %s\n", walk_cmds[i].name,
				walk_cmds[i].alias ? walk_cmds[i].alias : "", walk_cmds[i].summary);
}

/* --- saving --- */

static int
save(struct walk *w, struct pt_err *err)
{
	char now[64];

	free(w->s->updated);
	w->s->updated = xstrdup(util_now(now, sizeof(now)));
	return session_save(w->s, w->dir, err) < 0 ? END_ERROR : END_NONE;
}

static int
ask_interpret(struct walk *w, struct pt_err *err)
{
	struct session_news nw = SESSION_NEWS_INIT;
	enum interp_answer a;
	int end;

	walk_print_interpret(w->out, w->ctx->rules, w->s, session_class_changed(w->s));
	fputs("  answer yes, no, or skip when you cannot run it now\n", w->out);
	for (;;) {
		if ((end = ask(w, "interpret> ", false)) != END_NONE)
			return end;
		if (interp_answer_parse(w->line, &a) == 0 && a != INTERP_UNASKED)
			break;
		if (strcmp(w->line, "quit") == 0 || strcmp(w->line, "q") == 0)
			return END_QUIT;
		if (*w->line)
			fputs("  answer yes, no or skip (or quit)\n", w->out);
	}
	if (session_interpret(w->s, a, &nw, err) < 0)
		return END_ERROR;
	session_check_exhausted(w->s, w->ctx->rules, &nw);
	walk_print_news(w->out, &nw);
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
			fputs("  unknown answer '", w->out);
			put_untrusted(w->out, w->line);
			fputs("': type help\n", w->out);
			continue;
		}
		if (c->act == ACT_RESULT) {
			*res = c->result;
			return END_NONE;
		}
		if (c->act == ACT_QUIT)
			return END_QUIT;
		if (c->act == ACT_SHOW)
			walk_print_rung(w->out, w->s, w->ctx->rules, r);
		else if (c->act == ACT_LADDER)
			print_plan(w);
		else if (c->act == ACT_STATUS)
			print_status(w);
		else
			print_help(w->out);
	}
}

static int
ask_change(struct walk *w, const struct rung *r)
{
	int end;

	fputs("  what did you change? (Enter: the change shown above)\n", w->out);
	if ((end = ask(w, "changed> ", false)) != END_NONE)
		return end;
	free(w->s->pending.change);
	w->s->pending.change = *w->line ? xstrdup(w->line)
					: ladder_change_text(w->ctx->rules, r, &w->s->vars, NULL);
	return END_NONE;
}

static int
save_paste(struct walk *w, const struct buf *paste, struct pt_err *err)
{
	char *logs = xasprintf("%s/logs", w->dir), *path;

	if (util_mkdirs(logs, err) < 0) {
		free(logs);
		return END_ERROR;
	}
	path = xasprintf("%s/attempt-%zu.log", logs, w->s->nattempts + 1);
	free(logs);
	if (util_write_atomic(path, paste->data, paste->len, err) < 0) {
		free(path);
		return END_ERROR;
	}
	free(w->s->pending.log);
	w->s->pending.log = path;
	fprintf(w->out, "  saved the pasted log as %s\n", path);
	return END_NONE;
}

/*
 * The new log of a "different" answer: a path, or a paste ended by a line
 * holding only "." (or by the end of input). A paste is kept under
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
	if ((end = ask(w, "log> ", false)) != END_NONE)
		return end;
	if (!*w->line || util_is_file(w->line)) {
		free(w->s->pending.log);
		w->s->pending.log = xstrdup(w->line);
		return END_NONE;
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

int
walk_classify_path(const struct ruleset *rs, const char *path, const char *kernel,
		   struct verdict *v, struct pt_err *err)
{
	bool in = strcmp(path, "-") == 0;
	int fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC), rc;
	char *why = kernel ? xasprintf("--kernel %s", kernel) : NULL;
	struct classify_opts opts = {
		.threads = util_threads(),
		.assert_context = kernel ? rs->policy.kernel_context : NULL,
		.assert_why = why,
	};

	if (fd < 0) {
		free(why);
		return pt_err_errno(err, PT_EXIT_DATA, "cannot open '%s'", path);
	}
	rc = classify_fd(rs, fd, in ? "<stdin>" : path, &opts, v, err);
	free(why);
	if (!in)
		close(fd);
	return rc;
}

static void
print_new_verdict(FILE *out, const struct verdict *v)
{
	fprintf(out, "  the new log: %s%s%s", class_name(v->cls), v->subkind ? "/" : "",
		v->subkind ? v->subkind : "");
	if (v->cls != CLASS_UNKNOWN)
		fprintf(out, " (confidence %.0f%%)", v->confidence * 100.0);
	fputc('\n', out);
	if (v->message || v->reason) {
		fputs("    ", out);
		put_untrusted(out, v->message ? v->message : v->reason);
		fputc('\n', out);
	}
}

static int
finish_attempt(struct walk *w, const struct rung *r, struct pt_err *err)
{
	struct session_news nw = SESSION_NEWS_INIT;
	const struct pending *p = &w->s->pending;
	struct attempt_in in = { r->id, p->change, (enum attempt_result)p->result,
				 p->log && *p->log ? p->log : NULL };
	struct verdict nv;
	bool have = false;
	char now[64];
	int rc;

	if (in.result == RESULT_NEW && in.log) {
		if (walk_classify_path(w->ctx->rules, in.log, w->s->kernel, &nv, err) < 0)
			return END_ERROR;
		have = true;
		print_new_verdict(w->out, &nv);
	}
	rc = session_record(w->s, w->ctx->rules, &in, have ? &nv : NULL,
			    util_now(now, sizeof(now)), &nw, err);
	if (have)
		verdict_release(&nv);
	if (rc < 0)
		return END_ERROR;
	if (in.result != RESULT_NA)
		fprintf(w->out, "  recorded attempt %zu of %d: %s\n", w->s->nattempts,
			SESSION_ATTEMPT_CAP,
			attempt_result_name(w->s->attempts[w->s->nattempts - 1].result));
	walk_print_news(w->out, &nw);
	session_news_release(&nw);
	return save(w, err);
}

/* The rung to show: the one an unfinished attempt was about, else the next. */
static const struct rung *
current_rung(struct walk *w)
{
	const struct rung **plan = NULL, *r = NULL;
	size_t n = session_plan(w->s, w->ctx->rules, &plan);

	for (size_t i = 0; w->s->pending.rung && i < n; i++)
		if (strcmp(plan[i]->id, w->s->pending.rung) == 0)
			r = plan[i];
	if (!r) {
		session_pending_clear(w->s);
		r = n ? plan[0] : NULL;
	}
	free(plan);
	return r;
}

static int
step(struct walk *w, struct pt_err *err)
{
	struct pending *p = &w->s->pending;
	const struct rung *r = current_rung(w);
	int end, res;

	if (!r) {
		session_check_exhausted(w->s, w->ctx->rules, NULL);
		return END_NONE;
	}
	walk_print_rung(w->out, w->s, w->ctx->rules, r);
	if (p->result < 0) {
		if ((end = ask_result(w, r, &res)) != END_NONE)
			return end;
		free(p->rung);
		p->rung = xstrdup(r->id);
		p->result = res;
		if ((end = save(w, err)) != END_NONE)
			return end;
	} else {
		fprintf(w->out, "  result: %s (answered before)\n",
			attempt_result_name((enum attempt_result)p->result));
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

/* --- opening and closing --- */

int
walk_open_session(const char *dir, const struct verdict *v, const char *log_name,
		  const char *kernel, FILE *out, struct session **sp, struct pt_err *err)
{
	struct session *s = NULL;
	char now[64], *arch = NULL;
	bool existed;

	/* check before an old session is archived for nothing */
	if (kernel && access(kernel, R_OK) != 0)
		return pt_err_errno(err, PT_EXIT_DATA, "cannot read the kernel '%s'", kernel);
	if (session_exists(dir)) {
		if (session_load(dir, &s, err) < 0)
			return -1;
		if (s->status == SESSION_IN_PROGRESS && s->first.cls == v->cls &&
		    (s->first.fingerprint && v->fingerprint ?
		     strcmp(s->first.fingerprint, v->fingerprint) == 0 :
		     !s->first.fingerprint && !v->fingerprint)) {
			fprintf(out, "resuming the session for this failure: %zu of %d attempts used\n",
				s->nattempts, SESSION_ATTEMPT_CAP);
			goto kernel;
		}
		fprintf(out, "the session in %s was for %s failure (%s); ", dir,
			s->first.fingerprint ? "another" : "an earlier",
			session_status_name(s->status));
		session_free(s);
		if (session_archive(dir, &arch, err) < 0)
			return -1;
		fprintf(out, "it is kept as %s\n", arch);
		free(arch);
	}
	s = session_new();
	session_begin(s, v, log_name, util_now(now, sizeof(now)));
kernel:
	if (kernel && !s->pre_debug) {
		if (session_save_pre_debug(s, kernel, &existed, err) < 0)
			goto fail;
		fputs(existed ? "kept the existing " : "saved the kernel as it is now to ", out);
		put_untrusted(out, s->pre_debug);
		fputs(existed ? ": a pre-debug copy is never overwritten\n" : "\n", out);
	}
	if (session_save(s, dir, err) < 0)
		goto fail;
	*sp = s;
	return 0;
fail:
	session_free(s);
	return -1;
}

static int
open_terminal_out(struct walk *w, bool json, struct pt_err *err)
{
	int fd = json ? STDERR_FILENO : STDOUT_FILENO;

	if (isatty(fd)) {
		w->out = json ? stderr : stdout;
		return 0;
	}
	if (!(w->out = fopen("/dev/tty", "w")))
		return pt_err_errno(err, PT_EXIT_USAGE, "cannot write to the terminal");
	w->own_out = true;
	return 0;
}

static int
walk_setup(struct walk *w, struct pt_ctx *ctx, const struct walk_opts *o, struct pt_err *err)
{
	struct sigaction sa;

	memset(w, 0, sizeof(*w));
	w->ctx = ctx;
	w->o = o;
	w->dir = o->dir ? o->dir : SESSION_DIR;
	w->lockfd = -1;
	if (o->answers) {
		w->in = strcmp(o->answers, "-") == 0 ? stdin : fopen(o->answers, "r");
		if (!w->in)
			return pt_err_errno(err, PT_EXIT_DATA, "cannot open '%s'", o->answers);
		w->own_in = w->in != stdin;
		w->echo = !isatty(fileno(w->in));
		w->out = o->json ? stderr : stdout;
	} else {
		if (!(w->in = fopen("/dev/tty", "r")))
			return pt_err_set(err, PT_EXIT_USAGE, "no terminal to ask on: give --answers "
					  "FILE, or record attempts with 'pallas-triage attempt'");
		w->own_in = true;
		if (open_terminal_out(w, o->json, err) < 0)
			return -1;
	}
	if ((w->lockfd = session_lock(w->dir, err)) < 0)
		return -1;
	fflush(stdout);
	walk_signal = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;   /* no SA_RESTART: a read at a prompt must return */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(walk_signals); i++)
		sigaction(walk_signals[i], &sa, &w->old[i]);
	return 0;
}

static void
walk_teardown(struct walk *w)
{
	if (w->lockfd >= 0)
		for (size_t i = 0; i < ARRAY_SIZE(walk_signals); i++)
			sigaction(walk_signals[i], &w->old[i], NULL);
	session_unlock(w->lockfd);
	if (w->out)
		fflush(w->out);
	if (w->own_in)
		fclose(w->in);
	if (w->own_out)
		fclose(w->out);
	free(w->line);
	session_free(w->s);
}

int
walk_write_report(struct session *s, const struct ruleset *rs, bool redact,
		  struct pt_err *err)
{
	struct report r;
	char *md = NULL, *js = NULL;
	int rc;

	if (s->status == SESSION_IN_PROGRESS ||
	    (s->status == SESSION_RESOLVED && s->nattempts < SESSION_ATTEMPT_CAP))
		return 0;
	report_build(&r, s, rs, redact);
	rc = report_write_files(&r, ".", &md, &js, err);
	report_release(&r);
	if (rc < 0)
		return -1;
	free(s->report_md);
	free(s->report_json);
	s->report_md = md;
	s->report_json = js;
	return 1;
}

void
walk_print_closing(FILE *out, const struct session *s)
{
	if (s->status == SESSION_IN_PROGRESS)
		return;
	if (s->status == SESSION_RESOLVED)
		fprintf(out, "\nthe failure is fixed after %zu attempt%s\n", s->nattempts,
			s->nattempts == 1 ? "" : "s");
	else
		fprintf(out, "\nthe walk stops here without a fix, after %zu of %d attempts\n",
			s->nattempts, SESSION_ATTEMPT_CAP);
	if (s->report_md)
		fprintf(out, "escalation report: %s and %s\n", s->report_md,
			s->report_json ? s->report_json : "");
	else
		fputs("'pallas-triage report' writes the report of this session\n", out);
}

static int
walk_conclude(struct walk *w, int end, struct pt_err *err)
{
	struct session *s = w->s;
	int sig = walk_signal;

	if (end == END_ERROR || save(w, err) != END_NONE)
		return pt_report(err);
	if (s->status != SESSION_IN_PROGRESS) {
		if (walk_write_report(s, w->ctx->rules, w->o->redact, err) < 0 ||
		    save(w, err) != END_NONE)
			return pt_report(err);
		walk_print_closing(w->out, s);
		return s->status == SESSION_BLOCKED ? PT_EXIT_FINDING : PT_EXIT_OK;
	}
	if (end == END_STOP) {
		fprintf(w->out, "\n%s: the session is saved; 'pallas-triage session resume' goes on\n",
			sig == SIGINT ? "interrupted" : sig ? "stopped" : "lost the terminal");
		return sig ? 128 + sig : PT_EXIT_SYSTEM;
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
	if (w->s->interp == INTERP_UNASKED && w->s->status == SESSION_IN_PROGRESS)
		end = ask_interpret(w, &err);
	if (end == END_NONE) {
		session_check_exhausted(w->s, w->ctx->rules, &nw);
		walk_print_news(w->out, &nw);
		session_news_release(&nw);
	}
	/* A failure of another class is asked about again (session_record()). */
	while (end == END_NONE && w->s->status == SESSION_IN_PROGRESS)
		end = w->s->interp == INTERP_UNASKED ? ask_interpret(w, &err) : step(w, &err);
	return walk_conclude(w, end, &err);
}

int
walk_after_triage(struct pt_ctx *ctx, const struct verdict *v, const char *log_name,
		  const struct walk_opts *o)
{
	struct pt_err err = PT_ERR_INIT;
	struct walk w;
	int rc;

	if (walk_setup(&w, ctx, o, &err) < 0 ||
	    walk_open_session(w.dir, v, log_name, o->kernel, w.out, &w.s, &err) < 0)
		rc = pt_report(&err);
	else
		rc = walk_run(&w);
	walk_teardown(&w);
	return rc;
}

int
walk_resume(struct pt_ctx *ctx, const struct walk_opts *o)
{
	struct pt_err err = PT_ERR_INIT;
	struct walk w;
	int rc;

	if (walk_setup(&w, ctx, o, &err) < 0 || session_load(w.dir, &w.s, &err) < 0) {
		rc = pt_report(&err);
	} else if (w.s->status != SESSION_IN_PROGRESS) {
		fprintf(w.out, "the session is %s after %zu attempt%s; 'pallas-triage report' shows "
			"it, 'pallas-triage session reset' starts over\n",
			session_status_name(w.s->status), w.s->nattempts,
			w.s->nattempts == 1 ? "" : "s");
		rc = w.s->status == SESSION_BLOCKED ? PT_EXIT_FINDING : PT_EXIT_OK;
	} else {
		fputs("resuming the session for ", w.out);
		put_untrusted(w.out, w.s->log);
		fprintf(w.out, ": %zu of %d attempts used\n", w.s->nattempts, SESSION_ATTEMPT_CAP);
		rc = walk_run(&w);
	}
	walk_teardown(&w);
	return rc;
}

bool
walk_interactive(const struct pt_ctx *ctx)
{
	int fd;

	if (ctx->no_input)
		return false;
	if (!isatty(STDIN_FILENO) && !isatty(STDOUT_FILENO) && !isatty(STDERR_FILENO))
		return false;
	if ((fd = open("/dev/tty", O_RDWR | O_CLOEXEC)) < 0)
		return false;
	close(fd);
	return true;
}
