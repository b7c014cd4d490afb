/* SPDX-License-Identifier: MIT */
/*
 * The classifier: a log (streamed in any pieces) x a ruleset -> a verdict.
 * Memory stays bounded whatever the log's size: lines longer than
 * CLASSIFY_MAX_LINE are matched on their first CLASSIFY_MAX_LINE bytes, and at
 * most CLASSIFY_MAX_EVIDENCE evidence lines are kept.
 */
#ifndef PT_CLASSIFY_H
#define PT_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/diag.h"
#include "pt/rules.h"
#include "pt/vars.h"

#define CLASSIFY_MAX_LINE (64u * 1024)
#define CLASSIFY_MAX_EVIDENCE 64
#define EVIDENCE_MAX_TEXT 512

struct evidence {
	size_t line;                /* 1-based line number in the log */
	char *text;                 /* the normalised line, at most EVIDENCE_MAX_TEXT bytes */
	size_t mstart, mend;        /* the matched part of text */
	const struct rule *rule;    /* borrowed from the ruleset */
	enum pat_role role;
};

struct class_score {
	double score;               /* 1 - prod(1 - w/100) over fired rules */
	int top_weight;
	const struct rule *top_rule;
	size_t nrules;              /* distinct rules fired for this class */
	size_t first_line;          /* earliest key line among them */
};

struct location {
	char *file;                 /* NULL when the log names no user source */
	long line, col;
	char *func;
	const char *how;            /* "loc" (Mosaic callsite) or "traceback" */
};

#define CONTEXT_MAX_EVIDENCE 4

/* A context as decided on this log (rules/contexts.yaml). */
struct verdict_context {
	const struct context_def *def;   /* borrowed from the ruleset */
	bool held;
	double score;                    /* 0..1, the combined evidence */
	struct {
		size_t line;
		char *text;
	} ev[CONTEXT_MAX_EVIDENCE];      /* the first evidence lines, by line number */
	size_t nev;
	char *asserted;                  /* why it holds on someone's word (--kernel FILE, the
	                                  * session's first log), or NULL */
};

struct verdict {
	enum pt_class cls;          /* CLASS_UNKNOWN when no Pallas failure was recognised */
	const char *subkind;        /* borrowed, may be NULL */
	double confidence;          /* 0..1 */
	enum pt_class runner_up;    /* CLASS_COUNT when no other class scored */
	struct class_score scores[CLASS_COUNT];
	const struct rule *top_rule;/* the rule that decided, or NULL */
	const struct rule **fired;  /* every fired rule, strongest first */
	size_t nfired;
	struct evidence *ev;        /* by line number */
	size_t nev;
	char *reason;               /* for unknown: why; else NULL */
	char *message;              /* the top rule's message with captures filled in */
	char *key_line;             /* the top rule's key line text, or NULL */
	size_t key_lineno;
	char *fingerprint;          /* stable id of this failure: "class:hash" */
	char *fingerprint_text;     /* the key line with numbers, paths, addresses masked */
	struct vars vars;           /* captures, then environment facts; verdict_derive()
	                             * (pt/advice.h) adds the calculators' values */
	struct location loc;
	size_t nlines;
	unsigned long long nbytes;
	size_t long_lines;          /* lines cut at CLASSIFY_MAX_LINE */
	size_t match_errors;        /* pattern x line pairs that hit a PCRE2 limit */
	unsigned threads;           /* that read the log: 2 when a scout ran */
	bool fallback;              /* decided by the fallback tier: no specific rule named it */
	bool observed;              /* decided by what run observed, over a runner-up with more patterns */
	struct verdict_context *contexts;  /* one per ruleset context, in its order */
	size_t ncontexts;
};

/* The verdict's entry for context id, or NULL when the ruleset has none. */
const struct verdict_context *verdict_context(const struct verdict *v, const char *id);

void verdict_release(struct verdict *v);

struct classifier;

/*
 * A context that holds on someone's word rather than this log's evidence:
 * the user's (--kernel FILE names a Pallas kernel) or a session's, which
 * saw it in an earlier log of the same program. Both strings are borrowed.
 */
struct context_assertion {
	const char *context;        /* a context id of the ruleset */
	const char *why;            /* shown under `contexts`: "--kernel k.py" */
};

/*
 * What is known about a program before its next log is read (borrowed):
 * asserted contexts, and environment facts (jax_version, chip) to assume
 * for the fields this log does not state itself.
 */
struct log_known {
	const struct context_assertion *asserted;
	size_t nasserted;
	const struct vars *facts;   /* may be NULL; only its environment fields are used */
};

/*
 * Returns a new classifier over rs (borrowed; must outlive it); free with
 * classifier_free(). rs is only read: any number of classifiers, in any
 * threads, may share one ruleset.
 */
struct classifier *classifier_new(const struct ruleset *rs);
/* Before the first feed: contexts asserted for this log (borrowed until finish). */
void classifier_assert_contexts(struct classifier *c, const struct context_assertion *a, size_t n);
/*
 * Before the first feed: read the log without settling (pt/engine.h): every
 * pattern runs until its first hit, even one that can no longer change the
 * verdict; every line with a wrap piece is joined, every frame line read.
 * Slower, and the same verdict: for tests, and for `rules test`, which
 * asks about every rule, not only about the verdict.
 */
void classifier_exhaustive(struct classifier *c);
/* Candidate lines handled plus patterns run on lines and joins: what
 * settling saves (for tests). */
size_t classifier_work(const struct classifier *c);
/* After classifier_finish: did the context hold? False for an unknown id. */
bool classifier_context_held(const struct classifier *c, const char *id);
void classifier_free(struct classifier *c);
/* Feed the next piece of the log, split anywhere. */
void classifier_feed(struct classifier *c, const char *data, size_t len);
/* End of log: fill v (caller releases it with verdict_release). */
void classifier_finish(struct classifier *c, struct verdict *v);

/* After classifier_finish: did rule r fire, and what did its patterns capture? */
bool classifier_fired(const struct classifier *c, const struct rule *r);
/* Returns a borrowed pointer valid until classifier_free(). */
const struct vars *classifier_captures(const struct classifier *c, const struct rule *r);
/* The environment facts read from the log; borrowed like classifier_captures(). */
const struct vars *classifier_env(const struct classifier *c);

struct litset;
struct matcher;

struct classify_opts {
	/* 1 reads alone; 0 (one per core, at most 2) or 2 lets a big regular
	 * file (32 MiB or more) be prefiltered ahead by a second thread
	 * (pt/scout.h). The verdict is the same either way. */
	unsigned threads;
	/* A prefilter from classify_prefilter_new() to start from, shared
	 * read-only (by threads too), or NULL to build one for this log. */
	const struct litset *prefilter;
	/* PCRE2 match state (pt/match.h) to use, borrowed, one thread at a
	 * time: a worker that classifies many logs keeps its JIT-compiled
	 * patterns across them. NULL: the classifier has its own. */
	struct matcher *matcher;
	/* Contexts that hold on someone's word (struct context_assertion),
	 * or NULL: each one counts as full evidence for its context. */
	const struct context_assertion *asserted;
	size_t nasserted;
	/* Read every pattern to its first hit (classifier_exhaustive()). */
	bool exhaustive;
	/* Called with every piece of the log as it is read (UTF-8, before any
	 * escape sequence is stripped), or NULL: a command echoes or keeps it. */
	void (*tap)(void *arg, const char *data, size_t len);
	void *tap_arg;
	/* Asked when a read is interrupted by a signal; true ends the log
	 * there, and it is classified as far as it was read. NULL: read on.
	 * Both tap and stop get tap_arg. */
	bool (*stop)(void *arg);
};

/* Read and classify a whole file descriptor in 128 KiB pieces; o may be
 * NULL (threads 0, no shared prefilter). */
int classify_fd(const struct ruleset *rs, int fd, const char *name, const struct classify_opts *o,
		struct verdict *v, struct pt_err *err);
/*
 * The prefilter of every pattern of rs, built without a sample of a log:
 * for many logs to share (building it is most of the time on a small log).
 * Returns a new set; free it with litset_free() after the last classify_fd().
 */
struct litset *classify_prefilter_new(const struct ruleset *rs);
/* Classify a log held in memory. */
void classify_text(const struct ruleset *rs, const char *buf, size_t len, struct verdict *v);
/*
 * Classify the log the user named (classify_path.c): a file, or standard
 * input for "-" (named "<stdin>" in v). known (may be NULL) is what is known
 * before the log is read: contexts asserted (--kernel FILE, a session's
 * first log) and facts for fields the log does not state; the values are
 * derived (verdict_derive()) after those facts are in. threads as in struct
 * classify_opts. A file that cannot be opened, or a directory, fails with
 * PT_EXIT_DATA. Release v with verdict_release().
 */
int classify_path(const struct ruleset *rs, const char *path, const struct log_known *known,
		  unsigned threads, struct verdict *v, struct pt_err *err);

/*
 * The facts of known that v lacks, for the environment fields the rules'
 * facts name: a log that does not print the JAX version or the chip is
 * taken to run where the earlier logs of its session ran.
 */
void verdict_assume_facts(const struct ruleset *rs, struct verdict *v, const struct log_known *known);

/* What a command watching the log go by wants (struct classify_opts). */
struct log_watch {
	void (*tap)(void *arg, const char *data, size_t len);
	bool (*stop)(void *arg);
	void *arg;
};

/* classify_path() that also writes the SHA-256 of the log as read (hex) into digest. */
int classify_path_digest(const struct ruleset *rs, const char *path, const struct log_known *known,
			 unsigned threads, char digest[65], struct verdict *v, struct pt_err *err);

/* classify_path() with w's tap and stop (w may be NULL). */
int classify_path_watch(const struct ruleset *rs, const char *path, const struct log_known *known,
			unsigned threads, const struct log_watch *w, struct verdict *v,
			struct pt_err *err);

#endif
