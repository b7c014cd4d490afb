/* SPDX-License-Identifier: MIT */
/*
 * Classify many logs at once (`pallas-triage scan`): collect the files under
 * the given paths, classify them on a pool of worker threads, hand each
 * result back in path order, and aggregate the results by class and by
 * failure fingerprint so the same failure across 300 CI jobs becomes one row.
 *
 * Threads. Every worker classifies with the caller's ruleset and one
 * prefilter built from it, both shared read-only; each has its own PCRE2
 * match state (pt/match.h, struct matcher) and its own classifier per log.
 * Results are delivered to the callback on the calling thread, in the
 * order of scan_list, whatever the order the workers finish in.
 */
#ifndef PT_SCAN_H
#define PT_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "pt/diag.h"
#include "pt/rules.h"

/* One entry of the work list: a log to classify, or a path that failed. */
struct scan_item {
	char *path;
	char *error;                /* why the path cannot be scanned, or NULL */
};

struct scan_list {
	struct scan_item *items;
	size_t n, alloc;
	size_t nerrors;             /* items with an error */
};

#define SCAN_LIST_INIT { NULL, 0, 0, 0 }

/*
 * Add `path` to the list: a directory is walked recursively (entries in
 * byte order of their names; names starting with '.' and symbolic links to
 * directories are skipped; only regular files are taken), anything else is
 * taken as a log. A path that does not exist or cannot be read becomes an
 * item with an error, and the walk goes on. Never fails otherwise.
 */
void scan_list_add(struct scan_list *l, const char *path);
void scan_list_release(struct scan_list *l);

/* What one log gave. Strings are borrowed, valid during the callback only. */
struct scan_result {
	size_t index;               /* position in the scan_list */
	const char *path;
	const char *error;          /* the item's or the read's error, or NULL */
	enum pt_class cls;          /* CLASS_UNKNOWN too when error is set */
	const char *rule;           /* deciding rule id, or NULL */
	const char *fingerprint;    /* NULL when error is set */
	const char *fingerprint_text;
	const char *message;        /* the rule's message, or the reason for unknown */
	const char *json;           /* compact diagnosis JSON (opts.jsonl), else NULL */
	const char *github;         /* its GitHub Actions annotation line (opts.github), or
				     * NULL (also for an unknown log) */
	unsigned long long nbytes;
	size_t nlines;
};

/* Called on the caller's thread for every item, in list order. */
typedef void (*scan_sink)(const struct scan_result *r, void *arg);

struct scan_opts {
	unsigned jobs;              /* worker threads; 0: one per online CPU */
	bool jsonl;                 /* fill scan_result.json */
	bool github;                /* fill scan_result.github */
	const char *workspace;      /* $GITHUB_WORKSPACE for the annotations' paths, or NULL */
};

/*
 * Classify every item of l with rs (borrowed, shared by the workers),
 * calling sink for each item in list order. Returns 0, or -1 with err set
 * (PT_EXIT_SYSTEM) when a worker could not be started; then no result or
 * only a prefix of them was delivered.
 */
int scan_run(const struct scan_list *l, const struct ruleset *rs, const struct scan_opts *o,
	     scan_sink sink, void *arg, struct pt_err *err);

/*
 * Aggregation for the summary table: counts per class and one group per
 * fingerprint with its count, its first example (in list order), its rule
 * and its masked key line.
 */
struct scan_group {
	char *fingerprint;
	enum pt_class cls;
	size_t count;
	char *example;              /* path of the first log with this fingerprint */
	char *rule;                 /* may be NULL */
	char *text;                 /* masked key line, or the reason */
};

struct scan_summary {
	size_t logs;                /* logs classified */
	size_t errors;              /* paths that could not be read */
	unsigned long long bytes;
	size_t per_class[CLASS_COUNT];
	struct scan_group *groups;
	size_t ngroups, alloc_groups;
	size_t *slots;              /* hash table of group index + 1, 0 = empty */
	size_t nslots;
};

#define SCAN_SUMMARY_INIT { 0, 0, 0, { 0 }, NULL, 0, 0, NULL, 0 }

void scan_summary_add(struct scan_summary *s, const struct scan_result *r);
/*
 * Print the table: totals, the count per class, then one row per
 * fingerprint, most frequent first (ties: class order, then fingerprint).
 * Log text is escaped for the terminal. Returns 0, or -1 on a write error.
 */
int scan_summary_write(const struct scan_summary *s, FILE *fp);

#define SCAN_SUMMARY_SCHEMA_VERSION 1
/*
 * The same as one JSON object (docs/scan.md): schema_version, logs, bytes,
 * unreadable, classes (a count per class), groups (in the table's order:
 * logs, fingerprint, class, rule, example, fingerprint_text). Strings from
 * logs are valid UTF-8 (pt/json.h). Returns 0, or -1 on a write error.
 */
int scan_summary_json(const struct scan_summary *s, FILE *fp);
void scan_summary_release(struct scan_summary *s);

#endif
