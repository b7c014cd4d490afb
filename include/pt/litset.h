/* SPDX-License-Identifier: MIT */
/*
 * A multi-literal matcher for the prefilter: finds where any of a few
 * hundred literals occurs in a byte buffer, ASCII case-insensitively, at more
 * than 1.5 GB/s on log text. It is the "(f)" design of
 * shared/reference/scanning-performance.md: every literal indexes s of its
 * 4-byte windows (folded with |0x20; rare ones, at offsets covering every
 * residue mod s) in a 2^17-bit bitmap, the scan probes one window every s
 * bytes (s <= shortest literal - 3 and <= 8), so each occurrence is seen by
 * exactly one probe, and bitmap hits are confirmed with an exact table and a
 * folded compare. The probe uses AVX2 when the CPU has it (checked at run
 * time), else a portable loop.
 *
 * Buffers are plain bytes: NUL and bytes >= 0x80 are ordinary characters
 * (only A-Z/a-z fold). Lines mean nothing here; callers split lines.
 *
 * Use: litset_new(), litset_add() for each literal, litset_build() once,
 * then any number of litset_find() / litset_line_hits() calls, which only
 * read the set (several threads may share a built set).
 */
#ifndef PT_LITSET_H
#define PT_LITSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LITSET_MIN_LEN 4   /* shorter literals cannot be indexed */

struct buf;
struct litset;

/* Returns a new empty set; free with litset_free(). */
struct litset *litset_new(void);
/* Frees the set and everything in it. NULL is fine. */
void litset_free(struct litset *ls);

/*
 * Add literal lit[0..len) (copied; any bytes) for pattern `id`. Adding an
 * equal literal (ASCII case-insensitively) again only adds the id to it, so
 * one literal may serve several ids and one id may have several literals.
 * Returns 0, or -1 (nothing added) when len < LITSET_MIN_LEN or the set is
 * already built.
 */
int litset_add(struct litset *ls, const char *lit, size_t len, unsigned id);

/*
 * The same for a literal that counts only in this spelling, byte for byte
 * (a case-sensitive pattern's "FAILED "): an occurrence in another case is
 * not reported. Adding the same literal in another spelling, or with
 * litset_add(), makes it count in any case again.
 */
int litset_add_cased(struct litset *ls, const char *lit, size_t len, unsigned id);

/*
 * Index the literals; call once, after the last litset_add(). `sample`
 * (may be NULL) is a piece of the input, e.g. its first 1-4 MiB: each
 * literal's windows are chosen among those rarest in it, and the stride that
 * costs least on it is kept (a long stride is not always faster: it leaves
 * fewer windows to choose from, so more false hits). Without a sample, or
 * with one under 64 KiB, a static letter-frequency guess and
 * s = min(shortest - 3, 4) are used. The sample is only read during the
 * call, which takes about 3 ms per MiB of it.
 */
void litset_build(struct litset *ls, const char *sample, size_t sample_len);

/* Would litset_build() read a sample of sample_len bytes, or build as without one? */
bool litset_sample_matters(size_t sample_len);

/*
 * A built set as bytes, for the rules cache: litset_save() appends them to
 * b; litset_load() returns a new built set equal to the saved one (free
 * with litset_free()), or NULL when the bytes are not one a build of this
 * binary saved whole or hold an id of id_limit or more (callers index
 * their tables with the ids). The format is private to one build.
 */
void litset_save(const struct litset *ls, struct buf *b);
struct litset *litset_load(const void *data, size_t len, unsigned id_limit);
/*
 * The same without copying the literals and tables: the set points into
 * data, which must start at a multiple of 4 (else NULL) and stay valid and
 * unchanged until litset_free(). The rules cache's mapped file.
 */
struct litset *litset_load_in_place(const void *data, size_t len, unsigned id_limit);

/*
 * For tests and benchmarks; call before litset_build(). stride 1..8 forces
 * the probe stride (capped by the shortest literal; 0 = let build choose),
 * and scalar true keeps the portable probe even on an AVX2 CPU.
 */
void litset_tune(struct litset *ls, size_t stride, bool scalar);

/*
 * Find the first position q >= from such that some literal occurs at
 * buf[q..]. Returns q and sets *lit_index (when not NULL) to one literal
 * that starts there; returns len when there is none (also for an empty set
 * or from >= len).
 */
size_t litset_find(const struct litset *ls, const char *buf, size_t len, size_t from,
		   size_t *lit_index);

/*
 * The same, for starts q < stop only: returns len when no literal starts in
 * [from, stop) (the literal itself may run past stop, within len). Costs
 * about stop - from, however far the next hit is.
 */
size_t litset_find_range(const struct litset *ls, const char *buf, size_t len, size_t from,
			 size_t stop, size_t *lit_index);

/*
 * For every literal occurring anywhere in line[0..len), set bit id (byte
 * id / 8, bit id % 8) in `hits` for each of its ids. hits is caller-owned
 * and must hold at least (max id / 8 + 1) bytes; bits are only ever set.
 * Returns the number of occurrences found (0: no literal in the line).
 */
size_t litset_line_hits(const struct litset *ls, const char *line, size_t len,
			unsigned char *hits);

/*
 * The same walk, calling fn(arg, i, pos) for every occurrence of literal i
 * (litset_literal(), litset_ids()) at line[pos..]; the order is the
 * probes', not the positions'. Returns the number of occurrences.
 */
size_t litset_line_each(const struct litset *ls, const char *line, size_t len,
			void (*fn)(void *arg, size_t lit, size_t pos), void *arg);
/* The same, for a line the caller knows holds no occurrence that starts
 * before from: the probes start there. */
size_t litset_line_each_from(const struct litset *ls, const char *line, size_t len, size_t from,
			     void (*fn)(void *arg, size_t lit, size_t pos), void *arg);

/*
 * The index of the literal equal to text[0..len) (ASCII case aside) when no
 * other literal could start where it does (none is a prefix of it, it is
 * the prefix of none); SIZE_MAX otherwise.
 */
size_t litset_alone(const struct litset *ls, const char *text, size_t len);

/* Number of distinct literals (after merging equal ones). */
size_t litset_count(const struct litset *ls);
/* Returns a borrowed pointer to literal i (lower case), valid until litset_free(). */
const char *litset_literal(const struct litset *ls, size_t i, size_t *len);
/* Returns a borrowed array of the *n ids of literal i, valid until litset_free(). */
const unsigned *litset_ids(const struct litset *ls, size_t i, size_t *n);
/* Length of the longest literal (0 for an empty set). */
size_t litset_longest(const struct litset *ls);
/* Does some literal contain this byte (A-Z and a-z alike)? */
bool litset_has_byte(const struct litset *ls, unsigned char byte);
/* Length of the shortest literal (0 for an empty set). */
size_t litset_shortest(const struct litset *ls);
/* The probe stride s chosen by litset_build() (0 before, or for an empty set). */
size_t litset_stride(const struct litset *ls);
/*
 * A number no other set built or loaded in this process has (0 before the
 * build): what a memo of answers about a set's lines keys on, where the
 * set's address could be a freed set's.
 */
uint64_t litset_id(const struct litset *ls);

#endif
