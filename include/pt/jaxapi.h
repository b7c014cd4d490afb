/* SPDX-License-Identifier: MIT */
/*
 * The JAX API table: every Pallas/JAX name the advice uses, the releases
 * in which it exists and what replaced it, and the lowering gaps that a
 * later release closed. Loaded from the `jax_api` and `jax_gaps` sections
 * of the rule files (rules/jax-api.yaml; schema in docs/rules.md, "The JAX
 * API table"). Advice texts name APIs as ${api:NAME}; rendering turns each
 * into the spelling that exists in the JAX version of the user's log, so a
 * rename is fixed in one place.
 *
 * A struct jaxapi owns every entry in it; one jaxapi_free() frees the tree.
 * Lookups return pointers borrowed from the table, valid until jaxapi_free().
 * The module never prints: problems go to a struct diag, findings of a
 * render to a struct api_render.
 */
#ifndef PT_JAXAPI_H
#define PT_JAXAPI_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/buf.h"
#include "pt/diag.h"
#include "pt/vars.h"

struct ynode;
struct ruleset;

/* A JAX release: 0.4.35, 0.5.1.dev20250210 (before 0.5.1), 0.6.2rc1, 0.4.35.post1. */
struct jaxver {
	int part[3];                  /* major, minor, patch */
	int stage;                    /* JAXVER_DEV < JAXVER_RC < JAXVER_FINAL < JAXVER_POST */
};

enum { JAXVER_DEV, JAXVER_RC, JAXVER_FINAL, JAXVER_POST };

/* Parse the leading X.Y.Z[suffix] of s. Returns 0, or -1 when s does not start with one. */
int jaxver_parse(const char *s, struct jaxver *out);
/* <0, 0 or >0 as a is older than, the same as, or newer than b. */
int jaxver_cmp(const struct jaxver *a, const struct jaxver *b);

/*
 * When something happened, as a source gives it: in one known release
 * ("0.10.0"), somewhere in a span of releases ("0.5.0..0.8.0": not before
 * 0.5.0, at the latest in 0.8.0), or by a release with no earlier bound
 * ("..0.8.2"). An unset range means no source gives a release.
 */
struct jaxrange {
	bool set;
	bool has_lo;                  /* false for "..B" */
	struct jaxver lo, hi;         /* lo <= the release <= hi */
	char *text;                   /* as written; NULL when unset */
};

/*
 * Parse a range as written in the table: "X.Y.Z", "A..B" or "..B", each a
 * final release (no suffix), with A <= B. Returns 0, or -1 when it does
 * not parse (out is then unset). Release with jaxrange_release().
 */
int jaxrange_parse(const char *text, struct jaxrange *out);
void jaxrange_release(struct jaxrange *r);
/* "in 0.10.0", "between 0.5.2 and 0.6.0" or "by 0.8.2", into buf. */
void jaxrange_describe(const struct jaxrange *r, char *buf, size_t len);

/* One spelling of one API at some releases. */
struct api_name {
	char *name;                   /* the key used in ${api:NAME}: "pl.semaphore_signal" */
	char *render;                 /* what a snippet gets, when not `name` ("detect_races") */
	struct jaxrange since;        /* first release that has it */
	struct jaxrange removed;      /* first release that no longer has it */
	char *deprecated;             /* release that started warning, or NULL */
	char *replaced_by;            /* the newer spelling's name, or NULL when current */
	char *source;                 /* where the facts come from, one line */
	char *note;                   /* may be NULL */
	char *file;
	int line, col;
};

/* A lowering a JAX release added: logs from older releases get an upgrade rung. */
struct api_gap {
	char *id;                     /* "gap.uint-float-convert" */
	char *what;                   /* one clause: "unsigned <-> float conversions lower on TPU" */
	struct jaxrange closed_in;    /* the release that closed it; hi is the one to ask for */
	char **when_names;            /* capture names, NULL-terminated */
	char ***when_values;          /* for each name: the values that mean this gap */
	size_t nwhen;
	char *source;
	char *file;
	int line;
};

struct jaxapi {
	struct api_name **names;      /* in file order */
	size_t nnames, alloc_names;
	struct api_gap **gaps;
	size_t ngaps, alloc_gaps;
};

/*
 * Add the `jax_api` and `jax_gaps` sections of one rules file to *out
 * (either node may be NULL). When *out is NULL a new table is created (free
 * with jaxapi_free()); otherwise entries join the table from earlier files.
 * Unknown keys, wrong types, missing fields, versions that do not parse and
 * names defined twice are errors in d at file:line:col; entries with errors
 * are left out. Returns 0, or -1 when this call added errors.
 */
int jaxapi_parse(struct jaxapi **out, const struct ynode *names, const struct ynode *gaps,
		 const char *file, struct diag *d);
/*
 * Cross-entry checks after every file is parsed: each replaced_by names an
 * entry, no chain of replacements loops, a name is not removed before it
 * appears. Returns -1 if d got errors. t may be NULL.
 */
int jaxapi_finish(const struct jaxapi *t, struct diag *d);
void jaxapi_free(struct jaxapi *t);

/* Returns a borrowed pointer to the entry called name, or NULL. t may be NULL. */
const struct api_name *jaxapi_find(const struct jaxapi *t, const char *name);
/* The current spelling: follow replaced_by to its end (bounded, so a bad table cannot loop). */
const struct api_name *jaxapi_current(const struct jaxapi *t, const struct api_name *n);
/* True when the releases matter for n: it has bounds, a predecessor or a successor. */
bool jaxapi_versioned(const struct jaxapi *t, const struct api_name *n);

/*
 * Rendering ${api:NAME} for one JAX version. An api_render carries the
 * version and collects what the renders found out, so a printer can say
 * once that the version was unknown and print a rung's notes under it.
 */
struct api_render {
	const struct jaxapi *table;   /* borrowed; NULL renders every NAME as written */
	bool known;                   /* the version parsed */
	struct jaxver ver;
	char *version;                /* as the log gave it, or NULL */
	bool guessed;                 /* version unknown and a versioned name was rendered */
	bool versioned;               /* some rendered name depends on the release */
	char **notes;                 /* one sentence each, no duplicates, NULL-terminated */
	size_t nnotes;
};

#define API_RENDER_INIT { NULL, false, { { 0, 0, 0 }, 0 }, NULL, false, false, NULL, 0 }

/* Start rendering for version (NULL or unparsable: unknown). */
void api_render_init(struct api_render *ar, const struct jaxapi *t, const char *version);
void api_render_release(struct api_render *ar);
/* Forget the notes collected so far (the flags stay). */
void api_render_clear_notes(struct api_render *ar);
/*
 * Append tmpl to out with each ${api:NAME} replaced by its spelling for the
 * version; other text, ${var} placeholders included, is copied unchanged.
 * For a known version the newest spelling that exists in it is chosen;
 * when none surely does, the newest that may, with a note; when none can,
 * the current one with a note saying which release brings it. For an
 * unknown version the current spelling, setting ar->guessed.
 */
void api_render_text(struct api_render *ar, const char *tmpl, struct buf *out);

/*
 * Set jax_upgrade_to, jax_upgrade_what and jax_upgrade_from in vs when the
 * captures in vs match a gap that a release newer than vs's jax_version
 * (or an unknown one) closed. t may be NULL.
 */
void jaxapi_derive(const struct jaxapi *t, struct vars *vs);

/*
 * The lint of `rules validate`: in every rung's change and fallback and
 * every flag's snippet, each ${api:NAME} must name a current entry of the
 * table, and an API name may not be written out (pl.*, pltpu.*, jax_pallas_*
 * or any name in the table); rung actions and expects and flag whys may not
 * name a versioned API at all, since prose is not rendered. A ruleset
 * without a table only gets the first check. Problems go to d; returns -1
 * if there were any.
 */
int jaxapi_lint(const struct ruleset *rs, struct diag *d);

#endif
