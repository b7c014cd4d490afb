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

/* Resume the session for v's failure (t->s), or archive what is there. */
static int
resume_or_archive(struct session_txn *t, const struct verdict *v, struct session_opened *o,
		  struct pt_err *err)
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
	o->archived_other = old->first.fingerprint != NULL;
	o->archived_status = old->status;
	session_free(old);
	return session_archive(t->dir, &o->archived, err);
}

int
session_open_for(struct session_txn *t, const char *dir, const struct verdict *v,
		 const char *log_name, const char *kernel, const char *fixed_now,
		 struct session_opened *o, struct pt_err *err)
{
	bool existed;

	memset(o, 0, sizeof(*o));
	/* check before an old session is archived for nothing */
	if (kernel && access(kernel, R_OK) != 0)
		return pt_err_errno(err, PT_EXIT_DATA, "cannot read the kernel '%s'", kernel);
	if (txn_lock(t, dir, fixed_now, err) < 0 || resume_or_archive(t, v, o, err) < 0)
		return -1;
	if (!t->s) {
		t->s = session_new();
		session_begin(t->s, v, log_name, session_txn_now(t));
	}
	if (kernel && !t->s->pre_debug) {
		if (session_save_pre_debug(t->s, kernel, &existed, err) < 0)
			return -1;
		o->pre_debug = existed ? PRE_DEBUG_KEPT : PRE_DEBUG_SAVED;
	}
	return session_save(t->s, dir, err);
}

void
session_opened_release(struct session_opened *o)
{
	free(o->archived);
	o->archived = NULL;
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

char *
session_report_dir(const char *dir)
{
	size_t n = strlen(dir);
	const char *slash;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	for (slash = dir + n; slash > dir && slash[-1] != '/'; slash--)
		;
	if (slash == dir)
		return xstrdup(".");
	while (slash > dir + 1 && slash[-2] == '/')
		slash--;
	return slash == dir + 1 ? xstrdup("/") : xstrndup(dir, (size_t)(slash - dir - 1));
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
session_txn_save_log(struct session_txn *t, const char *data, size_t len, char **path,
		     struct pt_err *err)
{
	char *logs = xasprintf("%s/logs", t->dir);
	char *p = xasprintf("%s/attempt-%zu.log", logs, t->s->nattempts + 1);
	int rc = util_mkdirs(logs, err) < 0 ? -1 : util_write_atomic(p, data, len, err);

	free(logs);
	if (rc < 0) {
		free(p);
		return -1;
	}
	*path = p;
	return 0;
}

void
session_txn_release(struct session_txn *t)
{
	session_unlock(t->lock);
	session_free(t->s);
	t->lock = -1;
	t->s = NULL;
}
