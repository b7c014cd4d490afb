/* SPDX-License-Identifier: MIT */
/* Wrapping output to the terminal's width; see pt/wrap.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pt/wrap.h"

/* How far a "key:" or a label may reach for its continuation to line up with it. */
#define KEY_MAX_COLS 24

/* A line longer than this is written as it is: the code mask is on the stack. */
#define LINE_MAX_MASK 16384

/*
 * The memory streams of the wrap_outs that wrap now: only there do code
 * markers go (wrap_code_begin()), so output that is not wrapped never holds
 * one. A handful are open at once (stdout, and a walk's stream).
 */
static FILE *wrapping[8];

static void
track(FILE *fp, bool on)
{
	for (size_t i = 0; i < sizeof(wrapping) / sizeof(wrapping[0]); i++)
		if (on ? !wrapping[i] : wrapping[i] == fp) {
			wrapping[i] = on ? fp : NULL;
			return;
		}
}

static bool
is_wrapping(FILE *fp)
{
	for (size_t i = 0; fp && i < sizeof(wrapping) / sizeof(wrapping[0]); i++)
		if (wrapping[i] == fp)
			return true;
	return false;
}

void
wrap_code_begin(FILE *fp)
{
	if (is_wrapping(fp))
		fputc(WRAP_CODE_ON, fp);
}

void
wrap_code_end(FILE *fp)
{
	if (is_wrapping(fp))
		fputc(WRAP_CODE_OFF, fp);
}

unsigned
wrap_width(int fd, const char *columns)
{
	struct winsize ws;
	unsigned w = 80;

	if (!isatty(fd))
		return 0;
	if (columns && *columns) {
		char *end;
		long n = strtol(columns, &end, 10);

		if (!*end && n > 0 && n < 10000)
			return n < WRAP_MIN_WIDTH ? 0 : (unsigned)n;
	}
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		w = ws.ws_col;
	return w < WRAP_MIN_WIDTH ? 0 : w;
}

/* Bytes of the escape sequence at s[i] (ESC [ params final, or ESC and one byte); 0: none. */
static size_t
esc_len(const char *s, size_t n, size_t i)
{
	size_t k = i + 1;

	if (s[i] != '\033' || k >= n)
		return 0;
	if (s[k] != '[')
		return 2;
	for (k++; k < n; k++)
		if ((unsigned char)s[k] >= 0x40 && (unsigned char)s[k] <= 0x7e)
			return k - i + 1;
	return n - i;
}

/* The column after s[i], which starts at column col. */
static unsigned
advance(const char *s, size_t i, unsigned col)
{
	unsigned char c = (unsigned char)s[i];

	if (c == '\t')
		return (col / 8 + 1) * 8;
	if ((c & 0xc0) == 0x80)        /* a UTF-8 continuation byte: no column of its own */
		return col;
	return col + 1;
}

/* The columns s[from..to) takes when it starts at column col. */
static unsigned
cols(const char *s, size_t from, size_t to, unsigned col)
{
	for (size_t i = from, e; i < to; i++) {
		if ((e = esc_len(s, to, i))) {
			i += e - 1;
			continue;
		}
		col = advance(s, i, col);
	}
	return col;
}

/*
 * The column continuation lines of s[0..n) start at: after a bullet, after
 * a short "key:", after a label and its gap of two or more spaces, else two
 * in from the line's indent.
 */
static unsigned
hang_of(const char *s, size_t n, unsigned width)
{
	size_t lead = strspn(s, " "), i, j;
	unsigned hang;

	if (lead > n)
		lead = n;
	i = lead;
	for (j = i; j < n && s[j] != ' '; j++)
		;
	if (i + 1 < n && (s[i] == '*' || s[i] == '-') && s[i + 1] == ' ')
		hang = (unsigned)lead + 2;
	else if (j < n && j > i && s[j - 1] == ':' && cols(s, 0, j + strspn(s + j, " "), 0) <= KEY_MAX_COLS)
		hang = cols(s, 0, j + strspn(s + j, " "), 0);
	else {
		hang = lead ? (unsigned)lead + 2 : 0;
		for (; j + 1 < n; j++) {
			if (s[j] == ' ' && s[j + 1] == ' ' && s[j - 1] != ' ') {
				size_t e = j;
				unsigned c;

				while (e < n && s[e] == ' ')
					e++;
				if ((c = cols(s, 0, e, 0)) <= width / 2)
					hang = c;
				break;
			}
		}
	}
	return hang + 20 > width ? 0 : hang;
}

/*
 * The place to break s[start..n), which starts at column col: the last space
 * run before the text passes width. A word too long for the line breaks
 * after its last '(' or ',' that fits: inside brackets a line break keeps
 * pasted Python valid, where a break elsewhere in code would not. Failing
 * that, the word overflows whole, up to the next space. Returns the break's
 * start (n: no break, the rest is written as it is) and the end of what it
 * drops (the spaces) in *end.
 */
static size_t
find_break(const char *s, const bool *code, size_t start, size_t n, unsigned col, unsigned width,
	   size_t *end)
{
	size_t cand = n, soft = n, i, e;

	for (i = start; i < n; i++) {
		if ((e = esc_len(s, n, i))) {
			i += e - 1;
			continue;
		}
		if (s[i] == ' ' && i > start && s[i - 1] != ' ' && !code[i]) {
			if (col <= width)
				cand = i;
			else
				break;
		}
		col = advance(s, i, col);
		if ((s[i] == '(' || s[i] == ',') && col <= width && i + 1 < n && s[i + 1] != ' ' &&
		    !code[i + 1])
			soft = i + 1;
		if (s[i] == ' ')
			soft = n;       /* only inside the word being written */
	}
	if (i >= n && col <= width)
		return n;
	if (cand != n) {
		for (e = cand; e < n && s[e] == ' '; e++)
			;
		*end = e;
		return e >= n ? n : cand;
	}
	if (soft != n) {
		*end = soft;
		return soft;
	}
	if (i >= n)
		return n;
	for (e = i; e < n && s[e] == ' '; e++)
		;
	*end = e;
	return e >= n ? n : i;
}

static void
wrap_plain(FILE *out, const char *s, const bool *code, size_t n, unsigned width)
{
	unsigned hang, col = 0;
	size_t start = 0, b, e = 0;

	if (!width || cols(s, 0, n, 0) <= width) {
		fwrite(s, 1, n, out);
		return;
	}
	hang = hang_of(s, n, width);
	for (;;) {
		b = find_break(s, code, start, n, col, width, &e);
		/* never break the first line left of where its continuations start */
		if (b < n && start == 0 && cols(s, 0, b, 0) <= hang)
			b = find_break(s, code, e, n, cols(s, 0, e, 0), width, &e);
		fwrite(s + start, 1, b - start, out);
		if (b >= n)
			return;
		fprintf(out, "\n%*s", (int)hang, "");
		start = e;
		col = hang;
	}
}

/*
 * One line: the code markers come out, and what was between them is code,
 * which no break may fall inside (a cut command or expression does not
 * paste). A line too long for the mask is written unwrapped, markers out.
 */
static void
wrap_line(FILE *out, const char *s, size_t n, unsigned width)
{
	char text[LINE_MAX_MASK];
	bool code[LINE_MAX_MASK], in = false;
	size_t k = 0;

	if (!memchr(s, WRAP_CODE_ON, n) && !memchr(s, WRAP_CODE_OFF, n)) {
		static const bool none[LINE_MAX_MASK];

		if (n < LINE_MAX_MASK)
			wrap_plain(out, s, none, n, width);
		else
			fwrite(s, 1, n, out);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] == WRAP_CODE_ON || s[i] == WRAP_CODE_OFF) {
			in = s[i] == WRAP_CODE_ON;
			continue;
		}
		if (k == sizeof(text))
			break;
		code[k] = in;
		text[k++] = s[i];
	}
	if (k == sizeof(text)) {
		for (size_t i = 0; i < n; i++)
			if (s[i] != WRAP_CODE_ON && s[i] != WRAP_CODE_OFF)
				fputc(s[i], out);
		return;
	}
	wrap_plain(out, text, code, k, width);
}

void
wrap_write(FILE *out, const char *s, size_t len, unsigned width)
{
	const char *nl;

	while (len && (nl = memchr(s, '\n', len))) {
		wrap_line(out, s, (size_t)(nl - s), width);
		fputc('\n', out);
		len -= (size_t)(nl - s) + 1;
		s = nl + 1;
	}
	if (len)
		wrap_line(out, s, len, width);
}

static void
reopen(struct wrap_out *o)
{
	o->buf = NULL;
	o->len = 0;
	o->fp = open_memstream(&o->buf, &o->len);
	if (!o->fp) {               /* out of memory: print unwrapped rather than not at all */
		o->fp = o->real;
		o->width = 0;
		return;
	}
	track(o->fp, true);
}

void
wrap_out_open(struct wrap_out *o, FILE *real, unsigned width)
{
	memset(o, 0, sizeof(*o));
	o->real = real;
	o->fp = real;
	o->width = width;
	if (width)
		reopen(o);
}

void
wrap_out_flush(struct wrap_out *o)
{
	if (o->width && o->fp != o->real) {
		track(o->fp, false);
		fclose(o->fp);
		wrap_write(o->real, o->buf, o->len, o->width);
		free(o->buf);
		reopen(o);
	}
	fflush(o->real);
}

void
wrap_out_close(struct wrap_out *o)
{
	wrap_out_flush(o);
	if (o->fp != o->real) {
		track(o->fp, false);
		fclose(o->fp);
		free(o->buf);
	}
	o->fp = o->real;
	o->buf = NULL;
	o->width = 0;
}
