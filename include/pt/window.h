/* SPDX-License-Identifier: MIT */
/*
 * Inside the classifier: the streaming window (window.c). It turns reads of
 * any size into complete lines, holds back the last JOIN_LINES of them so
 * that a line's successors never depend on how a pipe chunked the log, cuts
 * lines longer than CLASSIFY_MAX_LINE, strips ANSI escapes as bytes arrive,
 * keeps the map from window offsets to file offsets that lets it ask the
 * scout (pt/scout.h) for candidate lines, and finds candidate lines with the
 * prefilter its owner sets. It knows nothing of patterns: each candidate
 * line goes to the owner's on_line callback. Commands use pt/classify.h.
 *
 * Memory: one buffer of WINDOW_SIZE bytes, whatever the log's size.
 */
#ifndef PT_WINDOW_H
#define PT_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pt/decode.h"
#include "pt/litset.h"
#include "pt/scout.h"

/*
 * Hard-wrapped messages: a candidate line is joined with up to JOIN_LINES
 * lines before and after it, each of at most JOIN_MAX_LINE bytes (wrapped
 * text is short). The window keeps that many processed lines and holds back
 * that many complete ones, so the neighbours never depend on read sizes.
 */
#define JOIN_LINES 3
#define JOIN_MAX_LINE 1024u

/* A neighbour of a candidate line, trimmed; points into the window. */
struct join_piece {
	const char *s;
	size_t n;
};

struct window;

/*
 * A candidate line: w->buf[start..end) without its newline, line number
 * lineno (1-based). limit is where the window's known bytes end: the held
 * lines up to it are visible to window_neighbours(). first: no literal of
 * w->pf starts on the line before it (start when that is not known).
 * alone: the line's only literal is w->skip's (SCOUT_LINE_ALONE). The
 * callback may change w->pf and w->skip (a rebuilt prefilter) but nothing
 * else of the window.
 */
typedef void (*window_line_fn)(void *arg, struct window *w, size_t start, size_t end,
			       size_t limit, size_t lineno, size_t first, bool alone);

struct window {
	char *buf;                  /* [done lines][held lines][partial][free] */
	size_t len;
	size_t proc;                /* offset of the first unprocessed byte */
	size_t noprev_at;           /* the line starting here follows a cut line: no
	                             * previous neighbour (SIZE_MAX: none) */
	size_t lineno;              /* lines before proc */
	bool skipping;              /* inside an over-long line: drop bytes to the next newline */
	size_t ansi_tail;           /* bytes at the end: an escape sequence cut by a read */
	unsigned long long nbytes;  /* bytes read (before escapes were stripped) */
	size_t long_lines;          /* lines cut at CLASSIFY_MAX_LINE */

	/* Where candidate lines are: set by the owner before the first
	 * window_advance() and whenever it rebuilds the prefilter. */
	const struct litset *pf;    /* borrowed */
	struct scout_skip skip;     /* lines of pf's that change nothing (pt/scout.h); the
	                             * scout gets it with the twin of pf */
	struct scout_memo memo;     /* kinds of skip lines judged lately (pt/scout.h) */
	bool every_line;            /* a pattern has no literal: every line is a candidate */
	window_line_fn on_line;
	void *arg;

	/* The scout, on big regular files. Offset o >= map_from holds the
	 * file's byte o + map_delta (from scout_base), a line start in both;
	 * map_from is SIZE_MAX while no such stretch exists. */
	struct scout *scout;
	int scout_fd;               /* -1: no scout wanted */
	off_t scout_base;
	uint64_t scout_size;
	size_t map_from;
	uint64_t map_delta;
};

/* An empty window that hands candidate lines to on_line(arg, ...); release
 * it with window_release(). */
void window_init(struct window *w, window_line_fn on_line, void *arg);
/* Stops the scout and frees the buffer. */
void window_release(struct window *w);

/*
 * Decide whether fd deserves a scout: a regular file of 32 MiB or more
 * from its offset on, and threads (0: one per core, at most 2) >= 2. The
 * scout starts at window_start_scout().
 */
void window_want_scout(struct window *w, int fd, unsigned threads);
/* Start the scout, if wanted and possible, with twin (a built copy of the
 * prefilter, which the window now owns; freed when not used) and w->skip. */
void window_start_scout(struct window *w, struct litset *twin);
/* Hand the scout a rebuilt prefilter (owned by the window from now on) and w->skip. */
void window_update_scout(struct window *w, struct litset *twin);

/* Room for the next read: at least READ_CHUNK bytes at the returned pointer. */
char *window_space(struct window *w, size_t *space);
/*
 * Read the next piece of fd into the window through the decoder (a
 * transcoded log gives up the scout: it asks about the file's own bytes).
 * Returns the bytes read, 0 at the end, -1 with errno on an error; follow
 * a positive count with window_add().
 */
ssize_t window_read(struct window *w, struct decode_reader *dr, int fd);
/* n bytes were written at window_space(): strip escape sequences, update
 * the scout's map and the byte count. */
void window_add(struct window *w, size_t n);
/*
 * Hand every complete line to on_line that no longer needs to be held
 * back; final: the log has ended, hand over everything (a last line
 * without a newline too).
 */
void window_advance(struct window *w, bool final);

/*
 * The trimmed lines around the candidate line [start, end) (limit as
 * on_line got it), nearest first, up to JOIN_LINES each way, stopping at a
 * boundary (pt/ingest.h), a line over JOIN_MAX_LINE, a cut line and the
 * held lines' end. The pieces point into the window, valid during on_line.
 */
void window_neighbours(const struct window *w, size_t start, size_t end, size_t limit,
		       struct join_piece *prev, size_t *nprev, struct join_piece *next,
		       size_t *nnext);

#endif
