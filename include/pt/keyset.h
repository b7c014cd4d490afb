/* SPDX-License-Identifier: MIT */
/*
 * A set of byte strings, each with an id, for finding a duplicate among
 * many in linear time (the keys of one JSON object or YAML mapping). The
 * keys are borrowed, not copied: they must outlive the set. An open-
 * addressing hash table (FNV-1a) that doubles when half full.
 */
#ifndef PT_KEYSET_H
#define PT_KEYSET_H

#include <stdbool.h>
#include <stddef.h>

struct keyset_slot {
	const char *key;            /* NULL: empty */
	size_t len, id;
};

struct keyset {
	struct keyset_slot *slot;
	size_t cap, n;              /* cap: 0 or a power of two */
};

#define KEYSET_INIT { NULL, 0, 0 }

/*
 * Add key[0..len) with id. Returns true, or false when an equal key is
 * there already (*first, when not NULL, gets its id; nothing is added).
 */
bool keyset_add(struct keyset *ks, const char *key, size_t len, size_t id, size_t *first);
void keyset_release(struct keyset *ks);

#endif
