/* SPDX-License-Identifier: MIT */
/*
 * What `pallas-triage check` knows as data (rules/check.yaml; schema in
 * docs/rules.md, "Source checks"):
 *
 *  - `checks`: every finding code, with its class, severity, message and
 *    fix templates (${name} filled from the values the analysis found,
 *    ${api:NAME} spelled for the JAX version), the ladder rungs its fix
 *    makes concrete (the fixtures of tests/check/ test each code);
 *  - `check_modules`: the modules the checker recognises, and the prefix
 *    under which the JAX API table (rules/jax-api.yaml) names their members
 *    (jax.experimental.pallas.tpu -> pltpu);
 *  - `check_primitives`: calls that do not lower on a backend (for some
 *    operand dtypes only, and until some JAX release).
 *
 * A struct checktab owns everything in it; checktab_free() frees the tree.
 * Lookups return pointers borrowed from the table.
 */
#ifndef PT_CHECKTAB_H
#define PT_CHECKTAB_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/diag.h"
#include "pt/jaxapi.h"
#include "pt/rules.h"

struct ynode;

struct check_def {
	char *code;                 /* "L001": a class letter and three digits */
	char *name;                 /* "block-not-tiled" */
	enum pt_class cls;
	int severity;               /* enum check_severity (pt/check.h) */
	char *summary;              /* one line, for docs and `explain` */
	char *message;              /* template */
	char *fix;                  /* template, or NULL */
	char **rung_ids;            /* NULL-terminated, never NULL */
	char **rung_fixes;          /* templates, one per rung id */
	char *explain;              /* may be NULL */
	char *file;
	int line;
	int compiled;               /* 1: about what the compiler (Mosaic, Triton) accepts; not
				     * reported for a kernel run in interpret mode */
};

struct check_module {
	char *module;               /* "jax.experimental.pallas.tpu" */
	char *prefix;               /* "pltpu" */
};

struct check_prim {
	char *id;                   /* "sort" */
	char **calls;               /* NULL-terminated: "jnp.sort", ".sum" (a method) */
	char **dtypes;              /* only for these operand dtypes (canonical names), or NULL */
	char **backends;            /* "mosaic-tpu", "triton", "mosaic-gpu" */
	struct jaxrange lowered_in; /* the release that lowers it; unset: none up to the source's */
	char *what;                 /* "sorting (lax.sort_p)" */
	char *fix;                  /* template */
	char *source;
	char *file;
	int line;
};

struct checktab {
	struct check_def **defs;
	size_t ndefs, alloc_defs;
	struct check_module **mods;
	size_t nmods, alloc_mods;
	struct check_prim **prims;
	size_t nprims, alloc_prims;
};

/*
 * Add the three sections of one rules file (any may be NULL) to *out,
 * creating the table when *out is NULL. Problems go to d at file:line:col;
 * entries with problems are left out. Returns 0, or -1 when this call added
 * errors.
 */
int checktab_parse(struct checktab **out, const struct ynode *checks, const struct ynode *mods,
		   const struct ynode *prims, const char *file, struct diag *d);
/*
 * Cross-checks once every file is read: rung ids name rungs of rs's
 * ladders, primitive dtypes name dtypes of the chip table. Returns -1 if d
 * got errors. rs->checks may be NULL.
 */
int checktab_finish(const struct ruleset *rs, struct diag *d);
void checktab_free(struct checktab *t);

/* Returns the definition with this code ("L001") or name, or NULL. t may be NULL. */
const struct check_def *checktab_find(const struct checktab *t, const char *code);
/* The prefix a module path is known by ("pltpu"), or NULL. */
const char *checktab_module_prefix(const struct checktab *t, const char *module);

struct buf;
struct cache_rd;
/* The rules cache's encoding of the table (t may be NULL). */
void cache_put_checks(struct buf *b, const struct checktab *t);
struct checktab *cache_get_checks(struct cache_rd *r);

#endif
