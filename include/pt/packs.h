/* SPDX-License-Identifier: MIT */
/*
 * Rule packs: YAML rule files fetched from a URL (`rules fetch`), kept in
 * the user's data directory and loaded on top of the base rules. This module
 * owns the store; the downloads are done by the command layer through
 * pt/http.h. Layout (docs/packs.md):
 *
 *	$XDG_DATA_HOME/pallas-triage/packs/      (~/.local/share/... without it)
 *	  NAME.json                   metadata: origin, sha256, ETag, times, file
 *	  NAME.<sha256[0:16]>.yaml    the pack text, named by its content
 *	  .lock                       flock()ed while the store changes
 *
 * A pack is installed exactly when NAME.json exists: the YAML file it names
 * is written first, the metadata replaces NAME.json in one rename (the
 * commit), and only then are unreferenced YAML files removed. A crash at any
 * point leaves either the old pack or the new one, never a mix; leftovers
 * are collected by the next change. Loading reads only what a NAME.json
 * names and checks its sha256.
 */
#ifndef PT_PACKS_H
#define PT_PACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "pt/diag.h"
#include "pt/rules.h"

#define PACK_MAX_BYTES (4u << 20)  /* largest pack download */
#define PACK_NAME_MAX 64

struct pack {
	char *name;               /* [a-z0-9][a-z0-9._-]*, at most PACK_NAME_MAX bytes */
	char *url;                /* where it was fetched from (as given) */
	char *file;               /* the YAML file in the packs directory */
	char *sha256;             /* lowercase hex of the file's content */
	char *pin;                /* the --sha256 given at fetch, or NULL */
	char *etag;               /* ETag of the download, or NULL */
	char *last_modified;      /* Last-Modified of the download, or NULL */
	char *fetched;            /* ISO-8601 UTC: when this content was downloaded */
	char *checked;            /* ISO-8601 UTC: when the origin last confirmed it */
	long long size;           /* bytes */
	long long nrules;         /* rules in the pack */
};

/* Frees every field of p and zeroes it; NULL is fine. */
void pack_release(struct pack *p);
/* Frees an array from packs_list(). */
void packs_free(struct pack *packs, size_t n);

/* Returns the packs directory as a new string (free()), or NULL when
 * neither $XDG_DATA_HOME nor $HOME is an absolute path (util_xdg_dir()):
 * then no pack is installed and none can be. */
char *packs_dir(void);

bool pack_name_valid(const char *name);
/*
 * A pack name from the last path segment of url ("team-kernels.yaml" ->
 * "team-kernels"), lowercased, other characters as '-'. Returns a new string,
 * or NULL when no valid name comes out.
 */
char *pack_name_from_url(const char *url);


/*
 * Read every installed pack's metadata, sorted by name, into a new array
 * (free with packs_free()). No packs directory is zero packs. -1 with err
 * (PT_EXIT_DATA) when a metadata file is corrupt.
 */
int packs_list(struct pack **out, size_t *n, struct pt_err *err);

/* Read one pack's metadata into p. Returns 0, 1 when no such pack, -1 with err. */
int pack_get(const char *name, struct pack *p, struct pt_err *err);

/*
 * Load every installed pack into rs with origin = the pack's name, in name
 * order; call it after the base rules and before ruleset_finish(). Problems
 * go to d (each names the pack and how to remove it); returns -1 when d got
 * errors. A pack whose file was changed after install is an error.
 */
int packs_load(struct ruleset *rs, struct diag *d);

/*
 * Validate text as pack `name` and, when it is valid, install it with the
 * metadata in meta (name, url, pin, etag, last_modified, fetched; the file,
 * sha256, size and rule count are filled here). Valid means: the rules of
 * base_dir, the other installed packs and this one load and pass
 * ruleset_finish() together (so a rule id already used needs
 * `overrides: true`), and every example of this pack passes. `shown` names
 * the pack in diagnostics (NAME.yaml: never the URL, which may hold secrets). Schema problems go to d,
 * failing examples to out, and the return is -1 with err (PT_EXIT_DATA);
 * I/O failures are PT_EXIT_SYSTEM. On any failure the store is unchanged.
 * On success *nrules (may be NULL) is the number of rules in the pack.
 * crash_at is a test hook (PALLAS_TRIAGE_TEST_CRASH): the process kills
 * itself with SIGKILL at that step of the install ("after-file",
 * "after-metadata") so tests can show that a crash leaves the old or the
 * new pack, never a mix. NULL in real use.
 */
int pack_add(const char *base_dir, const struct pack *meta, const char *text, size_t len,
	     const char *shown, struct diag *d, FILE *out, long long *nrules,
	     const char *crash_at, struct pt_err *err);

/*
 * The origin confirmed pack `name` is still the content with hash sha256
 * (a 304, or the same bytes again): record checked, etag and last_modified.
 * Does nothing when the installed pack has another hash by now.
 */
int pack_mark_checked(const char *name, const char *sha256, const char *etag,
		      const char *last_modified, const char *checked, struct pt_err *err);

/*
 * A key that changes whenever the installed packs may have changed: the
 * name, size, mtime and inode of every metadata and pack file. For a cache
 * of the loaded ruleset (pt/rules_cache.h): append it to the base rules' key.
 * Returns a new string (free()).
 */
char *packs_cache_key(void);

/* Remove pack `name`. Returns 0, 1 when no such pack, -1 with err. */
int pack_remove(const char *name, struct pt_err *err);

#endif
