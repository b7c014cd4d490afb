/* SPDX-License-Identifier: MIT */
/*
 * The escalation report: the model, built once from a session, and the
 * table of writers. The writers are report_text.c, report_md.c and
 * report_json.c; redaction is report_redact.c. The layout follows the
 * escalation report of the method (status, every attempt, what was ruled
 * out and why, what to try next), so it can be pasted into an upstream bug
 * as it is.
 */
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <sys/stat.h>

#include "pt/buf.h"
#include "pt/json.h"
#include "pt/ladder.h"
#include "pt/report.h"
#include "pt/term.h"
#include "pt/util.h"
#include "pt/xalloc.h"

/* --- the model --- */

/*
 * Every string that reaches a report comes from a log or from the session
 * file, which a cloned repository may have planted: each one is copied
 * into the model through rdup() (free text: escaped, then masked if asked)
 * or rid() (names and labels: escaped), never with xstrdup(). Control and
 * bidirectional bytes are escaped because a report is cat'ed to a
 * terminal, pasted into a bug and posted to a webhook.
 */
static char *
rid(const char *s)
{
	return s ? term_escape(s, strlen(s)) : NULL;
}

static char *
rdup(const struct report *r, const char *s)
{
	char *esc, *red;

	if (!s)
		return NULL;
	esc = rid(s);
	if (!r->redacted)
		return esc;
	red = report_redact(esc);
	free(esc);
	return red;
}

/* rid() of a new string s, which it frees. */
static char *
rtake(char *s)
{
	char *esc = rid(s);

	free(s);
	return esc;
}

/* class_label() (pt/rules.h), its subkind escaped. */
static char *
rlabel(enum pt_class c, const char *subkind)
{
	return rtake(class_label(c, subkind));
}

static void
kv_push(struct report_kv **v, size_t *n, char *key, char *value)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n].key = key;
	(*v)[*n].value = value;
	(*n)++;
}

static void
str_push(char ***v, size_t *n, char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i], s) == 0) {
			free(s);
			return;
		}
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = s;
}

static void
build_status(struct report *r, const struct session *s)
{
	const struct attempt *last = s->nattempts ? &s->attempts[s->nattempts - 1] : NULL;
	char *cur = rlabel(s->cls, s->subkind), *rung = rid(last ? last->rung : "?");
	char *finding = rdup(r, s->finding);

	r->attempts_used = (int)s->nattempts;
	r->attempt_cap = SESSION_ATTEMPT_CAP;
	if (s->status == SESSION_RESOLVED) {
		r->status = "resolved";
		r->status_line = xasprintf("fixed at attempt %d of %d (%s)", last ? last->n : 0,
					   SESSION_ATTEMPT_CAP, rung);
	} else if (s->status == SESSION_BLOCKED && s->finding) {
		r->status = "blocked";
		r->status_line = xasprintf("stopped after %zu of %d attempts: %s", s->nattempts,
					   SESSION_ATTEMPT_CAP, finding);
	} else if (s->status == SESSION_BLOCKED && s->nattempts >= SESSION_ATTEMPT_CAP) {
		r->status = "blocked";
		r->status_line = xasprintf("stopped at attempt %d of %d without a fix",
					   SESSION_ATTEMPT_CAP, SESSION_ATTEMPT_CAP);
	} else if (s->status == SESSION_BLOCKED) {
		r->status = "blocked";
		r->status_line = xasprintf("stopped after %zu of %d attempts: no rung left on the "
					   "%s ladder", s->nattempts, SESSION_ATTEMPT_CAP, cur);
	} else {
		r->status = "in progress";
		r->status_line = xasprintf("%zu of %d attempts used; the walk goes on",
					   s->nattempts, SESSION_ATTEMPT_CAP);
	}
	r->current = cur;
	free(rung);
	free(finding);
}

/* The attempt whose log gave the latest diagnosis, or NULL: the first log is the latest. */
static const struct attempt *
latest_attempt(const struct session *s)
{
	if (!s->latest)
		return NULL;
	for (size_t i = s->nattempts; i-- > 0;)
		if (s->attempts[i].log)
			return &s->attempts[i];
	return NULL;
}

static char *
from_text(const struct session *s)
{
	const struct attempt *a = latest_attempt(s);

	return a ? xasprintf("the log of attempt %d", a->n) : xstrdup("the first log");
}

/*
 * The environment is the latest log's: a run after an upgrade says the new
 * JAX version. Fields it did not state are the earlier logs' (the session
 * read it with them), and only what some log said is listed: a TPU report
 * has no CUDA rows.
 */
static void
build_env(struct report *r, const struct session *s, const struct ruleset *rs)
{
	if (!rs)
		return;
	for (const char *const *f = ruleset_env_fields(rs); *f; f++)
		if (vars_get(&s->vars, *f))
			kv_push(&r->env, &r->nenv, xstrdup(*f), rdup(r, vars_get(&s->vars, *f)));
	r->env_from = from_text(s);
}

/* The last attempt whose log named a class: what a session of schema 1 knows of its latest log. */
static const struct attempt *
last_logged(const struct session *s)
{
	for (size_t i = s->nattempts; i-- > 0;)
		if (s->attempts[i].log && s->attempts[i].cls_after < CLASS_COUNT)
			return &s->attempts[i];
	return NULL;
}

/* The failure the report leads with: the latest log's, until it is fixed. */
static void
build_now(struct report *r, const struct session *s)
{
	const struct verdict_snapshot *d = s->latest ? s->latest : &s->first;
	const struct attempt *a = s->latest ? latest_attempt(s) : last_logged(s);
	struct report_failure *f = &r->now;

	f->from = a ? xasprintf("the log of attempt %d", a->n) : xstrdup("the first log");
	f->log = rdup(r, a ? a->log : s->log_saved ? s->log_saved : s->log);
	if (s->status == SESSION_RESOLVED)
		return;
	if (a && !s->latest) {
		/* only the attempt's class and key line were kept */
		f->label = rlabel(a->cls_after, a->subkind_after);
		f->key_line = rdup(r, a->key_line);
		return;
	}
	f->label = rlabel(d->cls, d->subkind);
	f->message = rdup(r, d->message ? d->message : d->reason);
	f->key_line = rdup(r, d->key_line);
	f->key_lineno = d->key_lineno;
	f->location = rdup(r, d->location);
	f->fingerprint = rdup(r, d->fingerprint);
	f->confidence = d->confidence;
}

/* Every log in order, with the class it showed and its key line. */
static void
build_logs(struct report *r, const struct session *s)
{
	r->logs = xcalloc(s->nattempts + 2, sizeof(*r->logs));
	r->logs[0].what = xstrdup("first log");
	r->logs[0].log = rdup(r, s->log_saved ? s->log_saved : s->log);
	r->logs[0].cls = rlabel(s->first.cls, s->first.subkind);
	r->logs[0].key_line = rdup(r, s->first.key_line);
	r->nlogs = 1;
	for (size_t i = 0; i < s->nattempts; i++) {
		const struct attempt *a = &s->attempts[i];
		struct report_log *l = &r->logs[r->nlogs];

		if (!a->log)
			continue;
		l->what = xasprintf("attempt %d", a->n);
		l->log = rdup(r, a->log);
		l->cls = rlabel(a->cls_after, a->cls_after == CLASS_COUNT ? NULL :
				     a->subkind_after);
		l->key_line = rdup(r, a->key_line);
		r->nlogs++;
	}
}

static void
build_diagnosis(struct report *r, const struct session *s, const struct ruleset *rs)
{
	const struct verdict_snapshot *d = &s->first;

	r->diagnosis = rlabel(d->cls, d->subkind);
	r->confidence = d->confidence;
	r->runner_up = d->runner_up < CLASS_COUNT ? xstrdup(class_name(d->runner_up)) : NULL;
	r->rule = rid(d->rule);
	r->message = rdup(r, d->message ? d->message : d->reason);
	r->location = rdup(r, d->location);
	r->key_line = rdup(r, d->key_line);
	r->key_lineno = d->key_lineno;
	r->fingerprint = rdup(r, d->fingerprint);
	r->fingerprint_text = rdup(r, d->fingerprint_text);
	r->log = rdup(r, s->log);
	r->log_saved = rdup(r, s->log_saved);
	for (size_t i = 0; i < d->nev;) {
		struct buf key = BUF_INIT;
		size_t j = i;

		/* several rules often cite one line: one row per line */
		buf_addf(&key, "line %zu", d->ev[i].line);
		for (; j < d->nev && d->ev[j].line == d->ev[i].line; j++)
			if (d->ev[j].rule)
				buf_addf(&key, "%s%s", key.len > 0 && strchr(key.data, '(') ? ", " : " (",
					 d->ev[j].rule);
		if (strchr(key.data, '('))
			buf_addch(&key, ')');
		kv_push(&r->evidence, &r->nevidence, rid(key.data), rdup(r, d->ev[i].text));
		buf_release(&key);
		i = j;
	}
	for (size_t i = 0; i < d->vars.n; i++)
		if (!rs || !ruleset_is_env_field(rs, d->vars.v[i].name))
			kv_push(&r->values, &r->nvalues, rid(d->vars.v[i].name),
				rdup(r, d->vars.v[i].value));
	build_env(r, s, rs);
	r->tool = rdup(r, s->tool ? s->tool : "pallas-triage " PT_VERSION);
}

static const char *
result_text(enum attempt_result res)
{
	static const char *const t[RESULT_COUNT] = { "fixed", "same error", "different error",
						     "not applicable" };

	return res < RESULT_COUNT ? t[res] : "?";
}

/* The answer, and what the rules say it rules out (classes.yaml, rules_out). */
static char *
interpret_text(const struct session *s, const struct ruleset *rs)
{
	const struct class_def *cd = s->cls < CLASS_COUNT && rs->have_class[s->cls] ?
				     &rs->classes[s->cls] : NULL;
	enum interp_outcome o = s->interp == INTERP_REPRODUCES ? OUTCOME_REPRODUCES
								: OUTCOME_NO_REPRO;
	struct buf b = BUF_INIT;

	if (s->interp == INTERP_SKIPPED)
		return xstrdup("not tried");
	if (s->interp == INTERP_UNASKED)
		return cd && cd->interpret && strcmp(cd->interpret, "not-modelled") == 0 ?
		       xasprintf("not asked: interpret mode cannot tell anything about %s",
				 class_name(s->cls)) : xstrdup("not asked yet");
	buf_addf(&b, "%s under interpret mode", s->interp == INTERP_REPRODUCES ? "reproduces" :
		 "does not reproduce");
	for (int c = 0; c < CLASS_COUNT; c++) {
		char **p = rs->have_class[c] ? rs->classes[c].rules_out[o] : NULL;

		for (; p && p[0] && p[1]; p += 2) {
			char *lab = class_label((enum pt_class)c, *p[0] ? p[0] : NULL);

			buf_addf(&b, "%s%s", strstr(b.data, ": rules out ") ? ", " : ": rules out ",
				 lab);
			free(lab);
		}
	}
	return buf_detach(&b, NULL);
}

static void
build_history(struct report *r, const struct session *s, const struct ruleset *rs)
{
	r->interpret = interpret_text(s, rs);
	for (size_t i = 0; i < s->nruled; i++)
		kv_push(&r->ruled, &r->nruled, rlabel(s->ruled[i].cls, s->ruled[i].subkind),
			rdup(r, s->ruled[i].reason));
	r->att = s->nattempts ? xcalloc(s->nattempts, sizeof(*r->att)) : NULL;
	for (size_t i = 0; i < s->nattempts; i++) {
		const struct attempt *a = &s->attempts[i];
		struct report_attempt *ra = &r->att[i];

		ra->n = a->n;
		ra->rung = rid(a->rung);
		ra->change = rdup(r, a->change);
		ra->result = xstrdup(result_text(a->result));
		ra->cls_after = rlabel(a->cls_after, a->subkind_after);
		ra->log = rdup(r, a->log);
		ra->note = rdup(r, a->note);
		ra->kernel = rdup(r, a->kernel_diff);
		ra->time = rdup(r, a->time);
	}
	r->natt = s->nattempts;
	for (size_t i = 0; i < s->nskipped; i++)
		str_push(&r->skipped, &r->nskipped, rid(s->skipped[i].rung));
	for (size_t i = 0; i < s->ntraj; i++) {
		char *l = rlabel(s->traj[i].cls, s->traj[i].subkind), *why = rdup(r, s->traj[i].why);

		r->trajectory = xrealloc(r->trajectory, (r->ntraj + 1) * sizeof(*r->trajectory));
		r->trajectory[r->ntraj++] = xasprintf("%s (%s)", l, why);
		free(l);
		free(why);
	}
}

static void
build_next(struct report *r, const struct session *s, const struct ruleset *rs,
	   struct api_render *ar)
{
	const struct rung **plan = NULL;
	size_t n;

	if (!rs || s->status == SESSION_RESOLVED)
		return;
	n = session_plan(s, rs, &plan);
	r->next = n ? xcalloc(n, sizeof(*r->next)) : NULL;
	for (size_t i = 0; i < n; i++) {
		char *change;

		api_render_clear_notes(ar);
		change = ladder_change_render(ar, plan[i], &s->vars, NULL);
		r->next[i].note = rtake(ladder_api_notes(ar));

		r->next[i].rung = xstrdup(plan[i]->id);
		r->next[i].family = plan[i]->family ? xstrdup(plan[i]->family) : NULL;
		r->next[i].action = rdup(r, api_render_prose(ar, plan[i]->action));
		r->next[i].change = *change ? rdup(r, change) : NULL;
		r->next[i].expect = rdup(r, api_render_prose(ar, plan[i]->expect));
		free(change);
	}
	r->nnext = n;
	free(plan);
}

static bool
class_seen(const struct session *s, enum pt_class c)
{
	for (size_t i = 0; i < s->ntraj; i++)
		if (s->traj[i].cls == c)
			return true;
	return s->cls == c;
}

static void
more_push(struct report *r, char *const *v, struct api_render *ar)
{
	/* the rules name APIs through the table: spelled for the session's JAX */
	for (; v && *v; v++)
		str_push(&r->more, &r->nmore, xstrdup(api_render_prose(ar, *v)));
}

/* What would help a maintainer next: the rules' more_info, the current class's first. */
static void
build_more(struct report *r, const struct session *s, const struct ruleset *rs,
	   struct api_render *ar)
{
	if (s->status == SESSION_RESOLVED || !rs)
		return;
	if (!vars_get(&s->vars, "jax_version") || !vars_get(&s->vars, "libtpu_version"))
		str_push(&r->more, &r->nmore, xstrdup("the jax, jaxlib and libtpu versions: the "
			 "output of python -c 'import jax; jax.print_environment_info()'"));
	if (!vars_get(&s->vars, "chip") && !vars_get(&s->vars, "device_kind"))
		str_push(&r->more, &r->nmore, xstrdup("the TPU generation: "
			 "jax.devices()[0].device_kind"));
	if (s->cls < CLASS_COUNT && rs->have_class[s->cls])
		more_push(r, rs->classes[s->cls].more_info, ar);
	for (int c = 0; c < CLASS_COUNT; c++)
		if (c != (int)s->cls && rs->have_class[c] && class_seen(s, (enum pt_class)c))
			more_push(r, rs->classes[c].more_info, ar);
	more_push(r, rs->more_info, ar);
}

static void
flag_push(struct report *r, const struct flag_def *f, struct api_render *ar,
	  const struct vars *vs)
{
	for (size_t i = 0; i < r->nflags; i++)
		if (strcmp(r->flags[i].id, f->id) == 0)
			return;
	api_render_clear_notes(ar);
	r->flags = xrealloc(r->flags, (r->nflags + 1) * sizeof(*r->flags));
	r->flags[r->nflags].id = xstrdup(f->id);
	r->flags[r->nflags].snippet = rtake(ladder_flag_render(ar, f, vs));
	r->flags[r->nflags].why = f->why ? rid(api_render_prose(ar, f->why)) : NULL;
	r->flags[r->nflags].note = rtake(ladder_api_notes(ar));
	r->nflags++;
}

static void
push_rung_flags(struct report *r, const struct ruleset *rs, enum pt_class c,
		const struct vars *vs, struct api_render *ar)
{
	const struct rung **rungs = NULL;
	size_t n = ladder_for_backend(rs, c, vs, &rungs);

	for (size_t i = 0; i < n; i++)
		for (char **f = rungs[i]->flags; f && *f; f++) {
			const struct flag_def *fd = ruleset_find_flag(rs, *f);

			if (fd)
				flag_push(r, fd, ar, vs);
		}
	free(rungs);
}

/*
 * The flags the rungs of every ladder the walk visited ask for, of the
 * ladders for the session's platform only (a TPU session gets no Mosaic
 * GPU dump); if those ask for none, the flags of every ladder of it.
 */
static void
build_flags(struct report *r, const struct session *s, const struct ruleset *rs,
	    struct api_render *ar)
{
	if (!rs)
		return;
	for (int c = 0; c < CLASS_COUNT; c++)
		if (class_seen(s, (enum pt_class)c))
			push_rung_flags(r, rs, (enum pt_class)c, &s->vars, ar);
	for (int c = 0; r->nflags == 0 && c < CLASS_COUNT; c++)
		push_rung_flags(r, rs, (enum pt_class)c, &s->vars, ar);
}

void
report_build(struct report *r, const struct session *s, const struct ruleset *rs, bool redact)
{
	struct api_render ar;
	const char *what;

	memset(r, 0, sizeof(*r));
	r->redacted = redact;
	ladder_render_init(&ar, rs, &s->vars);
	build_status(r, s);
	build_now(r, s);
	build_logs(r, s);
	build_diagnosis(r, s, rs);
	build_history(r, s, rs);
	build_next(r, s, rs, &ar);
	build_more(r, s, rs, &ar);
	build_flags(r, s, rs, &ar);
	/* these quote the session's jax_version */
	r->spelling = rtake(ladder_api_sentence(&ar));
	r->snippets_for_jax = ar.known && ar.table ? rid(ar.version) : NULL;
	api_render_release(&ar);
	r->kernel = rdup(r, s->kernel);
	r->pre_debug = rdup(r, s->pre_debug);
	r->created = rid(s->created ? s->created : "");
	r->updated = rid(s->updated ? s->updated : "");
	what = s->kernel ? r->kernel : strcmp(r->log, "-") == 0 || strcmp(r->log, "<stdin>") == 0 ?
	       "standard input" : r->log;
	/* the failure in front of the user names the report, not the first log's */
	r->title = xasprintf("%s failure in %s", class_name(s->cls), what);
}

static void
kv_free(struct report_kv *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].value);
	}
	free(v);
}

static void
strv_free_n(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void
attempts_free(struct report_attempt *att, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(att[i].rung);
		free(att[i].change);
		free(att[i].result);
		free(att[i].cls_after);
		free(att[i].log);
		free(att[i].note);
		free(att[i].kernel);
		free(att[i].time);
	}
	free(att);
}

static void
next_free(struct report_next *next, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(next[i].rung);
		free(next[i].family);
		free(next[i].action);
		free(next[i].change);
		free(next[i].expect);
		free(next[i].note);
	}
	free(next);
}

static void
logs_free(struct report_log *logs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(logs[i].what);
		free(logs[i].log);
		free(logs[i].cls);
		free(logs[i].key_line);
	}
	free(logs);
}

void
report_release(struct report *r)
{
	if (!r)
		return;
	free(r->title);
	free(r->now.label);
	free(r->now.from);
	free(r->now.log);
	free(r->now.message);
	free(r->now.key_line);
	free(r->now.location);
	free(r->now.fingerprint);
	logs_free(r->logs, r->nlogs);
	free(r->env_from);
	free(r->status_line);
	free(r->fingerprint);
	free(r->fingerprint_text);
	free(r->diagnosis);
	free(r->runner_up);
	free(r->rule);
	free(r->message);
	free(r->location);
	free(r->key_line);
	free(r->log);
	free(r->log_saved);
	kv_free(r->evidence, r->nevidence);
	kv_free(r->values, r->nvalues);
	kv_free(r->env, r->nenv);
	free(r->interpret);
	kv_free(r->ruled, r->nruled);
	attempts_free(r->att, r->natt);
	strv_free_n(r->skipped, r->nskipped);
	strv_free_n(r->trajectory, r->ntraj);
	free(r->current);
	next_free(r->next, r->nnext);
	strv_free_n(r->more, r->nmore);
	for (size_t i = 0; i < r->nflags; i++) {
		free(r->flags[i].id);
		free(r->flags[i].snippet);
		free(r->flags[i].why);
		free(r->flags[i].note);
	}
	free(r->flags);
	free(r->spelling);
	free(r->snippets_for_jax);
	free(r->kernel);
	free(r->pre_debug);
	free(r->created);
	free(r->updated);
	free(r->tool);
	memset(r, 0, sizeof(*r));
}

char *
report_flag_line(const struct report_flag *f)
{
	return xasprintf("%s%s%s%s%s", f->snippet, f->why ? "  # " : "", f->why ? f->why : "",
			 f->note ? "; " : "", f->note ? f->note : "");
}

/* --- writers --- */

static const struct {
	const char *name;
	int (*write)(const struct report *r, FILE *fp);
} writers[] = {
	{ "text", report_write_text },
	{ "md", report_write_md },
	{ "markdown", report_write_md },
	{ "json", report_write_json },
};

bool
report_format_known(const char *format)
{
	for (size_t i = 0; i < ARRAY_SIZE(writers); i++)
		if (strcmp(writers[i].name, format) == 0)
			return true;
	return false;
}

int
report_write(const struct report *r, const char *format, FILE *fp, struct pt_err *err)
{
	for (size_t i = 0; i < ARRAY_SIZE(writers); i++)
		if (strcmp(writers[i].name, format) == 0) {
			if (writers[i].write(r, fp) < 0 || fflush(fp) != 0 || ferror(fp))
				return pt_err_errno(err, PT_EXIT_SYSTEM, "cannot write the report");
			return 0;
		}
	return pt_err_set(err, PT_EXIT_USAGE, "unknown report format '%s'", format);
}

/* Render into memory first so the file on disk is replaced in one rename. */
int
report_write_file(const struct report *r, const char *format, const char *path, bool user_path,
		  struct pt_err *err)
{
	char *data = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&data, &len);
	int ret;

	if (!mem)
		return pt_err_errno(err, PT_EXIT_SYSTEM, "cannot render the report");
	ret = report_write(r, format, mem, err);
	if (fclose(mem) != 0 && ret == 0)
		ret = pt_err_errno(err, PT_EXIT_SYSTEM, "cannot render the report");
	if (ret == 0)
		ret = user_path ? util_write_output(path, data, len, err) :
		      util_write_atomic(path, data, len, err);
	free(data);
	return ret;
}

/* The path name in dir ("." writes bare names: the user looks for them so). */
static char *
in_dir(const char *dir, const char *name)
{
	return strcmp(dir, ".") == 0 ? xstrdup(name) : xasprintf("%s/%s", dir, name);
}

/* A path is taken when anything is there, even a dangling link. */
static bool
taken(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/*
 * Is the JSON report at path one of this report's session? Sessions are
 * told apart by when they started and by their first failure.
 */
static bool
same_session(const char *path, const struct report *r)
{
	struct buf b = BUF_INIT;
	struct json *j = NULL;
	const char *created = NULL, *fp = NULL;
	bool same = false;

	if (util_read_regular(path, &b, 64u << 20, NULL) == 0 &&
	    (j = json_parse(b.data, b.len, path, NULL)) &&
	    json_str_value(json_get(j, "created"), &created) == 0) {
		json_str_value(json_get(json_get(j, "fingerprint"), "id"), &fp);
		same = r->created && strcmp(created, r->created) == 0 &&
		       (fp && r->fingerprint ? strcmp(fp, r->fingerprint) == 0 : !fp && !r->fingerprint);
	}
	json_free(j);
	buf_release(&b);
	return same;
}

/* The names report_write_files() writes: see pt/report.h. */
static void
pick_names(const struct report *r, const char *dir, char **pm, char **pj)
{
	for (int n = 1; ; n++) {
		char *md, *js;

		if (n == 1) {
			md = in_dir(dir, REPORT_MD_FILE);
			js = in_dir(dir, REPORT_JSON_FILE);
		} else {
			char *m = xasprintf("pallas-triage-report-%d.md", n);
			char *j = xasprintf("pallas-triage-report-%d.json", n);

			md = in_dir(dir, m);
			js = in_dir(dir, j);
			free(m);
			free(j);
		}
		if ((!taken(md) && !taken(js)) || (taken(js) && same_session(js, r)) || n > 9999) {
			*pm = md;
			*pj = js;
			return;
		}
		free(md);
		free(js);
	}
}

int
report_write_files(const struct report *r, const char *dir, char **md, char **json,
		   struct pt_err *err)
{
	char *pm, *pj;
	int ret = -1;

	pick_names(r, dir, &pm, &pj);
	if (report_write_file(r, "md", pm, false, err) < 0 ||
	    report_write_file(r, "json", pj, false, err) < 0)
		goto out;
	if (md) {
		*md = pm;
		pm = NULL;
	}
	if (json) {
		*json = pj;
		pj = NULL;
	}
	ret = 0;
out:
	free(pm);
	free(pj);
	return ret;
}
