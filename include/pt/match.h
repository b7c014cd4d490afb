/* SPDX-License-Identifier: MIT */
/*
 * PCRE2 wrapper (the only includer of pcre2.h), in PCRE2's own threading
 * model: a struct match is one compiled pattern, read-only once compiled
 * and shared by every thread; a struct matcher is what matching writes
 * (match data, JIT code, use counts), one per thread of matching.
 * Compilation is done at load time so that errors carry a position; JIT
 * compilation is deferred to a pattern's first few uses in a matcher (most
 * rules never see a candidate line). Matching runs with a match limit and a
 * depth limit, so a pattern that backtracks catastrophically fails on that
 * line instead of hanging.
 */
#ifndef PT_MATCH_H
#define PT_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/buf.h"
#include "pt/diag.h"

struct match;

enum match_result { MATCH_NO = 0, MATCH_YES = 1, MATCH_LIMIT = -1 };

/*
 * Compile pattern. Returns a new struct match (free with match_free), or
 * NULL with *erroffset and the message in err (status PT_EXIT_DATA).
 */
struct match *match_compile(const char *pattern, size_t *erroffset, struct pt_err *err);
void match_free(struct match *m);

/*
 * For the rules cache: append the compiled code of ms[0..n) to out in
 * PCRE2's serialized form, and decode it again into n new matches in ms
 * (free each with match_free()). Decoding takes microseconds where
 * compiling takes about 2 us a pattern. Returns -1 when data is not n
 * patterns of this PCRE2 build. PCRE2 does not check serialized code for
 * corruption: data must have passed a checksum first.
 */
void match_serialize(struct match *const *ms, size_t n, struct buf *out);
int match_deserialize(struct match **ms, size_t n, const void *data, size_t len);

/* Number of named groups, and the i-th one's name. */
size_t match_name_count(const struct match *m);
const char *match_name(const struct match *m, size_t i);

struct matcher;

/*
 * Returns a new matcher for patterns with ids 0..npatterns-1 (the id keys
 * the JIT state; a larger id is matched without JIT); free with
 * matcher_free(). One thread at a time; it may outlive many logs.
 */
struct matcher *matcher_new(size_t npatterns);
void matcher_free(struct matcher *mt);
/* Match m (pattern id) on subject[0..len). On MATCH_YES, the whole match is [*start, *end). */
enum match_result matcher_exec(struct matcher *mt, size_t id, const struct match *m,
			       const char *subject, size_t len, size_t *start, size_t *end);
/*
 * Could a match of m start in subject[0..len), whatever followed it? false
 * only when none can (a match, a match cut off by the end, or a limit
 * give true). Overwrites what matcher_group() reads.
 */
bool matcher_may_start(struct matcher *mt, size_t id, const struct match *m, const char *subject,
		       size_t len);
/*
 * Match src, a pattern kept with pattern id m (no more groups than m has),
 * on subject[0..len): the matcher compiles it on first use. MATCH_LIMIT
 * also when src does not compile. Overwrites what matcher_group() reads.
 */
enum match_result matcher_exec_src(struct matcher *mt, size_t id, const struct match *m,
				   const char *src, const char *subject, size_t len, size_t *start,
				   size_t *end);
/* After MATCH_YES of m in mt: the value of m's i-th named group; false if it
 * did not take part. */
bool matcher_group(const struct matcher *mt, const struct match *m, size_t i, size_t *start,
		   size_t *end);

#endif
