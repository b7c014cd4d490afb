/* SPDX-License-Identifier: MIT */
/*
 * For unit tests of the prefilter and what stands on it: a built set of
 * literals, and a repeatable random sequence (each test keeps its state,
 * so that a failure comes back on the next run).
 */
#ifndef PT_LITSET_FIXTURE_H
#define PT_LITSET_FIXTURE_H

#include <stdint.h>
#include <string.h>

#include "pt/litset.h"

/* lits[0..n), literal i with id i, built from sample[0..len) (may be NULL). Free with litset_free(). */
static inline struct litset *
fixture_litset(const char *const *lits, size_t n, const char *sample, size_t len)
{
	struct litset *ls = litset_new();

	for (size_t i = 0; i < n; i++)
		litset_add(ls, lits[i], strlen(lits[i]), (unsigned)i);
	litset_build(ls, sample, len);
	return ls;
}

/* The next number below n (n > 0) of the xorshift sequence in *state. */
static inline size_t
fixture_rnd_below(uint64_t *state, size_t n)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (size_t)(*state % n);
}

#endif
