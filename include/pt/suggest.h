/* SPDX-License-Identifier: MIT */
/*
 * "Did you mean ...?": the candidate closest to a mistyped word, as git
 * suggests a command. Distance is the number of single-letter edits
 * (insert, delete, change, swap two neighbours), ignoring case; a word of
 * three letters or more that starts a candidate is one edit from it (`stat`
 * is `status` cut short). A candidate is offered only when it is close
 * enough to be a typo of the word. At equal distance a candidate that
 * destroys nothing wins over one that does: `session stat` suggests
 * `status`, not `start`, which sets the session aside.
 *
 * Use: suggest_init(), suggest_offer() (or suggest_offer_ranked()) for every
 * candidate (the strings are borrowed and must outlive the struct), then
 * suggest_best().
 */
#ifndef PT_SUGGEST_H
#define PT_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

struct suggest {
	const char *word;
	const char *best;          /* borrowed, NULL while none is close */
	size_t dist;
	bool destructive;          /* best changes or removes something */
};

void suggest_init(struct suggest *s, const char *word);
void suggest_offer(struct suggest *s, const char *candidate);
/* The same for a candidate that changes or removes state (destructive true). */
void suggest_offer_ranked(struct suggest *s, const char *candidate, bool destructive);
/* The closest candidate offered, or NULL when none is a plausible typo. */
const char *suggest_best(const struct suggest *s);

#endif
