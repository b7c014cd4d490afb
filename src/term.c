/* SPDX-License-Identifier: MIT */
/* Escaping of untrusted text for terminals and reports; see pt/term.h. */
#include <stdbool.h>
#include <string.h>

#include "pt/buf.h"
#include "pt/term.h"

static bool
is_bidi(unsigned long cp)
{
	return cp == 0x61c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

bool
term_utf8_is_control(const unsigned char *s, size_t n, unsigned long *cp)
{
	unsigned long c = s[0] & (0xff >> (n + 1));

	for (size_t k = 1; k < n; k++)
		c = c << 6 | (s[k] & 0x3f);
	*cp = c;
	return (c >= 0x80 && c <= 0x9f) || is_bidi(c);
}

/* RFC 3629: no overlong form, no surrogate, nothing past U+10FFFF. A raw
 * 0x9b inside what only looks like a sequence ("\xe0\x9b\x80") stays a CSI
 * for an 8-bit terminal. */
static bool
second_byte_ok(unsigned lead, unsigned next)
{
	unsigned lo = lead == 0xe0 ? 0xa0 : lead == 0xf0 ? 0x90 : 0x80;
	unsigned hi = lead == 0xed ? 0x9f : lead == 0xf4 ? 0x8f : 0xbf;

	return next >= lo && next <= hi;
}

/*
 * How many bytes at s[i] must be escaped (0: none). Controls are C0 and
 * DEL; C1 controls both as UTF-8 (U+0080..U+009F, "\xc2\x80".."\xc2\x9f")
 * and as raw bytes 0x80..0x9f outside a valid UTF-8 sequence, which an
 * 8-bit terminal takes as controls (0x9b is CSI); and the bidirectional
 * controls, which reorder what the terminal shows. Other valid UTF-8 passes.
 */
static size_t
unsafe_len(const unsigned char *s, size_t len, size_t i, size_t *skip)
{
	unsigned c = s[i];
	size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;

	*skip = 1;
	if ((c < 0x20 && c != '\t') || c == 0x7f)
		return 1;
	if (c < 0x80)
		return 0;
	if (c >= 0xc2 && c <= 0xf4 && len - i >= n && second_byte_ok(c, s[i + 1])) {
		size_t k = 1;

		while (k < n && (s[i + k] & 0xc0) == 0x80)
			k++;
		if (k == n) {
			unsigned long cp;

			if (term_utf8_is_control(s + i, n, &cp))
				return n;
			*skip = n;
			return 0;
		}
	}
	return c <= 0x9f;
}

static void
escape_into(struct buf *b, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0, skip, n; i < len; i += n ? n : skip) {
		n = unsafe_len(u, len, i, &skip);
		if (n == 0)
			buf_add(b, s + i, skip);
		for (size_t k = 0; k < n; k++)
			buf_addf(b, "\\x%02x", u[i + k]);
	}
}

void
term_put_untrusted(FILE *fp, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t start = 0;

	for (size_t i = 0, skip, n; i < len; i += n ? n : skip) {
		n = unsafe_len(u, len, i, &skip);
		if (n == 0)
			continue;
		fwrite(s + start, 1, i - start, fp);
		for (size_t k = 0; k < n; k++)
			fprintf(fp, "\\x%02x", u[i + k]);
		start = i + n;
	}
	fwrite(s + start, 1, len - start, fp);
}

void
term_puts_untrusted(FILE *fp, const char *s)
{
	if (s)
		term_put_untrusted(fp, s, strlen(s));
}

void
term_puts_untrusted_lines(FILE *fp, const char *s)
{
	const char *nl;

	for (; s && (nl = strchr(s, '\n')); s = nl + 1) {
		term_put_untrusted(fp, s, (size_t)(nl - s));
		fputc('\n', fp);
	}
	term_puts_untrusted(fp, s);
}

void
term_put_highlight(FILE *fp, const char *s, size_t len, size_t hs, size_t he, const char *color)
{
	if (!color || hs >= he || he > len) {
		term_put_untrusted(fp, s, len);
		return;
	}
	term_put_untrusted(fp, s, hs);
	fputs(color, fp);
	term_put_untrusted(fp, s + hs, he - hs);
	fputs(TERM_RESET, fp);
	term_put_untrusted(fp, s + he, len - he);
}

char *
term_escape(const char *s, size_t len)
{
	struct buf b = BUF_INIT;

	escape_into(&b, s, len);
	return buf_detach(&b, NULL);
}
