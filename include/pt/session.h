/* SPDX-License-Identifier: MIT */
/*
 * A debugging session: the first diagnosis, the interpret-mode answer, every
 * attempt on the fix ladder, and where the walk stands. This header is the
 * model and its state transitions (session.c, no I/O on the terminal) plus
 * its persistence (session_json.c: JSON via pt/json.h, atomic save under a lock).
 *
 * Invariants: attempts are numbered 1..SESSION_ATTEMPT_CAP in order; a rung
 * skipped as "not applicable" is not an attempt and goes to `skipped`; once
 * status is not SESSION_IN_PROGRESS nothing more is recorded. The next rung
 * is never stored: it is derived from the ladder and what was tried, so a
 * session survives edits to the ladders.
 *
 * A struct session owns every string and array in it; session_free() frees
 * the tree.
 */
#ifndef PT_SESSION_H
#define PT_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/classify.h"
#include "pt/diag.h"
#include "pt/rules.h"
#include "pt/util.h"
#include "pt/vars.h"

#define SESSION_DIR ".pallas-triage"
#define SESSION_FILE "session.json"
#define SESSION_SCHEMA_VERSION 2   /* 2: asserted, latest, ruled_out[].source,
				    * attempts[].key_line and .rung_values; 1 is still read */
#define SESSION_ATTEMPT_CAP 10   /* the method's escalation point */
#define SESSION_SAME_LIMIT 3     /* same error this often in a row: next family */
#define SESSION_MAX_BYTES (16u * 1024 * 1024)
#define SESSION_RUNG_CUSTOM "custom" /* rung id of an attempt off the ladder */
/* A session file's lists (evidence, ruled_out, trajectory, skipped, exhausted
 * families) and value maps hold at most this many entries: a real session
 * holds tens; a file with more is refused at once, not loaded for minutes. */
#define SESSION_MAX_LIST 1000
#define SESSION_MAX_VARS 1000

enum attempt_result { RESULT_FIXED, RESULT_SAME, RESULT_NEW, RESULT_NA, RESULT_COUNT };
enum interp_answer { INTERP_UNASKED, INTERP_REPRODUCES, INTERP_NO_REPRO, INTERP_SKIPPED,
		     INTERP_COUNT };
enum session_status { SESSION_IN_PROGRESS, SESSION_RESOLVED, SESSION_BLOCKED, SESSION_STATUS_COUNT };
/* Where a ruling came from: what may drop it later depends on that. */
enum ruling_source {
	RULING_INTERPRET,           /* the interpret-mode answer the user gave */
	RULING_INTERPRET_LOG,       /* the same answer, read from a log of interpret mode */
	RULING_ATTEMPT,             /* the same error after a rung that tests a hypothesis */
	RULING_RUN,                 /* what `run` observed (a precision sweep) */
	RULING_SOURCE_COUNT
};

/* "fixed", "same", "new", "n-a"; parse also takes "different", "n/a", "na". */
const char *attempt_result_name(enum attempt_result r);
int attempt_result_parse(const char *s, enum attempt_result *out);
/* "unasked", "reproduces", "does-not-reproduce", "skipped"; parse also takes yes/no/skip. */
const char *interp_answer_name(enum interp_answer a);
int interp_answer_parse(const char *s, enum interp_answer *out);
/* "in-progress", "resolved", "blocked". */
const char *session_status_name(enum session_status st);
/* "interpret", "interpret-log", "attempt", "run". */
const char *ruling_source_name(enum ruling_source src);

struct ev_line {
	size_t line;                /* 1-based line in the log */
	char *rule;                 /* rule id, may be NULL */
	char *text;
};

/* A snapshot of a verdict: what the report needs long after the log is gone. */
struct verdict_snapshot {
	enum pt_class cls;
	char *subkind;              /* may be NULL */
	double confidence;          /* 0..1, rounded to 3 decimals */
	double scores[CLASS_COUNT];
	enum pt_class runner_up;    /* CLASS_COUNT: none */
	char *rule;                 /* deciding rule id, may be NULL */
	char *message;              /* may be NULL */
	char *reason;               /* for unknown: why; may be NULL */
	char *key_line;             /* may be NULL */
	size_t key_lineno;
	char *location;             /* "file:line:col" of the user's source, may be NULL */
	char *fingerprint;          /* "class:hash"; may be NULL */
	char *fingerprint_text;     /* key line with numbers, paths, addresses masked */
	struct ev_line *ev;
	size_t nev;
	struct vars vars;           /* captures, environment facts, derived values */
};

struct attempt {
	int n;                      /* 1-based attempt number */
	char *rung;                 /* rung id, or SESSION_RUNG_CUSTOM */
	char *family;               /* may be NULL */
	char *change;               /* what the user changed */
	enum attempt_result result; /* never RESULT_NA */
	enum pt_class cls_before;
	enum pt_class cls_after;    /* CLASS_COUNT: no failure any more */
	char *subkind_after;        /* may be NULL */
	char *fingerprint;          /* of the failure after the attempt; NULL when fixed */
	char *log;                  /* the new log's path, or NULL */
	char *log_digest;           /* SHA-256 (hex) of that log as read, or NULL */
	char *key_line;             /* the key line of that log's failure, or NULL */
	char *rung_values;          /* the values the rung's change was filled with when it
				     * was tried ("name=value; ..."), or NULL: a rung is offered
				     * again only when a later log gives it other values */
	char *note;                 /* what the tool concluded, or NULL */
	char *kernel_copy;          /* the session's kernel as it was after this attempt: a
				     * file name in the session's logs/ (pt/session_kernel.h),
				     * or NULL */
	char *kernel_diff;          /* what changed in it since the attempt before, and what
				     * the check finds now, or NULL: no kernel */
	char *time;                 /* ISO-8601 UTC */
};

struct skipped_rung {
	char *rung;
	char *time;
};

struct ruled_out {
	enum pt_class cls;
	char *subkind;              /* NULL: the whole class */
	char *reason;               /* the evidence that ruled it out, for people */
	enum ruling_source source;  /* where it came from, for the model */
};

/*
 * A context the session knows holds for its program, asserted for every
 * later log's classification: the kernel context seen in the first log
 * (or named by --kernel FILE), and the backend context it ran on.
 */
struct session_assertion {
	char *context;              /* a context id of the rules */
	char *why;                  /* "the session's first log (line 8)", "--kernel k.py" */
};

/* One step of the class trajectory. */
struct step {
	enum pt_class cls;
	char *subkind;
	char *why;                  /* "first diagnosis", "interpret mode: reproduces", "attempt 3" */
};

/* Answers given for an attempt that is not finished yet (Ctrl-C mid-way). */
struct pending {
	char *rung;                 /* NULL: nothing pending */
	int result;                 /* enum attempt_result, or -1 when not answered yet */
	char *change;
	char *log;
	char *log_digest;           /* SHA-256 (hex) of log, or NULL */
};

struct session {
	int schema_version;
	char *tool;                 /* "pallas-triage 0.1.0" */
	char *created, *updated;    /* ISO-8601 UTC */
	enum session_status status;
	char *log;                  /* the first log as the user named it */
	char *log_saved;            /* a copy of it kept in the session directory (a piped
				     * log), or NULL */
	char *log_digest;           /* SHA-256 (hex) of the first log as read, or NULL */
	char *kernel;               /* --kernel FILE, may be NULL */
	char *pre_debug;            /* FILE.pre-debug, may be NULL */
	enum interp_answer interp;
	struct verdict_snapshot first;
	struct verdict_snapshot *latest; /* the latest log's diagnosis, or NULL while the first
					  * log is the latest */
	struct session_assertion *asserted;
	size_t nasserted;
	/* where the walk stands */
	enum pt_class cls;
	char *subkind;
	char *fingerprint;
	struct vars vars;           /* fill the rungs' change texts: the latest log's values,
				     * with the earlier logs' facts where it states none */
	int same_streak;            /* consecutive "same" results on rungs of one family */
	char **exhausted;           /* "class/family" abandoned after SESSION_SAME_LIMIT sames */
	size_t nexhausted;
	struct attempt *attempts;
	size_t nattempts;
	struct skipped_rung *skipped;
	size_t nskipped;
	struct ruled_out *ruled;
	size_t nruled;
	struct step *traj;
	size_t ntraj;
	struct pending pending;
	char *report_md, *report_json; /* paths of the written report, or NULL */
	char *finding;              /* why the walk stopped short of its ladder (every
				     * explanation of the class ruled out), or NULL */
};

/* Returns a new empty session; free with session_free(). */
struct session *session_new(void);
void session_free(struct session *s);

/*
 * Start s from a verdict: snapshot the diagnosis, set the current class and
 * the first trajectory step, and keep the contexts later logs are read
 * with (struct session_assertion). log names the log as the user gave it;
 * now is the ISO-8601 time (session_txn_now()); rs reads an interpret-mode
 * log's answer.
 */
void session_begin(struct session *s, const struct ruleset *rs, const struct verdict *v,
		   const char *log, const char *now);

/*
 * What the session knows about its program, for classifying its next log:
 * its asserted contexts and its values (the facts of the earlier logs).
 * Borrows from s (and kernel_why, may be NULL: --kernel FILE given now,
 * asserted too); release with session_known_release().
 */
struct session_known {
	struct log_known k;
	struct context_assertion *a;   /* owned array; its strings are borrowed, but for why */
	char *why;                     /* owned: "--kernel FILE" of a session that kept none */
};
void session_known_init(struct session_known *sk, const struct session *s,
			const struct ruleset *rs, const char *kernel_why);
void session_known_release(struct session_known *sk);


/* Messages the model wants shown, and what happened, for the command layer. */
enum news_flags {
	NEWS_RESOLVED = 1 << 0,
	NEWS_BLOCKED = 1 << 1,      /* the walk ended without a fix: write the report */
	NEWS_CAP = 1 << 2,          /* ... because attempt SESSION_ATTEMPT_CAP was used */
	NEWS_EXHAUSTED = 1 << 3,    /* ... because no rung is left */
	NEWS_FAMILY = 1 << 4,       /* same error SESSION_SAME_LIMIT times: moved on */
	NEWS_CLASS = 1 << 5,        /* the class changed (not only the subkind) */
	NEWS_SAME_FP = 1 << 6,      /* a "new" log had the same fingerprint */
	NEWS_RULED_OUT = 1 << 7,    /* ... because every explanation of the class is ruled out */
};

struct session_news {
	unsigned flags;
	char **msg;                 /* lines to show, in order */
	size_t n;
};

#define SESSION_NEWS_INIT { 0, NULL, 0 }
void session_news_release(struct session_news *nw);
/* Append a line to nw (NULL: nothing). */
void session_news_add(struct session_news *nw, const char *fmt, ...) PT_PRINTF(2, 3);

/*
 * Record the interpret-mode answer and re-rank (session_interp.c):
 * "reproduces" rules out layout, capacity and precision, "does not
 * reproduce" rules out a logic or indexing bug; a current class that was
 * ruled out moves to the best scoring class the answer allows and has not
 * ruled out. When none is left (every explanation of the class is ruled
 * out), the session stops (blocked) with that as its finding. The value
 * `interpret_answered` is set for the rungs' `unless`, so a rung that is
 * the same test is not shown again. Returns -1 (err: PT_EXIT_USAGE) if
 * already answered.
 */
int session_interpret(struct session *s, const struct ruleset *rs, enum interp_answer a,
		      struct session_news *nw, struct pt_err *err);

/*
 * The log itself is interpret-mode output (the verdict's `interpret-mode`
 * context held) and shows the failure: that is the answer "reproduces",
 * recorded as such without asking. Nothing when already answered.
 */
void session_interpret_from_log(struct session *s, const struct ruleset *rs,
				struct session_news *nw);

/*
 * Is the interpret-mode question worth asking now? Not when it is answered,
 * the session is closed, or the class's `interpret` is `not-modelled`
 * (classes.yaml: layout, capacity, lowering gaps), where the answer is
 * known before the run.
 */
bool session_interpret_applies(const struct session *s, const struct ruleset *rs);

/*
 * The rungs still to try on the current class's ladder, in order: those that
 * apply, not tried, not skipped, not in an exhausted family. Returns the
 * count; *out is a new array of borrowed rung pointers (free() the array).
 */
size_t session_plan(const struct session *s, const struct ruleset *rs, const struct rung ***out);
/* The first rung of session_plan() (borrowed from rs), or NULL when none is left. */
const struct rung *session_next_rung(const struct session *s, const struct ruleset *rs);

/*
 * The rung to default to when the user names none: the next one, or, when
 * the walk stands on no ladder (the last log showed no failure the rules
 * know), SESSION_RUNG_CUSTOM. NULL when no rung is left.
 */
const char *session_default_rung(const struct session *s, const struct ruleset *rs);

/* What the user reports for one rung. */
struct attempt_in {
	const char *rung;           /* rung id, or SESSION_RUNG_CUSTOM */
	const char *change;         /* may be NULL: the rung's suggested change */
	enum attempt_result result;
	const char *log;            /* the new log's path, may be NULL */
	const char *log_digest;     /* SHA-256 (hex) of that log, may be NULL */
};

/*
 * Record one answer. nv (may be NULL) is the log the change gave, classified
 * with session_known_init(): whatever the result, its values become the
 * session's (the latest numbers, chip and JAX version) and its diagnosis the
 * latest. The log is evidence: "new" with the fingerprint the session stands
 * on counts as "same", "same" with another failure as "new" (the note says
 * so), and "fixed" with a log that shows a Pallas failure is refused. Sets
 * status and news: fixed -> resolved; attempt SESSION_ATTEMPT_CAP, no rung
 * left on a known class's ladder, or every explanation ruled out ->
 * blocked. A log the rules cannot name moves the walk off every ladder
 * without stopping it. Returns -1 with err (PT_EXIT_USAGE for an unknown
 * rung or a contradicted "fixed", PT_EXIT_FINDING when the session is
 * closed) and leaves s untouched.
 */
int session_record(struct session *s, const struct ruleset *rs, const struct attempt_in *in,
		   const struct verdict *nv, const char *now, struct session_news *nw,
		   struct pt_err *err);

/*
 * Rule out class c (subkind NULL: the whole class) for reason, unless it is
 * ruled out already; news says so. Returns true when an entry was added.
 */
bool session_rule_out(struct session *s, enum pt_class c, const char *subkind, const char *reason,
		      enum ruling_source src, struct session_news *nw);

/* Did an attempt move the failure to another class? */
bool session_class_changed(const struct session *s);

/*
 * After a class change or interpret answer: block the session if no rung is
 * left on the ladder of the class it stands on. Not while it stands on no
 * ladder (class unknown): it waits for the next log.
 */
void session_check_exhausted(struct session *s, const struct ruleset *rs, struct session_news *nw);

/* Is the walk waiting for a log, on no ladder (the last log showed no failure the rules know)? */
bool session_off_ladder(const struct session *s);

/*
 * The unfinished attempt (s->pending) the walk fills one answer at a time;
 * strings are copied. start() begins one on rung (dropping any other);
 * a log path "" records "no log"; digest may be NULL.
 */
void session_pending_start(struct session *s, const char *rung);
void session_pending_set_result(struct session *s, enum attempt_result r);
void session_pending_set_change(struct session *s, const char *change);
void session_pending_set_log(struct session *s, const char *path, const char *digest);
void session_pending_clear(struct session *s);

/*
 * Copy kernel to kernel.pre-debug unless that file exists (it is never
 * overwritten). Sets s->kernel and s->pre_debug. *existed tells which case.
 */
int session_save_pre_debug(struct session *s, const char *kernel, bool *existed,
			   struct pt_err *err);

/* --- the directory and its lock (session_lock.c), which uses no other part of the store --- */

/* Could a session be kept in dir: it is a writable directory, or can be created? */
bool session_dir_writable(const char *dir);
/*
 * Where the report files of the session in dir go: the directory that holds
 * dir (the working directory for SESSION_DIR). Returns a new string.
 */
char *session_report_dir(const char *dir);

/*
 * Open dir as a directory (creating it first when create), refusing a
 * symbolic link in its place. Returns an O_DIRECTORY fd (close() it), or
 * -1 with err (PT_EXIT_SYSTEM).
 */
int session_dir_open(const char *dir, bool create, struct pt_err *err);

/*
 * Open the directory name ("logs", "archive") inside the session directory
 * dfd (named dir in messages), creating it first when create, never
 * through a link: a symbolic link or a file in its place is refused
 * (PT_EXIT_SYSTEM). Absent and not created: PT_EXIT_FINDING. Returns an
 * O_DIRECTORY fd (close() it), or -1 with err.
 */
int session_subdir_open(int dfd, const char *dir, const char *name, bool create,
			struct pt_err *err);

/*
 * Create dir if needed and take an exclusive lock on dir/lock without
 * waiting. The lock file is never opened through a link: a planted link or
 * hard link is refused. Returns the lock's fd (release with
 * session_unlock()), or -1 with err (PT_EXIT_SYSTEM, naming the pid that
 * holds it, or the link).
 */
int session_lock(const char *dir, struct pt_err *err);
void session_unlock(int fd);

/* --- persistence (session_json.c), on the directory above --- */

/* True when dir holds a session file. */
bool session_exists(const char *dir);
/* True when dir holds a session that loads and is in progress (read without the lock). */
bool session_in_progress(const char *dir);
/*
 * Load dir/session.json into a new session (free with session_free()).
 * A missing file: PT_EXIT_FINDING; a corrupt file or one from a newer
 * schema: PT_EXIT_DATA, with a message naming the field; the file is kept.
 * A file of schema_version 1 is read as it was written (ruled_out sources
 * from their reasons) and saved as the current schema.
 */
int session_load(const char *dir, struct session **out, struct pt_err *err);
int session_parse(const char *text, size_t len, const char *name, struct session **out,
		  struct pt_err *err);
/* Returns the session as JSON text with a fixed key order; free() it. */
char *session_format(const struct session *s);
/* Write dir/session.json atomically; the caller holds the lock. */
int session_save(const struct session *s, const char *dir, struct pt_err *err);

/* --- the archive (session_archive.c); the caller holds the lock --- */

/*
 * Move dir/session.json (parsable or not) to dir/archive/session-N.json.
 * *archived (may be NULL) gets the new path (free()). No session: returns 0
 * with *archived NULL.
 */
int session_archive(const char *dir, char **archived, struct pt_err *err);

/*
 * Save s as dir/session.json, setting the session there aside as
 * dir/archive/session-N.json (*archived gets its path; free()). The old
 * session is copied to the archive, then s saved over it atomically; when
 * that save fails the copy is removed again. So on any error (a full disk)
 * the old session is in place as it was, and err says so.
 */
int session_save_over(const struct session *s, const char *dir, char **archived,
		      struct pt_err *err);

/* The highest N of dir/archive/session-N.json, or 0 when there is none. */
long session_archive_latest(const char *dir);

/*
 * Bring dir/archive/session-N.json back as the session (n <= 0: the
 * latest). The session in its place, if any, is archived first (*archived,
 * else NULL); *restored gets the archive's name (free() both). An entry
 * that does not load is refused (PT_EXIT_DATA) and stays where it is; no
 * archive: PT_EXIT_FINDING.
 */
int session_restore(const char *dir, long n, char **restored, char **archived,
		    struct pt_err *err);

/* --- one change of the stored session (session_txn.c) --- */

/*
 * Every command that changes the session does it the same way: open the
 * transaction (lock the directory, load or begin the session), change t->s
 * with the model functions above, commit, release. The lock is held from
 * open to release, so no other writer changes the file between this load
 * and this save; a walk commits after every answer under one lock. Released
 * without a commit, the file stays as it was.
 */
struct session_txn {
	const char *dir;            /* the session directory (borrowed) */
	const char *fixed_now;      /* PALLAS_TRIAGE_NOW, or NULL: the clock (borrowed) */
	int lock;                   /* the lock's fd; -1 when not held */
	struct session *s;          /* the session, owned; NULL until opened */
	struct util_time now;       /* filled by session_txn_now() */
};

#define SESSION_TXN_INIT { NULL, NULL, -1, NULL, { "" } }

/*
 * Lock dir and load its session into t->s. No session: PT_EXIT_FINDING, and
 * dir is not created; a corrupt one: PT_EXIT_DATA; held by another writer:
 * PT_EXIT_SYSTEM naming its pid. Release t with session_txn_release() also
 * after a failure.
 */
int session_open_locked(struct session_txn *t, const char *dir, const char *fixed_now,
			struct pt_err *err);

/* A log as the session store needs it. */
struct session_log {
	const char *name;           /* as the user named it ("<stdin>" for a pipe) */
	const char *digest;         /* SHA-256 (hex) of it as read, or NULL */
	const char *data;           /* its bytes, to keep a copy (a pipe), or NULL */
	size_t len;
};

/* What session_open_for() or session_open_loop() found, for the command to tell the user. */
struct session_opened {
	bool resumed;               /* the session in progress for this failure goes on */
	char *archived;             /* where another failure's session was moved (free()), or NULL */
	bool archived_other;        /* ... it had a fingerprint: another failure, not an earlier one */
	enum session_status archived_status;
	enum { PRE_DEBUG_NONE, PRE_DEBUG_SAVED, PRE_DEBUG_KEPT } pre_debug;
	int seen;                   /* the log is the session's own: 0 its first log, N attempt
				     * N's log; -1: not seen before */
	bool result_log;            /* a new log during a session in progress: the result of
				     * the last change (session_open_loop()) */
	char *saved;                /* where that log (or a new session's first log) was kept
				     * (free()), or NULL */
	char *saved_digest;         /* its SHA-256 in hex (free()), or NULL */
};



/*
 * `session start`: lock dir (creating it) and open the session for verdict
 * v of log: resume the session in progress for the same failure (class
 * and fingerprint), else move whatever is there to the archive and begin a
 * new one from v (keeping log's bytes, if given, as dir/logs/first-HASH.log).
 * With kernel (may be NULL), kernel.pre-debug is saved first (an existing
 * copy is kept). The session is saved before this returns. An unreadable
 * kernel fails (PT_EXIT_DATA) before anything is archived. Release o with
 * session_opened_release().
 */
int session_open_for(struct session_txn *t, const struct ruleset *rs, const char *dir,
		     const struct verdict *v, const struct session_log *log, const char *kernel,
		     const char *fixed_now, struct session_opened *o, struct pt_err *err);
void session_opened_release(struct session_opened *o);

/*
 * The edit-and-rerun loop: open the session for a log the user ran. As
 * session_open_for() when there is no session in progress (a closed one
 * is archived first, and a piped log is kept as dir/logs/first-HASH.log).
 * With a session in progress nothing is archived: a log the session
 * already has (same digest as its first log or an attempt's) resumes it
 * (o->seen); any other log is the result of the last change
 * (o->result_log): the session is opened as it is, and a piped log is kept
 * as the next attempt's log (o->saved) for the caller to record.
 */
int session_open_loop(struct session_txn *t, const struct ruleset *rs, const char *dir,
		      const struct verdict *v, const struct session_log *log, const char *kernel,
		      const char *fixed_now, struct session_opened *o, struct pt_err *err);

/*
 * What log v says about the last change: RESULT_SAME when its failure has
 * the fingerprint the session stands on, RESULT_NEW for another Pallas
 * failure, -1 when it shows none (fixed, or a failure the rules do not
 * know: only the user can tell).
 */
int session_result_of(const struct session *s, const struct verdict *v);

/* The current time (or t->fixed_now) for the change in hand: attempts, created. */
const char *session_txn_now(struct session_txn *t);

/*
 * Save t->s atomically, stamped updated now. When the walk has stopped
 * without a fix, or was fixed at the last attempt, and its report is not
 * written yet, the report files (REPORT_MD_FILE and REPORT_JSON_FILE, rs
 * says what to try next; masked with redact) are written into the working
 * directory and their paths kept in the session, which is saved again: a
 * report that cannot be written loses no recorded answer.
 */
int session_commit(struct session_txn *t, const struct ruleset *rs, bool redact,
		   struct pt_err *err);

/*
 * Keep data as a log of the session: t->dir/logs/STEM-HASH.log, STEM being
 * stem ("first") or, for NULL, attempt-N for the next attempt, and HASH
 * the first 12 hex digits of the data's SHA-256, so an archived session's
 * logs are never overwritten by the next session's. *path gets the new
 * file's name (free()); digest (may be NULL) the whole SHA-256 in hex.
 */
int session_txn_save_log(struct session_txn *t, const char *stem, const char *data, size_t len,
			 char **path, char *digest, struct pt_err *err);
/* Remove a log session_txn_save_log() kept for an attempt that was then not
 * recorded (refused, or the session could not be saved), so that no copy
 * is left that no attempt names. Best effort: a leftover is harmless. */
void session_txn_drop_log(struct session_txn *t, const char *path);


/* Unlock and free t->s; t may be unopened or failed. */
void session_txn_release(struct session_txn *t);

/*
 * Machine-readable summaries for --json. Each returns a new string (free()).
 * plan holds the rungs still to try (may be empty); rs spells their API names.
 */
char *session_status_json(const struct session *s, const struct ruleset *rs,
			  const struct rung *const *plan, size_t nplan, const struct session_news *nw);
char *session_log_json(const struct session *s);

#endif
