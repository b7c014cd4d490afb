/* SPDX-License-Identifier: MIT */
/*
 * The scout: a second thread that runs the literal prefilter ahead of the
 * classifier on a regular file, so that a big log uses two cores. It reads
 * the file itself (1 MiB blocks, mapped; read with pread where they cannot
 * be) and, for each block, records where
 * candidate lines start: the first literal occurrence of a line, then on
 * from the next line, exactly the walk the classifier makes. The classifier
 * still reads every byte and decides everything; it only asks the scout
 * "where is the next candidate in this range of the file?" instead of
 * searching itself. Blocks the scout has not reached when asked are left to
 * the classifier, and so is the rest of the block the scout is on (it stops
 * within 16 KiB), so neither thread waits on a slow other for long.
 *
 * The answers are exact for the bytes as they are in the file; the caller
 * asks only about ranges its window holds unchanged (no escape sequences
 * stripped, no over-long line cut) that start at a line start.
 *
 * Memory: 4 blocks of records, one mapped block (or a 1 MiB read buffer)
 * and a memo of line kinds (about 800 KB) at most.
 *
 * Signals: the first scout_start() installs a SIGBUS handler for the
 * process, as a mapped file that shrinks raises SIGBUS on its lost pages.
 * In the scout's thread that fails the block (the caller then reads it and
 * finds the end); in any other thread the handler puts back the
 * disposition SIGBUS had before and the signal takes its course.
 */
#ifndef PT_SCOUT_H
#define PT_SCOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pt/litset.h"

#define SCOUT_BLOCK ((uint64_t)1 << 20)

struct scout;

/*
 * A line the candidate walk may pass over unseen: its first literal is
 * `lit` (an index of the walk's set), no other literal starts on it, and
 * quiet(line) says such a line changes nothing (a Python frame in library
 * code). lit SIZE_MAX: none. When quiet() says no, the line is still known
 * to hold that literal alone, which spares the classifier its search of
 * the line. The scout's walk and the classifier's own apply the same
 * test, so the classifier only loses lines that would have done nothing.
 */
struct scout_skip {
	size_t lit;
	bool (*quiet)(const char *line, size_t len);
	/* NULL, or the texts around a number on such a line (a frame's line
	 * number, between `", line ` and `, in `): quiet() tells it only zero
	 * from not, so a memo (below) may judge lines that differ in it alone
	 * as one, where no literal of the set could overlap the number. */
	const char *number_after, *number_before;
};

enum scout_line {
	SCOUT_LINE_CANDIDATE,    /* a candidate line like any */
	SCOUT_LINE_SKIP,         /* pass over it */
	SCOUT_LINE_ALONE,        /* a candidate whose only literal is sk->lit */
};

/*
 * The kinds of the skip literal's lines seen lately: a traceback-heavy log
 * repeats its frame lines thousands of times, and judging one (the rest of
 * the line searched, the frame parsed) costs more than finding it. A line
 * is known by its bytes, its number after sk->number_after (if any) read
 * only as zero or not; the memo holds the lines' kinds for one set and
 * skip (it empties itself when they change) and compares the bytes, so
 * its answers are those scout_line_kind() would compute. Each thread keeps
 * its own; zeroed is empty. It starts keeping lines only after a few
 * hundred (a small log's are not worth its setting up), and then holds
 * about 800 KB.
 */
/* Lines asked about before the memo keeps any: scan reads a thousand
 * small logs, each with a window of its own. */
#define SCOUT_MEMO_AFTER 256
struct scout_memo_slot;
struct scout_memo {
	uint64_t set;            /* litset_id() of the set, 0 when empty */
	size_t asked;            /* lines asked about, up to SCOUT_MEMO_AFTER */
	struct scout_skip skip;
	bool numbers;            /* no literal of the set overlaps such a number */
	size_t after_len, before_len;  /* of the skip's texts around it */
	struct scout_memo_slot *slot;
	struct {                 /* the line asked about last, for scout_memo_put() */
		const char *pre, *suf;
		size_t npre, nsuf, index;
		uint8_t form;
		bool kept;
	} key;
};
/*
 * Is the kind of line[0..n), the skip literal's first occurrence at hit,
 * in the memo (set ls, skip sk)? Then *kind is it. Either way the line is
 * remembered for scout_memo_put().
 */
bool scout_memo_get(struct scout_memo *m, const struct litset *ls, const struct scout_skip *sk,
		    const char *line, size_t n, size_t hit, enum scout_line *kind);
/* Keep the kind of the line last asked about (its bytes must be unchanged). */
void scout_memo_put(struct scout_memo *m, enum scout_line kind);
/* Free what the memo holds; it is empty again. */
void scout_memo_release(struct scout_memo *m);
/*
 * What is the line buf[start..end) (end at its newline, inside
 * buf[0..len)), whose first literal occurrence is literal `lit` at `hit`?
 * sk may be NULL (none); so may memo.
 */
enum scout_line scout_line_kind(const struct litset *ls, const struct scout_skip *sk,
				struct scout_memo *memo, const char *buf, size_t len, size_t start,
				size_t hit, size_t lit, size_t end);

/*
 * Start scouting fd's bytes [base, base + size) with the literals of ls (a
 * built set, which the scout now owns; it must not contain '\n') and the
 * lines sk (may be NULL) lets it pass over. Block 0 is left to the caller,
 * which is reading it already. Returns NULL (ls freed) when the thread
 * cannot start.
 */
struct scout *scout_start(int fd, off_t base, uint64_t size, struct litset *ls,
			  const struct scout_skip *sk);

/* Hand over a new, smaller set (owned by the scout from now on) and its
 * skip (may be NULL): blocks claimed after this use them. */
void scout_update(struct scout *s, struct litset *ls, const struct scout_skip *sk);

enum scout_answer {
	SCOUT_FOUND,     /* *at: the first candidate in [from, *covered); *alone:
	                  * its only literal is the skip's (SCOUT_LINE_ALONE) */
	SCOUT_NONE,      /* no candidate in [from, *covered) */
	SCOUT_YOURS,     /* the scout did not look at [from, *covered): search it yourself */
};

/*
 * About [from, to), offsets from base: answers for the part inside from's
 * block and sets *covered to where that part ends (<= to). Calls must come
 * in order of from: the blocks before from's are given up.
 */
enum scout_answer scout_ask(struct scout *s, uint64_t from, uint64_t to, uint64_t *at,
			    uint64_t *covered, bool *alone);

/* How many blocks the caller caught the scout in and took the rest of
 * (the balance between the threads; for tests and the bench). */
size_t scout_cuts(const struct scout *s);

/* Stop the thread and free everything. NULL is fine. */
void scout_stop(struct scout *s);

#endif
