/* SPDX-License-Identifier: MIT */
/*
 * Rules that test themselves: every rule's `examples` and every fact's
 * examples run through the real classifier (prefilter included), so a
 * pattern whose literal was extracted wrongly fails here, not in the field.
 */
#ifndef PT_RULES_CHECK_H
#define PT_RULES_CHECK_H

#include <stdio.h>
#include "pt/diag.h"
#include "pt/rules.h"

struct check_result {
	size_t passed, failed;
};

/*
 * Run every example; each failure is a line on out. only (may be NULL) is a
 * file or a directory: then only the rules, contexts and facts defined
 * there are checked, against the whole ruleset (its contexts included).
 */
void rules_check_examples(const struct ruleset *rs, const char *only, FILE *out,
			  struct check_result *res);
/* Warn (into d) about patterns that have no literal for the prefilter. */
void rules_check_literals(const struct ruleset *rs, struct diag *d);

#endif
