/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the session model (transitions, the interpret partition, the
 * family and cap rules), its JSON round trip and strict loading, the store's
 * transaction, and report redaction. Ladders come from
 * tests/fixtures/walk-rules.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt/report.h"
#include "pt/rules.h"
#include "pt/run_eval.h"
#include "pt/session.h"
#include "pt/sha256.h"
#include "pt/util.h"
#include "test.h"

#define NOW "2026-01-02T03:04:05Z"

/* The fixture rules, for the helpers that need the method (the interpret partition). */
static const struct ruleset *RS;

static struct ruleset *
load_rules(void)
{
	struct ruleset *rs = ruleset_new();
	struct diag d = DIAG_INIT;
	struct pt_err err = PT_ERR_INIT;

	if (ruleset_load_dir(rs, PT_SRCDIR "/tests/fixtures/walk-rules", NULL, &d, &err) < 0 ||
	    ruleset_finish(rs, &d) < 0) {
		diag_print(&d, stderr);
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
	diag_release(&d);
	return rs;
}

/* A verdict as the classifier would fill it; only vars is owned. */
static void
fake_verdict(struct verdict *v, enum pt_class c, const char *subkind, const char *fp)
{
	memset(v, 0, sizeof(*v));
	v->cls = c;
	v->subkind = subkind;
	v->confidence = 0.9;
	v->runner_up = CLASS_COUNT;
	v->scores[c].score = 0.9;
	v->fingerprint = (char *)fp;
	v->message = (char *)"a message";
	vars_set(&v->vars, "used", "20.0M", true);
	vars_set(&v->vars, "jax_version", "0.4.35", true);
}

static struct session *
start(enum pt_class c, const char *subkind, const char *fp)
{
	struct session *s = session_new();
	struct verdict v;

	fake_verdict(&v, c, subkind, fp);
	session_begin(s, RS, &v, "run.log", NOW);
	vars_release(&v.vars);
	return s;
}

static int
record(struct session *s, const struct ruleset *rs, const char *rung, enum attempt_result r,
       const struct verdict *nv, struct session_news *nw)
{
	struct attempt_in in = { .rung = rung, .result = r };
	struct pt_err err = PT_ERR_INIT;

	if (rung && strcmp(rung, SESSION_RUNG_CUSTOM) == 0)
		in.change = "by hand";
	return session_record(s, rs, &in, nv, NOW, nw, &err);
}

static void
test_names(void)
{
	enum attempt_result r;
	enum interp_answer a;

	CHECK(attempt_result_parse("different", &r) == 0 && r == RESULT_NEW);
	CHECK(attempt_result_parse("n/a", &r) == 0 && r == RESULT_NA);
	CHECK(attempt_result_parse("maybe", &r) < 0);
	CHECK_STREQ(attempt_result_name(RESULT_NA), "n-a");
	CHECK(interp_answer_parse("y", &a) == 0 && a == INTERP_REPRODUCES);
	CHECK(interp_answer_parse("does-not-reproduce", &a) == 0 && a == INTERP_NO_REPRO);
	CHECK(interp_answer_parse("unasked", &a) < 0);
}

static void
test_partition(void)
{
	const struct ruleset *rs = RS;
	struct session_news nw = SESSION_NEWS_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct session *s = start(CLASS_CAPACITY, "scoped-vmem", "capacity-1");

	CHECK(session_interpret(s, rs, INTERP_REPRODUCES, &nw, &err) == 0);
	CHECK_INTEQ(s->cls, CLASS_NUMERICS);
	CHECK_STREQ(s->subkind, "logic");
	CHECK_INTEQ(s->nruled, 3);
	CHECK_INTEQ(s->ntraj, 2);
	CHECK(nw.flags & NEWS_CLASS);
	CHECK(session_interpret(s, rs, INTERP_NO_REPRO, &nw, &err) < 0);
	CHECK_INTEQ(err.status, PT_EXIT_USAGE);
	session_news_release(&nw);
	session_free(s);

	s = start(CLASS_NUMERICS, "mismatch", "numerics-1");
	CHECK(session_interpret(s, rs, INTERP_NO_REPRO, NULL, &err) == 0);
	CHECK_STREQ(s->subkind, "precision");
	session_free(s);

	s = start(CLASS_SYNCHRONIZATION, "race", "sync-1");
	CHECK(session_interpret(s, rs, INTERP_NO_REPRO, NULL, &err) == 0);
	CHECK_INTEQ(s->cls, CLASS_SYNCHRONIZATION);
	session_free(s);
}

static void
test_family_and_cap(const struct ruleset *rs)
{
	struct session_news nw = SESSION_NEWS_INIT;
	struct session *s = start(CLASS_CAPACITY, "scoped-vmem", "capacity-1");
	const struct rung **plan = NULL;

	/* three "same" in a row, but one of them in another family: no family ends */
	CHECK(record(s, rs, "capacity.raise-limit", RESULT_SAME, NULL, &nw) == 0);
	CHECK(record(s, rs, "capacity.halve-minor", RESULT_SAME, NULL, &nw) == 0);
	CHECK(record(s, rs, "capacity.halve-second", RESULT_SAME, NULL, &nw) == 0);
	CHECK(!(nw.flags & NEWS_FAMILY));
	CHECK_INTEQ(s->same_streak, 2);
	CHECK(record(s, rs, "capacity.halve-both", RESULT_SAME, NULL, &nw) == 0);
	CHECK(nw.flags & NEWS_FAMILY);
	CHECK_INTEQ(s->nexhausted, 1);
	CHECK_STREQ(s->exhausted[0], "capacity/block-size");
	CHECK(session_plan(s, rs, &plan) > 0);
	CHECK_STREQ(plan[0]->id, "capacity.single-buffer");
	free(plan);
	CHECK(record(s, rs, "capacity.single-buffer", RESULT_NA, NULL, &nw) == 0);
	CHECK_INTEQ(s->nattempts, 4);
	CHECK_INTEQ(s->nskipped, 1);
	for (int i = 0; i < 5; i++)
		CHECK(record(s, rs, SESSION_RUNG_CUSTOM, RESULT_SAME, NULL, &nw) == 0);
	CHECK_INTEQ(s->nattempts, 9);
	CHECK_INTEQ(s->status, SESSION_IN_PROGRESS);
	session_news_release(&nw);
	CHECK(record(s, rs, SESSION_RUNG_CUSTOM, RESULT_SAME, NULL, &nw) == 0);
	CHECK_INTEQ(s->status, SESSION_BLOCKED);
	CHECK(nw.flags & NEWS_CAP);
	CHECK(record(s, rs, SESSION_RUNG_CUSTOM, RESULT_SAME, NULL, &nw) < 0);
	CHECK_INTEQ(s->nattempts, 10);
	session_news_release(&nw);
	session_free(s);
}

static void
test_new_log(const struct ruleset *rs)
{
	struct session_news nw = SESSION_NEWS_INIT;
	struct session *s = start(CLASS_CAPACITY, "scoped-vmem", "capacity-1");
	struct verdict same, other;

	fake_verdict(&same, CLASS_CAPACITY, "scoped-vmem", "capacity-1");
	fake_verdict(&other, CLASS_LAYOUT, "block-shape", "layout-2");
	CHECK(record(s, rs, "capacity.raise-limit", RESULT_NEW, &same, &nw) == 0);
	CHECK_INTEQ(s->attempts[0].result, RESULT_SAME);
	CHECK(nw.flags & NEWS_SAME_FP);
	CHECK_INTEQ(s->same_streak, 1);
	CHECK(record(s, rs, "capacity.halve-minor", RESULT_NEW, &other, &nw) == 0);
	CHECK_INTEQ(s->cls, CLASS_LAYOUT);
	CHECK_INTEQ(s->attempts[1].cls_after, CLASS_LAYOUT);
	CHECK_INTEQ(s->same_streak, 0);
	CHECK_STREQ(vars_get(&s->vars, "jax_version"), "0.4.35");
	CHECK(record(s, rs, "layout.round-up", RESULT_FIXED, NULL, &nw) == 0);
	CHECK_INTEQ(s->status, SESSION_RESOLVED);
	CHECK_INTEQ(s->traj[s->ntraj - 1].cls, CLASS_COUNT);
	vars_release(&same.vars);
	vars_release(&other.vars);
	session_news_release(&nw);
	session_free(s);
}

/*
 * A class change asks the interpret-mode question again: the old answer's
 * rulings go, and so does a ruling the new log shows wrong.
 */
static void
test_new_class_asks_again(const struct ruleset *rs)
{
	struct session_news nw = SESSION_NEWS_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct session *s = start(CLASS_CAPACITY, "scoped-vmem", "capacity-1");
	struct verdict logic, layout, prec;
	const char *note;

	fake_verdict(&logic, CLASS_NUMERICS, "logic", "numerics-3");
	fake_verdict(&layout, CLASS_LAYOUT, "block-shape", "layout-2");
	CHECK(session_interpret(s, rs, INTERP_NO_REPRO, NULL, &err) == 0);
	CHECK_INTEQ(s->nruled, 1);                  /* numerics/logic */
	CHECK(!session_class_changed(s));
	/* the same class again: nothing is reset */
	CHECK(record(s, rs, "capacity.raise-limit", RESULT_SAME, NULL, &nw) == 0);
	CHECK_INTEQ(s->interp, INTERP_NO_REPRO);
	CHECK(record(s, rs, "capacity.halve-minor", RESULT_NEW, &logic, &nw) == 0);
	CHECK_INTEQ(s->cls, CLASS_NUMERICS);
	CHECK_INTEQ(s->interp, INTERP_UNASKED);
	CHECK_INTEQ(s->nruled, 0);
	CHECK(session_class_changed(s));
	note = s->attempts[1].note;
	CHECK(note && strstr(note, "interpret-mode answer (does-not-reproduce) was about the "
			     "capacity failure"));
	/* answered again: a second answer is allowed once, for the new failure */
	CHECK(session_interpret(s, rs, INTERP_REPRODUCES, NULL, &err) == 0);
	CHECK(session_interpret(s, rs, INTERP_REPRODUCES, NULL, &err) < 0);
	CHECK_INTEQ(s->nruled, 3);                  /* layout, capacity, numerics/precision */
	/* layout was ruled out by that answer; a layout log drops the answer's
	 * rulings, and says the log showed a ruled-out class only when the ruling
	 * was not the interpret answer's */
	CHECK(record(s, rs, SESSION_RUNG_CUSTOM, RESULT_NEW, &layout, &nw) == 0);
	CHECK_INTEQ(s->cls, CLASS_LAYOUT);
	CHECK_INTEQ(s->nruled, 0);
	CHECK_INTEQ(s->interp, INTERP_UNASKED);
	/* a ruling from evidence (a precision sweep) that a new log contradicts */
	CHECK(session_rule_out(s, CLASS_NUMERICS, "precision", "the sweep says so", RULING_RUN, NULL));
	CHECK(!session_rule_out(s, CLASS_NUMERICS, "precision", "again", RULING_RUN, NULL));
	fake_verdict(&prec, CLASS_NUMERICS, "precision", "numerics-4");
	CHECK(record(s, rs, SESSION_RUNG_CUSTOM, RESULT_NEW, &prec, &nw) == 0);
	CHECK_INTEQ(s->nruled, 0);
	note = s->attempts[s->nattempts - 1].note;
	CHECK(note && strstr(note, "numerics/precision had been ruled out (the sweep says so), "
			     "but the new log shows it"));
	vars_release(&prec.vars);
	vars_release(&logic.vars);
	vars_release(&layout.vars);
	session_news_release(&nw);
	session_free(s);
}

static void
test_precision_rung(const struct ruleset *rs)
{
	struct session *s = start(CLASS_NUMERICS, "mismatch", "numerics-1");

	CHECK(record(s, rs, "numerics.precision-sweep", RESULT_SAME, NULL, NULL) == 0);
	CHECK_STREQ(s->subkind, "logic");
	CHECK_INTEQ(s->nruled, 1);
	CHECK_STREQ(s->ruled[0].subkind, "precision");
	session_free(s);
}

static void
test_round_trip(const struct ruleset *rs)
{
	struct pt_err err = PT_ERR_INIT;
	struct session *s = start(CLASS_CAPACITY, "scoped-vmem", "capacity-1"), *t = NULL;
	char *a, *b;

	session_interpret(s, rs, INTERP_NO_REPRO, NULL, &err);
	record(s, rs, "capacity.raise-limit", RESULT_SAME, NULL, NULL);
	record(s, rs, "capacity.halve-minor", RESULT_NA, NULL, NULL);
	s->pending.rung = strdup("capacity.halve-second");
	s->pending.result = RESULT_NEW;
	a = session_format(s);
	CHECK(session_parse(a, strlen(a), "s.json", &t, &err) == 0);
	b = t ? session_format(t) : NULL;
	CHECK_STREQ(a, b);
	CHECK(t && t->pending.result == RESULT_NEW);
	free(a);
	free(b);
	session_free(t);
	session_free(s);
}

static void
expect_error(const char *json, const char *want)
{
	struct pt_err err = PT_ERR_INIT;
	struct session *s = NULL;

	CHECK(session_parse(json, strlen(json), "s.json", &s, &err) < 0);
	CHECK(s == NULL);
	CHECK_INTEQ(err.status, PT_EXIT_DATA);
	if (!strstr(err.msg, want))
		fprintf(stderr, "message '%s' lacks '%s'\n", err.msg, want);
	CHECK(strstr(err.msg, want) != NULL);
}

static void
test_bad_files(void)
{
	expect_error("{\"schema_version\": 9}", "newer pallas-triage (schema_version 9");
	expect_error("{\"schema_version\": 1, \"created\": 3}", "'created' must be a string");
	expect_error("{\"schema_version\": 1, \"created\": \"x\"}",
		     "'created' is 'x'; must be a UTC time like 2025-01-31T12:00:00Z");
	expect_error("{\"schema_version\": 1, \"created\": \"2025-13-01T00:00:00Z\"}",
		     "'created' is '2025-13-01T00:00:00Z'");
	expect_error("{\"schema_version\": 1, \"created\": \"2025-01-01T00:00:00Z\"}",
		     "'updated' is missing");
	expect_error("[1]", "must hold a JSON object");
	expect_error("{\"schema_ver", "invalid JSON");
}

static void
test_redact(void)
{
	char *r = report_redact("at /home/alice/k.py on t1v-n-0a1b-w-0, /root/x and /homework");

	CHECK_STREQ(r, "at ~/k.py on <host>, ~/x and /homework");
	free(r);
	r = report_redact("/Users/bob");
	CHECK_STREQ(r, "~");
	free(r);
}

static void
test_report(const struct ruleset *rs)
{
	struct session *s = start(CLASS_CAPACITY, "scoped-vmem", "capacity-1");
	struct pt_err err = PT_ERR_INIT;
	struct report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	record(s, rs, "capacity.raise-limit", RESULT_SAME, NULL, NULL);
	report_build(&r, s, rs, false);
	CHECK_STREQ(r.status, "in progress");
	CHECK_INTEQ(r.natt, 1);
	CHECK(r.nnext > 0);
	CHECK(report_write(&r, "md", mem, &err) == 0);
	CHECK(report_write(&r, "pdf", mem, &err) < 0);
	fclose(mem);
	CHECK(strstr(buf, "| 1 | `capacity.raise-limit` |") != NULL);
	free(buf);
	report_release(&r);
	report_release(NULL);
	session_free(s);
	session_free(NULL);
}

/* One change as a transaction: open, commit, the lock, the report at the stop. */
static void
test_txn(const struct ruleset *rs)
{
	struct session_txn t = SESSION_TXN_INIT, u = SESSION_TXN_INIT;
	struct session_opened o;
	struct pt_err err = PT_ERR_INIT;
	struct verdict v, other;
	char tmpl[] = "/tmp/pt-txn-XXXXXX", rm[64], *log = NULL;
	const char *dir = "sess";
	const struct session_log run_log = { .name = "run.log" }, b_log = { .name = "b.log" };

	CHECK(mkdtemp(tmpl) != NULL && chdir(tmpl) == 0);
	fake_verdict(&v, CLASS_CAPACITY, "scoped-vmem", "capacity-1");
	fake_verdict(&other, CLASS_LAYOUT, NULL, "layout-1");
	/* no session: an error, and nothing is created */
	CHECK(session_open_locked(&t, dir, NOW, &err) < 0);
	CHECK_INTEQ(err.status, PT_EXIT_FINDING);
	CHECK(!util_is_dir(dir));
	session_txn_release(&t);
	/* begin, then resume the same failure */
	CHECK(session_open_for(&t, rs, dir, &v, &run_log, NULL, NOW, &o, &err) == 0);
	CHECK(!o.resumed && !o.archived && t.s && session_exists(dir));
	CHECK_STREQ(t.s->created, NOW);
	session_opened_release(&o);
	/* a second writer is refused while the first holds the lock */
	CHECK(session_open_locked(&u, dir, NOW, &err) < 0);
	CHECK_INTEQ(err.status, PT_EXIT_SYSTEM);
	session_txn_release(&u);
	session_txn_release(&t);
	CHECK(session_open_for(&t, rs, dir, &v, &run_log, NULL, NOW, &o, &err) == 0);
	CHECK(o.resumed && !o.archived);
	session_opened_release(&o);
	/* an attempt's log, then attempts up to the cap: the commit writes the report */
	CHECK(session_txn_save_log(&t, NULL, "a log\n", 6, &log, NULL, &err) == 0);
	CHECK_STREQ(log, "sess/logs/attempt-1-43033c83341b.log");
	CHECK(log && util_is_file(log));
	free(log);
	while (t.s->status == SESSION_IN_PROGRESS)
		CHECK(record(t.s, rs, SESSION_RUNG_CUSTOM, RESULT_SAME, NULL, NULL) == 0);
	CHECK(session_commit(&t, rs, false, &err) == 0);
	CHECK_STREQ(t.s->report_md, REPORT_MD_FILE);
	CHECK(util_is_file(REPORT_MD_FILE) && util_is_file(REPORT_JSON_FILE));
	session_txn_release(&t);
	CHECK(session_open_locked(&t, dir, NOW, &err) == 0);
	CHECK(t.s && t.s->report_md && t.s->status == SESSION_BLOCKED);
	CHECK_STREQ(t.s->updated, NOW);
	session_txn_release(&t);
	/* another failure: the closed session is archived, a new one begun */
	CHECK(session_open_for(&t, rs, dir, &other, &b_log, NULL, NOW, &o, &err) == 0);
	CHECK(!o.resumed && o.archived && o.archived_other);
	CHECK_INTEQ(o.archived_status, SESSION_BLOCKED);
	CHECK(o.archived && util_is_file(o.archived));
	CHECK_INTEQ(t.s->first.cls, CLASS_LAYOUT);
	session_opened_release(&o);
	session_txn_release(&t);
	session_txn_release(&t);            /* released twice is harmless */
	vars_release(&v.vars);
	vars_release(&other.vars);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", tmpl);
	CHECK(chdir("/") == 0 && system(rm) == 0);
}

/*
 * The walk never stands on a diagnosis it ruled out. Interpret mode "no"
 * rules out logic; a precision rung that fails rules out precision: with
 * both gone the session stops with that finding, in either order, and the
 * current diagnosis is the class, not a ruled-out subkind.
 */
static bool
stands_on_ruled_out(const struct session *s)
{
	for (size_t i = 0; i < s->nruled; i++)
		if (s->ruled[i].cls == s->cls && (!s->ruled[i].subkind ||
		    (s->subkind && strcmp(s->ruled[i].subkind, s->subkind) == 0)))
			return true;
	return false;
}

static void
test_contradiction(const struct ruleset *rs)
{
	struct session_news nw = SESSION_NEWS_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct session *s = start(CLASS_NUMERICS, "mismatch", "numerics-1");

	CHECK(session_interpret(s, rs, INTERP_NO_REPRO, &nw, &err) == 0);
	CHECK_STREQ(s->subkind, "precision");
	CHECK(!stands_on_ruled_out(s));
	CHECK(record(s, rs, "numerics.precision-sweep", RESULT_SAME, NULL, &nw) == 0);
	CHECK(!stands_on_ruled_out(s));
	CHECK_INTEQ(s->status, SESSION_BLOCKED);
	CHECK(nw.flags & NEWS_RULED_OUT);
	CHECK(s->subkind == NULL);
	CHECK(s->finding && strstr(s->finding, "every explanation of numerics is ruled out"));
	CHECK(s->finding && strstr(s->finding, "precision") && strstr(s->finding, "logic"));
	session_news_release(&nw);
	session_free(s);

	/* the other order: the precision rung first, then interpret mode "no" */
	s = start(CLASS_NUMERICS, "mismatch", "numerics-1");
	CHECK(record(s, rs, "numerics.precision-sweep", RESULT_SAME, NULL, &nw) == 0);
	CHECK_STREQ(s->subkind, "logic");
	CHECK_INTEQ(s->status, SESSION_IN_PROGRESS);
	CHECK(session_interpret(s, rs, INTERP_NO_REPRO, &nw, &err) == 0);
	CHECK(!stands_on_ruled_out(s));
	CHECK_INTEQ(s->status, SESSION_BLOCKED);
	CHECK(s->finding != NULL);
	/* a class the first log gave no score is not where a numerics failure moves */
	CHECK_INTEQ(s->cls, CLASS_NUMERICS);
	session_news_release(&nw);
	session_free(s);
}

/* The interpret-mode question: asked where it can tell something, and its
 * rung is not shown again once it is answered. */
static void
test_interpret_question(const struct ruleset *rs)
{
	struct pt_err err = PT_ERR_INIT;
	struct session *s = start(CLASS_CAPACITY, "scoped-vmem", "capacity-1");
	const struct rung *r;

	CHECK(!session_interpret_applies(s, rs));       /* not-modelled */
	session_free(s);
	s = start(CLASS_UNSUPPORTED, NULL, "unsupported-1");
	CHECK(!session_interpret_applies(s, rs));
	session_free(s);
	s = start(CLASS_NUMERICS, "mismatch", "numerics-1");
	CHECK(session_interpret_applies(s, rs));
	CHECK((r = session_next_rung(s, rs)) && strcmp(r->id, "numerics.interpret-check") == 0);
	CHECK(session_interpret(s, rs, INTERP_SKIPPED, NULL, &err) == 0);
	/* skipped: the test was not run, so the rung still suggests it */
	CHECK((r = session_next_rung(s, rs)) && strcmp(r->id, "numerics.interpret-check") == 0);
	CHECK(!session_interpret_applies(s, rs));
	session_free(s);
	s = start(CLASS_NUMERICS, "mismatch", "numerics-1");
	CHECK(session_interpret(s, rs, INTERP_REPRODUCES, NULL, &err) == 0);
	CHECK_STREQ(vars_get(&s->vars, "interpret_answered"), "reproduces");
	CHECK((r = session_next_rung(s, rs)) && strcmp(r->id, "numerics.interpret-check") != 0);
	session_free(s);
}

/* A log written under interpret mode answers the question by itself. */
static void
test_interpret_mode_log(const struct ruleset *rs)
{
	struct context_def def = { .id = (char *)"interpret-mode" };
	struct verdict_context vc = { .def = &def, .held = true };
	struct session *s = session_new();
	struct verdict v;

	fake_verdict(&v, CLASS_NUMERICS, "mismatch", "numerics-1");
	v.contexts = &vc;
	v.ncontexts = 1;
	session_begin(s, rs, &v, "run.log", NOW);
	CHECK_INTEQ(s->interp, INTERP_REPRODUCES);
	CHECK_STREQ(s->subkind, "logic");
	CHECK(!session_interpret_applies(s, rs));
	CHECK(s->nruled == 3 && s->ruled[0].reason && strstr(s->ruled[0].reason, "interpret-mode output"));
	session_free(s);
	vc.held = false;
	s = session_new();
	session_begin(s, rs, &v, "run.log", NOW);
	CHECK_INTEQ(s->interp, INTERP_UNASKED);
	session_free(s);
	vars_release(&v.vars);
}

/*
 * The edit-and-rerun loop in the store: the first log begins the session
 * (a piped one is kept), the same log again resumes it, any other log is
 * the result of the last change (kept for the attempt), and nothing in
 * progress is ever archived; a closed session is, and comes back.
 */
static void
test_loop_store(const struct ruleset *rs)
{
	struct session_txn t = SESSION_TXN_INIT;
	struct session_opened o;
	struct pt_err err = PT_ERR_INIT;
	struct verdict v, other;
	char tmpl[] = "/tmp/pt-loop-XXXXXX", rm[64], *restored = NULL, *archived = NULL;
	char d1[SHA256_HEX_LEN + 1], d2[SHA256_HEX_LEN + 1];
	const char *dir = "sess";
	struct session_log first = { "<stdin>", d1, "first log\n", 10 };
	struct session_log second = { "<stdin>", d2, "second log\n", 11 };

	sha256_hex(first.data, first.len, d1);
	sha256_hex(second.data, second.len, d2);
	CHECK(mkdtemp(tmpl) != NULL && chdir(tmpl) == 0);
	fake_verdict(&v, CLASS_CAPACITY, "scoped-vmem", "capacity-1");
	fake_verdict(&other, CLASS_LAYOUT, NULL, "layout-1");
	CHECK(session_open_loop(&t, rs, dir, &v, &first, NULL, NOW, &o, &err) == 0);
	CHECK(!o.resumed && !o.result_log && o.seen < 0);
	CHECK(t.s && t.s->log_saved && util_is_file(t.s->log_saved));
	CHECK(t.s && t.s->log_saved && strstr(t.s->log_saved, "logs/first-") != NULL);
	CHECK_STREQ(t.s->log_digest, d1);
	session_opened_release(&o);
	session_txn_release(&t);
	/* the same log again: resumed, not a result */
	CHECK(session_open_loop(&t, rs, dir, &v, &first, NULL, NOW, &o, &err) == 0);
	CHECK(o.resumed && o.seen == 0 && !o.result_log && !o.saved);
	session_opened_release(&o);
	session_txn_release(&t);
	/* another log, even of another failure: a result, kept; nothing archived */
	CHECK(session_open_loop(&t, rs, dir, &other, &second, NULL, NOW, &o, &err) == 0);
	CHECK(o.result_log && !o.archived && o.saved && util_is_file(o.saved));
	CHECK(o.saved && strstr(o.saved, "logs/attempt-1-") != NULL);
	CHECK_INTEQ(t.s->first.cls, CLASS_CAPACITY);
	CHECK_INTEQ(session_result_of(t.s, &other), RESULT_NEW);
	CHECK_INTEQ(session_result_of(t.s, &v), RESULT_SAME);
	/* closed: the next log begins a new session, and the old one can come back */
	t.s->status = SESSION_RESOLVED;
	CHECK(session_commit(&t, rs, false, &err) == 0);
	session_opened_release(&o);
	session_txn_release(&t);
	CHECK(session_open_loop(&t, rs, dir, &other, &second, NULL, NOW, &o, &err) == 0);
	CHECK(o.archived && !o.result_log && t.s->first.cls == CLASS_LAYOUT);
	session_opened_release(&o);
	session_txn_release(&t);
	CHECK(session_restore(dir, 0, &restored, &archived, &err) == 0);
	CHECK(restored && archived && session_archive_latest(dir) == 2);
	CHECK(session_open_locked(&t, dir, NOW, &err) == 0 && t.s->first.cls == CLASS_CAPACITY);
	session_txn_release(&t);
	free(restored);
	free(archived);
	vars_release(&v.vars);
	vars_release(&other.vars);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", tmpl);
	CHECK(chdir("/") == 0 && system(rm) == 0);
}

/* The report of a session goes beside its directory, so a session kept
 * elsewhere (--session-dir) never writes into a read-only working directory. */
static void
test_report_dir(void)
{
	static const char *const cases[][2] = {
		{ ".pallas-triage", "." }, { "a/b", "a" }, { "a//b/", "a" }, { "/s", "/" },
		{ "/tmp/x/s", "/tmp/x" }, { "s/", "." },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = session_report_dir(cases[i][0]);

		CHECK_STREQ(d, cases[i][1]);
		free(d);
	}
}

int
main(void)
{
	struct ruleset *rs = load_rules();

	RS = rs;
	test_names();
	test_partition();
	test_family_and_cap(rs);
	test_new_log(rs);
	test_new_class_asks_again(rs);
	test_precision_rung(rs);
	test_round_trip(rs);
	test_bad_files();
	test_redact();
	test_report(rs);
	test_txn(rs);
	test_report_dir();
	test_contradiction(rs);
	test_interpret_question(rs);
	test_interpret_mode_log(rs);
	test_loop_store(rs);
	ruleset_free(rs);
	return TEST_DONE();
}
