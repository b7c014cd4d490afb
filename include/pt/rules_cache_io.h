/* SPDX-License-Identifier: MIT */
/*
 * Inside the rules cache (rules_cache.c, rules_cache_io.c): the encoding.
 * A field is written as a u32 or u64 in host order, a string as its length,
 * bytes and NUL (CACHE_NONE for NULL), a list as its count and items.
 * Reading goes through a struct cache_rd, which turns any length past the
 * end into `bad`, so a truncated or corrupt file is only ever a miss. A
 * string read points into the bytes, which must stay lent (xalloc_lend())
 * while it is in use: free it with xfree(), never free(). Lists and records
 * read are new allocations the caller owns.
 */
#ifndef PT_RULES_CACHE_IO_H
#define PT_RULES_CACHE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt/buf.h"
#include "pt/chips.h"
#include "pt/jaxapi.h"
#include "pt/xalloc.h"            /* CACHE_GET_TABLE allocates */

#define CACHE_NONE 0xffffffffu

struct cache_rd {
	const char *p, *end;
	bool bad;                   /* once set, every read returns 0 or NULL */
	struct xarena *arena;       /* where records and lists go; NULL: the heap */
};

void cache_put_u32(struct buf *b, uint32_t v);
void cache_put_u64(struct buf *b, uint64_t v);
void cache_put_str(struct buf *b, const char *s);
void cache_put_strv(struct buf *b, char *const *v);

uint32_t cache_get_u32(struct cache_rd *r);
uint64_t cache_get_u64(struct cache_rd *r);
char *cache_get_str(struct cache_rd *r);
char **cache_get_strv(struct cache_rd *r);
/* A count of items that each take at least `min` bytes: bounds allocations. */
uint32_t cache_get_count(struct cache_rd *r, size_t min);

/*
 * A record's fields, listed once in cache order in a static table: the
 * writer (cache_put_record) and the reader (cache_get_record) walk the same
 * table, so they cannot disagree on the order or the encoding of a field.
 * Enums, counts and nested records stay outside the tables; their reader
 * checks what it reads.
 */
enum cache_kind {
	CACHE_INT,                  /* int, as a u32 */
	CACHE_U64,                  /* unsigned long long */
	CACHE_STR,                  /* char *, NULL kept */
	CACHE_NEED,                 /* char * the record cannot do without: NULL makes the file bad */
	CACHE_STRV,                 /* char **, NULL kept */
	CACHE_LIST,                 /* char **, read back as an empty list for NULL */
	CACHE_RANGE,                /* struct jaxrange, as its text, parsed again when read */
};

struct cache_field {
	enum cache_kind kind;
	size_t off;                 /* where the field is in its record */
};

/*
 * CF_STR(struct rung, id). The sizeof term is always 0: it is there so the
 * compiler checks that the field has the type its kind reads and writes.
 */
#define CACHE_FIELD(kind, type, T, m) \
	{ kind, offsetof(T, m) + 0 * sizeof((type *)0 == &((T *)0)->m) }
#define CF_INT(T, m)   CACHE_FIELD(CACHE_INT, int, T, m)
#define CF_U64(T, m)   CACHE_FIELD(CACHE_U64, unsigned long long, T, m)
#define CF_STR(T, m)   CACHE_FIELD(CACHE_STR, char *, T, m)
#define CF_NEED(T, m)  CACHE_FIELD(CACHE_NEED, char *, T, m)
#define CF_STRV(T, m)  CACHE_FIELD(CACHE_STRV, char **, T, m)
#define CF_LIST(T, m)  CACHE_FIELD(CACHE_LIST, char **, T, m)
#define CF_RANGE(T, m) CACHE_FIELD(CACHE_RANGE, struct jaxrange, T, m)

struct cache_record {
	size_t size;                /* sizeof the record */
	const struct cache_field *fields;
	size_t nfields;
};

#define CACHE_RECORD(T, fields) { sizeof(T), fields, sizeof(fields) / sizeof((fields)[0]) }

void cache_put_record(struct buf *b, const struct cache_record *rec, const void *p);
/* Fill the record at p, which holds no allocations yet. */
void cache_get_record(struct cache_rd *r, const struct cache_record *rec, void *p);
/* A new record (free it as its type says), filled from r. */
void *cache_get_new(struct cache_rd *r, const struct cache_record *rec);

/*
 * Read a count of records (each at least min bytes) and then the records
 * into the pointer array arr, with its length n and capacity alloc, each
 * from the expression get. A macro because the tables differ only in their
 * element type: CACHE_GET_TABLE(r, 24, t->dtypes, t->ndtypes,
 * t->alloc_dtypes, cache_get_new(r, &dtype_rec)). A bad file stops it; the
 * records read so far are counted in n, so freeing the table frees them.
 */
#define CACHE_GET_TABLE(r, min, arr, n, alloc, get)                          \
	do {                                                                  \
		uint32_t count_ = cache_get_count((r), (min));                \
									      \
		(arr) = xcalloc((size_t)count_ + 1, sizeof(*(arr)));          \
		(alloc) = count_;                                             \
		for ((n) = 0; (n) < count_ && !(r)->bad; (n)++)              \
			(arr)[(n)] = (get);                                   \
	} while (0)

/* The chip table and the JAX API table (either may be NULL). */
void cache_put_chips(struct buf *b, const struct chiptab *t);
struct chiptab *cache_get_chips(struct cache_rd *r);
void cache_put_api(struct buf *b, const struct jaxapi *t);
struct jaxapi *cache_get_api(struct cache_rd *r);

#endif
