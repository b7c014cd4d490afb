/* SPDX-License-Identifier: MIT */
/*
 * A binary cache of a validated ruleset, so that a run on a 2 KB log does
 * not parse 250 KB of YAML and extract 500 literals every time (about 18 ms
 * on these machines, against a 5 ms budget for the whole run).
 *
 * The cache is keyed by the exact list of rule files with their sizes and
 * modification times, by the tool's version and by a hash of the sources
 * the binary was built from; any difference is a miss and the YAML is read
 * again. Only rulesets that loaded without a single error are ever
 * written; the patterns are stored compiled (PCRE2's serialized code) and
 * with them the built first prefilter (ruleset->prefilter, whose build was
 * 40 % of a 2 KB run), so a loaded set is complete and read-only like one
 * read from YAML. Rule
 * examples are not cached: `rules test` and `rules validate` always read
 * the YAML.
 *
 * A loaded set keeps the file mapped (ruleset->cache_bytes): its prefilter's
 * tables are used where they lie in it. Only a file no other user can write
 * is mapped, as a mapping sees later writes; others are read into memory.
 *
 * A cache file that is missing, stale, truncated or corrupt is a miss, never
 * an error. Writing is best effort and atomic (a rename, never in place). PALLAS_TRIAGE_NO_CACHE=1
 * turns the cache off: the command layer then calls neither function.
 */
#ifndef PT_RULES_CACHE_H
#define PT_RULES_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "pt/rules.h"

/*
 * The checksum a cache file ends with (host order), over everything after
 * the magic: a corrupt file is a miss, never a ruleset with a nonsense
 * weight or a compiled pattern PCRE2 would trip on. Not cryptographic: the
 * cache is the user's own file.
 */
uint64_t rules_cache_checksum(const void *data, size_t n);

/* The file's first 8 bytes: what it is (the key says which build wrote it). */
#define RULES_CACHE_MAGIC "PTRCACHE"

/*
 * The key for the rule files in dirs (a NULL-terminated list; missing
 * directories are part of the key as such). Returns a new string (free()).
 */
char *rules_cache_key(const char *const *dirs);

/* Returns a new ruleset from the cache for key, or NULL on any miss. */
struct ruleset *rules_cache_load(const char *key);

/* Best effort: write rs for key. Returns 0, or -1 (nothing is reported). */
int rules_cache_save(const struct ruleset *rs, const char *key);

#endif
