/* SPDX-License-Identifier: MIT */
/*
 * Wrapping text to the terminal's width, as a person reads it: lines break
 * at spaces only (a word longer than the line overflows rather than being
 * cut), and a continuation lines up under the text it continues: after a
 * label followed by two spaces ("  change  ..."), after a short "key: "
 * ("   10: ...", "expect: ..."), after a bullet ("  * "), else two columns
 * in from the line's own indent. Escape sequences (colour) take no columns
 * and a UTF-8 character takes one. Text is written as it is otherwise: it
 * must already be escaped (pt/term.h).
 *
 * Code is never broken (a command or an expression cut in two does not
 * paste): a printer puts it between wrap_code_begin() and wrap_code_end(),
 * and a line that holds code breaks only outside it; code too long for the
 * line overflows, and the terminal's soft wrap keeps it one line for copy.
 *
 * Commands print as usual into a struct wrap_out and flush it before
 * anything waits for the user (a prompt) and at the end; without a width
 * (not a terminal) the output goes straight through, byte for byte.
 */
#ifndef PT_WRAP_H
#define PT_WRAP_H

#include <stddef.h>
#include <stdio.h>

/* The markers around code in a wrapped stream; they never reach the output. */
#define WRAP_CODE_ON '\x0e'
#define WRAP_CODE_OFF '\x0f'

/* Below this a terminal is taken as unusable for wrapping; nothing is wrapped. */
#define WRAP_MIN_WIDTH 20

/*
 * The width to wrap output to fd at: 0 when fd is no terminal; else
 * columns (the COLUMNS variable, may be NULL) when it is a number, else the
 * terminal's own width, else 80. Below WRAP_MIN_WIDTH: 0.
 */
unsigned wrap_width(int fd, const char *columns);

/* Write s[0..len) to out wrapped at width columns (0: unchanged but for the markers). */
void wrap_write(FILE *out, const char *s, size_t len, unsigned width);
/*
 * What fp gets between these is code. They write a marker only into the
 * stream of a wrap_out that wraps (any other fp gets nothing), so a printer
 * calls them whatever it prints to.
 */
void wrap_code_begin(FILE *fp);
void wrap_code_end(FILE *fp);

struct wrap_out {
	FILE *fp;                   /* write here: a memory stream while wrapping, else real */
	FILE *real;                 /* borrowed */
	unsigned width;             /* 0: fp is real */
	char *buf;                  /* the memory stream's buffer */
	size_t len;
};

/* Start writing to real through o, wrapped at width (0: straight through). */
void wrap_out_open(struct wrap_out *o, FILE *real, unsigned width);
/* Write what o holds, wrapped, to real and flush real. o->fp may change. */
void wrap_out_flush(struct wrap_out *o);
/* Flush and end; o->fp is real afterwards. */
void wrap_out_close(struct wrap_out *o);

#endif
