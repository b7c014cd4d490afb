/* SPDX-License-Identifier: MIT */
/*
 * "Did you mean ...?": the candidate closest to a mistyped word, as git
 * suggests a command. Distance is the number of single-letter edits
 * (insert, delete, change, swap two neighbours), ignoring case; a candidate
 * is offered only when it is close enough to be a typo of the word.
 *
 * Use: suggest_init(), suggest_offer() for every candidate (the strings are
 * borrowed and must outlive the struct), then suggest_best().
 */
#ifndef PT_SUGGEST_H
#define PT_SUGGEST_H

#include <stddef.h>

struct suggest {
	const char *word;
	const char *best;          /* borrowed, NULL while none is close */
	size_t dist;
};

void suggest_init(struct suggest *s, const char *word);
void suggest_offer(struct suggest *s, const char *candidate);
/* The closest candidate offered, or NULL when none is a plausible typo. */
const char *suggest_best(const struct suggest *s);

#endif
