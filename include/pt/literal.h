/* SPDX-License-Identifier: MIT */
/*
 * Required-literal extraction from a PCRE2 pattern, for the prefilter: a set
 * of plain strings such that every match of the pattern contains at least one
 * of them, compared ASCII case-insensitively. It reads the pattern text only;
 * it is not a regex engine and does not validate patterns (match.c compiles
 * them with PCRE2 and reports errors).
 *
 * The analysis is conservative: anything it does not fully understand makes
 * literals shorter, fewer or absent, never wrong. Syntax it refuses outright
 * (extended mode (?x), conditionals, callouts, backtracking verbs other than
 * the leading option settings) yields no literal at all.
 *
 * Assumption: the pattern is matched without PCRE2_EXTENDED. With PCRE2_UTF
 * plus caseless matching, PCRE2 also matches 'k' against U+212A KELVIN SIGN
 * and 's' against U+017F LONG S; such matches are not covered by the ASCII
 * fold of the literals.
 */
#ifndef PT_LITERAL_H
#define PT_LITERAL_H

#include <stddef.h>

/*
 * Extract the required literals of `pattern` (a NUL-terminated PCRE2
 * pattern). *out receives a new NULL-terminated array of new strings, in
 * ASCII lower case and without duplicates; free it with literal_list_free().
 * *n (when n is not NULL) receives the number of strings. An empty list means
 * the pattern has no usable literal and must run on every line. Literals may
 * be of any length >= 1; callers decide what is too short to be useful.
 * Returns the number of literals (never fails: out of memory ends the run).
 */
int literal_extract(const char *pattern, char ***out, size_t *n);

/*
 * The same for what a positive lookaround at the top level of `pattern`
 * requires (the longest-lasting one when there are several): every subject
 * the pattern matches contains one of these strings somewhere, though no
 * match needs to. An empty list when the pattern has none, or a '|' at its
 * top level. For `^(?=.*?(?:Error|failed)).*?\bvmem\b` literal_extract()
 * gives "vmem" and this "error" and "failed": a line (or a join of lines)
 * without either cannot match, and need not be tried.
 */
int literal_extract_ahead(const char *pattern, char ***out, size_t *n);

/*
 * A second requirement, of another part of the pattern: every match holds
 * one of these strings too, and none of them is, holds or is held by a
 * string of literal_extract()'s list. For `Check failed: .*\bpacking\b`
 * that gives "check failed: " and this "packing": a candidate line found
 * by the first need not be tried where the second is missing. An empty
 * list when there is none or a '|' at the pattern's top level.
 */
int literal_extract_also(const char *pattern, char ***out, size_t *n);
/* The three lists from one reading of the pattern, as the functions above give them. */
struct literal_reading {
	char **lits, **ahead, **also;   /* new NULL-terminated lists (literal_list_free()) */
	size_t nlits, nahead, nalso;
};
void literal_read(const char *pattern, struct literal_reading *out);
/*
 * Where `pattern`, matched case-sensitively, spells its literal `lit` (as
 * literal_extract() gave it, lower case): a pointer to the strlen(lit)
 * bytes in the pattern text that every match holds exactly so ("FAILED "
 * in `^FAILED (?P<id>\S+)`), or NULL when a match may hold it in another
 * case or this reading cannot tell: an inline caseless option, any `|`,
 * no verbatim occurrence or more than one.
 */
const char *literal_spelling(const char *pattern, const char *lit);

/*
 * For a pattern of the fallback tier's shape, `(?i)^(?=LOOK).*?TAIL`: the
 * new string `(?i)TAIL`, else NULL. Where the pattern matches, TAIL's first
 * match ends where the pattern's does (the lazy `.*?` stops at the first
 * place TAIL matches, and LOOK looks from the start whatever that is), so
 * a subject it does not match, or matches only up to some place, the
 * pattern does not match either, or only up to that place. Not when LOOK
 * has a capturing group (TAIL's would be numbered otherwise), TAIL refers
 * to a group or has a '|' at its top level.
 */
char *literal_lookahead_tail(const char *pattern);
/* Free a list returned by literal_extract(). NULL is fine. */
void literal_list_free(char **list);

#endif
