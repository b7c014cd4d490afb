/* SPDX-License-Identifier: MIT */
/*
 * The session model and its transitions: snapshot a verdict, apply the
 * interpret-mode partition, record attempts, move past a family after the
 * same error SESSION_SAME_LIMIT times, stop at SESSION_ATTEMPT_CAP. It never
 * touches the terminal; what the user should be told goes into a
 * struct session_news. Persistence is in session_json.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt/buf.h"
#include "pt/ladder.h"
#include "pt/session.h"
#include "pt/session_model.h"
#include "pt/util.h"
#include "pt/xalloc.h"

static const char *const result_names[RESULT_COUNT] = { "fixed", "same", "new", "n-a" };
static const char *const interp_names[INTERP_COUNT] = {
	"unasked", "reproduces", "does-not-reproduce", "skipped",
};
static const char *const status_names[SESSION_STATUS_COUNT] = {
	"in-progress", "resolved", "blocked",
};
static const char *const source_names[RULING_SOURCE_COUNT] = {
	"interpret", "interpret-log", "attempt", "run",
};

const char *
attempt_result_name(enum attempt_result r)
{
	return r < RESULT_COUNT ? result_names[r] : "?";
}

int
attempt_result_parse(const char *s, enum attempt_result *out)
{
	static const struct { const char *alias; enum attempt_result r; } aliases[] = {
		{ "different", RESULT_NEW }, { "n/a", RESULT_NA }, { "na", RESULT_NA },
	};

	for (int i = 0; i < RESULT_COUNT; i++)
		if (strcmp(s, result_names[i]) == 0)
			return *out = (enum attempt_result)i, 0;
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++)
		if (strcmp(s, aliases[i].alias) == 0)
			return *out = aliases[i].r, 0;
	return -1;
}

const char *
interp_answer_name(enum interp_answer a)
{
	return a < INTERP_COUNT ? interp_names[a] : "?";
}

int
interp_answer_parse(const char *s, enum interp_answer *out)
{
	static const struct { const char *alias; enum interp_answer a; } aliases[] = {
		{ "yes", INTERP_REPRODUCES }, { "y", INTERP_REPRODUCES },
		{ "no", INTERP_NO_REPRO }, { "n", INTERP_NO_REPRO },
		{ "skip", INTERP_SKIPPED }, { "s", INTERP_SKIPPED },
	};

	for (int i = INTERP_REPRODUCES; i < INTERP_COUNT; i++)
		if (strcmp(s, interp_names[i]) == 0)
			return *out = (enum interp_answer)i, 0;
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++)
		if (strcmp(s, aliases[i].alias) == 0)
			return *out = aliases[i].a, 0;
	return -1;
}

const char *
session_status_name(enum session_status st)
{
	return st < SESSION_STATUS_COUNT ? status_names[st] : "?";
}

const char *
ruling_source_name(enum ruling_source src)
{
	return src < RULING_SOURCE_COUNT ? source_names[src] : "?";
}

struct session *
session_new(void)
{
	struct session *s = xcalloc(1, sizeof(*s));

	s->schema_version = SESSION_SCHEMA_VERSION;
	s->first.runner_up = CLASS_COUNT;
	s->first.cls = CLASS_UNKNOWN;
	s->cls = CLASS_UNKNOWN;
	s->pending.result = -1;
	return s;
}

static void
snapshot_release(struct verdict_snapshot *d)
{
	free(d->subkind);
	free(d->rule);
	free(d->message);
	free(d->reason);
	free(d->key_line);
	free(d->location);
	free(d->fingerprint);
	free(d->fingerprint_text);
	for (size_t i = 0; i < d->nev; i++) {
		free(d->ev[i].rule);
		free(d->ev[i].text);
	}
	free(d->ev);
	vars_release(&d->vars);
}

static void
attempt_release(struct attempt *a)
{
	free(a->rung);
	free(a->family);
	free(a->change);
	free(a->subkind_after);
	free(a->fingerprint);
	free(a->log);
	free(a->log_digest);
	free(a->key_line);
	free(a->rung_values);
	free(a->note);
	free(a->kernel_copy);
	free(a->kernel_diff);
	free(a->time);
}

void
session_pending_clear(struct session *s)
{
	free(s->pending.rung);
	free(s->pending.change);
	free(s->pending.log);
	free(s->pending.log_digest);
	memset(&s->pending, 0, sizeof(s->pending));
	s->pending.result = -1;
}

void
session_pending_start(struct session *s, const char *rung)
{
	if (s->pending.rung && strcmp(s->pending.rung, rung) == 0)
		return;
	session_pending_clear(s);
	s->pending.rung = xstrdup(rung);
}

void
session_pending_set_result(struct session *s, enum attempt_result r)
{
	s->pending.result = (int)r;
}

void
session_pending_set_change(struct session *s, const char *change)
{
	free(s->pending.change);
	s->pending.change = dup_or_null(change);
}

void
session_pending_set_log(struct session *s, const char *path, const char *digest)
{
	free(s->pending.log);
	free(s->pending.log_digest);
	s->pending.log = dup_or_null(path);
	s->pending.log_digest = dup_or_null(digest);
}

void
session_free(struct session *s)
{
	if (!s)
		return;
	free(s->tool);
	free(s->created);
	free(s->updated);
	free(s->log);
	free(s->log_saved);
	free(s->log_digest);
	free(s->kernel);
	free(s->pre_debug);
	snapshot_release(&s->first);
	if (s->latest)
		snapshot_release(s->latest);
	free(s->latest);
	for (size_t i = 0; i < s->nasserted; i++) {
		free(s->asserted[i].context);
		free(s->asserted[i].why);
	}
	free(s->asserted);
	free(s->subkind);
	free(s->fingerprint);
	vars_release(&s->vars);
	for (size_t i = 0; i < s->nexhausted; i++)
		free(s->exhausted[i]);
	free(s->exhausted);
	for (size_t i = 0; i < s->nattempts; i++)
		attempt_release(&s->attempts[i]);
	free(s->attempts);
	for (size_t i = 0; i < s->nskipped; i++) {
		free(s->skipped[i].rung);
		free(s->skipped[i].time);
	}
	free(s->skipped);
	for (size_t i = 0; i < s->nruled; i++) {
		free(s->ruled[i].subkind);
		free(s->ruled[i].reason);
	}
	free(s->ruled);
	for (size_t i = 0; i < s->ntraj; i++) {
		free(s->traj[i].subkind);
		free(s->traj[i].why);
	}
	free(s->traj);
	session_pending_clear(s);
	free(s->report_md);
	free(s->report_json);
	free(s->finding);
	free(s);
}

void
session_news_release(struct session_news *nw)
{
	for (size_t i = 0; i < nw->n; i++)
		free(nw->msg[i]);
	free(nw->msg);
	nw->msg = NULL;
	nw->n = 0;
	nw->flags = 0;
}

void
session_news_add(struct session_news *nw, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	if (!nw)
		return;
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	nw->msg = xrealloc(nw->msg, (nw->n + 1) * sizeof(*nw->msg));
	nw->msg[nw->n++] = buf_detach(&b, NULL);
}

static void
traj_push(struct session *s, enum pt_class c, const char *subkind, const char *why)
{
	s->traj = xrealloc(s->traj, (s->ntraj + 1) * sizeof(*s->traj));
	s->traj[s->ntraj].cls = c;
	s->traj[s->ntraj].subkind = dup_or_null(subkind);
	s->traj[s->ntraj].why = xstrdup(why);
	s->ntraj++;
}

/* The log was written by a kernel running in interpret mode (rules/contexts.yaml). */
static bool
verdict_is_interpret_output(const struct verdict *v)
{
	const struct verdict_context *c = verdict_context(v, "interpret-mode");

	return c && c->held;
}

static char *
location_text(const struct location *loc)
{
	if (!loc->file)
		return NULL;
	if (loc->col > 0)
		return xasprintf("%s:%ld:%ld", loc->file, loc->line, loc->col);
	if (loc->line > 0)
		return xasprintf("%s:%ld", loc->file, loc->line);
	return xstrdup(loc->file);
}

/* Three decimals keep the saved file stable across a load/save round trip;
 * scores are in [0, 1], so adding 0.5 rounds (no libm needed). */
static double
round3(double x)
{
	return (double)(long long)(x * 1000.0 + 0.5) / 1000.0;
}

static void
snapshot(struct verdict_snapshot *d, const struct verdict *v)
{
	d->cls = v->cls;
	d->subkind = dup_or_null(v->subkind);
	d->confidence = round3(v->confidence);
	for (int c = 0; c < CLASS_COUNT; c++)
		d->scores[c] = round3(v->scores[c].score);
	d->runner_up = v->runner_up;
	d->rule = dup_or_null(v->top_rule ? v->top_rule->id : NULL);
	d->message = dup_or_null(v->message);
	d->reason = dup_or_null(v->reason);
	d->key_line = dup_or_null(v->key_line);
	d->key_lineno = v->key_lineno;
	d->location = location_text(&v->loc);
	d->fingerprint = dup_or_null(v->fingerprint);
	d->fingerprint_text = dup_or_null(v->fingerprint_text);
	d->ev = v->nev ? xcalloc(v->nev, sizeof(*d->ev)) : NULL;
	for (size_t i = 0; i < v->nev; i++) {
		d->ev[i].line = v->ev[i].line;
		d->ev[i].rule = dup_or_null(v->ev[i].rule ? v->ev[i].rule->id : NULL);
		d->ev[i].text = xstrdup(v->ev[i].text ? v->ev[i].text : "");
	}
	d->nev = v->nev;
	vars_copy(&d->vars, &v->vars, true);
}

static void
assert_push(struct session *s, const char *context, const char *why)
{
	for (size_t i = 0; i < s->nasserted; i++)
		if (strcmp(s->asserted[i].context, context) == 0)
			return;
	s->asserted = xrealloc(s->asserted, (s->nasserted + 1) * sizeof(*s->asserted));
	s->asserted[s->nasserted].context = xstrdup(context);
	s->asserted[s->nasserted].why = xstrdup(why);
	s->nasserted++;
}

/*
 * What the first log says about the program holds for the next run of it:
 * that a Pallas kernel is in it (the rules' kernel context) and which
 * backend it runs on (a context that sets values). The log of a later run
 * may show neither (a bare assert_allclose mismatch), and is still a log of
 * the same kernel. An interpret-mode log says nothing about the next run.
 */
static void
keep_assertions(struct session *s, const struct ruleset *rs, const struct verdict *v)
{
	const char *kernel = rs ? rs->policy.kernel_context : NULL;

	for (size_t i = 0; i < v->ncontexts; i++) {
		const struct verdict_context *vc = &v->contexts[i];
		char *why;

		if (!vc->held || !((kernel && strcmp(vc->def->id, kernel) == 0) || vc->def->sets))
			continue;
		if (vc->asserted)
			why = xstrdup(vc->asserted);
		else if (vc->nev)
			why = xasprintf("the session's first log, line %zu", vc->ev[0].line);
		else
			why = xstrdup("the session's first log");
		assert_push(s, vc->def->id, why);
		free(why);
	}
}

void
session_begin(struct session *s, const struct ruleset *rs, const struct verdict *v,
	      const char *log, const char *now)
{
	s->tool = xstrdup("pallas-triage " PT_VERSION);
	s->created = xstrdup(now);
	s->updated = xstrdup(now);
	s->log = xstrdup(log ? log : "-");
	snapshot(&s->first, v);
	s->cls = v->cls;
	s->subkind = dup_or_null(v->subkind);
	s->fingerprint = dup_or_null(v->fingerprint);
	vars_copy(&s->vars, &v->vars, true);
	traj_push(s, v->cls, v->subkind, "first diagnosis");
	keep_assertions(s, rs, v);
	if (verdict_is_interpret_output(v))
		session_interpret_from_log(s, rs, NULL);
}

void
session_known_init(struct session_known *sk, const struct session *s, const struct ruleset *rs,
		   const char *kernel_why)
{
	const char *kernel = rs ? rs->policy.kernel_context : NULL;
	size_t n = 0;
	bool have_kernel = false;

	memset(sk, 0, sizeof(*sk));
	sk->a = xcalloc((s ? s->nasserted : 0) + 2, sizeof(*sk->a));
	for (size_t i = 0; s && i < s->nasserted; i++) {
		sk->a[n].context = s->asserted[i].context;
		sk->a[n++].why = s->asserted[i].why;
		have_kernel |= kernel && strcmp(s->asserted[i].context, kernel) == 0;
	}
	/* a session of schema 1 kept no assertions, only its --kernel FILE */
	if (!kernel_why && s && s->kernel)
		kernel_why = sk->why = xasprintf("--kernel %s", s->kernel);
	if (kernel_why && kernel && !have_kernel) {
		sk->a[n].context = kernel;
		sk->a[n++].why = kernel_why;
	}
	sk->k.asserted = sk->a;
	sk->k.nasserted = n;
	sk->k.facts = s ? &s->vars : NULL;
}

void
session_known_release(struct session_known *sk)
{
	free(sk->a);
	free(sk->why);
	memset(sk, 0, sizeof(*sk));
}

bool
session_ruled_out_has(const struct session *s, enum pt_class c, const char *subkind)
{
	for (size_t i = 0; i < s->nruled; i++)
		if (s->ruled[i].cls == c && (!s->ruled[i].subkind ||
		    (subkind && strcmp(s->ruled[i].subkind, subkind) == 0)))
			return true;
	return false;
}

bool
session_rule_out(struct session *s, enum pt_class c, const char *subkind, const char *reason,
		 enum ruling_source src, struct session_news *nw)
{
	char *lab;

	if (session_ruled_out_has(s, c, subkind))
		return false;
	s->ruled = xrealloc(s->ruled, (s->nruled + 1) * sizeof(*s->ruled));
	s->ruled[s->nruled].cls = c;
	s->ruled[s->nruled].subkind = dup_or_null(subkind);
	s->ruled[s->nruled].reason = xstrdup(reason);
	s->ruled[s->nruled].source = src;
	s->nruled++;
	lab = class_label(c, subkind);
	session_news_add(nw, "ruled out %s: %s", lab, reason);
	free(lab);
	return true;
}

void
session_move_to(struct session *s, enum pt_class c, const char *subkind, const char *verb,
	const char *why, struct session_news *nw)
{
	char *from = class_label(s->cls, s->subkind), *to = class_label(c, subkind);

	if (strcmp(from, to) != 0) {
		if (nw && c != s->cls)
			nw->flags |= NEWS_CLASS;
		s->cls = c;
		free(s->subkind);
		s->subkind = dup_or_null(subkind);
		traj_push(s, c, subkind, why);
		session_news_add(nw, "%s: %s -> %s (%s)", verb, from, to, why);
	}
	free(from);
	free(to);
}

static bool
family_exhausted(const struct session *s, enum pt_class c, const char *key)
{
	size_t clen = strlen(class_name(c));

	for (size_t i = 0; i < s->nexhausted; i++)
		if (strncmp(s->exhausted[i], class_name(c), clen) == 0 &&
		    s->exhausted[i][clen] == '/' && strcmp(s->exhausted[i] + clen + 1, key) == 0)
			return true;
	return false;
}

/* Rungs without a family are a family of their own. */
static const char *
family_key(const struct rung *r)
{
	return r->family ? r->family : r->id;
}

/*
 * A rung is done once tried, unless a later log gave it other numbers: a
 * limit raised to what the first log asked for and failing again at a
 * higher use is worth raising once more (its premise, a limit below the
 * chip's VMEM, still holds, or the rung would not apply). A rung answered
 * "not applicable" stays done.
 */
static bool
rung_used(const struct session *s, const struct rung *r)
{
	char *values = NULL;
	bool computed = false, used = false;

	for (size_t i = 0; i < s->nskipped; i++)
		if (strcmp(s->skipped[i].rung, r->id) == 0)
			return true;
	for (size_t i = 0; i < s->nattempts && !used; i++) {
		const struct attempt *a = &s->attempts[i];

		if (strcmp(a->rung, r->id) != 0)
			continue;
		if (!computed) {
			values = ladder_change_values(r, &s->vars);
			computed = true;
		}
		used = !values || !a->rung_values || strcmp(values, a->rung_values) == 0;
	}
	free(values);
	return used;
}

bool
session_off_ladder(const struct session *s)
{
	return s->status == SESSION_IN_PROGRESS && s->cls == CLASS_UNKNOWN;
}

size_t
session_plan(const struct session *s, const struct ruleset *rs, const struct rung ***out)
{
	const struct rung **sel = NULL;
	size_t n = ladder_select(rs, s->cls, s->subkind, &s->vars, &sel), k = 0;

	for (size_t i = 0; i < n; i++)
		if (!rung_used(s, sel[i]) && !family_exhausted(s, s->cls, family_key(sel[i])))
			sel[k++] = sel[i];
	if (sel)
		sel[k] = NULL;
	*out = sel;
	return k;
}

const struct rung *
session_next_rung(const struct session *s, const struct ruleset *rs)
{
	const struct rung **plan = NULL, *r;

	r = session_plan(s, rs, &plan) ? plan[0] : NULL;
	free(plan);
	return r;
}

const char *
session_default_rung(const struct session *s, const struct ruleset *rs)
{
	const struct rung *r = session_next_rung(s, rs);

	if (r)
		return r->id;
	return session_off_ladder(s) ? SESSION_RUNG_CUSTOM : NULL;
}

void
session_check_exhausted(struct session *s, const struct ruleset *rs, struct session_news *nw)
{
	char *lab;

	/* off every ladder the walk waits for a log it can name, and does not stop */
	if (s->status != SESSION_IN_PROGRESS || s->cls == CLASS_UNKNOWN ||
	    session_next_rung(s, rs))
		return;
	s->status = SESSION_BLOCKED;
	if (nw)
		nw->flags |= NEWS_BLOCKED | NEWS_EXHAUSTED;
	lab = class_label(s->cls, s->subkind);
	session_news_add(nw, "no rung left on the %s ladder after %zu attempt%s: stop here and "
		 "escalate with the report", lab, s->nattempts, s->nattempts == 1 ? "" : "s");
	free(lab);
}

static int
check_record(const struct session *s, const struct ruleset *rs, const struct attempt_in *in,
	     const struct verdict *nv, const struct rung **r, enum pt_class *rcls,
	     struct pt_err *err)
{
	*r = NULL;
	*rcls = s->cls;
	if (s->status != SESSION_IN_PROGRESS || s->nattempts >= SESSION_ATTEMPT_CAP)
		return pt_err_set(err, PT_EXIT_FINDING, "the session is %s after %zu attempt%s: "
				  "nothing more is recorded; see 'pallas-triage report', or start "
				  "over with 'pallas-triage session reset'",
				  session_status_name(s->status), s->nattempts,
				  s->nattempts == 1 ? "" : "s");
	if (in->result == RESULT_FIXED && nv && nv->cls != CLASS_UNKNOWN) {
		char *lab = class_label(nv->cls, nv->subkind);

		pt_err_set(err, PT_EXIT_USAGE, "the log shows %s (line %zu), so the failure is not "
			   "fixed: record it with --result same or new", lab, nv->key_lineno);
		free(lab);
		return -1;
	}
	if (!in->rung || strcmp(in->rung, SESSION_RUNG_CUSTOM) == 0) {
		if (in->result == RESULT_NA)
			return pt_err_set(err, PT_EXIT_USAGE, "only a rung of the ladder can be "
					  "not applicable");
		if (!in->change || !*in->change)
			return pt_err_set(err, PT_EXIT_USAGE, "an attempt off the ladder needs "
					  "--change: say what was changed");
		return 0;
	}
	if (!(*r = ladder_find_rung(rs, in->rung, rcls)))
		return pt_err_set(err, PT_EXIT_USAGE, "unknown rung '%s'; 'pallas-triage session "
				  "status' shows the next one", in->rung);
	return 0;
}

static void
latest_from(struct session *s, const struct verdict *nv)
{
	if (s->latest)
		snapshot_release(s->latest);
	else
		s->latest = xcalloc(1, sizeof(*s->latest));
	memset(s->latest, 0, sizeof(*s->latest));
	snapshot(s->latest, nv);
}

/*
 * The latest log's values replace the session's: its numbers are what the
 * next rung is filled with, and what it says of the machine (a JAX version,
 * a chip) is the news. It was read with the session's facts assumed where
 * it states none (session_known_init()), so nothing of the earlier logs is
 * lost that this one does not replace. A log that shows no failure brings
 * no numbers; its facts still count.
 */
static void
take_values(struct session *s, const struct ruleset *rs, const struct verdict *nv)
{
	if (nv->cls == CLASS_UNKNOWN) {
		for (size_t i = 0; i < nv->vars.n; i++)
			if (ruleset_is_env_field(rs, nv->vars.v[i].name))
				vars_set(&s->vars, nv->vars.v[i].name, nv->vars.v[i].value, true);
	} else {
		vars_release(&s->vars);
		vars_copy(&s->vars, &nv->vars, true);
		free(s->fingerprint);
		s->fingerprint = dup_or_null(nv->fingerprint);
	}
	session_interp_sync_vars(s);
	latest_from(s, nv);
}

static void
exhaust_family(struct session *s, const struct ruleset *rs, enum pt_class c, const char *key,
	       int n, struct session_news *nw)
{
	const struct rung **plan = NULL;

	s->same_streak = 0;
	if (nw)
		nw->flags |= NEWS_FAMILY;
	if (!key) {
		session_news_add(nw, "same error %d attempts in a row", n);
		return;
	}
	s->exhausted = xrealloc(s->exhausted, (s->nexhausted + 1) * sizeof(*s->exhausted));
	s->exhausted[s->nexhausted++] = xasprintf("%s/%s", class_name(c), key);
	if (session_plan(s, rs, &plan) > 0)
		session_news_add(nw, "same error %d attempts in a row on family '%s': leaving it "
				 "for '%s'", n, key, family_key(plan[0]));
	else
		session_news_add(nw, "same error %d attempts in a row on family '%s': leaving it",
				 n, key);
	free(plan);
}

/* The "same" results in a row that end with attempt a, on rungs of a's family. */
static int
family_streak(const struct session *s, const struct attempt *a)
{
	const char *key = a->family ? a->family : a->rung;
	int n = 0;

	for (size_t i = s->nattempts; i-- > 0;) {
		const struct attempt *b = &s->attempts[i];

		if (b->result != RESULT_SAME || b->cls_before != a->cls_before ||
		    strcmp(b->family ? b->family : b->rung, key) != 0)
			break;
		n++;
	}
	return n;
}

/*
 * A rung that tests a hypothesis (its `hypothesis`, one of the class's
 * explanations) rules it out when the error survives it, and an undecided
 * diagnosis, or one standing on that hypothesis, moves on to the class's
 * next explanation (the method: "the failure survives at HIGHEST
 * precision, so it is a logic bug"). Other rungs prove nothing when they
 * fail: the fix may have been applied wrongly.
 */
static void
test_hypothesis(struct session *s, const struct ruleset *rs, const struct attempt *a,
		const struct rung *r, enum pt_class rcls, struct session_news *nw)
{
	const struct class_def *cd = rs->have_class[rcls] ? &rs->classes[rcls] : NULL;
	char *action = ladder_prose(rs, &s->vars, r->action), *reason, why[32];

	reason = xasprintf("the failure survives attempt %d: %s", a->n, action ? action : r->id);
	free(action);
	session_rule_out(s, rcls, r->hypothesis, reason, RULING_ATTEMPT, nw);
	free(reason);
	if (s->cls != rcls || !(class_undecided(cd, s->subkind) ||
	    (s->subkind && strcmp(s->subkind, r->hypothesis) == 0)))
		return;
	snprintf(why, sizeof(why), "attempt %d", a->n);
	session_settle(s, rs, "re-ranked", why, nw);
}

static void
record_same(struct session *s, const struct ruleset *rs, struct attempt *a,
	    const struct rung *r, enum pt_class rcls, struct session_news *nw)
{
	a->fingerprint = dup_or_null(s->fingerprint);
	if (r && r->hypothesis)
		test_hypothesis(s, rs, a, r, rcls, nw);
	a->cls_after = s->cls;
	a->subkind_after = dup_or_null(s->subkind);
	s->same_streak = family_streak(s, a);
	/* at the cap, or stopped, the walk ends anyway: moving on would only add noise */
	if (s->same_streak < SESSION_SAME_LIMIT || s->nattempts >= SESSION_ATTEMPT_CAP ||
	    s->status != SESSION_IN_PROGRESS)
		return;
	exhaust_family(s, rs, r ? rcls : s->cls, r ? family_key(r) : NULL, s->same_streak, nw);
}

int
session_result_of(const struct session *s, const struct verdict *v)
{
	if (v->cls == CLASS_UNKNOWN)
		return -1;
	if (s->fingerprint && v->fingerprint && strcmp(s->fingerprint, v->fingerprint) == 0)
		return RESULT_SAME;
	return RESULT_NEW;
}

bool
session_class_changed(const struct session *s)
{
	for (size_t i = 0; i < s->nattempts; i++)
		if (s->attempts[i].result == RESULT_NEW && s->attempts[i].cls_after != CLASS_UNKNOWN &&
		    s->attempts[i].cls_after != s->attempts[i].cls_before)
			return true;
	return false;
}

static bool
from_interpret(const struct ruled_out *r)
{
	return r->source == RULING_INTERPRET || r->source == RULING_INTERPRET_LOG;
}

/*
 * The failure changed class. What interpret mode did was a fact about the
 * old failure: its rulings go and the question is asked again. A ruling the
 * new log contradicts (it shows the class) was an inference, and the log is
 * evidence: it goes too. The attempt's note says what went.
 */
static void
new_failure(struct session *s, struct attempt *a, enum pt_class before)
{
	struct buf note = BUF_INIT;
	size_t k = 0;

	if (a->note)
		buf_adds(&note, a->note);
	for (size_t i = 0; i < s->nruled; i++) {
		struct ruled_out *r = &s->ruled[i];
		bool shown = r->cls == s->cls &&
			     (!r->subkind || (s->subkind && strcmp(r->subkind, s->subkind) == 0));

		if (shown && !from_interpret(r)) {
			char *lab = class_label(r->cls, r->subkind);

			buf_addf(&note, "%s%s had been ruled out (%s), but the new log shows it",
				 note.len ? "; " : "", lab, r->reason);
			free(lab);
		}
		if (shown || from_interpret(r)) {
			free(r->subkind);
			free(r->reason);
			continue;
		}
		s->ruled[k++] = *r;
	}
	s->nruled = k;
	if (s->interp != INTERP_UNASKED) {
		buf_addf(&note, "%sthe interpret-mode answer (%s) was about the %s failure, not "
			 "this one", note.len ? "; " : "", interp_answer_name(s->interp),
			 class_name(before));
		s->interp = INTERP_UNASKED;
		session_interp_sync_vars(s);
	}
	free(a->note);
	a->note = note.len ? buf_detach(&note, NULL) : NULL;
	buf_release(&note);
}

/* A new log that shows no failure the rules know: the walk leaves its ladder and waits. */
static void
record_unnamed(struct session *s, struct attempt *a, const struct verdict *nv,
	       struct session_news *nw)
{
	enum pt_class before = s->cls;
	char why[32];

	a->cls_after = CLASS_UNKNOWN;
	a->fingerprint = dup_or_null(nv->fingerprint);
	free(s->fingerprint);
	s->fingerprint = dup_or_null(nv->fingerprint);
	a->note = xasprintf("the new log shows no failure the rules know (%s); the walk leaves "
			    "the %s ladder and waits for a log it can name", nv->reason ?
			    nv->reason : "no rule fired", class_name(before));
	snprintf(why, sizeof(why), "attempt %d", a->n);
	session_move_to(s, CLASS_UNKNOWN, NULL, "the failure changed", why, nw);
	if (before != CLASS_UNKNOWN)
		new_failure(s, a, before);
}

static void
record_named(struct session *s, const struct ruleset *rs, struct attempt *a,
	     const struct verdict *nv, struct session_news *nw)
{
	enum pt_class before = s->cls;
	/* the same class read as a subkind an answer or a run ruled out:
	 * the log's subkind is an inference, the ruling an observation */
	bool keep = nv->cls == before && nv->subkind &&
		    session_ruled_out_has(s, nv->cls, nv->subkind);
	char why[32];

	a->cls_after = nv->cls;
	a->subkind_after = dup_or_null(nv->subkind);
	a->fingerprint = dup_or_null(nv->fingerprint);
	snprintf(why, sizeof(why), "attempt %d", a->n);
	if (keep) {
		char *lab = class_label(s->cls, s->subkind);

		a->note = xasprintf("the new log reads as %s/%s, which is ruled out; the walk "
				    "stays on %s", class_name(nv->cls), nv->subkind, lab);
		free(lab);
	} else {
		session_move_to(s, nv->cls, nv->subkind, nv->cls != before ? "class changed" :
				"subkind changed", why, nw);
	}
	if (nv->cls != before)
		new_failure(s, a, before);
	if (verdict_is_interpret_output(nv))
		session_interpret_from_log(s, rs, nw);
}

static void
record_new(struct session *s, const struct ruleset *rs, struct attempt *a,
	   const struct verdict *nv, struct session_news *nw)
{
	s->same_streak = 0;
	if (!nv) {
		a->cls_after = s->cls;
		a->subkind_after = dup_or_null(s->subkind);
		a->note = xstrdup("no new log was given, so the class is taken as unchanged");
	} else if (nv->cls == CLASS_UNKNOWN) {
		record_unnamed(s, a, nv, nw);
	} else {
		record_named(s, rs, a, nv, nw);
	}
	if (a->note)
		session_news_add(nw, "%s", a->note);
	session_news_add(nw, "a different error: a changed symptom counts as progress");
}

static void
record_fixed(struct session *s, struct attempt *a, struct session_news *nw)
{
	char why[32];

	a->cls_after = CLASS_COUNT;
	s->same_streak = 0;
	s->status = SESSION_RESOLVED;
	snprintf(why, sizeof(why), "attempt %d", a->n);
	traj_push(s, CLASS_COUNT, NULL, why);
	if (nw)
		nw->flags |= NEWS_RESOLVED;
	session_news_add(nw, "fixed at attempt %d of %d", a->n, SESSION_ATTEMPT_CAP);
}

static void
record_skip(struct session *s, const struct attempt_in *in, const char *now,
	    struct session_news *nw)
{
	s->skipped = xrealloc(s->skipped, (s->nskipped + 1) * sizeof(*s->skipped));
	s->skipped[s->nskipped].rung = xstrdup(in->rung);
	s->skipped[s->nskipped].time = xstrdup(now);
	s->nskipped++;
	session_news_add(nw, "skipped %s as not applicable (no attempt used)", in->rung);
}

static struct attempt *
attempt_push(struct session *s, const struct ruleset *rs, const struct attempt_in *in,
	     const struct rung *r, const struct verdict *nv, const char *now)
{
	struct attempt *a;

	s->attempts = xrealloc(s->attempts, (s->nattempts + 1) * sizeof(*s->attempts));
	a = &s->attempts[s->nattempts++];
	memset(a, 0, sizeof(*a));
	a->n = (int)s->nattempts;
	a->rung = xstrdup(in->rung ? in->rung : SESSION_RUNG_CUSTOM);
	a->family = dup_or_null(r ? r->family : NULL);
	if (in->change && *in->change)
		a->change = xstrdup(in->change);
	else
		a->change = r ? ladder_change_text(rs, r, &s->vars, NULL) : xstrdup("");
	a->rung_values = r ? ladder_change_values(r, &s->vars) : NULL;
	a->result = in->result;
	a->cls_before = s->cls;
	a->log = dup_or_null(in->log);
	a->log_digest = dup_or_null(in->log_digest);
	a->key_line = nv ? dup_or_null(nv->key_line) : NULL;
	a->time = xstrdup(now);
	return a;
}

/*
 * What the log says wins over what the user said it was, where it can
 * tell: the fingerprint the session stands on is the same error, any
 * other failure a different one. A log with no failure the rules know
 * cannot tell. Returns the note that says so (a new string), or NULL.
 */
static char *
reconcile(struct session *s, struct attempt *a, const struct verdict *nv,
	  struct session_news *nw)
{
	int says = nv ? session_result_of(s, nv) : -1;
	char *note, *lab;

	if (says < 0 || a->result == RESULT_FIXED || (int)a->result == says)
		return NULL;
	if (says == RESULT_SAME) {
		a->result = RESULT_SAME;
		note = xstrdup("the new log has the same fingerprint as before, so it counts as "
			       "the same error");
		if (nw)
			nw->flags |= NEWS_SAME_FP;
	} else {
		a->result = RESULT_NEW;
		lab = class_label(nv->cls, nv->subkind);
		note = xasprintf("the log shows another failure (%s), so it counts as a "
				 "different error", lab);
		free(lab);
	}
	session_news_add(nw, "%s", note);
	return note;
}

/* The attempt's note: what reconcile() said first, then what the record added. */
static void
note_join(struct attempt *a, char *first)
{
	char *both;

	if (!first)
		return;
	if (!a->note) {
		a->note = first;
		return;
	}
	both = xasprintf("%s; %s", first, a->note);
	free(first);
	free(a->note);
	a->note = both;
}

int
session_record(struct session *s, const struct ruleset *rs, const struct attempt_in *in,
	       const struct verdict *nv, const char *now, struct session_news *nw,
	       struct pt_err *err)
{
	const struct rung *r;
	enum pt_class rcls;
	struct attempt *a;
	char *said;

	if (check_record(s, rs, in, nv, &r, &rcls, err) < 0)
		return -1;
	if (in->result == RESULT_NA) {
		record_skip(s, in, now, nw);
	} else {
		a = attempt_push(s, rs, in, r, nv, now);
		said = reconcile(s, a, nv, nw);
		/* whatever the result, the log's numbers are the latest */
		if (nv)
			take_values(s, rs, nv);
		if (a->result == RESULT_FIXED)
			record_fixed(s, a, nw);
		else if (a->result == RESULT_SAME)
			record_same(s, rs, a, r, rcls, nw);
		else
			record_new(s, rs, a, nv, nw);
		note_join(a, said);
		if (s->status == SESSION_IN_PROGRESS && s->nattempts >= SESSION_ATTEMPT_CAP) {
			s->status = SESSION_BLOCKED;
			if (nw)
				nw->flags |= NEWS_BLOCKED | NEWS_CAP;
			session_news_add(nw, "attempt %d of %d used without a fix: stop here and escalate "
				 "with the report", SESSION_ATTEMPT_CAP, SESSION_ATTEMPT_CAP);
		}
	}
	session_check_exhausted(s, rs, nw);
	free(s->updated);
	s->updated = xstrdup(now);
	session_pending_clear(s);
	return 0;
}

static int
copy_fd(int to, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(to, data, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return fsync(to);
}

int
session_save_pre_debug(struct session *s, const char *kernel, bool *existed, struct pt_err *err)
{
	struct buf b = BUF_INIT;
	char *pre = xasprintf("%s.pre-debug", kernel);
	int fd = -1, ret = -1;

	*existed = false;
	if (util_read_file(kernel, &b, 256u * 1024 * 1024, err) < 0)
		goto out;
	/* O_EXCL: the first pre-debug copy is the one worth keeping; a later
	 * run must never replace it with an already-edited kernel */
	if ((fd = open(pre, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0) {
		if (errno != EEXIST) {
			pt_err_errno(err, PT_EXIT_SYSTEM, "cannot create '%s'", pre);
			goto out;
		}
		*existed = true;
	} else {
		bool bad = copy_fd(fd, b.data, b.len) < 0;

		bad = close(fd) < 0 || bad;
		fd = -1;
		if (bad) {
			pt_err_errno(err, PT_EXIT_SYSTEM, "cannot write '%s'", pre);
			unlink(pre);
			goto out;
		}
	}
	free(s->kernel);
	free(s->pre_debug);
	s->kernel = xstrdup(kernel);
	s->pre_debug = pre;
	pre = NULL;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(pre);
	buf_release(&b);
	return ret;
}
