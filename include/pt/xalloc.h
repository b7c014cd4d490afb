/* SPDX-License-Identifier: MIT */
/*
 * Allocation that never returns NULL: out of memory ends the run with
 * PT_EXIT_SYSTEM (tmux and git do the same), which removes a whole class of
 * error paths. Every returned block is freed with free() (or xfree()).
 */
#ifndef PT_XALLOC_H
#define PT_XALLOC_H

#include <stddef.h>
#include "pt/diag.h"

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Grow *p (of *alloc elements of size elt) to hold at least `need` elements. */
void xgrow(void **p, size_t *alloc, size_t need, size_t elt);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* xstrdup(s), or NULL when s is NULL. */
char *dup_or_null(const char *s);
char *xasprintf(const char *fmt, ...) PT_PRINTF(1, 2);

/*
 * Bytes lent to the heap's users that free() must never see: the rules
 * cache's file, which a cached ruleset's strings point into. xfree() is
 * free() except for a pointer inside a lent region, which it leaves alone;
 * the free functions of everything a ruleset holds use it, so a string may
 * come from the heap or from the cache alike. xrealloc() of a string in a
 * lent region copies it (to its NUL, within the region) to the heap.
 * xalloc_lend() returns -1 when XALLOC_LENT regions are already lent;
 * xalloc_unlend() takes back the region starting at p, if one is lent.
 * Any thread may call any of them.
 */
#define XALLOC_LENT 16
int xalloc_lend(const void *p, size_t n);
void xalloc_unlend(const void *p);
void xfree(void *p);

/*
 * An arena: zeroed pieces cut from one lent mapping of `size` bytes (only
 * the pages used are ever touched), for the thousands of small blocks a
 * rules cache load makes. No lock: one thread fills it. Its pieces are
 * given back all at once by xarena_free(), after which none may be used;
 * xfree() of a piece does nothing, and xrealloc() of one moves it to the
 * heap (each piece follows its size). xarena_new() returns NULL when it
 * cannot map or lend; xarena_zalloc() on NULL, or once full, is xcalloc().
 */
struct xarena;
struct xarena *xarena_new(size_t size);
void *xarena_zalloc(struct xarena *a, size_t n);
void xarena_free(struct xarena *a);

#define XGROW(p, alloc, need) xgrow((void **)&(p), &(alloc), (need), sizeof(*(p)))

#endif
