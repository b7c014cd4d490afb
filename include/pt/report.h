/* SPDX-License-Identifier: MIT */
/*
 * The escalation report: a model built once from a session (and the ruleset,
 * for the environment fields, what to try next and the debug flags), then
 * printed by one of a table of writers (text, md, json). Redaction happens
 * while building, so every writer prints the same, already-masked strings.
 * Output is deterministic: the only times in it are the session's own (set
 * PALLAS_TRIAGE_NOW in tests).
 */
#ifndef PT_REPORT_H
#define PT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "pt/diag.h"
#include "pt/rules.h"
#include "pt/session.h"

#define REPORT_MD_FILE "pallas-triage-report.md"
#define REPORT_JSON_FILE "pallas-triage-report.json"
/* 2: the first diagnosis's `values` are typed as in `--json` (docs/json.md) */
#define REPORT_SCHEMA_VERSION 2

struct report_kv {
	char *key;
	char *value;
};

struct report_attempt {
	int n;
	char *rung, *change, *result, *cls_after, *log, *note, *time;
	char *kernel;               /* what changed in the session's kernel, or NULL */
};

struct report_next {
	char *rung, *family, *action, *change, *expect;
	char *note;                 /* what the JAX version means for it, or NULL */
};

struct report_flag {
	char *id, *snippet, *why;
	char *note;                 /* what the JAX version means for it, or NULL */
};

/* One log of the session, in the order it came: what it showed. */
struct report_log {
	char *what;                 /* "first log", "attempt 3" */
	char *log;                  /* its path as recorded, or NULL */
	char *cls;                  /* "layout/block-shape"; "unknown" when no failure was named */
	char *key_line;             /* may be NULL */
};

/* The failure in front of the user: the latest log's (the first log's until another came). */
struct report_failure {
	char *label;                /* "numerics/precision"; NULL once fixed */
	char *from;                 /* "the first log", "the log of attempt 4" */
	char *log;                  /* that log's path, or NULL */
	char *message, *key_line, *location, *fingerprint; /* may be NULL */
	size_t key_lineno;
	double confidence;
};

struct report {
	char *title;                /* "capacity failure in k.py": the current failure's class */
	const char *status;         /* "resolved", "blocked", "in progress" (static) */
	char *status_line;          /* one sentence saying why */
	int attempts_used, attempt_cap;
	struct report_failure now; /* the current failure, which the report leads with */
	struct report_log *logs;   /* every log of the session with its class and key line */
	size_t nlogs;
	char *fingerprint, *fingerprint_text; /* of the first failure: the session's */
	char *diagnosis;            /* the first diagnosis: "capacity/scoped-vmem" */
	double confidence;
	char *runner_up;            /* may be NULL */
	char *rule, *message, *location, *key_line, *log; /* may be NULL */
	char *log_saved;            /* the copy of a piped first log in the session, or NULL */
	size_t key_lineno;
	struct report_kv *evidence; /* key: "line N (rule)", value: text */
	size_t nevidence;
	struct report_kv *values;   /* captured and derived values that are not environment */
	size_t nvalues;
	struct report_kv *env;      /* environment fingerprint of the latest log (with the
				     * earlier logs' facts it does not restate): key the field
				     * the rules' facts set, in their order */
	size_t nenv;
	char *env_from;             /* "the log of attempt 4", "the first log" */
	char *interpret;            /* the answer and what it means */
	struct report_kv *ruled;    /* key: class[/subkind], value: the evidence */
	size_t nruled;
	struct report_attempt *att;
	size_t natt;
	char **skipped;
	size_t nskipped;
	char **trajectory;          /* "capacity (first diagnosis)" ... */
	size_t ntraj;
	char *current;              /* where the walk stands */
	struct report_next *next;
	size_t nnext;
	char **more;                /* information that would help next */
	size_t nmore;
	struct report_flag *flags;
	size_t nflags;
	char *spelling;             /* the JAX version API names are spelled for, or NULL */
	char *snippets_for_jax;     /* that version; NULL: current JAX */
	char *kernel, *pre_debug;   /* may be NULL */
	char *created, *updated;
	char *tool;
	bool redacted;
};

#define REPORT_INIT { 0 }

/*
 * Build r from s. rs may be NULL (then no environment rows, next rungs or
 * flag snippets).
 * With redact, home directories become "~" and host names "<host>".
 * Release with report_release().
 */
void report_build(struct report *r, const struct session *s, const struct ruleset *rs,
		  bool redact);
void report_release(struct report *r);

/* True for "text", "md", "markdown" and "json". */
bool report_format_known(const char *format);

/* Print r in format to fp. Returns -1 with err (PT_EXIT_SYSTEM) on a write error. */
int report_write(const struct report *r, const char *format, FILE *fp, struct pt_err *err);

/*
 * Print r in format to path, replacing the file atomically. A path the user
 * named (`report --output`) is written with util_write_output(): through
 * devices and FIFOs. Otherwise util_write_atomic(): the report files in the
 * working directory are never written through a link planted there.
 */
int report_write_file(const struct report *r, const char *format, const char *path,
		      bool user_path, struct pt_err *err);

/* The writers of the table (report_text.c, report_md.c, report_json.c).
 * Each returns -1 on a write error it sees; report_write() checks the stream. */
int report_write_text(const struct report *r, FILE *fp);
int report_write_md(const struct report *r, FILE *fp);
int report_write_json(const struct report *r, FILE *fp);

/* A debug flag as one line: "SNIPPET  # WHY; NOTE". Returns a new string. */
char *report_flag_line(const struct report_flag *f);

/*
 * Write the report files into dir atomically: REPORT_MD_FILE and
 * REPORT_JSON_FILE, unless a report of another session is there (its JSON
 * file has another `created` or first fingerprint, or is missing while
 * the markdown file is there): then the first pallas-triage-report-N.md
 * and .json (N = 2, 3, ...) that are free or this session's. A report of
 * an earlier session is never overwritten. Sets *md and *json (may be
 * NULL) to the paths written (free()).
 */
int report_write_files(const struct report *r, const char *dir, char **md, char **json,
		       struct pt_err *err);

/*
 * Returns a new string: s with home directories (/home/NAME, /Users/NAME,
 * /root, $HOME) as "~" and host names (this machine's when it holds a digit
 * or a dash, TPU VM names t1v-n-...) as "<host>" (report_redact.c).
 */
char *report_redact(const char *s);

#endif
