/* SPDX-License-Identifier: MIT */
/* Allocation wrappers that end the run on out-of-memory; see pt/xalloc.h. */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pt/xalloc.h"

/* A leak checker scans the heap, globals and stacks, not our mappings: an
 * arena holds pointers to heap blocks, so it is shown as a root. */
#if defined(__SANITIZE_ADDRESS__)
#define PT_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PT_LSAN 1
#endif
#endif
#ifdef PT_LSAN
#include <sanitizer/lsan_interface.h>
#define lsan_root(p, n) __lsan_register_root_region((p), (n))
#define lsan_unroot(p, n) __lsan_unregister_root_region((p), (n))
#else
#define lsan_root(p, n) ((void)0)
#define lsan_unroot(p, n) ((void)0)
#endif

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

static void *move_lent(void *p, size_t n);

void *
xrealloc(void *p, size_t n)
{
	void *q = move_lent(p, n);

	if (q)
		return q;
	q = realloc(p, n ? n : 1);

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

/* Slots hold [lo, hi); hi is 0 when free. Readers take no lock: a region is
 * only taken back once nothing points into it. A sized region is an
 * arena's: each piece follows its size. */
static _Atomic uintptr_t lent_lo[XALLOC_LENT], lent_hi[XALLOC_LENT];
static atomic_bool lent_sized[XALLOC_LENT];
static atomic_int lent_count;
static pthread_mutex_t lent_lock = PTHREAD_MUTEX_INITIALIZER;

static int
lend(const void *p, size_t n, bool sized)
{
	int ret = -1;

	pthread_mutex_lock(&lent_lock);
	for (size_t i = 0; i < XALLOC_LENT && ret < 0; i++)
		if (atomic_load(&lent_hi[i]) == 0) {
			atomic_store(&lent_lo[i], (uintptr_t)p);
			atomic_store(&lent_sized[i], sized);
			atomic_store(&lent_hi[i], (uintptr_t)p + n);
			atomic_fetch_add(&lent_count, 1);
			ret = 0;
		}
	pthread_mutex_unlock(&lent_lock);
	return ret;
}

int
xalloc_lend(const void *p, size_t n)
{
	return lend(p, n, false);
}

void
xalloc_unlend(const void *p)
{
	pthread_mutex_lock(&lent_lock);
	for (size_t i = 0; i < XALLOC_LENT; i++)
		if (atomic_load(&lent_hi[i]) && atomic_load(&lent_lo[i]) == (uintptr_t)p) {
			atomic_store(&lent_hi[i], 0);
			atomic_fetch_sub(&lent_count, 1);
			break;
		}
	pthread_mutex_unlock(&lent_lock);
}

/* The slot of the region p is in, or -1. */
static int
lent_slot(const void *p)
{
	uintptr_t a = (uintptr_t)p;

	if (!p || !atomic_load_explicit(&lent_count, memory_order_relaxed))
		return -1;
	for (int i = 0; i < XALLOC_LENT; i++) {
		uintptr_t hi = atomic_load_explicit(&lent_hi[i], memory_order_acquire);

		if (hi && a >= atomic_load_explicit(&lent_lo[i], memory_order_relaxed) && a < hi)
			return i;
	}
	return -1;
}

void
xfree(void *p)
{
	if (lent_slot(p) < 0)
		free(p);
}

/* A lent piece or string given to xrealloc() moves to the heap: NULL when p is not lent. */
static void *
move_lent(void *p, size_t n)
{
	int slot = lent_slot(p);
	size_t old;
	void *q;

	if (slot < 0)
		return NULL;
	if (atomic_load(&lent_sized[slot])) {
		memcpy(&old, (char *)p - sizeof(old), sizeof(old));
	} else {	/* the cache's bytes: only its strings are ever handed out */
		size_t left = atomic_load(&lent_hi[slot]) - (uintptr_t)p;

		old = strnlen(p, left);
		old += old < left;	/* its NUL */
	}
	q = xmalloc(n);
	memcpy(q, p, old < n ? old : n);
	return q;
}

struct xarena {
	char *base, *next, *end;
};

struct xarena *
xarena_new(size_t size)
{
	struct xarena *a;
	void *p;

	size = (size + 4095) & ~(size_t)4095;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (lend(p, size, true) < 0) {
		munmap(p, size);
		return NULL;
	}
	a = xmalloc(sizeof(*a));
	a->base = a->next = p;
	a->end = a->base + size;
	lsan_root(p, size);
	return a;
}

void *
xarena_zalloc(struct xarena *a, size_t n)
{
	size_t need = sizeof(size_t) + ((n + 7) & ~(size_t)7);
	char *p;

	if (!a || n > (size_t)(a->end - a->next) || need > (size_t)(a->end - a->next))
		return xcalloc(1, n);
	p = a->next + sizeof(size_t);
	memcpy(a->next, &n, sizeof(n));	/* fresh pages: the piece is zero already */
	a->next += need;
	return p;
}

void
xarena_free(struct xarena *a)
{
	if (!a)
		return;
	xalloc_unlend(a->base);
	lsan_unroot(a->base, (size_t)(a->end - a->base));
	munmap(a->base, (size_t)(a->end - a->base));
	free(a);
}
