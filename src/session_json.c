/* SPDX-License-Identifier: MIT */
/*
 * Session persistence: JSON through pt/json.h, a schema_version, strict
 * type checks that name the field, atomic saves, and the lock that
 * serialises writers. The format is documented in docs/sessions.md; keys are
 * written in a fixed order so saved files diff cleanly.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt/json.h"
#include "pt/ladder.h"
#include "pt/session.h"
#include "pt/sha256.h"
#include "pt/util.h"
#include "pt/xalloc.h"

static const char *
class_or_null(enum pt_class c)
{
	return c < CLASS_COUNT ? class_name(c) : NULL;
}

static void
vars_to_json(struct json *parent, const char *key, const struct vars *vs)
{
	struct json *o = json_add_object(parent, key);

	for (size_t i = 0; i < vs->n; i++)
		json_add_str(o, vs->v[i].name, vs->v[i].value);
}

static void
snapshot_to_json(struct json *parent, const char *key, const struct verdict_snapshot *d)
{
	struct json *o = json_add_object(parent, key), *sc, *ev;

	json_add_str(o, "class", class_name(d->cls));
	json_add_str(o, "subkind", d->subkind);
	json_add_num(o, "confidence", d->confidence);
	sc = json_add_object(o, "scores");
	for (int c = 0; c < CLASS_COUNT; c++)
		json_add_num(sc, class_name((enum pt_class)c), d->scores[c]);
	json_add_str(o, "runner_up", class_or_null(d->runner_up));
	json_add_str(o, "rule", d->rule);
	json_add_str(o, "message", d->message);
	json_add_str(o, "reason", d->reason);
	json_add_str(o, "key_line", d->key_line);
	json_add_int(o, "key_lineno", (long long)d->key_lineno);
	json_add_str(o, "location", d->location);
	json_add_str(o, "fingerprint", d->fingerprint);
	json_add_str(o, "fingerprint_text", d->fingerprint_text);
	ev = json_add_array(o, "evidence");
	for (size_t i = 0; i < d->nev; i++) {
		struct json *e = json_push_object(ev);

		json_add_int(e, "line", (long long)d->ev[i].line);
		json_add_str(e, "rule", d->ev[i].rule);
		json_add_str(e, "text", d->ev[i].text);
	}
	vars_to_json(o, "vars", &d->vars);
}

static void
attempt_to_json(struct json *o, const struct attempt *a)
{
	json_add_int(o, "n", a->n);
	json_add_str(o, "rung", a->rung);
	json_add_str(o, "family", a->family);
	json_add_str(o, "change", a->change);
	json_add_str(o, "result", attempt_result_name(a->result));
	json_add_str(o, "class_before", class_name(a->cls_before));
	json_add_str(o, "class_after", class_or_null(a->cls_after));
	json_add_str(o, "subkind_after", a->subkind_after);
	json_add_str(o, "fingerprint", a->fingerprint);
	json_add_str(o, "log", a->log);
	json_add_str(o, "log_digest", a->log_digest);
	json_add_str(o, "key_line", a->key_line);
	json_add_str(o, "rung_values", a->rung_values);
	json_add_str(o, "note", a->note);
	json_add_str(o, "kernel_copy", a->kernel_copy);
	json_add_str(o, "kernel_diff", a->kernel_diff);
	json_add_str(o, "time", a->time);
}

static void
ruled_to_json(struct json *parent, const struct session *s)
{
	struct json *a = json_add_array(parent, "ruled_out");

	for (size_t i = 0; i < s->nruled; i++) {
		struct json *o = json_push_object(a);

		json_add_str(o, "class", class_name(s->ruled[i].cls));
		json_add_str(o, "subkind", s->ruled[i].subkind);
		json_add_str(o, "reason", s->ruled[i].reason);
		json_add_str(o, "source", ruling_source_name(s->ruled[i].source));
	}
}

static void
asserted_to_json(struct json *parent, const struct session *s)
{
	struct json *a = json_add_array(parent, "asserted");

	for (size_t i = 0; i < s->nasserted; i++) {
		struct json *o = json_push_object(a);

		json_add_str(o, "context", s->asserted[i].context);
		json_add_str(o, "why", s->asserted[i].why);
	}
}

static void
lists_to_json(struct json *o, const struct session *s)
{
	struct json *tr = json_add_array(o, "trajectory"), *at, *sk;

	for (size_t i = 0; i < s->ntraj; i++) {
		struct json *t = json_push_object(tr);

		json_add_str(t, "class", class_or_null(s->traj[i].cls));
		json_add_str(t, "subkind", s->traj[i].subkind);
		json_add_str(t, "why", s->traj[i].why);
	}
	at = json_add_array(o, "attempts");
	for (size_t i = 0; i < s->nattempts; i++)
		attempt_to_json(json_push_object(at), &s->attempts[i]);
	sk = json_add_array(o, "skipped");
	for (size_t i = 0; i < s->nskipped; i++) {
		struct json *k = json_push_object(sk);

		json_add_str(k, "rung", s->skipped[i].rung);
		json_add_str(k, "time", s->skipped[i].time);
	}
}

static void
current_to_json(struct json *parent, const struct session *s)
{
	struct json *o = json_add_object(parent, "current"), *ex;

	json_add_str(o, "class", class_name(s->cls));
	json_add_str(o, "subkind", s->subkind);
	json_add_str(o, "fingerprint", s->fingerprint);
	json_add_int(o, "same_streak", s->same_streak);
	ex = json_add_array(o, "exhausted_families");
	for (size_t i = 0; i < s->nexhausted; i++)
		json_push_str(ex, s->exhausted[i]);
	vars_to_json(o, "vars", &s->vars);
}

static void
tail_to_json(struct json *o, const struct session *s)
{
	const struct pending *p = &s->pending;
	struct json *j;

	if (p->rung) {
		j = json_add_object(o, "pending");
		json_add_str(j, "rung", p->rung);
		json_add_str(j, "result", p->result >= 0 ?
			     attempt_result_name((enum attempt_result)p->result) : NULL);
		json_add_str(j, "change", p->change);
		json_add_str(j, "log", p->log);
		json_add_str(j, "log_digest", p->log_digest);
	} else {
		json_add_null(o, "pending");
	}
	if (s->report_md || s->report_json) {
		j = json_add_object(o, "report");
		json_add_str(j, "md", s->report_md);
		json_add_str(j, "json", s->report_json);
	} else {
		json_add_null(o, "report");
	}
	json_add_str(o, "finding", s->finding);
}

static char *
detach_text(struct json *root)
{
	struct buf b = BUF_INIT;

	json_write(root, &b);
	json_free(root);
	return buf_detach(&b, NULL);
}

char *
session_format(const struct session *s)
{
	struct json *o = json_new_object();

	json_add_int(o, "schema_version", SESSION_SCHEMA_VERSION);
	json_add_str(o, "tool", s->tool);
	json_add_str(o, "created", s->created);
	json_add_str(o, "updated", s->updated);
	json_add_str(o, "status", session_status_name(s->status));
	json_add_str(o, "log", s->log);
	json_add_str(o, "log_saved", s->log_saved);
	json_add_str(o, "log_digest", s->log_digest);
	json_add_str(o, "kernel", s->kernel);
	json_add_str(o, "pre_debug", s->pre_debug);
	json_add_str(o, "interpret", interp_answer_name(s->interp));
	snapshot_to_json(o, "diagnosis", &s->first);
	if (s->latest)
		snapshot_to_json(o, "latest", s->latest);
	else
		json_add_null(o, "latest");
	asserted_to_json(o, s);
	current_to_json(o, s);
	ruled_to_json(o, s);
	lists_to_json(o, s);
	tail_to_json(o, s);
	return detach_text(o);
}

/*
 * Loading. Every accessor checks the type and, on the first problem, fills
 * the error with the field's path ("'attempts[2].result' must be a string")
 * and marks the parse failed; later accessors are then no-ops, so the
 * loaders read straight through and check `failed` once.
 */
struct jp {
	const char *file;
	struct pt_err *err;
	bool failed;
	long version;               /* the file's schema_version */
};

static void PT_PRINTF(4, 5)
jp_fail(struct jp *j, const char *where, const char *key, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	if (j->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	pt_err_set(j->err, PT_EXIT_DATA, "%s: '%s%s%s' %s", j->file, where,
		   *where && *key ? "." : "", key, what);
	j->failed = true;
}

/* Fields that may be null may also be left out; the others are required. */
static const struct json *
jfield(struct jp *j, const struct json *o, const char *where, const char *key, bool nullable)
{
	const struct json *v = json_get(o, key);

	if (j->failed)
		return NULL;
	if (!v && !nullable)
		jp_fail(j, where, key, "is missing");
	if (v && nullable && json_kind(v) == JSON_NULL)
		return NULL;
	return v;
}

static char *
jstr(struct jp *j, const struct json *o, const char *where, const char *key, bool nullable)
{
	const struct json *v = jfield(j, o, where, key, nullable);
	const char *str;

	if (!v)
		return NULL;
	if (json_str_value(v, &str) < 0) {
		jp_fail(j, where, key, "must be a string%s", nullable ? " or null" : "");
		return NULL;
	}
	return xstrdup(str);
}

static double
jnum(struct jp *j, const struct json *o, const char *where, const char *key, double min,
     double max)
{
	const struct json *v = jfield(j, o, where, key, false);
	double d;

	if (!v)
		return min;
	if (json_num_value(v, &d) < 0) {
		jp_fail(j, where, key, "must be a number");
		return min;
	}
	if (!(d >= min && d <= max)) {
		jp_fail(j, where, key, "must be between %g and %g", min, max);
		return min;
	}
	return d;
}

static long
jint(struct jp *j, const struct json *o, const char *where, const char *key, long min, long max)
{
	const struct json *v = jfield(j, o, where, key, false);
	long long n;

	if (!v)
		return min;
	if (json_int_value(v, &n) < 0) {
		jp_fail(j, where, key, "must be a whole number");
		return min;
	}
	if (n < min || n > max) {
		jp_fail(j, where, key, "must be between %ld and %ld", min, max);
		return min;
	}
	return (long)n;
}

/* An enum stored as one of name(0..n-1); returns -1 (after failing) otherwise. */
/* A log's SHA-256 in hex, or null: it is compared, so a malformed one is an error. */
static char *
jdigest(struct jp *j, const struct json *o, const char *where, const char *key)
{
	char *d = jstr(j, o, where, key, true);

	if (d && !sha256_hex_valid(d)) {
		jp_fail(j, where, key, "must be 64 hex digits (a SHA-256) or null");
		free(d);
		return NULL;
	}
	return d;
}

static int
jenum(struct jp *j, const struct json *o, const char *where, const char *key,
      const char *(*name)(int), int n, bool nullable)
{
	char *s = jstr(j, o, where, key, nullable);
	int found = -1;
	struct buf all = BUF_INIT;

	if (!s)
		return -1;
	for (int i = 0; i < n; i++)
		if (strcmp(s, name(i)) == 0)
			found = i;
	if (found < 0) {
		for (int i = 0; i < n; i++)
			buf_addf(&all, "%s%s", i ? ", " : "", name(i));
		jp_fail(j, where, key, "is '%s'; must be one of %s", s, all.data);
	}
	buf_release(&all);
	free(s);
	return found;
}

static const char *cls_name(int i) { return class_name((enum pt_class)i); }
static const char *res_name(int i) { return attempt_result_name((enum attempt_result)i); }
static const char *int_name(int i) { return interp_answer_name((enum interp_answer)i); }
static const char *st_name(int i) { return session_status_name((enum session_status)i); }
static const char *src_name(int i) { return ruling_source_name((enum ruling_source)i); }

static enum pt_class
jclass(struct jp *j, const struct json *o, const char *where, const char *key, bool nullable)
{
	int c = jenum(j, o, where, key, cls_name, CLASS_COUNT, nullable);

	return c < 0 ? (nullable ? CLASS_COUNT : CLASS_UNKNOWN) : (enum pt_class)c;
}

static const struct json *
jtyped(struct jp *j, const struct json *o, const char *where, const char *key, bool array)
{
	const struct json *v = jfield(j, o, where, key, false);

	if (v && json_kind(v) != (array ? JSON_ARRAY : JSON_OBJECT)) {
		jp_fail(j, where, key, "must be %s", array ? "an array" : "an object");
		return NULL;
	}
	return v;
}

/*
 * The first element of the array key of o (NULL when it is empty); *n gets
 * the count, which must not exceed max. Loops walk on with json_next():
 * counting or indexing the array on each step made a large file take
 * minutes to load.
 */
static const struct json *
jlist(struct jp *j, const struct json *o, const char *where, const char *key, size_t max,
      size_t *n)
{
	const struct json *arr = jtyped(j, o, where, key, true);

	*n = json_len(arr);
	if (*n > max) {
		jp_fail(j, where, key, "holds %zu entries; at most %zu are allowed", *n, max);
		*n = 0;
	}
	return *n ? json_first(arr, NULL) : NULL;
}

/* Element e of an array, which must be an object. */
static const struct json *
jelem(struct jp *j, const struct json *e, const char *where)
{
	if (j->failed)
		return NULL;
	if (json_kind(e) != JSON_OBJECT) {
		jp_fail(j, where, "", "must be an object");
		return NULL;
	}
	return e;
}

/* A string that is a name of the rules (pt/rules.h): what says which kind. */
static char *
jname(struct jp *j, const struct json *o, const char *where, const char *key, bool nullable,
      bool (*valid)(const char *), const char *what)
{
	char *s = jstr(j, o, where, key, nullable);

	if (s && !valid(s)) {
		jp_fail(j, where, key, "is '%s', which is no %s", s, what);
		free(s);
		return NULL;
	}
	return s;
}

/* A rung id, family, subkind or fingerprint (rules_name_valid()). */
static char *
jid(struct jp *j, const struct json *o, const char *where, const char *key, bool nullable,
    const char *what)
{
	return jname(j, o, where, key, nullable, rules_name_valid, what);
}

static char *
jrule(struct jp *j, const struct json *o, const char *where, const char *key)
{
	return jname(j, o, where, key, true, rules_rule_id_valid, "rule id");
}

static char *
jtime(struct jp *j, const struct json *o, const char *where, const char *key)
{
	char *s = jstr(j, o, where, key, false);

	if (s && !util_time_valid(s)) {
		jp_fail(j, where, key, "is '%s'; must be a UTC time like 2025-01-31T12:00:00Z", s);
		free(s);
		return NULL;
	}
	return s;
}

static void
jvars(struct jp *j, const struct json *o, const char *where, const char *key, struct vars *vs)
{
	const struct json *m = jtyped(j, o, where, key, false), *e;
	const char *name = NULL, *val;
	char sub[96];
	size_t n = json_len(m);

	snprintf(sub, sizeof(sub), "%s%s%s", where, *where ? "." : "", key);
	if (n > SESSION_MAX_VARS) {
		jp_fail(j, where, key, "holds %zu values; at most %d are allowed", n,
			SESSION_MAX_VARS);
		return;
	}
	for (e = json_first(m, &name); e && !j->failed; e = json_next(e, &name)) {
		if (!rules_var_name_valid(name))
			jp_fail(j, sub, "", "has a value named '%s', which is no value's name", name);
		else if (json_str_value(e, &val) < 0)
			jp_fail(j, sub, name, "must be a string");
		else
			vars_set(vs, name, val, true);
	}
}

static void
load_evidence(struct jp *j, const struct json *d, const char *w, struct verdict_snapshot *dg)
{
	size_t n;
	const struct json *e = jlist(j, d, w, "evidence", SESSION_MAX_LIST, &n);
	char where[64];

	dg->ev = xcalloc(n + 1, sizeof(*dg->ev));
	for (size_t i = 0; e; e = json_next(e, NULL), i++) {
		snprintf(where, sizeof(where), "%s.evidence[%zu]", w, i);
		if (!jelem(j, e, where))
			return;
		dg->ev[i].line = (size_t)jint(j, e, where, "line", 0, 1L << 40);
		dg->ev[i].rule = jrule(j, e, where, "rule");
		dg->ev[i].text = jstr(j, e, where, "text", false);
		dg->nev = i + 1;
	}
}

/* The diagnosis under key w of root (the first log's, or the latest's). */
static void
load_snapshot_at(struct jp *j, const struct json *d, const char *w, struct verdict_snapshot *dg)
{
	const struct json *sc;
	char scores[32];

	snprintf(scores, sizeof(scores), "%s.scores", w);
	dg->cls = jclass(j, d, w, "class", false);
	dg->subkind = jid(j, d, w, "subkind", true, "subkind");
	dg->confidence = jnum(j, d, w, "confidence", 0, 1);
	if ((sc = jtyped(j, d, w, "scores", false)))
		for (int c = 0; c < CLASS_COUNT; c++)
			dg->scores[c] = jnum(j, sc, scores, class_name((enum pt_class)c), 0, 1);
	dg->runner_up = jclass(j, d, w, "runner_up", true);
	dg->rule = jrule(j, d, w, "rule");
	dg->message = jstr(j, d, w, "message", true);
	dg->reason = jstr(j, d, w, "reason", true);
	dg->key_line = jstr(j, d, w, "key_line", true);
	dg->key_lineno = (size_t)jint(j, d, w, "key_lineno", 0, 1L << 40);
	dg->location = jstr(j, d, w, "location", true);
	dg->fingerprint = jid(j, d, w, "fingerprint", true, "fingerprint");
	dg->fingerprint_text = jstr(j, d, w, "fingerprint_text", true);
	load_evidence(j, d, w, dg);
	jvars(j, d, w, "vars", &dg->vars);
}

/* "class/family": a class of ours and a name. */
static bool
class_family_valid(const char *s)
{
	const char *slash = strchr(s, '/');
	char cls[32];

	if (!slash || (size_t)(slash - s) >= sizeof(cls))
		return false;
	memcpy(cls, s, (size_t)(slash - s));
	cls[slash - s] = '\0';
	return class_from_name(cls) < CLASS_COUNT && rules_name_valid(slash + 1);
}

static void
load_snapshots(struct jp *j, const struct json *root, struct session *s)
{
	const struct json *d = jtyped(j, root, "", "diagnosis", false);
	const struct json *l = jfield(j, root, "", "latest", true);

	if (d)
		load_snapshot_at(j, d, "diagnosis", &s->first);
	if (l && json_kind(l) != JSON_OBJECT) {
		jp_fail(j, "", "latest", "must be an object or null");
	} else if (l) {
		s->latest = xcalloc(1, sizeof(*s->latest));
		s->latest->runner_up = CLASS_COUNT;
		load_snapshot_at(j, l, "latest", s->latest);
	}
}

static void
load_asserted(struct jp *j, const struct json *root, struct session *s)
{
	size_t n = 0;
	const struct json *e = json_get(root, "asserted") ?
			       jlist(j, root, "", "asserted", SESSION_MAX_LIST, &n) : NULL;
	char where[48];

	s->asserted = xcalloc(n + 1, sizeof(*s->asserted));
	for (size_t i = 0; e; e = json_next(e, NULL), i++) {
		snprintf(where, sizeof(where), "asserted[%zu]", i);
		if (!jelem(j, e, where))
			return;
		s->asserted[i].context = jid(j, e, where, "context", false, "context");
		s->asserted[i].why = jstr(j, e, where, "why", false);
		s->nasserted = i + 1;
		if (j->failed)
			return;
	}
}

static void
load_current(struct jp *j, const struct json *root, struct session *s)
{
	const struct json *c = jtyped(j, root, "", "current", false), *e;
	const char *w = "current";
	size_t n;

	if (!c)
		return;
	s->cls = jclass(j, c, w, "class", false);
	s->subkind = jid(j, c, w, "subkind", true, "subkind");
	s->fingerprint = jid(j, c, w, "fingerprint", true, "fingerprint");
	s->same_streak = (int)jint(j, c, w, "same_streak", 0, SESSION_ATTEMPT_CAP);
	e = jlist(j, c, w, "exhausted_families", SESSION_MAX_LIST, &n);
	s->exhausted = xcalloc(n + 1, sizeof(*s->exhausted));
	for (size_t i = 0; e && !j->failed; e = json_next(e, NULL), i++) {
		const char *str;
		char key[48];

		if (json_str_value(e, &str) < 0 || !class_family_valid(str)) {
			snprintf(key, sizeof(key), "exhausted_families[%zu]", i);
			jp_fail(j, w, key, "must be a string 'class/family'");
			break;
		}
		s->exhausted[i] = xstrdup(str);
		s->nexhausted = i + 1;
	}
	jvars(j, c, w, "vars", &s->vars);
}

/*
 * Schema 1 kept no source: the model told an interpret-mode ruling by its
 * sentence. These are those sentences as version 1 wrote them, frozen
 * here so that rewording the rules never changes how an old file reads.
 */
static enum ruling_source
v1_source(const char *reason)
{
	static const char *const v1_interpret[] = {
		"reproduces under interpret mode, so not layout, capacity or precision: "
		"interpret mode models none of them",
		"does not reproduce under interpret mode, so not a logic or indexing bug: "
		"those fail on CPU too",
	};
	static const char v1_from_log[] = "the log is interpret-mode output and shows the "
		"failure, so not layout, capacity or precision: interpret mode models none of them";
	static const char v1_attempt[] = "the failure survives attempt ";

	if (!reason)
		return RULING_RUN;
	for (size_t i = 0; i < ARRAY_SIZE(v1_interpret); i++)
		if (strcmp(reason, v1_interpret[i]) == 0)
			return RULING_INTERPRET;
	if (strcmp(reason, v1_from_log) == 0)
		return RULING_INTERPRET_LOG;
	if (strncmp(reason, v1_attempt, sizeof(v1_attempt) - 1) == 0)
		return RULING_ATTEMPT;
	return RULING_RUN;
}

static void
load_ruled(struct jp *j, const struct json *root, struct session *s)
{
	size_t n;
	const struct json *e = jlist(j, root, "", "ruled_out", SESSION_MAX_LIST, &n);
	char where[48];
	int src;

	s->ruled = xcalloc(n + 1, sizeof(*s->ruled));
	for (size_t i = 0; e; e = json_next(e, NULL), i++) {
		snprintf(where, sizeof(where), "ruled_out[%zu]", i);
		if (!jelem(j, e, where))
			return;
		s->ruled[i].cls = jclass(j, e, where, "class", false);
		s->ruled[i].subkind = jid(j, e, where, "subkind", true, "subkind");
		s->ruled[i].reason = jstr(j, e, where, "reason", false);
		if (j->version < 2) {
			s->ruled[i].source = v1_source(s->ruled[i].reason);
		} else {
			src = jenum(j, e, where, "source", src_name, RULING_SOURCE_COUNT, false);
			s->ruled[i].source = src < 0 ? RULING_RUN : (enum ruling_source)src;
		}
		s->nruled = i + 1;
	}
}

static void
load_traj(struct jp *j, const struct json *root, struct session *s)
{
	size_t n;
	const struct json *e = jlist(j, root, "", "trajectory", SESSION_MAX_LIST, &n);
	char where[48];

	s->traj = xcalloc(n + 1, sizeof(*s->traj));
	for (size_t i = 0; e; e = json_next(e, NULL), i++) {
		snprintf(where, sizeof(where), "trajectory[%zu]", i);
		if (!jelem(j, e, where))
			return;
		s->traj[i].cls = jclass(j, e, where, "class", true);
		s->traj[i].subkind = jid(j, e, where, "subkind", true, "subkind");
		s->traj[i].why = jstr(j, e, where, "why", false);
		s->ntraj = i + 1;
	}
}

static void
load_attempt(struct jp *j, const struct json *e, const char *where, struct attempt *a, size_t i)
{
	int r;

	a->n = (int)jint(j, e, where, "n", 1, SESSION_ATTEMPT_CAP);
	if (!j->failed && a->n != (int)i + 1)
		jp_fail(j, where, "n", "is %d; must be %zu (attempts are numbered in order)",
			a->n, i + 1);
	a->rung = jid(j, e, where, "rung", false, "rung id");
	a->family = jid(j, e, where, "family", true, "family");
	a->change = jstr(j, e, where, "change", false);
	r = jenum(j, e, where, "result", res_name, RESULT_COUNT, false);
	if (r == RESULT_NA)
		jp_fail(j, where, "result", "cannot be 'n-a': skipped rungs are listed in 'skipped'");
	a->result = r < 0 ? RESULT_SAME : (enum attempt_result)r;
	a->cls_before = jclass(j, e, where, "class_before", false);
	a->cls_after = jclass(j, e, where, "class_after", true);
	a->subkind_after = jid(j, e, where, "subkind_after", true, "subkind");
	a->fingerprint = jid(j, e, where, "fingerprint", true, "fingerprint");
	a->log = jstr(j, e, where, "log", true);
	a->log_digest = jdigest(j, e, where, "log_digest");
	a->key_line = jstr(j, e, where, "key_line", true);
	a->rung_values = jstr(j, e, where, "rung_values", true);
	a->note = jstr(j, e, where, "note", true);
	/* a name in logs/, never a path: a planted one cannot point elsewhere */
	a->kernel_copy = jid(j, e, where, "kernel_copy", true, "file name");
	a->kernel_diff = jstr(j, e, where, "kernel_diff", true);
	a->time = jtime(j, e, where, "time");
}

static void
load_attempts(struct jp *j, const struct json *root, struct session *s)
{
	size_t n;
	const struct json *e = jlist(j, root, "", "attempts", SESSION_ATTEMPT_CAP, &n);
	char where[48];

	s->attempts = xcalloc(n + 1, sizeof(*s->attempts));
	for (size_t i = 0; e; e = json_next(e, NULL), i++) {
		snprintf(where, sizeof(where), "attempts[%zu]", i);
		if (!jelem(j, e, where))
			return;
		load_attempt(j, e, where, &s->attempts[i], i);
		s->nattempts = i + 1;
	}
}

static void
load_skipped(struct jp *j, const struct json *root, struct session *s)
{
	size_t n;
	const struct json *e = jlist(j, root, "", "skipped", SESSION_MAX_LIST, &n);
	char where[48];

	s->skipped = xcalloc(n + 1, sizeof(*s->skipped));
	for (size_t i = 0; e; e = json_next(e, NULL), i++) {
		snprintf(where, sizeof(where), "skipped[%zu]", i);
		if (!jelem(j, e, where))
			return;
		s->skipped[i].rung = jid(j, e, where, "rung", false, "rung id");
		s->skipped[i].time = jtime(j, e, where, "time");
		s->nskipped = i + 1;
	}
}

static void
load_tail(struct jp *j, const struct json *root, struct session *s)
{
	const struct json *p = jfield(j, root, "", "pending", true);
	const struct json *r = jfield(j, root, "", "report", true);

	if (p && json_kind(p) != JSON_OBJECT) {
		jp_fail(j, "", "pending", "must be an object or null");
	} else if (p) {
		s->pending.rung = jid(j, p, "pending", "rung", false, "rung id");
		s->pending.result = jenum(j, p, "pending", "result", res_name, RESULT_COUNT, true);
		s->pending.change = jstr(j, p, "pending", "change", true);
		s->pending.log = jstr(j, p, "pending", "log", true);
		s->pending.log_digest = jdigest(j, p, "pending", "log_digest");
	}
	if (r && json_kind(r) != JSON_OBJECT) {
		jp_fail(j, "", "report", "must be an object or null");
	} else if (r) {
		s->report_md = jstr(j, r, "report", "md", true);
		s->report_json = jstr(j, r, "report", "json", true);
	}
	s->finding = jstr(j, root, "", "finding", true);
}

static void
load_head(struct jp *j, const struct json *root, struct session *s)
{
	int v;

	s->tool = jstr(j, root, "", "tool", true);
	s->created = jtime(j, root, "", "created");
	s->updated = jtime(j, root, "", "updated");
	v = jenum(j, root, "", "status", st_name, SESSION_STATUS_COUNT, false);
	s->status = v < 0 ? SESSION_IN_PROGRESS : (enum session_status)v;
	s->log = jstr(j, root, "", "log", false);
	s->log_saved = jstr(j, root, "", "log_saved", true);
	s->log_digest = jdigest(j, root, "", "log_digest");
	s->kernel = jstr(j, root, "", "kernel", true);
	s->pre_debug = jstr(j, root, "", "pre_debug", true);
	v = jenum(j, root, "", "interpret", int_name, INTERP_COUNT, false);
	s->interp = v < 0 ? INTERP_UNASKED : (enum interp_answer)v;
}

static int
check_version(struct jp *j, const struct json *root)
{
	long long v;

	j->version = 0;
	if (json_int_value(json_get(root, "schema_version"), &v) < 0 || v < 1)
		return pt_err_set(j->err, PT_EXIT_DATA, "%s: 'schema_version' must be a whole "
				  "number from 1", j->file);
	if (v > SESSION_SCHEMA_VERSION)
		return pt_err_set(j->err, PT_EXIT_DATA, "%s: written by a newer pallas-triage "
				  "(schema_version %lld; this one reads up to %d): upgrade pallas-triage",
				  j->file, v, SESSION_SCHEMA_VERSION);
	j->version = (long)v;
	return 0;
}

int
session_parse(const char *text, size_t len, const char *name, struct session **out,
	      struct pt_err *err)
{
	struct jp j = { name, err, false, 0 };
	struct session *s = NULL;
	struct json *root = json_parse(text, len, name, err);

	if (!root)
		return -1;
	if (json_kind(root) != JSON_OBJECT) {
		pt_err_set(err, PT_EXIT_DATA, "%s: must hold a JSON object", name);
		goto fail;
	}
	if (check_version(&j, root) < 0)
		goto fail;
	s = session_new();
	load_head(&j, root, s);
	load_snapshots(&j, root, s);
	load_asserted(&j, root, s);
	load_current(&j, root, s);
	load_ruled(&j, root, s);
	load_traj(&j, root, s);
	load_attempts(&j, root, s);
	load_skipped(&j, root, s);
	load_tail(&j, root, s);
	if (j.failed)
		goto fail;
	json_free(root);
	*out = s;
	return 0;
fail:
	session_free(s);
	json_free(root);
	return -1;
}

static char *
session_path(const char *dir)
{
	return xasprintf("%s/%s", dir, SESSION_FILE);
}

bool
session_exists(const char *dir)
{
	char *p = session_path(dir);
	bool ok = util_is_file(p);

	free(p);
	return ok;
}

bool
session_in_progress(const char *dir)
{
	struct session *s = NULL;
	bool yes;

	if (!session_exists(dir) || session_load(dir, &s, NULL) < 0)
		return false;
	yes = s->status == SESSION_IN_PROGRESS;
	session_free(s);
	return yes;
}

static void
add_reset_hint(struct pt_err *err)
{
	size_t n;

	if (!err)
		return;
	n = strlen(err->msg);
	snprintf(err->msg + n, sizeof(err->msg) - n, "; the file is kept: repair it, or move it "
		 "aside with 'pallas-triage session reset'");
}

int
session_load(const char *dir, struct session **out, struct pt_err *err)
{
	struct buf b = BUF_INIT;
	char *path = session_path(dir);
	int ret = -1, dfd = -1;

	if (util_is_dir(dir) && (dfd = session_dir_open(dir, false, err)) < 0)
		goto out;
	if (!util_is_file(path)) {
		pt_err_set(err, PT_EXIT_FINDING, "no session in '%s'; start one with "
			   "'pallas-triage LOG' at a terminal or 'pallas-triage session start LOG'", dir);
		goto out;
	}
	/* A file too big to be a session is as broken as one that does not
	 * parse; one that cannot be read (permissions) is not. */
	if (util_read_regular_at(dfd, SESSION_FILE, path, &b, SESSION_MAX_BYTES, err) < 0) {
		struct stat st;

		if (stat(path, &st) == 0 && (unsigned long long)st.st_size > SESSION_MAX_BYTES)
			add_reset_hint(err);
		goto out;
	}
	if ((ret = session_parse(b.data, b.len, path, out, err)) < 0)
		add_reset_hint(err);
out:
	if (dfd >= 0)
		close(dfd);
	buf_release(&b);
	free(path);
	return ret;
}

/* A save killed between mkstemp and rename leaves a temp file behind; under
 * the lock no other writer can own one, so they are all stale. */
static void
remove_stale_temps(int dfd)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	size_t plen = strlen(SESSION_FILE ".tmp.");

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)))
		if (strncmp(e->d_name, SESSION_FILE ".tmp.", plen) == 0)
			unlinkat(dfd, e->d_name, 0);
	closedir(d);
}

int
session_save(const struct session *s, const char *dir, struct pt_err *err)
{
	char *text, *path;
	int ret, dfd;

	if ((dfd = session_dir_open(dir, false, err)) < 0)
		return -1;
	text = session_format(s);
	path = session_path(dir);
	remove_stale_temps(dfd);
	ret = util_write_atomic_at(dfd, SESSION_FILE, path, text, strlen(text), err);
	close(dfd);
	free(text);
	free(path);
	return ret;
}

/* The log the latest diagnosis came from: the last attempt's that had one. */
static const char *
latest_log(const struct session *s)
{
	for (size_t i = s->nattempts; i-- > 0;)
		if (s->attempts[i].log)
			return s->attempts[i].log;
	return s->log;
}

static void
rung_to_json(struct json *o, const struct session *s, const struct ruleset *rs,
	     const struct rung *r)
{
	char *change = ladder_change_text(rs, r, &s->vars, NULL);
	char *action = ladder_prose(rs, &s->vars, r->action);
	char *expect = ladder_prose(rs, &s->vars, r->expect);

	json_add_str(o, "rung", r->id);
	json_add_str(o, "family", r->family);
	json_add_str(o, "action", action);
	json_add_str(o, "change", change);
	json_add_str(o, "expect", expect);
	free(change);
	free(action);
	free(expect);
}

/* The failure in front of the user: the latest log's, else the first one's. */
static void
latest_to_json(struct json *parent, const struct session *s)
{
	const struct verdict_snapshot *d = s->latest ? s->latest : &s->first;
	struct json *o = json_add_object(parent, "current_failure");

	json_add_str(o, "class", class_name(d->cls));
	json_add_str(o, "subkind", d->subkind);
	json_add_str(o, "message", d->message ? d->message : d->reason);
	json_add_str(o, "key_line", d->key_line);
	json_add_str(o, "fingerprint", d->fingerprint);
	json_add_str(o, "log", s->latest ? latest_log(s) : s->log);
}

char *
session_status_json(const struct session *s, const struct ruleset *rs,
		    const struct rung *const *plan, size_t nplan, const struct session_news *nw)
{
	struct json *o = json_new_object(), *a;
	bool open = s->status == SESSION_IN_PROGRESS;

	json_add_int(o, "schema_version", SESSION_SCHEMA_VERSION);
	json_add_str(o, "status", session_status_name(s->status));
	json_add_str(o, "class", class_name(s->cls));
	json_add_str(o, "subkind", s->subkind);
	json_add_str(o, "first_class", class_name(s->first.cls));
	json_add_str(o, "fingerprint", s->first.fingerprint);
	json_add_int(o, "attempts_used", (long long)s->nattempts);
	json_add_int(o, "attempt_cap", SESSION_ATTEMPT_CAP);
	json_add_int(o, "same_streak", s->same_streak);
	json_add_str(o, "interpret", interp_answer_name(s->interp));
	latest_to_json(o, s);
	asserted_to_json(o, s);
	ruled_to_json(o, s);
	if (s->nattempts)
		attempt_to_json(json_add_object(o, "last_attempt"), &s->attempts[s->nattempts - 1]);
	else
		json_add_null(o, "last_attempt");
	if (open && nplan)
		rung_to_json(json_add_object(o, "next"), s, rs, plan[0]);
	else
		json_add_null(o, "next");
	a = json_add_array(o, "plan");
	for (size_t i = 0; open && i < nplan; i++)
		json_push_str(a, plan[i]->id);
	a = json_add_array(o, "next_steps");
	for (char **n = session_off_ladder(s) && rs->have_class[CLASS_UNKNOWN] ?
	     rs->classes[CLASS_UNKNOWN].next_steps : NULL; n && *n; n++)
		json_push_str(a, *n);
	a = json_add_array(o, "messages");
	for (size_t i = 0; nw && i < nw->n; i++)
		json_push_str(a, nw->msg[i]);
	json_add_str(o, "report_md", s->report_md);
	json_add_str(o, "report_json", s->report_json);
	return detach_text(o);
}

char *
session_log_json(const struct session *s)
{
	struct json *o = json_new_object();

	json_add_int(o, "schema_version", SESSION_SCHEMA_VERSION);
	json_add_str(o, "status", session_status_name(s->status));
	lists_to_json(o, s);
	return detach_text(o);
}
