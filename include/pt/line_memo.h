/* SPDX-License-Identifier: MIT */
/*
 * A memo of what the prefilter finds on a candidate line (line_memo.c):
 * the ids of its literals and the places of its wrap pieces, which are a
 * function of the line's bytes and the set alone. A Pallas log repeats
 * its candidate lines: every `Traceback (most recent call last):`, the
 * same error message in each failing test, the same library frames. The
 * classifier (linematch.c) asks before it walks a line and keeps the walk
 * after it.
 *
 * Memory: nothing before LINE_MEMO_AFTER lines were asked about (a small
 * log pays nothing), then LINE_MEMO_SLOTS slots of about 480 bytes
 * (2 MB), touched only as lines reach them.
 */
#ifndef PT_LINE_MEMO_H
#define PT_LINE_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LINE_MEMO_AFTER 256
#define LINE_MEMO_TEXT 320      /* longer lines are walked every time */
#define LINE_MEMO_VALUE 65535   /* and walks with a larger id, literal or place */
#define LINE_MEMO_IDS 32        /* lines with more ids, or pieces, too (32: a bit each) */
#define LINE_MEMO_PIECES 16

/*
 * What a walk of one line found: ids in increasing order, pieces in line
 * order, and for the ids that are a pattern's wrap pieces whether they sit
 * where a wrap could have cut its literal, as far as that was asked (bit i
 * for ids[i]).
 */
struct line_found {
	uint16_t ids[LINE_MEMO_IDS];
	uint16_t piece_lit[LINE_MEMO_PIECES];
	uint16_t piece_pos[LINE_MEMO_PIECES];
	uint32_t fits, fits_known;
	uint16_t nids, npieces;
};

struct line_memo_slot;
struct line_memo {
	size_t asked;           /* lines asked about, up to LINE_MEMO_AFTER */
	struct line_memo_slot *slot;
	struct {                /* the line asked about last, for line_memo_put() */
		const char *line;   /* borrowed from the caller until then */
		size_t n, slot;
		uint64_t set;
		bool kept;          /* it may be kept */
	} key;
};

/*
 * What set `set` (litset_id()) found on line[0..n), if the memo holds it;
 * NULL otherwise, and the line is remembered for line_memo_put(). The
 * result is the memo's, valid until the next put.
 */
const struct line_found *line_memo_get(struct line_memo *m, uint64_t set, const char *line,
				       size_t n);
/* Keep f (copied) as the walk of the line asked about last, unless it is too large. */
void line_memo_put(struct line_memo *m, const struct line_found *f);
/* Free what the memo holds; it is empty again. */
void line_memo_release(struct line_memo *m);

#endif
