/* SPDX-License-Identifier: MIT */
/*
 * Presenting a session to people: the rung to try, what a change did, the
 * interpret-mode question and how a walk ended. Shared by the walk and the
 * commands that record without asking (attempt, run, session), so a rung
 * reads the same wherever it is shown. Everything goes to the FILE * given;
 * text from the session file or a log is escaped (term_puts_untrusted()).
 */
#ifndef PT_SESSION_PRINT_H
#define PT_SESSION_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include "pt/rules.h"
#include "pt/session.h"

/* Rung r as attempt k of 10: its action, the change filled in from the log,
 * what to expect, the debug flags (rs's, spelled for the log's JAX version). */
void session_print_rung(FILE *out, const struct session *s, const struct ruleset *rs,
			const struct rung *r);

/*
 * What comes next in a session in progress, for the commands that do not
 * ask: the interpret-mode question when it is open (with nw: only when the
 * change in nw moved the failure to another class, which asks it again),
 * then "next:" and the next rung. Nothing once the session is closed.
 */
void session_print_next(FILE *out, const struct session *s, const struct ruleset *rs,
			const struct session_news *nw);

/* The interpret-mode question's explanation and snippets for the session's
 * class; again: the class changed since it was last asked. */
void session_print_interpret(FILE *out, const struct ruleset *rs, const struct session *s,
			     bool again);

/* Why the walk does not ask the interpret-mode question (the class's
 * `interpret` is `not-modelled`); nothing when it asks or was answered,
 * or when the walk was on this class's ladder before (it was said then). */
void session_print_no_interpret(FILE *out, const struct ruleset *rs, const struct session *s);

/* The news of a change, one "  * " line each. */
void session_print_news(FILE *out, const struct session_news *nw);

/* What session_open_for() found in dir: resumed, archived, the pre-debug copy. */
void session_print_opened(FILE *out, const char *dir, const struct session *s,
			  const struct session_opened *o);

/* The closing lines of a stopped session: fixed or not, and where the report is. */
void session_print_closing(FILE *out, const struct session *s);

#endif
