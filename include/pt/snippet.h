/* SPDX-License-Identifier: MIT */
/*
 * Printing advice that holds code (a rung's change, a flag's snippet, a
 * next step) so that what a user pastes runs: code is never wrapped inside
 * (pt/wrap.h), and a snippet of several lines is printed as those lines,
 * each on a line of its own. Rule texts say which they are (docs/rules.md):
 * a text with a `code` span in backticks is prose around code; any other
 * change or snippet is code as a whole. Bytes from a log are escaped here.
 */
#ifndef PT_SNIPPET_H
#define PT_SNIPPET_H

#include <stdbool.h>
#include <stdio.h>

/* Is text prose (it holds a backtick span), not code? */
bool snippet_is_prose(const char *text);
/*
 * One labelled line: label (as it is), then text, then tail (may be NULL,
 * e.g. "   (from your log)") and a newline. Code of one line stays on the
 * label's line, unbroken. Code of several lines goes below the label, one
 * line each, indent columns in (the tail on the label's line); prose wraps
 * at its spaces, but never inside a `span`.
 */
void snippet_print(FILE *fp, const char *label, const char *text, const char *tail,
		   unsigned indent);
/* text alone, as snippet_print() writes it after a label, without a newline (one line only). */
void snippet_put(FILE *fp, const char *text);

#endif
