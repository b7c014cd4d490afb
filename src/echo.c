/* SPDX-License-Identifier: MIT */
/* Echoing a log as it streams in; see pt/echo.h. */
#include <string.h>

#include "pt/echo.h"
#include "pt/ingest.h"
#include "pt/term.h"

void
echo_init(struct echo *e, FILE *out, bool dim)
{
	e->out = out;
	e->dim = dim;
	e->lines = 0;
	buf_init(&e->line, 0);
}

/* Write the open line (without its newline), cleaned, then nl if given. */
static void
put_line(struct echo *e, bool nl)
{
	size_t cut = 0, len = ingest_strip_ansi(e->line.data, e->line.len, &cut);

	/* a sequence cut by the end is kept for the next piece only when the
	 * line goes on; at a newline it is just bytes */
	if (!nl && cut)
		len -= cut;
	if (nl && len && e->line.data[len - 1] == '\r')
		len--;
	if (e->dim)
		fputs(TERM_DIM, e->out);
	term_put_untrusted(e->out, e->line.data, len);
	if (e->dim)
		fputs(TERM_RESET, e->out);
	if (nl) {
		fputc('\n', e->out);
		e->lines++;
	}
	if (!nl && cut) {
		memmove(e->line.data, e->line.data + len, cut);
		buf_truncate(&e->line, cut);
	} else {
		buf_reset(&e->line);
	}
}

void
echo_feed(struct echo *e, const char *data, size_t len)
{
	const char *nl;
	bool wrote = false;

	while (len) {
		size_t n = (nl = memchr(data, '\n', len)) ? (size_t)(nl - data) : len;

		buf_add(&e->line, data, n);
		if (nl) {
			put_line(e, true);
			wrote = true;
			n++;
		} else if (e->line.len >= ECHO_HOLD) {
			put_line(e, false);
			wrote = true;
		}
		data += n;
		len -= n;
	}
	/* the program may print a line and then hang: it must be seen now */
	if (wrote)
		fflush(e->out);
}

void
echo_finish(struct echo *e)
{
	if (e->line.len)
		put_line(e, true);
	fflush(e->out);
	buf_release(&e->line);
}
