/* SPDX-License-Identifier: MIT */
/*
 * Terminal-safe output. Text that comes from a log is untrusted: a log line
 * could carry escape sequences that rewrite the user's terminal. Every such
 * string goes through term_put_untrusted(), which escapes control bytes.
 */
#ifndef PT_TERM_H
#define PT_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define TERM_BOLD "\033[1m"
#define TERM_RED "\033[31m"
#define TERM_GREEN "\033[32m"
#define TERM_YELLOW "\033[33m"
#define TERM_CYAN "\033[36m"
#define TERM_DIM "\033[2m"
#define TERM_RESET "\033[0m"

/*
 * Write s[0..len) with control characters shown as \xNN: C0 (except tab),
 * DEL, C1 whether UTF-8 encoded or as raw bytes outside valid UTF-8, and
 * the bidirectional controls (term_utf8_is_control(), each byte). Other
 * valid UTF-8 text is written as it is.
 */
void term_put_untrusted(FILE *fp, const char *s, size_t len);
/*
 * Is the well-formed n-byte UTF-8 sequence at s a control that output shows
 * escaped: C1 (U+0080..U+009F), or a bidirectional control (U+061C, U+200E,
 * U+200F, U+202A..U+202E, U+2066..U+2069), which reorders how the text
 * around it is shown (CVE-2021-42574, "Trojan Source")? *cp gets its code
 * point.
 */
bool term_utf8_is_control(const unsigned char *s, size_t n, unsigned long *cp);
/* term_put_untrusted() of a C string; NULL writes nothing. */
void term_puts_untrusted(FILE *fp, const char *s);
/* The same, but newlines pass: for multi-line text such as a rule's explanation. */
void term_puts_untrusted_lines(FILE *fp, const char *s);
/* Same, highlighting [hs, he) with `color` when color is non-NULL. */
void term_put_highlight(FILE *fp, const char *s, size_t len, size_t hs, size_t he, const char *color);
/* Append the escaped form of s[0..len) to a new string (for reports); free() it. */
char *term_escape(const char *s, size_t len);

#endif
