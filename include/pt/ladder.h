/* SPDX-License-Identifier: MIT */
/*
 * Fix ladders: which rungs of a class's ladder apply to a diagnosis, and the
 * concrete change text of a rung filled in from the log's values.
 */
#ifndef PT_LADDER_H
#define PT_LADDER_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/rules.h"
#include "pt/vars.h"

/*
 * The rungs of class cls that apply to subkind (may be NULL) and whose
 * `requires` values are all in vs, in ladder order. Returns the count; *out is
 * a new array of borrowed rung pointers (free() the array only).
 */
size_t ladder_select(const struct ruleset *rs, enum pt_class cls, const char *subkind,
		     const struct vars *vs, const struct rung ***out);
/* Returns a new string: the rung's change filled from vs, or its fallback when a value is missing. */
char *ladder_change_text(const struct rung *r, const struct vars *vs, bool *filled);
/* Returns a borrowed pointer to the rung with this id in any ladder, or NULL. */
const struct rung *ladder_find_rung(const struct ruleset *rs, const char *id, enum pt_class *cls);

#endif
