/* SPDX-License-Identifier: MIT */
/*
 * Internal to the session model (session.c and session_interp.c): the
 * helpers both halves change a session with. Commands use pt/session.h.
 */
#ifndef PT_SESSION_MODEL_H
#define PT_SESSION_MODEL_H

#include "pt/diag.h"
#include "pt/session.h"

/* Append a line to nw (NULL: nothing). */
void session_news_add(struct session_news *nw, const char *fmt, ...) PT_PRINTF(2, 3);

/* Is class c (subkind: that subkind, NULL: the whole class) ruled out? */
bool session_ruled_out_has(const struct session *s, enum pt_class c, const char *subkind);

/*
 * Move the walk to class c / subkind, recording the step in the trajectory
 * with why and telling nw ("verb: from -> to (why)"); nothing when it is
 * where it stands already.
 */
void session_move_to(struct session *s, enum pt_class c, const char *subkind, const char *verb,
		     const char *why, struct session_news *nw);

/* A numerics verdict not yet split into precision and logic (no subkind, or "mismatch"). */
bool session_numerics_undecided(const struct session *s);

/* Was ruling r made by an interpret-mode answer (asked, or read from the log)? */
bool session_ruling_from_interpret(const struct ruled_out *r);

/*
 * Every explanation of the current class is ruled out (both numerics
 * subkinds, say): stop the walk with that finding (s->finding), which the
 * report leads with. nw is told.
 */
void session_escalate_ruled_out(struct session *s, struct session_news *nw);

/* Keep the value `interpret_answered` (rungs' `unless`) in step with s->interp. */
void session_interp_sync_vars(struct session *s);

#endif
