/* SPDX-License-Identifier: MIT */
/*
 * Inside the classifier: what happens on a candidate line (linematch.c).
 * The prefilter (a litset of every pattern's required literals, plus the
 * engine's own) says which patterns may match the line; those that have
 * not hit yet run on it, then on the line joined with its wrapped
 * neighbours; the first hit of each pattern is kept with its captures and
 * the user frame seen before it. The same pass follows Python traceback
 * frames, Mosaic loc(...) callsites and the last error-looking line.
 *
 * The window (pt/window.h) finds the lines; the scorer and the verdict
 * builder (pt/engine.h) read the results. Commands use pt/classify.h.
 */
#ifndef PT_LINEMATCH_H
#define PT_LINEMATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "pt/buf.h"
#include "pt/engine.h"
#include "pt/line_memo.h"
#include "pt/litset.h"
#include "pt/match.h"
#include "pt/rules.h"
#include "pt/vars.h"
#include "pt/window.h"

/* A candidate line joined with wrapped neighbours. */
struct join {
	struct buf text;
	size_t starts[2 * JOIN_LINES + 1];  /* where each line starts in text */
	size_t npieces, own;        /* own: the candidate line's piece */
	size_t lineno;              /* the candidate line it was built for, or SIZE_MAX */
};

/* Which lookahead words a line of the log holds, as far as asked (bit k:
 * the k-th distinct word); a line is asked again as the neighbour of the
 * candidate lines around it. The patterns' lists hold their own copies of
 * a word, so each copy is kept with the bit of its spelling. */
#define AHEAD_WORDS 64
#define AHEAD_BITS 32
#define WORD_LINES 16
#define PIECEWISE_LISTS 8
struct line_words {
	size_t lineno;              /* + 1; 0: empty */
	uint32_t known, has;
};

struct linematch {
	const struct ruleset *rs;   /* borrowed */
	struct matcher *mt;         /* this classifier's PCRE2 state; owned unless mt_borrowed */
	bool mt_borrowed;
	struct litset *ls;          /* our own prefilter, or NULL while we use a shared one */
	const struct litset *pf;    /* the prefilter in use: ls, or the shared one */
	bool built;                 /* pf is built (from the first block, to pick rare windows) */
	size_t npat;                /* pattern ids are 0..npat-1; the engine's own ids follow */
	unsigned char *hits;        /* bitmap over all ids: the candidate line's, else clear */
	size_t hits_len;
	size_t *ids;                /* scratch: the ids set in hits */
	size_t nids;
	struct line_memo memo;      /* the walks of candidate lines seen before */
	struct pat_state *ps;       /* one per ruleset pattern */
	struct vars *rcaps;         /* per rule: captures of its first hits */
	struct vars env;            /* facts */
	struct join joins[2];       /* the candidate line's joins: forward, both ways */
	const char *ahead_words[AHEAD_WORDS]; /* borrowed from the patterns' lists */
	unsigned char ahead_bit[AHEAD_WORDS]; /* the bit of each one's spelling */
	size_t nahead_words, nahead_bits;
	char *const *piecewise_list[PIECEWISE_LISTS]; /* lookahead lists asked about, */
	bool piecewise[PIECEWISE_LISTS];              /* and whether no word has a blank */
	size_t npiecewise;
	struct line_words line_words[WORD_LINES]; /* by line number mod WORD_LINES */
	struct buf last_raw;        /* the last user frame's line, or empty (run_frame()) */
	struct snap_frame last_frame; /* it, parsed, after linematch_finish() */
	struct snap_frame loc_frame;
	size_t *waiting;            /* hit patterns whose traceback comes after them */
	size_t nwaiting;
	size_t *hit;                /* the patterns that hit, in order: what they keep is
	                             * released without a pass over every pattern */
	size_t nhit;
	struct buf last_error;      /* the last error-looking line, or empty */
	size_t last_error_line;
	size_t match_errors;        /* pattern x line pairs that hit a PCRE2 limit */
	size_t work;                /* candidate lines, plus patterns run on lines and joins */
	size_t wasted;              /* candidate lines since the last build that ran nothing */
	/* What can still change the verdict (score_settle(), pt/engine.h). */
	bool exhaustive;            /* never settle, join every piece line, skip no frame
	                             * line: every pattern runs to its first hit */
	const struct context_assertion *asserted; /* borrowed: contexts held on someone's word */
	size_t nasserted;
	bool *quiet;                /* per pattern: can no longer change the verdict */
	size_t **cuts;              /* per pattern: its literals' wrap cuts, once needed */
	size_t nquiet;              /* quiet patterns not hit */
	unsigned char *ctx_state;   /* scratch for score_settle() */
	bool need_frames;           /* traceback frames can still give the location */
	bool need_error;            /* the last error line can still reach the verdict */
	bool settle_due;            /* something hit since the last settle */
	size_t since_settle;        /* candidate lines since then */
	size_t live_gen, built_gen; /* changes to what the prefilter must find; at the last build */
};

/*
 * Start matching rs's patterns (rs borrowed, must outlive lm). shared: a
 * built prefilter of every pattern to start from (classify_prefilter_new(),
 * borrowed), or NULL to build one at linematch_build(), where a sample too
 * small to matter takes rs->prefilter instead when rs has one. mt: a matcher to
 * use (borrowed; one thread at a time), or NULL for one of lm's own.
 * Release with linematch_release().
 */
void linematch_init(struct linematch *lm, const struct ruleset *rs, const struct litset *shared,
		    struct matcher *mt);
void linematch_release(struct linematch *lm);

/*
 * A prefilter (not built) of rs's patterns and the engine's own literals,
 * or with lm, of those that can still change the verdict (not hit, not
 * quiet). Returns a new set; free it with litset_free().
 */
struct litset *linematch_prefilter(const struct ruleset *rs, const struct linematch *lm);
/* The ids such a prefilter uses are below this. */
size_t linematch_id_count(const struct ruleset *rs);

/*
 * The lines a walk over pf (lm's prefilter or its twin) may pass over
 * (pt/scout.h): those whose only literal is the engine's `File "` and that
 * hold no Python frame of the user's code. sk.lit is SIZE_MAX when pf has
 * no such literal of its own (another literal shares its start), and in
 * an exhaustive reading.
 */
struct scout_skip linematch_skip(const struct linematch *lm, const struct litset *pf);

/*
 * Make lm's reading exhaustive (lm->exhaustive), before the first line:
 * a prefilter of its own then finds every literal in any case (a shared
 * one stays as it is).
 */
void linematch_exhaustive(struct linematch *lm);

/* Build lm's prefilter, choosing rare windows from sample[0..len) (may be
 * empty), or borrow rs->prefilter, the same build, when the sample would
 * not change it. Does nothing when it is built already. */
void linematch_build(struct linematch *lm, const char *sample, size_t len);

/*
 * One candidate line of w (the arguments of window_line_fn: the search for
 * its literals starts at first; alone: the
 * line holds the `File "` of linematch_skip() and no other literal, so it
 * is not searched again). Returns true
 * when the prefilter should be rebuilt without the patterns that have hit
 * or gone quiet: many candidate lines since the last build ran nothing.
 */
bool linematch_line(struct linematch *lm, const struct window *w, size_t start, size_t end,
		    size_t limit, size_t lineno, size_t first, bool alone);

/* After the last line: fills last_frame. */
void linematch_finish(struct linematch *lm);

/*
 * Rebuild the prefilter from what can still change the verdict (sample as
 * for linematch_build()). Returns false when nothing changed since the
 * last build: the set would be the same, and nothing was done.
 */
bool linematch_rebuild(struct linematch *lm, const char *sample, size_t len);

#endif
