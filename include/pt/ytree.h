/* SPDX-License-Identifier: MIT */
/*
 * A YAML document as a small tree with source positions. This is the one
 * wrapper around libyaml: rules, chips and packs are parsed into a ytree and
 * then validated against their schema with the ynode_* accessors, so every
 * problem can be reported as file:line:col.
 *
 * Limits protect against hostile input: nesting depth, scalar length and node
 * count are capped; anchors/aliases are refused (they allow "billion laughs").
 * Duplicate mapping keys are errors.
 */
#ifndef PT_YTREE_H
#define PT_YTREE_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/diag.h"

enum ynode_kind { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP };

struct ynode {
	enum ynode_kind kind;
	int line, col;          /* 1-based position of the node's start */
	char *str;              /* scalar text, NUL-terminated; NULL otherwise */
	size_t len;             /* scalar length in bytes */
	bool plain;             /* scalar was unquoted (so `yes`, `12` may be non-strings) */
	struct ynode **items;   /* SEQ: elements; MAP: key0, value0, key1, value1, ... */
	size_t n;               /* number of entries in items */
};

struct ydoc {
	struct ynode *root;     /* NULL for an empty document */
	char *file;             /* name used in diagnostics */
};

#define YDOC_INIT { NULL, NULL }
#define YTREE_MAX_DEPTH 64
#define YTREE_MAX_SCALAR (1u << 20)
#define YTREE_MAX_NODES 200000

/*
 * Parse buf[0..len) as one YAML document named `file`. Syntax errors and
 * limit violations go to d as errors; returns 0 if the tree is usable (d may
 * still hold errors such as duplicate keys), -1 if not. On -1 doc is empty.
 */
int ydoc_parse(struct ydoc *doc, const char *buf, size_t len, const char *file, struct diag *d);
void ydoc_release(struct ydoc *doc);

/* Number of key/value pairs of a MAP. */
static inline size_t ynode_map_len(const struct ynode *m) { return m->n / 2; }
/* Returns a borrowed pointer to the value of key in map m, or NULL. */
const struct ynode *ynode_get(const struct ynode *m, const char *key);
const char *ynode_kind_name(enum ynode_kind k);

/*
 * Schema helpers. Each reports a problem to d (with file and the node's
 * position) and returns -1, or returns 0.
 */
/* Report every key of map m that is not in the NULL-terminated list. */
int ynode_check_keys(const struct ynode *m, const char *const *allowed, const char *file,
		     const char *what, struct diag *d);
/* Fetch a required or optional field of a given kind (NULL node = absent and optional). */
int ynode_want(const struct ynode *m, const char *key, enum ynode_kind kind, bool required,
	       const struct ynode **out, const char *file, const char *what, struct diag *d);
int ynode_want_str(const struct ynode *m, const char *key, bool required, const char **out,
		   const char *file, const char *what, struct diag *d);
int ynode_want_int(const struct ynode *m, const char *key, bool required, long min, long max,
		   long *out, const char *file, const char *what, struct diag *d);
int ynode_want_bool(const struct ynode *m, const char *key, bool *out, const char *file,
		    const char *what, struct diag *d);
/* A scalar or a list of scalars; *out is a new NULL-terminated array (free with strv_free). */
int ynode_want_strv(const struct ynode *m, const char *key, bool required, char ***out,
		    size_t *n, const char *file, const char *what, struct diag *d);
void strv_free(char **v);

#endif
