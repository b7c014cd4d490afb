/* SPDX-License-Identifier: MIT */
/*
 * The interactive walk of a fix ladder: the interpret-mode question first,
 * then one rung at a time ("attempt k of 10"), recording every answer in the
 * session in .pallas-triage/ as soon as it is given, until the failure is
 * fixed, the ladder runs out or attempt 10 is used; then the escalation
 * report is written.
 *
 * Answers are read from the controlling terminal (/dev/tty), so a log piped
 * on stdin does not get in the way, or from an answers file (--answers),
 * which holds exactly the lines a user would type (docs/sessions.md).
 * Ctrl-C, a hang-up, end of input or `quit` save the session and return.
 *
 * Exit statuses returned by the walk functions (documented in
 * docs/sessions.md):
 *   0  the failure is fixed, or the user quit / input ended (session saved)
 *   1  the walk stopped without a fix (attempt 10 or no rung left); the
 *      report was written
 *   2  no terminal to ask on and no --answers
 *   3  bad data: corrupt session, unreadable kernel or answers file
 *   4  system: the session is locked by another process, I/O errors
 *   128+N  stopped by signal N (130 for Ctrl-C); the session was saved
 */
#ifndef PT_WALK_H
#define PT_WALK_H

#include <stdbool.h>
#include <stdio.h>
#include "pt/classify.h"
#include "pt/session.h"

struct pt_ctx;

struct walk_opts {
	const char *kernel;     /* --kernel FILE: save FILE.pre-debug before the first attempt */
	const char *answers;    /* --answers FILE ("-" = stdin): answers instead of the terminal */
	bool redact;            /* --redact: mask home paths and host names in the report */
	bool json;              /* the caller's stdout carries JSON: the walk talks on stderr */
	const char *dir;        /* session directory; NULL means SESSION_DIR */
};

/*
 * Should `triage` walk after printing the diagnosis? True when --no-input was
 * not given, one of stdin, stdout and stderr is a terminal (so a test harness
 * that captures all three never blocks on a prompt), and /dev/tty opens.
 * --answers walks regardless of this.
 */
bool walk_interactive(const struct pt_ctx *ctx);

/*
 * Walk the ladder of verdict v (classified from log_name, as the user named
 * it). Starts a session, or resumes the one in progress for the same failure
 * fingerprint; a session for another failure is archived first. ctx->rules
 * must be loaded. Returns an exit status (above).
 */
int walk_after_triage(struct pt_ctx *ctx, const struct verdict *v, const char *log_name,
		      const struct walk_opts *o);

/* `session resume`: continue the walk of the saved session. */
int walk_resume(struct pt_ctx *ctx, const struct walk_opts *o);

/*
 * The non-interactive pieces, shared with `attempt` and `session`:
 */

/*
 * Open the session for v in dir (the caller holds the lock): resume the one in
 * progress for the same fingerprint, else archive what is there and begin a
 * new one, and save kernel.pre-debug when kernel is given. Messages go to out.
 * *sp is a new session (session_free()).
 */
int walk_open_session(const char *dir, const struct verdict *v, const char *log_name,
		      const char *kernel, FILE *out, struct session **sp, struct pt_err *err);

/*
 * Classify the log at path ("-": stdin) with rs into v (release with
 * verdict_release()). kernel (may be NULL) is the --kernel FILE the user
 * named: the pallas-kernel context holds on their word.
 */
int walk_classify_path(const struct ruleset *rs, const char *path, const char *kernel,
		       struct verdict *v, struct pt_err *err);

/* Print rung r as attempt k of 10 with its filled change, expectation and flags. */
void walk_print_rung(FILE *out, const struct session *s, const struct ruleset *rs,
		     const struct rung *r);
/*
 * Print the interpret-mode question's explanation and snippets for the
 * session's class, the snippets (rs's flags) spelled for its JAX version.
 */
void walk_print_interpret(FILE *out, const struct ruleset *rs, const struct session *s,
			  bool again);
/* After a class change that reset the interpret-mode answer (nw of that
 * record): the question again, for commands that do not ask it. */
void walk_print_ask_again(FILE *out, const struct session *s, const struct ruleset *rs,
			  const struct session_news *nw);
void walk_print_news(FILE *out, const struct session_news *nw);

/*
 * When s has stopped (blocked, or resolved at attempt 10), write the report
 * files into the current directory and remember their paths in s. Returns 1
 * when files were written, 0 when there was nothing to write, -1 with err.
 */
int walk_write_report(struct session *s, const struct ruleset *rs, bool redact,
		      struct pt_err *err);
/* The closing lines of a stopped session: fixed or not, and where the report is. */
void walk_print_closing(FILE *out, const struct session *s);

#endif
