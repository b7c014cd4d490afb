/* SPDX-License-Identifier: MIT */
/* Advice that holds code, printed so that it pastes; see pt/snippet.h. */
#include <string.h>

#include "pt/snippet.h"
#include "pt/term.h"
#include "pt/wrap.h"

bool
snippet_is_prose(const char *text)
{
	const char *a = strchr(text, '`');

	return a && strchr(a + 1, '`');
}

/* Code: one unbreakable piece; its bytes escaped (a newline too). */
static void
put_code(FILE *fp, const char *s, size_t len)
{
	wrap_code_begin(fp);
	term_put_untrusted(fp, s, len);
	wrap_code_end(fp);
}

/* Prose with `spans`: the spans, backticks and all, are code. */
static void
put_prose(FILE *fp, const char *s)
{
	const char *a, *b;

	while ((a = strchr(s, '`')) && (b = strchr(a + 1, '`'))) {
		term_put_untrusted(fp, s, (size_t)(a - s));
		put_code(fp, a, (size_t)(b - a) + 1);
		s = b + 1;
	}
	term_puts_untrusted(fp, s);
}

/* "   (from your log)": a break may come before it, not inside it. */
static void
put_tail(FILE *fp, const char *tail)
{
	size_t sp;

	if (!tail)
		return;
	sp = strspn(tail, " ");
	fprintf(fp, "%.*s", (int)sp, tail);
	wrap_code_begin(fp);
	fputs(tail + sp, fp);
	wrap_code_end(fp);
}

/* The spaces at the end of s. */
static size_t
strspn_rev(const char *s)
{
	size_t n = strlen(s), k = 0;

	while (k < n && s[n - 1 - k] == ' ')
		k++;
	return k;
}

void
snippet_put(FILE *fp, const char *text)
{
	if (snippet_is_prose(text))
		put_prose(fp, text);
	else
		put_code(fp, text, strlen(text));
}

void
snippet_print(FILE *fp, const char *label, const char *text, const char *tail,
	      unsigned indent)
{
	const char *nl;

	if (snippet_is_prose(text) || !strchr(text, '\n')) {
		fputs(label, fp);
		snippet_put(fp, text);
		put_tail(fp, tail);
		fputc('\n', fp);
		return;
	}
	/* several lines of code: below the label, as lines, indented alike */
	fprintf(fp, "%.*s", (int)(strlen(label) - strspn_rev(label)), label);
	fprintf(fp, "%s%s\n", tail ? " " : "", tail ? tail + strspn(tail, " ") : "");
	for (const char *line = text; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		fprintf(fp, "%*s", (int)indent, "");
		put_code(fp, line, nl ? (size_t)(nl - line) : strlen(line));
		fputc('\n', fp);
		if (!nl)
			break;
	}
}
