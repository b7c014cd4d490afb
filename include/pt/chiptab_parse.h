/* SPDX-License-Identifier: MIT */
/*
 * Helpers the chip table's two parsers share: chips.c (TPU chips and
 * dtypes) and gpus.c (GPUs). Not for other modules: they use pt/chips.h
 * and pt/gpus.h. The three sections have the same shape (a list of
 * mappings, each with a name, aliases and, for chips and GPUs, device
 * kinds), so what reads that shape lives here once and each parser keeps
 * only what its entries mean.
 */
#ifndef PT_CHIPTAB_PARSE_H
#define PT_CHIPTAB_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/chips.h"
#include "pt/diag.h"
#include "pt/ytree.h"

/* Is s in the NULL-terminated list v (NULL: empty), ASCII case aside? */
bool chiptab_strv_has(char *const *v, const char *s);
/* Is s the entry's name or one of its aliases, ASCII case aside? */
bool chiptab_is_named(const char *name, char *const *aliases, const char *s);
/* The length of the longest of kinds (NULL-terminated) standing in s as a word, else 0. */
size_t chiptab_kind_len(char *const *kinds, const char *s);

/* A memory size of m[key]: a positive integer up to 1 PiB. Errors into d; returns -1. */
int chiptab_want_bytes(const struct ynode *m, const char *key, bool required,
		       unsigned long long *out, const char *file, const char *what, struct diag *d);
/* An integer m[key] in [min, max]; *out is left alone when the key is absent. */
int chiptab_want_int(const struct ynode *m, const char *key, bool required, long min, long max,
		     int *out, const char *file, const char *what, struct diag *d);
/*
 * A list of strings m[key] (a single string is a list of one) into *out,
 * never NULL on success: an absent key gives an empty list. A required
 * list must not be empty. *n gets the count. Errors into d and returns -1
 * with *out NULL; the caller owns *out (strv_free()).
 */
int chiptab_want_list(const struct ynode *m, const char *key, bool required, char ***out,
		      size_t *n, const char *file, const char *what, struct diag *d);

/*
 * Parse one entry (a mapping) of a section into t; `what` names it for
 * messages ("chip 'v5e'"). Returns 0, or -1 when it has errors (then
 * nothing was added).
 */
typedef int chiptab_add_fn(struct chiptab *t, const struct ynode *m, const char *what,
			   const char *file, struct diag *d);

/*
 * Each entry of the list seq, the section `section` whose entries are
 * called `kind` ("chips", "chip"), goes to add(), named "chip 'v5e'" or,
 * where the name is unreadable, "chips[3]". A section that is no list and
 * an entry that is no mapping are errors. *t is created (chiptab_free())
 * once seq is known to be a list. Returns 0, or -1 when anything had errors.
 */
int chiptab_parse_each(struct chiptab **t, const struct ynode *seq, const char *section,
		       const char *kind, chiptab_add_fn *add, const char *file, struct diag *d);

#endif
