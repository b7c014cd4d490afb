/* SPDX-License-Identifier: MIT */
/* Allocation wrappers that end the run on out-of-memory; see pt/xalloc.h. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/xalloc.h"

static _Noreturn void
oom(void)
{
	pt_die(PT_EXIT_SYSTEM, "out of memory");
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		oom();
	return q;
}

void
xgrow(void **p, size_t *alloc, size_t need, size_t elt)
{
	size_t n = *alloc;

	if (need <= n)
		return;
	n = n ? n : 8;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			oom();
		n *= 2;
	}
	if (n > SIZE_MAX / elt)
		oom();
	*p = xrealloc(*p, n * elt);
	*alloc = n;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap, ap2;
	int n;
	char *p;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}
