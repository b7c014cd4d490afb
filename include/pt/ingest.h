/* SPDX-License-Identifier: MIT */
/*
 * Log ingestion: what turns raw bytes from a CI log, a terminal or a pytest
 * report into the line a rule sees. Pure functions over bytes; no I/O.
 */
#ifndef PT_INGEST_H
#define PT_INGEST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Remove ANSI escape sequences (CSI, OSC, nF escapes) from buf[0..len) in
 * place, keeping newlines. Returns the new length. A sequence cut off by
 * the end of the buffer is kept verbatim at the end and *incomplete is set
 * to its length, so that a caller reading in pieces can strip it again once
 * the rest has arrived; otherwise *incomplete is 0.
 */
size_t ingest_strip_ansi(char *buf, size_t len, size_t *incomplete);

/*
 * The part of a line a rule should see: without a trailing CR, without
 * decorations that tools put in front of every line (pytest's "E   ",
 * "(EngineCore pid=123) ", "[rank0]: ", Cloud Build's `Step #4 - "x": `,
 * glog and Python-logging headers, ISO timestamps). Returns the offset of
 * the first kept byte; *len is updated to the kept length.
 */
size_t ingest_trim(const char *line, size_t *len);

struct frame {
	const char *file;       /* points into the line */
	size_t file_len;
	long line, col;         /* col is 0 when unknown */
	const char *func;       /* may be NULL */
	size_t func_len;
};

/* Parse a Python traceback frame: `File "PATH", line N, in FUNC`. */
bool ingest_parse_py_frame(const char *line, size_t len, struct frame *f);
/*
 * Find the first user frame in an MLIR location `loc(... "fn"("file":L:C) ...)`
 * or a Pallas message's `at FILE:LINE`. Frames in library code are skipped.
 */
bool ingest_parse_loc(const char *line, size_t len, struct frame *f);
/* True when path is library code (site-packages, jax/_src, the stdlib) rather than the user's. */
bool ingest_is_library_path(const char *path, size_t len);

/*
 * Can a hard-wrapped sentence not run across this (trimmed) line? True for
 * a blank line and for the lines that start a traceback, a chained
 * exception or a frame: joins of wrapped lines stop there.
 */
bool ingest_is_join_boundary(const char *line, size_t len);

#endif
