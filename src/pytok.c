/* SPDX-License-Identifier: MIT */
/*
 * Python's tokenizer, as far as the parser needs it (pt/pytok.h). Bytes
 * above 0x7f count as identifier characters, so UTF-8 names and any
 * invalid bytes inside names tokenize without decoding; everything else
 * that is no token is an error token, never a stop.
 */
#include <string.h>

#include "pt/pytok.h"

#define TAB_WIDTH 8

static bool
is_name_start(unsigned char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

static bool
is_name_char(unsigned char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static bool
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

void
pyt_init(struct pyt_lexer *lx, const char *src, size_t len)
{
	memset(lx, 0, sizeof(*lx));
	lx->src = lx->cur = lx->line_start = src;
	lx->end = src + len;
	lx->line = 1;
	lx->nindent = 1;
	lx->line_begin = true;
}

static int
col_of(const struct pyt_lexer *lx, const char *p)
{
	return (int)(p - lx->line_start) + 1;
}

/* At a newline byte (\n, \r\n or a lone \r): step over it. */
static void
eat_newline(struct pyt_lexer *lx)
{
	if (*lx->cur == '\r' && lx->cur + 1 < lx->end && lx->cur[1] == '\n')
		lx->cur++;
	lx->cur++;
	lx->line++;
	lx->line_start = lx->cur;
}

static bool
at_newline(const struct pyt_lexer *lx)
{
	return lx->cur < lx->end && (*lx->cur == '\n' || *lx->cur == '\r');
}

static void
set_token(struct pyt_lexer *lx, struct pyt_token *t, enum pyt_kind k, const char *start,
	  int line, int col)
{
	t->kind = k;
	t->line = line;
	t->col = col;
	t->p = start;
	t->len = (size_t)(lx->cur - start);
	t->end_line = lx->line;
	t->end_col = col_of(lx, lx->cur);
	t->op = 0;
	t->msg = NULL;
	t->word = false;
}

/* The keywords and soft keywords: the only names the parser compares a token with. */
static bool
is_word(const char *p, size_t n)
{
	static const char *const words[] = {
		"False", "None", "True", "and", "as", "assert", "async", "await", "break", "case",
		"class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from",
		"global", "if", "import", "in", "is", "lambda", "match", "nonlocal", "not", "or",
		"pass", "raise", "return", "try", "type", "while", "with", "yield",
	};

	if (n < 2 || n > 8)
		return false;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (words[i][0] == p[0] && strncmp(words[i], p, n) == 0 && !words[i][n])
			return true;
	return false;
}

static void
error_token(struct pyt_lexer *lx, struct pyt_token *t, const char *start, int line, int col,
	    const char *msg)
{
	set_token(lx, t, PYT_ERROR, start, line, col);
	t->msg = msg;
}

/*
 * At the start of a logical line: skip blank and comment-only lines and
 * measure the indentation of the next real one. Returns its width, or -1
 * at the end of the source.
 */
static int
measure_indent(struct pyt_lexer *lx)
{
	for (;;) {
		int width = 0;

		while (lx->cur < lx->end) {
			if (*lx->cur == ' ')
				width++;
			else if (*lx->cur == '\t')
				width = (width / TAB_WIDTH + 1) * TAB_WIDTH;
			else if (*lx->cur == '\f')
				width = 0;
			else
				break;
			lx->cur++;
		}
		if (lx->cur >= lx->end)
			return -1;
		if (*lx->cur == '#') {
			while (lx->cur < lx->end && !at_newline(lx))
				lx->cur++;
			if (lx->cur >= lx->end)
				return -1;      /* a comment that ends the file */
		}
		if (at_newline(lx)) {
			eat_newline(lx);
			continue;
		}
		if (*lx->cur == '\\' && lx->cur + 1 < lx->end &&
		    (lx->cur[1] == '\n' || lx->cur[1] == '\r')) {
			/* a continuation at the start of a line joins the next one */
			lx->cur++;
			eat_newline(lx);
			continue;
		}
		return width;
	}
}

/* Decide INDENT/DEDENT for a new logical line. Returns true with t set when a token is due. */
static bool
indent_token(struct pyt_lexer *lx, struct pyt_token *t)
{
	int width = measure_indent(lx);
	int top = lx->indents[lx->nindent - 1];

	lx->line_begin = false;
	if (width < 0)
		return false;
	if (width > top) {
		if (lx->nindent >= PY_MAX_DEPTH) {
			error_token(lx, t, lx->cur, lx->line, 1, "too deeply nested");
			return true;
		}
		lx->indents[lx->nindent++] = width;
		set_token(lx, t, PYT_INDENT, lx->cur, lx->line, col_of(lx, lx->cur));
		return true;
	}
	while (lx->nindent > 1 && width < lx->indents[lx->nindent - 1]) {
		lx->nindent--;
		lx->dedents++;
	}
	if (width != lx->indents[lx->nindent - 1]) {
		lx->dedents = 0;
		error_token(lx, t, lx->cur, lx->line, 1,
			    "unindent does not match any outer indentation level");
		return true;
	}
	if (lx->dedents) {
		lx->dedents--;
		set_token(lx, t, PYT_DEDENT, lx->cur, lx->line, col_of(lx, lx->cur));
		return true;
	}
	return false;
}

/* Skip spaces, comments and backslash continuations inside a line (or anywhere inside brackets). */
static void
skip_space(struct pyt_lexer *lx)
{
	while (lx->cur < lx->end) {
		char c = *lx->cur;

		if (c == ' ' || c == '\t' || c == '\f') {
			lx->cur++;
		} else if (c == '#') {
			while (lx->cur < lx->end && !at_newline(lx))
				lx->cur++;
		} else if (c == '\\' && lx->cur + 1 < lx->end &&
			   (lx->cur[1] == '\n' || lx->cur[1] == '\r')) {
			lx->cur++;
			eat_newline(lx);
		} else if (lx->depth > 0 && (c == '\n' || c == '\r')) {
			eat_newline(lx);
		} else {
			break;
		}
	}
}

/* The string prefix letters before a quote at p, or 0 when p does not start a string. */
static size_t
string_prefix(const char *p, const char *end, bool *raw, bool *fstr)
{
	size_t n = 0;

	*raw = *fstr = false;
	while (n < 2 && p + n < end && strchr("rRbBuUfFtT", p[n]) && p[n]) {
		if (p[n] == 'r' || p[n] == 'R')
			*raw = true;
		if (p[n] == 'f' || p[n] == 'F' || p[n] == 't' || p[n] == 'T')
			*fstr = true;
		n++;
	}
	if (p + n < end && (p[n] == '\'' || p[n] == '"'))
		return n + 1;
	return 0;
}

/*
 * Scan a string literal from its opening quote. In an f-string, quotes
 * inside {...} start nested strings (Python 3.12), which are skipped.
 */
static bool
scan_string(struct pyt_lexer *lx, bool raw, bool fstr, int nest)
{
	char q = *lx->cur;
	bool triple = lx->cur + 2 < lx->end && lx->cur[1] == q && lx->cur[2] == q;
	int braces = 0;

	lx->cur += triple ? 3 : 1;
	while (lx->cur < lx->end) {
		char c = *lx->cur;

		if (c == '\\' && lx->cur + 1 < lx->end) {
			lx->cur++;
			if (at_newline(lx))
				eat_newline(lx);
			else
				lx->cur++;
			(void)raw;
			continue;
		}
		if (fstr && c == '{') {
			if (lx->cur + 1 < lx->end && lx->cur[1] == '{' && braces == 0)
				lx->cur++;
			else
				braces++;
		} else if (fstr && c == '}' && braces > 0) {
			braces--;
		} else if (fstr && braces > 0 && (c == '\'' || c == '"') && nest < 4) {
			/* any quote inside a replacement field starts a nested string (3.12) */
			if (!scan_string(lx, false, false, nest + 1))
				return false;
			continue;
		} else if (c == q) {
			if (!triple) {
				lx->cur++;
				return true;
			}
			if (lx->cur + 2 < lx->end && lx->cur[1] == q && lx->cur[2] == q) {
				lx->cur += 3;
				return true;
			}
		}
		if (at_newline(lx)) {
			if (!triple && braces == 0)
				return false;
			eat_newline(lx);
			continue;
		}
		lx->cur++;
	}
	return false;
}

static void
scan_digits(struct pyt_lexer *lx, bool (*ok)(unsigned char))
{
	while (lx->cur < lx->end && (ok((unsigned char)*lx->cur) || *lx->cur == '_'))
		lx->cur++;
}

static bool
is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static void
scan_number(struct pyt_lexer *lx)
{
	const char *p = lx->cur;

	if (*p == '0' && p + 1 < lx->end && strchr("xXoObB", p[1]) && p[1]) {
		lx->cur += 2;
		scan_digits(lx, is_hex);
		return;
	}
	scan_digits(lx, is_digit);
	if (lx->cur < lx->end && *lx->cur == '.') {
		lx->cur++;
		scan_digits(lx, is_digit);
	}
	if (lx->cur < lx->end && (*lx->cur == 'e' || *lx->cur == 'E')) {
		const char *q = lx->cur + 1;

		if (q < lx->end && (*q == '+' || *q == '-'))
			q++;
		if (q < lx->end && is_digit((unsigned char)*q)) {
			lx->cur = q;
			scan_digits(lx, is_digit);
		}
	}
	if (lx->cur < lx->end && (*lx->cur == 'j' || *lx->cur == 'J'))
		lx->cur++;
}

static const struct {
	const char *text;
	int op;
} long_ops[] = {
	{ "**=", PYOP_AUG + PYOP_POW }, { "//=", PYOP_AUG + PYOP_FLOORDIV },
	{ ">>=", PYOP_AUG + PYOP_RSHIFT }, { "<<=", PYOP_AUG + PYOP_LSHIFT },
	{ "...", PYOP_ELLIPSIS },
	{ "==", PYOP_EQ }, { "!=", PYOP_NE }, { "<=", PYOP_LE }, { ">=", PYOP_GE },
	{ "<<", PYOP_LSHIFT }, { ">>", PYOP_RSHIFT }, { "**", PYOP_POW }, { "//", PYOP_FLOORDIV },
	{ "->", PYOP_ARROW }, { ":=", PYOP_WALRUS },
	{ "+=", PYOP_AUG + '+' }, { "-=", PYOP_AUG + '-' }, { "*=", PYOP_AUG + '*' },
	{ "/=", PYOP_AUG + '/' }, { "%=", PYOP_AUG + '%' }, { "@=", PYOP_AUG + '@' },
	{ "&=", PYOP_AUG + '&' }, { "|=", PYOP_AUG + '|' }, { "^=", PYOP_AUG + '^' },
};

/* Returns the operator code at cur (advancing past it), or 0. */
static int
scan_op(struct pyt_lexer *lx)
{
	char c = *lx->cur, c1 = lx->cur + 1 < lx->end ? lx->cur[1] : 0;

	if (!c || !strchr("()[]{}:,;+-*/|&<>=.%~^@!", c))
		return 0;
	/* the longer operators all have an operator character second */
	if (c1 && strchr("=*/<>.", c1))
		for (size_t i = 0; i < sizeof(long_ops) / sizeof(long_ops[0]); i++) {
			const char *t = long_ops[i].text;
			size_t n = t[2] ? 3 : 2;

			if (t[0] == c && t[1] == c1 && (n == 2 || (lx->cur + 2 < lx->end && lx->cur[2] == t[2]))) {
				lx->cur += n;
				return long_ops[i].op;
			}
		}
	if (c == '!')
		return 0;
	return *lx->cur++;
}

/* The end of the source: a last NEWLINE, then the DEDENTs, then EOF. */
static void
end_token(struct pyt_lexer *lx, struct pyt_token *t)
{
	if (lx->need_newline) {
		lx->need_newline = false;
		set_token(lx, t, PYT_NEWLINE, lx->cur, lx->line, col_of(lx, lx->cur));
		return;
	}
	if (lx->nindent > 1) {
		lx->nindent--;
		set_token(lx, t, PYT_DEDENT, lx->cur, lx->line, col_of(lx, lx->cur));
		return;
	}
	lx->done = true;
	set_token(lx, t, PYT_EOF, lx->cur, lx->line, col_of(lx, lx->cur));
}

static void
scan_token(struct pyt_lexer *lx, struct pyt_token *t)
{
	const char *start = lx->cur;
	int line = lx->line, col = col_of(lx, start);
	unsigned char c = (unsigned char)*start;
	bool raw, fstr;
	size_t pre;
	int op;

	if ((pre = string_prefix(start, lx->end, &raw, &fstr)) > 0) {
		lx->cur += pre - 1;
		if (!scan_string(lx, raw, fstr, 0)) {
			error_token(lx, t, start, line, col, "unterminated string literal");
			return;
		}
		set_token(lx, t, PYT_STRING, start, line, col);
		return;
	}
	if (is_name_start(c)) {
		while (lx->cur < lx->end && is_name_char((unsigned char)*lx->cur))
			lx->cur++;
		set_token(lx, t, PYT_NAME, start, line, col);
		t->word = is_word(t->p, t->len);
		return;
	}
	if (is_digit(c) || (c == '.' && lx->cur + 1 < lx->end && is_digit((unsigned char)lx->cur[1]))) {
		scan_number(lx);
		set_token(lx, t, PYT_NUMBER, start, line, col);
		return;
	}
	if ((op = scan_op(lx)) != 0) {
		if (op == '(' || op == '[' || op == '{') {
			if (lx->depth >= PY_MAX_DEPTH) {
				error_token(lx, t, start, line, col, "too deeply nested");
				return;
			}
			lx->open_line[lx->depth] = line;
			lx->open_col[lx->depth] = col;
			lx->open_ch[lx->depth] = (char)op;
			lx->depth++;
		} else if ((op == ')' || op == ']' || op == '}') && lx->depth > 0) {
			lx->depth--;
		}
		set_token(lx, t, PYT_OP, start, line, col);
		t->op = op;
		return;
	}
	lx->cur++;
	if (c == 0)
		error_token(lx, t, start, line, col, "NUL byte in the source");
	else if (c < 0x20 || c == 0x7f)
		error_token(lx, t, start, line, col, "control character in the source");
	else if (c == '\\')
		error_token(lx, t, start, line, col, "unexpected character after line continuation");
	else
		error_token(lx, t, start, line, col, "character that starts no token");
}

void
pyt_next(struct pyt_lexer *lx, struct pyt_token *t)
{
	if (lx->done) {
		set_token(lx, t, PYT_EOF, lx->cur, lx->line, col_of(lx, lx->cur));
		return;
	}
	if (lx->dedents) {
		lx->dedents--;
		set_token(lx, t, PYT_DEDENT, lx->cur, lx->line, col_of(lx, lx->cur));
		return;
	}
	if (lx->line_begin && lx->depth == 0 && indent_token(lx, t))
		return;
	skip_space(lx);
	if (lx->cur >= lx->end) {
		end_token(lx, t);
		return;
	}
	if (at_newline(lx)) {
		const char *start = lx->cur;
		int line = lx->line, col = col_of(lx, start);

		eat_newline(lx);
		lx->line_begin = true;
		if (!lx->need_newline) {
			pyt_next(lx, t);
			return;
		}
		lx->need_newline = false;
		t->kind = PYT_NEWLINE;
		t->line = line;
		t->col = col;
		t->end_line = line;
		t->end_col = col + 1;
		t->p = start;
		t->len = 1;
		t->op = 0;
		t->msg = NULL;
		return;
	}
	scan_token(lx, t);
	lx->need_newline = true;
}

/* The indentation width of the physical line at p (blank or comment lines: -1). */
static int
line_indent(const char *p, const char *end)
{
	int width = 0;

	for (; p < end; p++) {
		if (*p == ' ')
			width++;
		else if (*p == '\t')
			width = (width / TAB_WIDTH + 1) * TAB_WIDTH;
		else if (*p == '\f')
			width = 0;
		else
			return (*p == '#' || *p == '\n' || *p == '\r') ? -1 : width;
	}
	return -1;
}

void
pyt_skip_statement(struct pyt_lexer *lx, int level)
{
	int base;

	if (level < 1)
		level = 1;
	if (level < lx->nindent)
		lx->nindent = level;
	base = lx->indents[lx->nindent - 1];
	lx->depth = 0;
	lx->dedents = 0;
	/* the rest of this line, unless a NEWLINE ended it already (a string
	 * opened on it may run on: the skip goes by raw bytes) */
	if (!lx->line_begin) {
		while (lx->cur < lx->end && !at_newline(lx))
			lx->cur++;
		if (lx->cur < lx->end)
			eat_newline(lx);
	}
	while (lx->cur < lx->end) {
		int w = line_indent(lx->cur, lx->end);

		if (w >= 0 && w <= base)
			break;
		while (lx->cur < lx->end && !at_newline(lx))
			lx->cur++;
		if (lx->cur < lx->end)
			eat_newline(lx);
	}
	lx->line_begin = true;
	lx->need_newline = false;
}

void
pyt_resume_at_line(struct pyt_lexer *lx, const struct pyt_token *t, int level)
{
	if (level < 1)
		level = 1;
	if (level < lx->nindent)
		lx->nindent = level;
	lx->depth = 0;
	lx->dedents = 0;
	lx->cur = t->p - (t->col - 1);
	lx->line_start = lx->cur;
	lx->line = t->line;
	lx->line_begin = true;
	lx->need_newline = false;
	lx->done = false;
}
