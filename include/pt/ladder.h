/* SPDX-License-Identifier: MIT */
/*
 * Fix ladders: which rungs of a class's ladder apply to a diagnosis, and the
 * concrete change text of a rung filled in from the log's values.
 */
#ifndef PT_LADDER_H
#define PT_LADDER_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/jaxapi.h"
#include "pt/rules.h"
#include "pt/vars.h"

/*
 * The rungs of class cls that apply to subkind (may be NULL) and whose
 * `requires` values are all in vs, in ladder order. When some rung names the
 * verdict's `backend` in vs (or, without one, its `platform`), only rungs for
 * it apply; otherwise only rungs that name no backend (docs/rules.md,
 * "Ladders"). Returns the count; *out is a new array of borrowed rung
 * pointers (free() the array only).
 */
size_t ladder_select(const struct ruleset *rs, enum pt_class cls, const char *subkind,
		     const struct vars *vs, const struct rung ***out);
/*
 * Every rung of class cls's ladder for the backend (or platform) in vs, as
 * ladder_select() chooses the ladder, whatever the subkinds and values:
 * what a report of a TPU session may list, and a GPU one's. Returns the
 * count; *out as for ladder_select().
 */
size_t ladder_for_backend(const struct ruleset *rs, enum pt_class cls, const struct vars *vs,
			  const struct rung ***out);
/*
 * Returns a new string: the rung's change filled from vs, or its fallback
 * when a value is missing, with every ${api:NAME} spelled for the JAX
 * version in vs (jax_version). *filled (may be NULL) says whether values
 * from the log went in. When vs holds `source_fix:RUNG-ID` (the kernel's
 * source was checked, pt/check_triage.h), that is the change: the line and
 * value to edit.
 */
char *ladder_change_text(const struct ruleset *rs, const struct rung *r, const struct vars *vs,
			 bool *filled);
/*
 * The values rung r's change is filled with from vs, as a new string
 * "name=value; ..." in the order the change names them; NULL when the
 * change names no value or one is missing (the fallback is shown, which
 * has no numbers). A session compares it across attempts: other values
 * make the rung worth trying again.
 */
char *ladder_change_values(const struct rung *r, const struct vars *vs);
/* The same, rendering with ar, which collects what a printer should say (notes, guesses). */
char *ladder_change_render(struct api_render *ar, const struct rung *r, const struct vars *vs,
			   bool *filled);
/*
 * Returns a new string: flag f's snippet spelled for ar's version, its
 * ${values} filled from vs (a snippet's values all have defaults:
 * ${command|python your_test.py} is the user's command when it is known).
 */
char *ladder_flag_render(struct api_render *ar, const struct flag_def *f, const struct vars *vs);
/*
 * After rendering with ar: one sentence on the JAX version the API names
 * are spelled for (a new string), or NULL when no name depended on it.
 */
char *ladder_api_sentence(const struct api_render *ar);
/* Returns a new string: ar's notes joined with "; ", or NULL when there are none. */
char *ladder_api_notes(const struct api_render *ar);
/*
 * Returns a new string: a rule's message template with its ${api:NAME}
 * spelled for the jax_version in vs, then its ${capture} values filled in.
 */
char *ladder_message(const struct ruleset *rs, const struct vars *vs, const char *tmpl);
/* Returns a new string: prose text (may be NULL: then NULL) with its API names spelled for vs. */
char *ladder_prose(const struct ruleset *rs, const struct vars *vs, const char *text);
/* Start an api_render for the table of rs and the jax_version in vs (release it after). */
void ladder_render_init(struct api_render *ar, const struct ruleset *rs, const struct vars *vs);
/* Returns a borrowed pointer to the rung with this id in any ladder, or NULL. */
const struct rung *ladder_find_rung(const struct ruleset *rs, const char *id, enum pt_class *cls);

#endif
