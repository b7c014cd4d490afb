/* SPDX-License-Identifier: MIT */
/* "Did you mean ...?" for mistyped commands, ids and answers; see pt/suggest.h. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "pt/suggest.h"

/* Longer words are not typos of each other; the table below stays small. */
#define SUGGEST_MAX_LEN 64

/* Optimal string alignment distance (Damerau-Levenshtein without repeated edits). */
static size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			size_t best = d[i - 1][j - 1] + (ca != cb);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

/* A word of three letters or more that starts the candidate is one edit away. */
static size_t
distance(const char *word, const char *candidate)
{
	size_t d = edit_distance(word, candidate), n = strlen(word);

	if (n >= 3 && n < strlen(candidate) && strncasecmp(word, candidate, n) == 0 && d > 1)
		return 1;
	return d;
}

void
suggest_init(struct suggest *s, const char *word)
{
	s->word = word;
	s->best = NULL;
	s->dist = SIZE_MAX;
	s->destructive = false;
}

void
suggest_offer_ranked(struct suggest *s, const char *candidate, bool destructive)
{
	size_t d = distance(s->word, candidate);

	if (d < s->dist || (d == s->dist && s->destructive && !destructive)) {
		s->dist = d;
		s->best = candidate;
		s->destructive = destructive;
	}
}

void
suggest_offer(struct suggest *s, const char *candidate)
{
	suggest_offer_ranked(s, candidate, false);
}

/* Two edits at most, and fewer than half the word: "rn" may be "run", "ab" is not "cd". */
const char *
suggest_best(const struct suggest *s)
{
	size_t len = strlen(s->word);

	if (!s->best || s->dist > 2 || s->dist * 2 > len || strcmp(s->best, s->word) == 0)
		return NULL;
	return s->best;
}
