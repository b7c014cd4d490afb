/* SPDX-License-Identifier: MIT */
/*
 * Internal to the session model (session.c and session_interp.c): the
 * helpers both halves change a session with. Commands use pt/session.h.
 */
#ifndef PT_SESSION_MODEL_H
#define PT_SESSION_MODEL_H

#include "pt/diag.h"
#include "pt/session.h"


/* Is class c (subkind: that subkind, NULL: the whole class) ruled out? */
bool session_ruled_out_has(const struct session *s, enum pt_class c, const char *subkind);

/*
 * Move the walk to class c / subkind, recording the step in the trajectory
 * with why and telling nw ("verb: from -> to (why)"); nothing when it is
 * where it stands already.
 */
void session_move_to(struct session *s, enum pt_class c, const char *subkind, const char *verb,
		     const char *why, struct session_news *nw);

/*
 * The diagnosis stands on a subkind ruled out, or on an undecided one, of
 * a class with explanations (classes.yaml): move it to the class's first
 * explanation not ruled out (verb and why as in session_move_to()), or,
 * when none is left, stop with that finding (session_escalate_ruled_out()).
 */
void session_settle(struct session *s, const struct ruleset *rs, const char *verb,
		    const char *why, struct session_news *nw);

/*
 * Every explanation of the current class is ruled out (both numerics
 * subkinds, say): stop the walk with that finding (s->finding), which the
 * report leads with. nw is told.
 */
void session_escalate_ruled_out(struct session *s, struct session_news *nw);

/* Keep the value `interpret_answered` (rungs' `unless`) in step with s->interp. */
void session_interp_sync_vars(struct session *s);

#endif
