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

#include "pt/buf.h"
#include "pt/ladder.h"
#include "pt/report.h"
#include "pt/term.h"
#include "pt/util.h"
#include "pt/xalloc.h"

/*
 * What would help a maintainer next, per class. These are the method's
 * questions, not log knowledge, so they stay here rather than in rules/.
 */
static const struct { enum pt_class cls; const char *text; } more_info[] = {
	{ CLASS_LAYOUT, "the block shape, array shape and dtype of every BlockSpec of the kernel" },
	{ CLASS_LAYOUT, "the full Mosaic diagnostic and the failing op from the Mosaic dump "
			"(LIBTPU_INIT_ARGS=--xla_mosaic_dump_to=DIR)" },
	{ CLASS_CAPACITY, "the compiler's full 'Largest program allocations in vmem' list" },
	{ CLASS_CAPACITY, "the scoped VMEM limit in force: vmem_limit_bytes and "
			  "--xla_tpu_scoped_vmem_limit_kib in LIBTPU_INIT_ARGS" },
	{ CLASS_SYNCHRONIZATION, "a run under pltpu.InterpretParams(detect_races=True) with "
				 "dma_execution_mode=\"eager\" and then \"on_wait\", inside "
				 "'pallas-triage run --timeout' (an unmet wait hangs there too)" },
	{ CLASS_SYNCHRONIZATION, "every async copy's start and wait, and every semaphore signal "
				 "and wait, on every control-flow path" },
	{ CLASS_NUMERICS, "the max-abs and max-rel error against a float64 CPU reference, per "
			  "output block" },
	{ CLASS_NUMERICS, "the error at matmul precision DEFAULT, HIGH and HIGHEST" },
	{ CLASS_UNSUPPORTED, "the smallest kernel that still fails on the same operation" },
	{ CLASS_UNSUPPORTED, "whether the kernel runs under interpret=True (which skips Mosaic)" },
	{ CLASS_UNKNOWN, "the whole log from the first error line to the end" },
	{ CLASS_COUNT, "a minimal reproducer: the pre-debug kernel with the shapes and dtypes "
		       "of its inputs" },
	{ CLASS_COUNT, "an HLO dump of the failing program (XLA_FLAGS=--xla_dump_to=DIR)" },
};

static const struct {
	enum interp_answer a;
	const char *text;
} interp_text[] = {
	{ INTERP_UNASKED, "not asked yet" },
	{ INTERP_REPRODUCES, "reproduces under interpret mode: a logic or indexing bug, or a "
			     "race; not layout, capacity or precision" },
	{ INTERP_NO_REPRO, "does not reproduce under interpret mode: layout, capacity or "
			   "precision; not a logic or indexing bug" },
	{ INTERP_SKIPPED, "not tried" },
};

/* --- the model --- */

/* Every string that reaches a report may come from a log: control bytes are
 * escaped (a report is often cat'ed to a terminal), then masked if asked. */
static char *
rdup(const struct report *r, const char *s)
{
	char *esc, *red;

	if (!s)
		return NULL;
	esc = term_escape(s, strlen(s));
	if (!r->redacted)
		return esc;
	red = report_redact(esc);
	free(esc);
	return red;
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
	char *cur = class_label(s->cls, s->subkind);

	r->attempts_used = (int)s->nattempts;
	r->attempt_cap = SESSION_ATTEMPT_CAP;
	if (s->status == SESSION_RESOLVED) {
		r->status = "resolved";
		r->status_line = xasprintf("fixed at attempt %d of %d (%s)", last ? last->n : 0,
					   SESSION_ATTEMPT_CAP, last ? last->rung : "?");
	} else if (s->status == SESSION_BLOCKED && s->finding) {
		r->status = "blocked";
		r->status_line = xasprintf("stopped after %zu of %d attempts: %s", s->nattempts,
					   SESSION_ATTEMPT_CAP, s->finding);
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
}

/* The environment fingerprint lists every field the rules' facts can set,
 * in their order: a field the log did not show is worth saying. */
static void
build_env(struct report *r, const struct verdict_snapshot *d, const struct ruleset *rs)
{
	const char **fields = NULL;

	if (!rs)
		return;
	/* only what the log says: a TPU report has no CUDA rows */
	ruleset_env_fields(rs, &fields);
	for (const char **f = fields; *f; f++)
		if (vars_get(&d->vars, *f))
			kv_push(&r->env, &r->nenv, xstrdup(*f), rdup(r, vars_get(&d->vars, *f)));
	free(fields);
}

static void
build_diagnosis(struct report *r, const struct session *s, const struct ruleset *rs)
{
	const struct verdict_snapshot *d = &s->first;

	r->diagnosis = class_label(d->cls, d->subkind);
	r->confidence = d->confidence;
	r->runner_up = d->runner_up < CLASS_COUNT ? xstrdup(class_name(d->runner_up)) : NULL;
	r->rule = d->rule ? xstrdup(d->rule) : NULL;
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
		kv_push(&r->evidence, &r->nevidence, buf_detach(&key, NULL), rdup(r, d->ev[i].text));
		i = j;
	}
	for (size_t i = 0; i < d->vars.n; i++)
		if (!rs || !ruleset_is_env_field(rs, d->vars.v[i].name))
			kv_push(&r->values, &r->nvalues, xstrdup(d->vars.v[i].name),
				rdup(r, d->vars.v[i].value));
	build_env(r, d, rs);
	r->tool = xstrdup(s->tool ? s->tool : "pallas-triage " PT_VERSION);
}

static const char *
result_text(enum attempt_result res)
{
	static const char *const t[RESULT_COUNT] = { "fixed", "same error", "different error",
						     "not applicable" };

	return res < RESULT_COUNT ? t[res] : "?";
}

static void
build_history(struct report *r, const struct session *s, const struct ruleset *rs)
{
	const struct class_def *cd = s->cls < CLASS_COUNT && rs->have_class[s->cls] ?
				     &rs->classes[s->cls] : NULL;

	for (size_t i = 0; i < ARRAY_SIZE(interp_text); i++)
		if (interp_text[i].a == s->interp)
			r->interpret = xstrdup(interp_text[i].text);
	if (s->interp == INTERP_UNASKED && cd && cd->interpret &&
	    strcmp(cd->interpret, "not-modelled") == 0) {
		free(r->interpret);
		r->interpret = xasprintf("not asked: interpret mode cannot tell anything about %s",
					 class_name(s->cls));
	}
	for (size_t i = 0; i < s->nruled; i++)
		kv_push(&r->ruled, &r->nruled, class_label(s->ruled[i].cls, s->ruled[i].subkind),
			rdup(r, s->ruled[i].reason));
	r->att = s->nattempts ? xcalloc(s->nattempts, sizeof(*r->att)) : NULL;
	for (size_t i = 0; i < s->nattempts; i++) {
		const struct attempt *a = &s->attempts[i];
		struct report_attempt *ra = &r->att[i];

		ra->n = a->n;
		ra->rung = xstrdup(a->rung);
		ra->change = rdup(r, a->change);
		ra->result = xstrdup(result_text(a->result));
		ra->cls_after = class_label(a->cls_after, a->subkind_after);
		ra->log = rdup(r, a->log);
		ra->note = rdup(r, a->note);
		ra->time = rdup(r, a->time);
	}
	r->natt = s->nattempts;
	for (size_t i = 0; i < s->nskipped; i++)
		str_push(&r->skipped, &r->nskipped, xstrdup(s->skipped[i].rung));
	for (size_t i = 0; i < s->ntraj; i++) {
		char *l = class_label(s->traj[i].cls, s->traj[i].subkind);

		r->trajectory = xrealloc(r->trajectory, (r->ntraj + 1) * sizeof(*r->trajectory));
		r->trajectory[r->ntraj++] = xasprintf("%s (%s)", l, s->traj[i].why);
		free(l);
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
		r->next[i].note = ladder_api_notes(ar);

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
build_more(struct report *r, const struct session *s)
{
	if (s->status == SESSION_RESOLVED)
		return;
	if (!vars_get(&s->first.vars, "jax_version") || !vars_get(&s->first.vars, "libtpu_version"))
		str_push(&r->more, &r->nmore, xstrdup("the jax, jaxlib and libtpu versions: the "
			 "output of python -c 'import jax; jax.print_environment_info()'"));
	if (!vars_get(&s->first.vars, "chip") && !vars_get(&s->first.vars, "device_kind"))
		str_push(&r->more, &r->nmore, xstrdup("the TPU generation: "
			 "jax.devices()[0].device_kind"));
	for (size_t i = 0; i < ARRAY_SIZE(more_info); i++)
		if (more_info[i].cls == s->cls)
			str_push(&r->more, &r->nmore, xstrdup(more_info[i].text));
	for (size_t i = 0; i < ARRAY_SIZE(more_info); i++)
		if (more_info[i].cls < CLASS_COUNT && more_info[i].cls != s->cls &&
		    class_seen(s, more_info[i].cls))
			str_push(&r->more, &r->nmore, xstrdup(more_info[i].text));
	for (size_t i = 0; i < ARRAY_SIZE(more_info); i++)
		if (more_info[i].cls == CLASS_COUNT)
			str_push(&r->more, &r->nmore, xstrdup(more_info[i].text));
}

static void
flag_push(struct report *r, const struct flag_def *f, struct api_render *ar)
{
	for (size_t i = 0; i < r->nflags; i++)
		if (strcmp(r->flags[i].id, f->id) == 0)
			return;
	api_render_clear_notes(ar);
	r->flags = xrealloc(r->flags, (r->nflags + 1) * sizeof(*r->flags));
	r->flags[r->nflags].id = xstrdup(f->id);
	r->flags[r->nflags].snippet = ladder_flag_render(ar, f);
	r->flags[r->nflags].why = f->why ? xstrdup(api_render_prose(ar, f->why)) : NULL;
	r->flags[r->nflags].note = ladder_api_notes(ar);
	r->nflags++;
}

/* The flags the rungs of every ladder the walk visited ask for; all flags if none do. */
static void
build_flags(struct report *r, const struct session *s, const struct ruleset *rs,
	    struct api_render *ar)
{
	if (!rs)
		return;
	for (int c = 0; c < CLASS_COUNT; c++) {
		const struct ladder *l = &rs->ladders[c];

		if (!class_seen(s, (enum pt_class)c))
			continue;
		for (size_t i = 0; i < l->nrungs; i++)
			for (char **f = l->rungs[i].flags; f && *f; f++) {
				const struct flag_def *fd = ruleset_find_flag(rs, *f);

				if (fd)
					flag_push(r, fd, ar);
			}
	}
	if (r->nflags == 0)
		for (size_t i = 0; i < rs->nflags; i++)
			flag_push(r, &rs->flags[i], ar);
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
	build_diagnosis(r, s, rs);
	build_history(r, s, rs);
	build_next(r, s, rs, &ar);
	build_more(r, s);
	build_flags(r, s, rs, &ar);
	r->spelling = ladder_api_sentence(&ar);
	r->snippets_for_jax = ar.known && ar.table ? xstrdup(ar.version) : NULL;
	api_render_release(&ar);
	r->kernel = rdup(r, s->kernel);
	r->pre_debug = rdup(r, s->pre_debug);
	r->created = xstrdup(s->created ? s->created : "");
	r->updated = xstrdup(s->updated ? s->updated : "");
	what = s->kernel ? r->kernel : strcmp(r->log, "-") == 0 || strcmp(r->log, "<stdin>") == 0 ?
	       "standard input" : r->log;
	r->title = xasprintf("%s failure in %s", class_name(s->first.cls), what);
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

void
report_release(struct report *r)
{
	if (!r)
		return;
	free(r->title);
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

int
report_write_files(const struct report *r, const char *dir, char **md, char **json,
		   struct pt_err *err)
{
	char *pm = xasprintf("%s/%s", dir, REPORT_MD_FILE), *pj = xasprintf("%s/%s", dir,
									  REPORT_JSON_FILE);
	int ret = -1;

	if (strcmp(dir, ".") == 0) {
		free(pm);
		free(pj);
		pm = xstrdup(REPORT_MD_FILE);
		pj = xstrdup(REPORT_JSON_FILE);
	}
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
