/* SPDX-License-Identifier: MIT */
/*
 * Echoing a log as it streams in, as tee would, so that
 * `python k.py 2>&1 | pallas-triage` shows the program's output while it
 * runs (and a hang shows its last lines). The log is untrusted: escape
 * sequences (its colours) are dropped and other control bytes are shown
 * escaped (pt/term.h); a carriage return ending a line is dropped. Lines
 * go out whole, each as soon as its newline arrives; a line still open
 * after ECHO_HOLD bytes goes out in pieces. With dim, each line is written
 * dimmed, so the diagnosis that follows stands out.
 */
#ifndef PT_ECHO_H
#define PT_ECHO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "pt/buf.h"

#define ECHO_HOLD 4096

struct echo {
	FILE *out;                  /* borrowed */
	bool dim;
	struct buf line;            /* the open line */
	size_t lines;               /* lines written */
};

void echo_init(struct echo *e, FILE *out, bool dim);
/* Take the next piece of the log, split anywhere. */
void echo_feed(struct echo *e, const char *data, size_t len);
/* Write the last line if it had no newline, and free what e holds. */
void echo_finish(struct echo *e);

#endif
