/* SPDX-License-Identifier: MIT */
/*
 * One change of the stored session: lock, load (or begin), commit; see
 * pt/session.h. The commands (`attempt`, `run`, `session start`, the walk)
 * used to spell this sequence out each on its own; here it is written once,
 * so a torn or unlocked write has one place to hide, not four.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt/report.h"
#include "pt/session.h"
#include "pt/sha256.h"
#include "pt/util.h"
#include "pt/xalloc.h"

static int
txn_lock(struct session_txn *t, const char *dir, const char *fixed_now, struct pt_err *err)
{
	t->dir = dir;
	t->fixed_now = fixed_now;
	t->lock = session_lock(dir, err);
	return t->lock < 0 ? -1 : 0;
}

int
session_open_locked(struct session_txn *t, const char *dir, const char *fixed_now,
		    struct pt_err *err)
{
	/* without a session, fail before session_lock() creates the directory */
	if (!session_exists(dir))
		return session_load(dir, &t->s, err);
	if (txn_lock(t, dir, fixed_now, err) < 0)
		return -1;
	return session_load(dir, &t->s, err);
}

static bool
same_failure(const struct session *s, const struct verdict *v)
{
	if (s->status != SESSION_IN_PROGRESS || s->first.cls != v->cls)
		return false;
	if (s->first.fingerprint && v->fingerprint)
		return strcmp(s->first.fingerprint, v->fingerprint) == 0;
	return !s->first.fingerprint && !v->fingerprint;
}

/*
 * The session in t->dir (a closed one, or another failure's) is to be set
 * aside, telling o. It is archived only when the new one is saved
 * (session_save_over()): a full disk must not leave the user with neither.
 */
static int
archive_old(struct session *old, struct session_opened *o, bool *set_aside)
{
	o->archived_other = old->first.fingerprint != NULL;
	o->archived_status = old->status;
	session_free(old);
	*set_aside = true;
	return 0;
}

/* Resume the session for v's failure (t->s), or set aside what is there. */
static int
resume_or_archive(struct session_txn *t, const struct verdict *v, struct session_opened *o,
		  bool *set_aside, struct pt_err *err)
{
	struct session *old = NULL;

	if (!session_exists(t->dir))
		return 0;
	if (session_load(t->dir, &old, err) < 0)
		return -1;
	if (same_failure(old, v)) {
		t->s = old;
		o->resumed = true;
		return 0;
	}
	return archive_old(old, o, set_aside);
}

/* Which of s's logs has this digest: 0 the first, N attempt N's; -1 none. */
static int
log_seen(const struct session *s, const char *digest)
{
	if (!digest)
		return -1;
	if (s->log_digest && strcmp(s->log_digest, digest) == 0)
		return 0;
	for (size_t i = 0; i < s->nattempts; i++)
		if (s->attempts[i].log_digest && strcmp(s->attempts[i].log_digest, digest) == 0)
			return s->attempts[i].n;
	return -1;
}

/*
 * The loop's choice: a session in progress is kept whatever the log (seen
 * before, or the result of the last change); a closed one is archived.
 * Sessions written before logs had digests: the first log's failure with
 * no attempt yet is taken as the same log.
 */
static int
resume_or_result(struct session_txn *t, const struct verdict *v, const struct session_log *log,
		 struct session_opened *o, bool *set_aside, struct pt_err *err)
{
	struct session *old = NULL;

	if (!session_exists(t->dir))
		return 0;
	if (session_load(t->dir, &old, err) < 0)
		return -1;
	if (old->status != SESSION_IN_PROGRESS)
		return archive_old(old, o, set_aside);
	t->s = old;
	o->seen = log_seen(old, log->digest);
	if (o->seen < 0 && !old->log_digest && old->nattempts == 0 && same_failure(old, v))
		o->seen = 0;
	o->resumed = o->seen >= 0;
	o->result_log = !o->resumed;
	return 0;
}

/* Keep a piped log in the session directory, named as stem says (pt/session.h). */
static int
keep_log(struct session_txn *t, const struct session_log *log, const char *stem,
	 struct session_opened *o, struct pt_err *err)
{
	char digest[SHA256_HEX_LEN + 1];

	if (!log->data)
		return 0;
	if (session_txn_save_log(t, stem, log->data, log->len, &o->saved, digest, err) < 0)
		return -1;
	o->saved_digest = xstrdup(digest);
	return 0;
}

static int
begin_if_new(struct session_txn *t, const struct ruleset *rs, const struct verdict *v,
	     const struct session_log *log, const char *kernel, struct session_opened *o,
	     struct pt_err *err)
{
	bool existed;

	if (!t->s) {
		t->s = session_new();
		session_begin(t->s, rs, v, log->name, session_txn_now(t));
		if (keep_log(t, log, "first", o, err) < 0)
			return -1;
		t->s->log_digest = dup_or_null(log->digest);
		t->s->log_saved = dup_or_null(o->saved);
	}
	if (kernel && !t->s->pre_debug) {
		if (session_save_pre_debug(t->s, kernel, &existed, err) < 0)
			return -1;
		o->pre_debug = existed ? PRE_DEBUG_KEPT : PRE_DEBUG_SAVED;
	}
	return 0;
}

/* How the store treats a session in the directory, for a log the user names. */
enum open_mode {
	OPEN_START,                 /* session start: resume the same failure, archive any other */
	OPEN_LOOP,                  /* the loop: keep one in progress, whatever the log */
};

static int
open_with(enum open_mode mode, struct session_txn *t, const struct ruleset *rs, const char *dir,
	  const struct verdict *v, const struct session_log *log, const char *kernel,
	  const char *fixed_now, struct session_opened *o, struct pt_err *err)
{
	bool set_aside = false;

	memset(o, 0, sizeof(*o));
	o->seen = -1;
	/* check before an old session is archived for nothing */
	if (kernel && access(kernel, R_OK) != 0)
		return pt_err_errno(err, PT_EXIT_DATA, "cannot read the kernel '%s'", kernel);
	if (txn_lock(t, dir, fixed_now, err) < 0)
		return -1;
	if ((mode == OPEN_START ? resume_or_archive(t, v, o, &set_aside, err) :
	     resume_or_result(t, v, log, o, &set_aside, err)) < 0)
		return -1;
	if (begin_if_new(t, rs, v, log, kernel, o, err) < 0)
		return -1;
	if (o->result_log && keep_log(t, log, NULL, o, err) < 0)
		return -1;
	if (set_aside)
		return session_save_over(t->s, dir, &o->archived, err);
	return session_save(t->s, dir, err);
}

int
session_open_for(struct session_txn *t, const struct ruleset *rs, const char *dir,
		 const struct verdict *v, const struct session_log *log, const char *kernel,
		 const char *fixed_now, struct session_opened *o, struct pt_err *err)
{
	return open_with(OPEN_START, t, rs, dir, v, log, kernel, fixed_now, o, err);
}

int
session_open_loop(struct session_txn *t, const struct ruleset *rs, const char *dir,
		  const struct verdict *v, const struct session_log *log, const char *kernel,
		  const char *fixed_now, struct session_opened *o, struct pt_err *err)
{
	return open_with(OPEN_LOOP, t, rs, dir, v, log, kernel, fixed_now, o, err);
}

void
session_opened_release(struct session_opened *o)
{
	free(o->archived);
	free(o->saved);
	free(o->saved_digest);
	o->archived = o->saved = o->saved_digest = NULL;
}

const char *
session_txn_now(struct session_txn *t)
{
	return util_now(&t->now, t->fixed_now);
}

/* Stopped without a fix, or fixed with the last attempt: the method's
 * escalation point, where the report is written without being asked. */
static bool
wants_report(const struct session *s)
{
	if (s->status == SESSION_IN_PROGRESS || s->report_md)
		return false;
	return s->status == SESSION_BLOCKED || s->nattempts >= SESSION_ATTEMPT_CAP;
}

static int
write_report(struct session_txn *t, const struct ruleset *rs, bool redact, struct pt_err *err)
{
	struct session *s = t->s;
	struct report r;
	char *md = NULL, *js = NULL, *where = session_report_dir(t->dir);
	int rc;

	report_build(&r, s, rs, redact);
	rc = report_write_files(&r, where, &md, &js, err);
	free(where);
	report_release(&r);
	if (rc < 0)
		return -1;
	free(s->report_md);
	free(s->report_json);
	s->report_md = md;
	s->report_json = js;
	return 0;
}

int
session_commit(struct session_txn *t, const struct ruleset *rs, bool redact, struct pt_err *err)
{
	struct session *s = t->s;

	free(s->updated);
	s->updated = xstrdup(session_txn_now(t));
	if (session_save(s, t->dir, err) < 0)
		return -1;
	if (!wants_report(s))
		return 0;
	if (write_report(t, rs, redact, err) < 0)
		return -1;
	return session_save(s, t->dir, err);
}

int
session_txn_save_log(struct session_txn *t, const char *stem, const char *data, size_t len,
		     char **path, char *digest, struct pt_err *err)
{
	char hex[SHA256_HEX_LEN + 1], *name, *p;
	int rc = -1, dfd, ldfd = -1;

	sha256_hex(data, len, hex);
	if (stem)
		name = xasprintf("%s-%.12s.log", stem, hex);
	else
		name = xasprintf("attempt-%zu-%.12s.log", t->s->nattempts + 1, hex);
	p = xasprintf("%s/logs/%s", t->dir, name);
	if ((dfd = session_dir_open(t->dir, false, err)) >= 0 &&
	    (ldfd = session_subdir_open(dfd, t->dir, "logs", true, err)) >= 0)
		rc = util_write_atomic_at(ldfd, name, p, data, len, err);
	if (digest)
		memcpy(digest, hex, sizeof(hex));
	if (ldfd >= 0)
		close(ldfd);
	if (dfd >= 0)
		close(dfd);
	free(name);
	if (rc < 0) {
		free(p);
		return -1;
	}
	*path = p;
	return 0;
}

void
session_txn_drop_log(struct session_txn *t, const char *path)
{
	const char *name = path ? strrchr(path, '/') : NULL;
	int dfd, ldfd = -1;

	if (!name)
		return;
	if ((dfd = session_dir_open(t->dir, false, NULL)) >= 0 &&
	    (ldfd = session_subdir_open(dfd, t->dir, "logs", false, NULL)) >= 0)
		unlinkat(ldfd, name + 1, 0);
	if (ldfd >= 0)
		close(ldfd);
	if (dfd >= 0)
		close(dfd);
}

void
session_txn_release(struct session_txn *t)
{
	session_unlock(t->lock);
	session_free(t->s);
	t->lock = -1;
	t->s = NULL;
}
