/* SPDX-License-Identifier: MIT */
/* A hash set of borrowed byte strings; see pt/keyset.h. */
#include <stdlib.h>
#include <string.h>

#include "pt/keyset.h"
#include "pt/util.h"
#include "pt/xalloc.h"

static struct keyset_slot *
find(const struct keyset *ks, const char *key, size_t len)
{
	size_t i = (size_t)util_fnv1a(UTIL_FNV1A_INIT, key, len) & (ks->cap - 1);

	for (; ks->slot[i].key; i = (i + 1) & (ks->cap - 1))
		if (ks->slot[i].len == len && memcmp(ks->slot[i].key, key, len) == 0)
			break;
	return &ks->slot[i];
}

static void
grow(struct keyset *ks)
{
	struct keyset_slot *old = ks->slot;
	size_t oldcap = ks->cap;

	ks->cap = ks->cap ? 2 * ks->cap : 16;
	ks->slot = xcalloc(ks->cap, sizeof(*ks->slot));
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].key)
			*find(ks, old[i].key, old[i].len) = old[i];
	free(old);
}

bool
keyset_add(struct keyset *ks, const char *key, size_t len, size_t id, size_t *first)
{
	struct keyset_slot *s;

	if (2 * (ks->n + 1) > ks->cap)
		grow(ks);
	s = find(ks, key, len);
	if (s->key) {
		if (first)
			*first = s->id;
		return false;
	}
	s->key = key;
	s->len = len;
	s->id = id;
	ks->n++;
	return true;
}

void
keyset_release(struct keyset *ks)
{
	free(ks->slot);
	ks->slot = NULL;
	ks->cap = ks->n = 0;
}
