/* SPDX-License-Identifier: MIT */
/* Growable, optionally capped byte buffer; see pt/buf.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/buf.h"
#include "pt/xalloc.h"

char buf_empty[1];

void
buf_init(struct buf *b, size_t cap)
{
	b->data = buf_empty;
	b->len = 0;
	b->alloc = 0;
	b->cap = cap;
}

void
buf_release(struct buf *b)
{
	if (b->alloc)
		free(b->data);
	buf_init(b, 0);
}

char *
buf_detach(struct buf *b, size_t *len)
{
	char *s = b->alloc ? b->data : xstrdup("");

	if (len)
		*len = b->len;
	buf_init(b, 0);
	return s;
}

void
buf_reset(struct buf *b)
{
	buf_truncate(b, 0);
}

void
buf_truncate(struct buf *b, size_t len)
{
	if (len >= b->len)
		return;
	b->len = len;
	b->data[len] = '\0';
}

int
buf_grow(struct buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (b->cap && b->len + extra > b->cap)
		return -1;
	if (need <= b->alloc)
		return 0;
	if (!b->alloc) {
		size_t n = need < 64 ? 64 : need;

		b->data = xmalloc(n);
		b->data[0] = '\0';
		b->alloc = n;
		if (need <= n)
			return 0;
	}
	{
		char *p = b->data;
		size_t alloc = b->alloc;

		xgrow((void **)&p, &alloc, need, 1);
		b->data = p;
		b->alloc = alloc;
	}
	return 0;
}

int
buf_add(struct buf *b, const void *p, size_t n)
{
	if (buf_grow(b, n) < 0)
		return -1;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
buf_adds(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int
buf_addch(struct buf *b, int c)
{
	char ch = (char)c;

	return buf_add(b, &ch, 1);
}

int
buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || buf_grow(b, (size_t)n) < 0)
		return -1;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = buf_vaddf(b, fmt, ap);
	va_end(ap);
	return r;
}
