/* SPDX-License-Identifier: MIT */
/* Error structs, fatal exits and the many-problems sink; see pt/diag.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pt/diag.h"
#include "pt/term.h"
#include "pt/xalloc.h"

/*
 * Messages name files, URLs, YAML keys and server answers: text from
 * outside that could hold terminal escapes. Every message goes through the
 * escaper on its way out (no message holds a newline of its own).
 */
static void
put_message(FILE *fp, const char *prefix, const char *msg)
{
	fflush(stdout);
	fputs(prefix, fp);
	term_put_untrusted(fp, msg, strlen(msg));
	fputc('\n', fp);
}

static void
vput_message(FILE *fp, const char *prefix, const char *fmt, va_list ap)
{
	char msg[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	put_message(fp, prefix, msg);
}

int
pt_err_set(struct pt_err *err, int status, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int
pt_err_errno(struct pt_err *err, int status, const char *fmt, ...)
{
	int saved = errno;
	size_t len;
	va_list ap;

	if (!err)
		return -1;
	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(saved));
	return -1;
}

void
pt_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput_message(stderr, "pallas-triage: error: ", fmt, ap);
	va_end(ap);
	exit(status);
}

void
pt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput_message(stderr, "pallas-triage: warning: ", fmt, ap);
	va_end(ap);
}

int
pt_report(const struct pt_err *err)
{
	put_message(stderr, "pallas-triage: error: ", err->msg[0] ? err->msg : "unknown error");
	return err->status ? err->status : PT_EXIT_SYSTEM;
}

void
pt_bug(const char *file, int line, const char *msg)
{
	fprintf(stderr, "pallas-triage: BUG: %s:%d: %s\n", file, line, msg);
	abort();
}

static void
diag_vadd(struct diag *d, const char *level, const char *file, int line,
	  int col, const char *fmt, va_list ap)
{
	char body[1024];
	char *entry;

	vsnprintf(body, sizeof(body), fmt, ap);
	if (line > 0 && col > 0)
		entry = xasprintf("%s:%d:%d: %s: %s", file, line, col, level, body);
	else if (line > 0)
		entry = xasprintf("%s:%d: %s: %s", file, line, level, body);
	else
		entry = xasprintf("%s: %s: %s", file, level, body);
	XGROW(d->lines, d->alloc, d->n + 1);
	d->lines[d->n++] = entry;
}

void
diag_error(struct diag *d, const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vadd(d, "error", file, line, col, fmt, ap);
	va_end(ap);
	d->nerrors++;
}

void
diag_warning(struct diag *d, const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vadd(d, "warning", file, line, col, fmt, ap);
	va_end(ap);
	d->nwarnings++;
}

void
diag_print(const struct diag *d, FILE *fp)
{
	for (size_t i = 0; i < d->n; i++)
		put_message(fp, "", d->lines[i]);
}

void
diag_release(struct diag *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->lines[i]);
	free(d->lines);
	memset(d, 0, sizeof(*d));
}
