/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c): a sink for output
 * nobody reads, the source tree's paths, the shipped rules, a deterministic PRNG, and FUZZ_FAIL
 * for a broken invariant (an abort, so libFuzzer saves the input as a crash).
 * Built by tests/fuzz/fuzz.sh; see docs/reliability.md.
 */
#ifndef PT_FUZZ_H
#define PT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pt/rules.h"
#include "pt/util.h"

#ifndef PT_SRCDIR
#define PT_SRCDIR "."
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_FAIL(...) do { \
	fprintf(stderr, "%s:%d: invariant broken: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); \
	fputc('\n', stderr); \
	abort(); \
} while (0)

/* Output that is produced (so the printing code runs) and thrown away. */
static inline FILE *
fuzz_devnull(void)
{
	static FILE *fp;

	if (!fp && !(fp = fopen("/dev/null", "w")))
		abort();
	return fp;
}

/* The shipped rules, loaded and finished; aborts (naming `who`) if they do
 * not load, since every input would then be a false crash. */
static inline struct ruleset *
fuzz_shipped_rules(const char *who)
{
	struct ruleset *rs = ruleset_new();
	struct diag d = DIAG_INIT;
	struct pt_err err = PT_ERR_INIT;

	if (ruleset_load_dir(rs, PT_SRCDIR "/rules", NULL, &d, &err) < 0 || d.nerrors ||
	    ruleset_finish(rs, &d) < 0 || d.nerrors) {
		diag_print(&d, stderr);
		fprintf(stderr, "%s: the shipped rules do not load: %s\n", who, err.msg);
		abort();
	}
	diag_release(&d);
	return rs;
}

/* FNV-1a of the input: a seed that makes every decision reproducible. */
static inline uint64_t
fuzz_hash(const uint8_t *p, size_t n)
{
	return util_fnv1a(UTIL_FNV1A_INIT, p, n);
}

/* xorshift64*: a small deterministic generator seeded from the input. */
static inline uint64_t
fuzz_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

#endif
