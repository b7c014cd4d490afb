/* SPDX-License-Identifier: MIT */
/*
 * Helpers the chip table's two parsers share: chips.c (TPU chips and
 * dtypes) and gpus.c (GPUs). Not for other modules: they use pt/chips.h
 * and pt/gpus.h.
 */
#ifndef PT_CHIPTAB_PARSE_H
#define PT_CHIPTAB_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/diag.h"
#include "pt/ytree.h"

/* Is s in the NULL-terminated list v (NULL: empty), ASCII case aside? */
bool chiptab_strv_has(char *const *v, const char *s);
/* The length of needle when it stands in s as a whole word (case aside), else 0. */
size_t chiptab_find_word(const char *s, const char *needle);
/* A memory size of m[key]: a positive integer up to 1 PiB. Errors into d; returns -1. */
int chiptab_want_bytes(const struct ynode *m, const char *key, bool required,
		       unsigned long long *out, const char *file, const char *what, struct diag *d);

#endif
