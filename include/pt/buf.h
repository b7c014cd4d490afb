/* SPDX-License-Identifier: MIT */
/*
 * Growable byte buffer (git's strbuf with curl's dynbuf cap).
 * Invariant: data is never NULL and always NUL-terminated; len excludes the NUL.
 * A buffer with cap > 0 refuses to grow past cap bytes: appends return -1 and
 * leave the buffer as it was, which bounds giant log lines and HTTP bodies.
 */
#ifndef PT_BUF_H
#define PT_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/diag.h"

struct buf {
	char *data;
	size_t len;    /* bytes, without the NUL */
	size_t alloc;  /* bytes allocated; 0 while data points at the shared empty string */
	size_t cap;    /* 0 = unbounded, else the largest len allowed */
};

extern char buf_empty[];
#define BUF_INIT { buf_empty, 0, 0, 0 }

void buf_init(struct buf *b, size_t cap);
/* Frees the storage and resets b to BUF_INIT. Safe to call twice. */
void buf_release(struct buf *b);
/* Returns the string; the caller now owns it (free()). b is reset. */
char *buf_detach(struct buf *b, size_t *len);
void buf_reset(struct buf *b);
void buf_truncate(struct buf *b, size_t len);

/*
 * Make room for extra more bytes (and the NUL) past b->len, for a caller
 * that writes into b->data itself and then sets b->len and the NUL.
 * Returns -1 when the cap would be exceeded.
 */
int buf_grow(struct buf *b, size_t extra);

/* Appends return 0, or -1 when the cap would be exceeded (nothing appended). */
int buf_add(struct buf *b, const void *p, size_t n);
int buf_adds(struct buf *b, const char *s);
int buf_addch(struct buf *b, int c);
int buf_addf(struct buf *b, const char *fmt, ...) PT_PRINTF(2, 3);
int buf_vaddf(struct buf *b, const char *fmt, va_list ap);

#endif
