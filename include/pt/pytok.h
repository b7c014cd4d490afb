/* SPDX-License-Identifier: MIT */
/*
 * The tokenizer behind py_parse() (pt/pyast.h): Python's tokens, with
 * INDENT/DEDENT from an indentation stack and NEWLINE only at the end of a
 * logical line (never inside brackets). Tokens point into the source, which
 * must outlive the lexer. A byte that starts no token, an unterminated
 * string, a bad dedent or too deep nesting is a PYT_ERROR token with a
 * message; the lexer has moved past it, so the next call makes progress.
 */
#ifndef PT_PYTOK_H
#define PT_PYTOK_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/pyast.h"

enum pyt_kind {
	PYT_EOF,
	PYT_NEWLINE,
	PYT_INDENT,
	PYT_DEDENT,
	PYT_NAME,
	PYT_NUMBER,
	PYT_STRING,
	PYT_OP,
	PYT_ERROR,
};

struct pyt_token {
	enum pyt_kind kind;
	int line, col;              /* 1-based start */
	int end_line, end_col;      /* just past the end */
	const char *p;              /* the token's bytes in the source */
	size_t len;
	int op;                     /* PYT_OP: a character or enum py_op (PYOP_AUG + op for op=) */
	const char *msg;            /* PYT_ERROR: what is wrong (static text) */
	bool word;                  /* PYT_NAME: a keyword or soft keyword (the parser compares only these) */
};

struct pyt_lexer {
	const char *src, *cur, *end;
	int line;
	const char *line_start;     /* first byte of the current physical line */
	int depth;                  /* open brackets */
	int open_line[PY_MAX_DEPTH], open_col[PY_MAX_DEPTH];  /* where each is */
	char open_ch[PY_MAX_DEPTH];
	int indents[PY_MAX_DEPTH];  /* indentation stack; indents[0] = 0 */
	int nindent;
	int dedents;                /* DEDENT tokens still to emit */
	bool line_begin;            /* next token starts a logical line: measure its indentation */
	bool need_newline;          /* a token was emitted since the last NEWLINE */
	bool done;                  /* EOF emitted */
};

void pyt_init(struct pyt_lexer *lx, const char *src, size_t len);
void pyt_next(struct pyt_lexer *lx, struct pyt_token *t);
/*
 * Error recovery: forget open brackets, pop the indentation stack back to
 * `level` entries, and skip the rest of the physical line and every
 * following line indented deeper than that level's indentation (the rest
 * of a broken statement, or the body of a broken compound statement).
 */
void pyt_skip_statement(struct pyt_lexer *lx, int level);
/*
 * Error recovery at a token that starts its line (a `def` after an
 * unclosed bracket): forget open brackets, pop the indentation stack back
 * to `level` entries, and go on from the start of that token's line.
 */
void pyt_resume_at_line(struct pyt_lexer *lx, const struct pyt_token *t, int level);

#endif
