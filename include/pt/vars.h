/* SPDX-License-Identifier: MIT */
/*
 * A small ordered string map for the values a diagnosis carries: captures
 * from the log (`used`, `block`), environment facts (`chip`) and values the
 * calculators derive (`vmem_limit_bytes`). Templates in rules and ladders
 * refer to them as ${name}.
 */
#ifndef PT_VARS_H
#define PT_VARS_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/buf.h"

struct var {
	char *name;
	char *value;
};

struct vars {
	struct var *v;
	size_t n, alloc;
};

#define VARS_INIT { NULL, 0, 0 }

void vars_release(struct vars *vs);
/* Copies name and value. With overwrite false an existing name keeps its value. */
void vars_set(struct vars *vs, const char *name, const char *value, bool overwrite);
void vars_setn(struct vars *vs, const char *name, const char *value, size_t len, bool overwrite);
/* Remove name (and its value) if it is there; the order of the others is kept. */
void vars_unset(struct vars *vs, const char *name);
/* Returns a borrowed pointer valid until the next vars_set/vars_release, or NULL. */
const char *vars_get(const struct vars *vs, const char *name);
/* name is set and its value is exactly value ("platform" is "gpu"). */
bool vars_is(const struct vars *vs, const char *name, const char *value);
void vars_copy(struct vars *dst, const struct vars *src, bool overwrite);

/*
 * Append tmpl to out with each ${name} replaced by its value, and each
 * ${name|default} by its value or, without one, by default. Returns the
 * number of names without a value or a default (they are left as "${name}").
 */
int vars_expand(const struct vars *vs, const char *tmpl, struct buf *out);
/* True when every ${name} in tmpl has a value (or a default). */
bool vars_can_expand(const struct vars *vs, const char *tmpl);
/* True when some ${name} of tmpl (defaulted or not) has a value in vs. */
bool vars_uses_value(const struct vars *vs, const char *tmpl);

#endif
