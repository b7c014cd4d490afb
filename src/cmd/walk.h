/* SPDX-License-Identifier: MIT */
/*
 * The interactive walk of a fix ladder (src/cmd_walk.c), command code shared
 * by `triage` and `session resume`: the interpret-mode question first, then
 * one rung at a time ("attempt k of 10"), recording every answer in the
 * session in .pallas-triage/ as soon as it is given, until the failure is
 * fixed, the ladder runs out or attempt 10 is used; then the escalation
 * report is written.
 *
 * Answers are read from the controlling terminal (/dev/tty), so a log piped
 * on stdin does not get in the way, or from an answers file (--answers),
 * which holds exactly the lines a user would type (docs/sessions.md).
 * Ctrl-C, a hang-up, end of input or `quit` save the session and return.
 * The walk prints, and returns an exit status (docs/sessions.md):
 *   0  the failure is fixed, or the user quit / input ended (session saved)
 *   1  the walk stopped without a fix (attempt 10 or no rung left); the
 *      report was written
 *   2  no terminal to ask on and no --answers
 *   3  bad data: corrupt session, unreadable kernel or answers file
 *   4  system: the session is locked by another process, I/O errors
 *   128+N  stopped by signal N (130 for Ctrl-C); the session was saved
 */
#ifndef PT_CMD_WALK_H
#define PT_CMD_WALK_H

#include <stdbool.h>
#include <stdio.h>
#include "pt/classify.h"
#include "pt/rules.h"
#include "pt/session.h"

struct walk_opts {
	const char *kernel;     /* --kernel FILE: save FILE.pre-debug before the first attempt */
	const char *answers;    /* --answers FILE ("-" = stdin): answers instead of the terminal */
	bool redact;            /* --redact: mask home paths and host names in the report */
	bool json;              /* the caller's stdout carries JSON: the walk talks on stderr */
	const char *dir;        /* session directory; NULL means SESSION_DIR */
	const char *fixed_now;  /* PALLAS_TRIAGE_NOW, or NULL: the clock */
	unsigned threads;       /* for classifying the new logs of "different" answers */
};

/*
 * Is there a person to ask? True when no_input (--no-input) is false, talk
 * (the stream the walk would print its questions on: stdout, or stderr for
 * `session resume --json`) is a terminal, and /dev/tty opens. So
 * `pallas-triage LOG | less` and a harness that captures stdout never get a
 * prompt that fights them for the terminal. --answers walks regardless.
 */
bool walk_interactive(bool no_input, FILE *talk);

/*
 * Print the diagnosis before the walk talks: whole_ladder when there will
 * be no walk, and why (may be NULL) says why no session was kept.
 */
typedef void (*walk_show_fn)(void *arg, bool whole_ladder, const char *why);

/*
 * `pallas-triage LOG` with a person to ask: the edit-and-rerun loop. With
 * no session in progress, a session begins for verdict v (a closed one is
 * archived first and can be restored). During a session, a log the
 * session already has resumes it, and any other log is the result of the
 * last change: its result (the same error, a different one, or no failure)
 * is recorded as the attempt on the rung the user was on, after asking
 * what was changed; then the walk goes on. Where no session can be kept
 * (a read-only directory), show() prints the whole ladder and says why,
 * and nothing is asked. show is called exactly once, before the walk
 * prints anything.
 */
int walk_loop(const struct ruleset *rs, const struct verdict *v, const struct session_log *log,
	      const struct walk_opts *o, walk_show_fn show, void *arg);

/* `session resume`: continue the walk of the saved session. */
int walk_resume(const struct ruleset *rs, const struct walk_opts *o);

#endif
