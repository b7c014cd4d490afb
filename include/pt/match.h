/* SPDX-License-Identifier: MIT */
/*
 * PCRE2 wrapper (the only includer of pcre2.h). A struct match is one
 * compiled pattern with its own match data. Compilation is cheap and done at
 * load time so that errors carry a position; JIT compilation is deferred to
 * the pattern's first few uses (most rules never see a candidate line).
 * Matching runs with a match limit and a depth limit, so a pattern that
 * backtracks catastrophically fails on that line instead of hanging.
 */
#ifndef PT_MATCH_H
#define PT_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/diag.h"

struct match;

enum match_result { MATCH_NO = 0, MATCH_YES = 1, MATCH_LIMIT = -1 };

/*
 * Compile pattern. Returns a new struct match (free with match_free), or
 * NULL with *erroffset and the message in err (status PT_EXIT_DATA).
 */
struct match *match_compile(const char *pattern, size_t *erroffset, struct pt_err *err);
void match_free(struct match *m);

/* Match subject[0..len). On MATCH_YES, the whole match is [*start, *end). */
enum match_result match_exec(struct match *m, const char *subject, size_t len, size_t *start,
			     size_t *end);
/* Number of named groups, and the i-th one's name. */
size_t match_name_count(const struct match *m);
const char *match_name(const struct match *m, size_t i);
/* After MATCH_YES: the value of the i-th named group; false if it did not take part. */
bool match_group(const struct match *m, size_t i, size_t *start, size_t *end);

#endif
