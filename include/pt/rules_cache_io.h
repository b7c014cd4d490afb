/* SPDX-License-Identifier: MIT */
/*
 * Inside the rules cache (rules_cache.c, rules_cache_io.c): the encoding.
 * A field is written as a u32 or u64 in host order, a string as its length
 * and bytes (CACHE_NONE for NULL), a list as its count and items. Reading
 * goes through a struct cache_rd, which turns any length past the end into
 * `bad`, so a truncated or corrupt file is only ever a miss. Strings and
 * lists read are new allocations the caller owns.
 */
#ifndef PT_RULES_CACHE_IO_H
#define PT_RULES_CACHE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt/buf.h"
#include "pt/chips.h"
#include "pt/jaxapi.h"

#define CACHE_NONE 0xffffffffu

struct cache_rd {
	const char *p, *end;
	bool bad;                   /* once set, every read returns 0 or NULL */
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

/* The chip table and the JAX API table (either may be NULL). */
void cache_put_chips(struct buf *b, const struct chiptab *t);
struct chiptab *cache_get_chips(struct cache_rd *r);
void cache_put_api(struct buf *b, const struct jaxapi *t);
struct jaxapi *cache_get_api(struct cache_rd *r);

#endif
