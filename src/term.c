/* SPDX-License-Identifier: MIT */
/* Escaping of untrusted text for terminals and reports; see pt/term.h. */
#include <string.h>

#include "pt/buf.h"
#include "pt/term.h"

static bool
is_control(unsigned char c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

static void
escape_into(struct buf *b, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (is_control(c))
			buf_addf(b, "\\x%02x", c);
		else
			buf_addch(b, (char)c);
	}
}

void
term_put_untrusted(FILE *fp, const char *s, size_t len)
{
	size_t start = 0;

	for (size_t i = 0; i < len; i++)
		if (is_control((unsigned char)s[i])) {
			fwrite(s + start, 1, i - start, fp);
			fprintf(fp, "\\x%02x", (unsigned char)s[i]);
			start = i + 1;
		}
	fwrite(s + start, 1, len - start, fp);
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
