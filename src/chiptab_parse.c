/* SPDX-License-Identifier: MIT */
/*
 * What the chip table's parsers (chips.c for TPU chips and dtypes, gpus.c
 * for GPUs) share; see pt/chiptab_parse.h. Not a parser of its own: it
 * knows the shape of a section, not what any field means.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pt/chiptab_parse.h"
#include "pt/xalloc.h"

#define MAX_BYTES (1L << 50)   /* a sanity cap for memory sizes: 1 PiB */

/* ---- names ---- */

bool
chiptab_strv_has(char *const *v, const char *s)
{
	for (; v && *v; v++)
		if (strcasecmp(*v, s) == 0)
			return true;
	return false;
}

bool
chiptab_is_named(const char *name, char *const *aliases, const char *s)
{
	return strcasecmp(name, s) == 0 || chiptab_strv_has(aliases, s);
}

static bool
word_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

/* The length of needle when it stands in s as a whole word (case aside), else 0. */
static size_t
find_word(const char *s, const char *needle)
{
	size_t n = strlen(needle);

	if (!n)
		return 0;
	for (const char *p = s; *p; p++) {
		if (strncasecmp(p, needle, n) != 0)
			continue;
		if ((p == s || !word_char(p[-1])) && !word_char(p[n]))
			return n;
	}
	return 0;
}

size_t
chiptab_kind_len(char *const *kinds, const char *s)
{
	size_t best = 0;

	for (; kinds && *kinds; kinds++) {
		size_t len = find_word(s, *kinds);

		if (len > best)
			best = len;
	}
	return best;
}

/* ---- fields ---- */

int
chiptab_want_bytes(const struct ynode *m, const char *key, bool required, unsigned long long *out,
		   const char *file, const char *what, struct diag *d)
{
	long v = 0;

	if (ynode_want_int(m, key, required, 1, MAX_BYTES, &v, file, what, d) < 0)
		return -1;
	*out = (unsigned long long)v;
	return 0;
}

int
chiptab_want_int(const struct ynode *m, const char *key, bool required, long min, long max,
		 int *out, const char *file, const char *what, struct diag *d)
{
	long v = 0;

	if (ynode_want_int(m, key, required, min, max, &v, file, what, d) < 0)
		return -1;
	if (ynode_get(m, key))
		*out = (int)v;
	return 0;
}

int
chiptab_want_list(const struct ynode *m, const char *key, bool required, char ***out,
		  size_t *n, const char *file, const char *what, struct diag *d)
{
	const struct ynode *v = ynode_get(m, key);

	if (ynode_want_strv(m, key, required, out, n, file, what, d) < 0)
		return -1;
	if (!*out) {
		*out = xcalloc(1, sizeof(char *));
		return 0;
	}
	if (required && *n == 0) {
		diag_error(d, file, v->line, v->col, "'%s' in %s must not be empty", key, what);
		strv_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* ---- sections ---- */

/* "chip 'v5e'" when the name is readable, else "chips[3]". */
static void
entry_what(char *what, size_t size, const struct ynode *m, const char *kind, const char *section,
	   size_t i)
{
	const struct ynode *name = ynode_get(m, "name");

	if (name && name->kind == YNODE_SCALAR && name->len)
		snprintf(what, size, "%s '%s'", kind, name->str);
	else
		snprintf(what, size, "%s[%zu]", section, i);
}

int
chiptab_parse_each(struct chiptab **t, const struct ynode *seq, const char *section,
		   const char *kind, chiptab_add_fn *add, const char *file, struct diag *d)
{
	int ret = 0;

	if (seq->kind != YNODE_SEQ) {
		diag_error(d, file, seq->line, seq->col, "'%s' must be a list, not %s", section,
			   ynode_kind_name(seq->kind));
		return -1;
	}
	if (!*t)
		*t = xcalloc(1, sizeof(**t));
	for (size_t i = 0; i < seq->n; i++) {
		const struct ynode *m = seq->items[i];
		char what[128];

		if (m->kind != YNODE_MAP) {
			diag_error(d, file, m->line, m->col, "%s[%zu] must be a mapping, not %s",
				   section, i, ynode_kind_name(m->kind));
			ret = -1;
			continue;
		}
		entry_what(what, sizeof(what), m, kind, section, i);
		if (add(*t, m, what, file, d) < 0)
			ret = -1;
	}
	return ret;
}
