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
/* "0.6.2" into buf (the stage is not written). */
void jaxver_format(const struct jaxver *v, char *buf, size_t len);

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

/* Whether something is so at a release: surely not, not known (a span), surely. */
enum api_presence { API_ABSENT, API_MAYBE, API_PRESENT };

/* One spelling of one API at some releases. */
struct api_name {
	char *name;                   /* the key used in ${api:NAME}: "pl.semaphore_signal" */
	size_t order;                 /* its place in the file order; set by jaxapi_finish() */
	char *render;                 /* what a snippet gets, when not `name` ("detect_races") */
	struct jaxrange since;        /* first release that has it */
	struct jaxrange removed;      /* first release that no longer has it */
	char *deprecated;             /* release that started warning, or NULL */
	char *replaced_by;            /* the newer spelling's name, or NULL when current */
	char *since_at;               /* provenance "jax-v0.6.2:path:line ...", or NULL */
	char *deprecated_at;          /* ... of `deprecated` */
	char *removed_at;             /* ... of `removed` */
	char *call;                   /* how a call of this spelling is written ("dict(mosaic=dict($*))"), or NULL */
	char *instead;                /* what to do on a release that has no spelling of it, or NULL */
	char *undecided;              /* what the sources cannot decide, told to the user, or NULL */
	char *source;                 /* where the facts come from, one line; may be NULL */
	char *note;                   /* may be NULL */
	char *file;
	int line, col;
};

/* A lowering a JAX release added: logs from older releases get an upgrade rung. */
struct api_gap {
	char *id;                     /* "gap.uint-float-convert" */
	char *what;                   /* one clause: "unsigned <-> float conversions lower on TPU" */
	struct jaxrange closed_in;    /* the release that closed it; hi is the one to ask for */
	char *closed_at;              /* provenance "jax-v0.9.2:path:line ..." */
	char *undecided;              /* what the sources cannot decide about it, or NULL */
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
	struct api_name **by_name;    /* names sorted by name, ties in file order, for
	                               * jaxapi_find(); set by jaxapi_finish() */
	struct api_gap **gaps;
	size_t ngaps, alloc_gaps;
	/* jax_releases: every release the table was checked against, oldest
	 * first; the last is the newest release. None loaded: nreleases 0. */
	struct jaxver *releases;
	size_t nreleases;
	char *releases_source;
	char *releases_file;
	int releases_line;
};

/*
 * Add the `jax_api`, `jax_gaps` and `jax_releases` sections of one rules
 * file to *out (any node may be NULL). When *out is NULL a new table is
 * created (free with jaxapi_free()); otherwise entries join the table from
 * earlier files. Unknown keys, wrong types, missing fields, versions that
 * do not parse, a release without its provenance (since_at ...) and names
 * defined twice are errors in d at file:line:col; entries with errors are
 * left out. Returns 0, or -1 when this call added errors.
 */
int jaxapi_parse(struct jaxapi **out, const struct ynode *names, const struct ynode *gaps,
		 const struct ynode *releases, const char *file, struct diag *d);
/*
 * Cross-entry checks after every file is parsed: each replaced_by names an
 * entry, no chain of replacements loops, a name is not removed before it
 * appears, and with a jax_releases list every release named is in it and
 * every provenance names the tag of its release. Returns -1 if d got
 * errors. t may be NULL.
 */
int jaxapi_finish(struct jaxapi *t, struct diag *d);
void jaxapi_free(struct jaxapi *t);

/*
 * The release tag a provenance starts with: "jax-v0.6.2:jax/x.py:27 why"
 * gives 0.6.2 (jax-v0.9.0.1 counts as 0.9.0). Returns 0, or -1 when at
 * does not start with jax-vX.Y.Z[.N]:PATH:LINE.
 */
int jaxapi_provenance(const char *at, struct jaxver *tag);
/* The newest release of the table, or NULL without a jax_releases list. */
const struct jaxver *jaxapi_newest(const struct jaxapi *t);

/* Returns a borrowed pointer to the entry called name, or NULL. t may be NULL. */
const struct api_name *jaxapi_find(const struct jaxapi *t, const char *name);
/* The current spelling: follow replaced_by to its end (bounded, so a bad table cannot loop). */
const struct api_name *jaxapi_current(const struct jaxapi *t, const struct api_name *n);
/*
 * True when the releases matter for n: it arrived after the first release
 * of the table's list (or has bounds, without a list), was removed, or has
 * a predecessor or a successor.
 */
bool jaxapi_versioned(const struct jaxapi *t, const struct api_name *n);
/* Had the event of range r (an arrival, a removal) happened by release v? */
enum api_presence jaxrange_reached(const struct jaxrange *r, const struct jaxver *v);
/* Does release v have n (since reached and removed not)? */
enum api_presence jaxapi_presence(const struct api_name *n, const struct jaxver *v);
/* The keyword entry "OWNER.kw" of the call of API n (OWNER its current name), or NULL. */
const struct api_name *jaxapi_keyword(const struct jaxapi *t, const struct api_name *n,
				      const char *kw, size_t kwlen);

/*
 * Rendering ${api:NAME} for one JAX version (jaxapi_render.c). An
 * api_render carries the version and collects what the renders found out,
 * so a printer can say once that the version was unknown and print a
 * rung's notes under it.
 *
 * For a known version each name gets the newest spelling that exists in
 * it, a call of it the form that works there (the spelling's `call`) and
 * each keyword of the call its own spelling there. A name no spelling of
 * which exists there is written "NAME (JAX >= X)" or "NAME (removed in
 * JAX X)" in prose; in a snippet, where it would raise, the code is
 * replaced by one line: "not available in JAX V: NAME (JAX >= X); upgrade
 * JAX to X or later", with the name's `instead` after it. A snippet's
 * trailing "# comment" is prose. For an unknown version the names are
 * spelled for the newest release of the table's list (current spellings
 * without a list), and ar->guessed is set.
 */
struct api_render {
	const struct jaxapi *table;   /* borrowed; NULL renders every NAME as written */
	bool known;                   /* the version parsed */
	struct jaxver ver;            /* the version, or the newest release when unknown */
	bool have_ver;                /* ver means something (known, or a newest release) */
	char *version;                /* as the log gave it, or NULL */
	bool guessed;                 /* version unknown and a versioned name was rendered */
	bool versioned;               /* some rendered name depends on the release */
	char **notes;                 /* one sentence each, no duplicates, NULL-terminated */
	size_t nnotes;
	char **kept;                  /* prose renders handed out, freed on release */
	size_t nkept;
};

#define API_RENDER_INIT { NULL, false, { { 0, 0, 0 }, 0 }, false, NULL, false, false, NULL, 0, NULL, 0 }

/* Start rendering for version (NULL or unparsable: unknown). */
void api_render_init(struct api_render *ar, const struct jaxapi *t, const char *version);
void api_render_release(struct api_render *ar);
/* Forget the notes collected so far (the flags stay). */
void api_render_clear_notes(struct api_render *ar);
/* Take on what a render with `from` (same table and version) noted, as if
 * it had rendered with ar: its notes (no duplicates) and flags. */
void api_render_adopt(struct api_render *ar, const struct api_render *from);
/*
 * Append snippet tmpl (a rung's change or fallback, a flag's snippet) to
 * out, rendered as above; other text, ${var} placeholders included, is
 * copied unchanged.
 */
void api_render_text(struct api_render *ar, const char *tmpl, struct buf *out);
/*
 * Until api_render_memo_end(), the calling thread keeps what
 * api_render_text() gave for each template, table and release, and gives
 * it again: the same text, notes and flags. For a caller that renders the
 * same ladders for log after log (scan's workers). Memos do not nest.
 */
void api_render_memo_begin(void);
void api_render_memo_end(void);
/* Append prose text (an action, an explanation) to out, rendered as above. */
void api_render_prose_into(struct api_render *ar, const char *text, struct buf *out);
/*
 * Prose text rendered: returns text itself when it names no API, else a
 * borrowed string valid until api_render_release(ar). NULL gives NULL.
 */
const char *api_render_prose(struct api_render *ar, const char *text);

/*
 * Set jax_upgrade_to, jax_upgrade_what and jax_upgrade_from in vs when the
 * captures in vs match a gap that a release newer than vs's jax_version
 * (or an unknown one) closed. t may be NULL.
 */
void jaxapi_derive(const struct jaxapi *t, struct vars *vs);

/*
 * The lint of `rules validate` (jaxapi_lint.c): in every text that is
 * rendered (snippets, and the prose of rules, classes, rungs and flags)
 * each ${api:NAME} must name a current entry of the table, and an API name
 * may not be written out (pl.*, pltpu.*, plgpu.*, pltriton.*, jax_pallas_*
 * or a name in the table). In a snippet every keyword of a call of a table
 * API must be in the table as OWNER.kw, and a keyword outside any call
 * must be written ${api:OWNER.kw}. Texts that are never rendered (a
 * context's summary, a chip's note ...) may not name a Pallas API at all.
 * A ruleset without a table only gets the placeholder check. Problems go
 * to d; returns -1 if there were any.
 */
int jaxapi_lint(const struct ruleset *rs, struct diag *d);

#endif
