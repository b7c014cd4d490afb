/* SPDX-License-Identifier: MIT */
/*
 * The escalation report: the model (built from a session), redaction, the
 * writers table and the text and markdown writers. The JSON writer lives in
 * report_json.c, the only other file besides session_json.c that includes
 * cJSON. The layout follows the escalation report of the method (status,
 * every attempt, what was ruled out and why, what to try next), so it can be
 * pasted into an upstream bug as it is.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt/buf.h"
#include "pt/ladder.h"
#include "pt/report.h"
#include "pt/term.h"
#include "pt/util.h"
#include "pt/xalloc.h"

/* The environment fingerprint: facts read from the log, in this order. The
 * GPU rows appear only when the log has them, so a TPU report keeps its shape. */
static const struct { const char *var, *label; bool if_present; } env_keys[] = {
	{ "backend", "backend", false },
	{ "platform", "platform", true },
	{ "jax_version", "jax", false },
	{ "jaxlib_version", "jaxlib", false },
	{ "libtpu_version", "libtpu", false },
	{ "device_kind", "device kind", false },
	{ "chip", "chip", false },
	{ "cuda_version", "CUDA", true },
	{ "nvidia_driver_version", "NVIDIA driver", true },
	{ "rocm_version", "ROCm", true },
	{ "python_version", "python", false },
	{ "xla_flags", "XLA_FLAGS", false },
	{ "libtpu_init_args", "LIBTPU_INIT_ARGS", false },
	{ "jax_pallas_use_mosaic_gpu", "JAX_PALLAS_USE_MOSAIC_GPU", true },
};

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

/* --- redaction --- */

static bool
path_char(char c)
{
	return c && !strchr(" \t\n\"'`:,;()[]{}<>|=", c);
}

/* Length of the home-directory prefix at p ("/home/NAME", "/Users/NAME", "/root"), or 0. */
static size_t
home_prefix(const char *p, const char *start)
{
	static const char *const bases[] = { "/home/", "/Users/" };
	const char *home = getenv("HOME");
	size_t n;

	if (p > start && path_char(p[-1]))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(bases); i++)
		if (strncmp(p, bases[i], strlen(bases[i])) == 0) {
			n = strlen(bases[i]);
			while (path_char(p[n]) && p[n] != '/')
				n++;
			return n > strlen(bases[i]) ? n : 0;
		}
	if (strncmp(p, "/root", 5) == 0 && (p[5] == '/' || !path_char(p[5])))
		return 5;
	if (home && strlen(home) > 1 && strncmp(p, home, n = strlen(home)) == 0 &&
	    (p[n] == '/' || !path_char(p[n])))
		return n;
	return 0;
}

static bool
host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_';
}

/*
 * Length of a host name at p: this machine's name, or a TPU VM name
 * (t1v-n-...). The machine's name counts only when it has a digit or a dash,
 * so a host called "main" does not mask every "in main" of a traceback.
 */
static size_t
host_at(const char *p, const char *start, const char *host, size_t hlen)
{
	size_t n = 0;

	if (p > start && host_char(p[-1]))
		return 0;
	if (hlen >= 4 && strncmp(p, host, hlen) == 0 && (!host_char(p[hlen]) || p[hlen] == '.'))
		n = hlen;   /* and its domain, if any */
	else if (strncmp(p, "t1v-n-", 6) != 0)
		return 0;
	while (host_char(p[n]))
		n++;
	return n;
}

char *
report_redact(const char *s)
{
	struct buf b = BUF_INIT;
	char host[256] = "";
	size_t hlen;

	if (!s)
		return NULL;
	if (gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	host[strcspn(host, ".")] = '\0';   /* the short name also masks the FQDN's head */
	hlen = strcspn(host, "0123456789-") < strlen(host) ? strlen(host) : 0;
	for (const char *p = s; *p; ) {
		size_t n;

		if (*p == '/' && (n = home_prefix(p, s))) {
			buf_addch(&b, '~');
			p += n;
		} else if ((n = host_at(p, s, host, hlen))) {
			buf_adds(&b, "<host>");
			p += n;
		} else {
			buf_addch(&b, *p++);
		}
	}
	return buf_detach(&b, NULL);
}

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

static char *
label(enum pt_class c, const char *subkind)
{
	if (c >= CLASS_COUNT)
		return xstrdup("fixed");
	return subkind ? xasprintf("%s/%s", class_name(c), subkind) : xstrdup(class_name(c));
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

static bool
is_env(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(env_keys); i++)
		if (strcmp(env_keys[i].var, name) == 0)
			return true;
	return false;
}

static void
build_status(struct report *r, const struct session *s)
{
	const struct attempt *last = s->nattempts ? &s->attempts[s->nattempts - 1] : NULL;
	char *cur = label(s->cls, s->subkind);

	r->attempts_used = (int)s->nattempts;
	r->attempt_cap = SESSION_ATTEMPT_CAP;
	if (s->status == SESSION_RESOLVED) {
		r->status = "resolved";
		r->status_line = xasprintf("fixed at attempt %d of %d (%s)", last ? last->n : 0,
					   SESSION_ATTEMPT_CAP, last ? last->rung : "?");
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

static void
build_diagnosis(struct report *r, const struct session *s)
{
	const struct verdict_snapshot *d = &s->first;

	r->diagnosis = label(d->cls, d->subkind);
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
		if (!is_env(d->vars.v[i].name))
			kv_push(&r->values, &r->nvalues, xstrdup(d->vars.v[i].name),
				rdup(r, d->vars.v[i].value));
	for (size_t i = 0; i < ARRAY_SIZE(env_keys); i++)
		if (!env_keys[i].if_present || vars_get(&d->vars, env_keys[i].var))
			kv_push(&r->env, &r->nenv, xstrdup(env_keys[i].label),
				rdup(r, vars_get(&d->vars, env_keys[i].var)));
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
build_history(struct report *r, const struct session *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(interp_text); i++)
		if (interp_text[i].a == s->interp)
			r->interpret = xstrdup(interp_text[i].text);
	for (size_t i = 0; i < s->nruled; i++)
		kv_push(&r->ruled, &r->nruled, label(s->ruled[i].cls, s->ruled[i].subkind),
			rdup(r, s->ruled[i].reason));
	r->att = s->nattempts ? xcalloc(s->nattempts, sizeof(*r->att)) : NULL;
	for (size_t i = 0; i < s->nattempts; i++) {
		const struct attempt *a = &s->attempts[i];
		struct report_attempt *ra = &r->att[i];

		ra->n = a->n;
		ra->rung = xstrdup(a->rung);
		ra->change = rdup(r, a->change);
		ra->result = xstrdup(result_text(a->result));
		ra->cls_after = label(a->cls_after, a->subkind_after);
		ra->log = rdup(r, a->log);
		ra->note = rdup(r, a->note);
		ra->time = rdup(r, a->time);
	}
	r->natt = s->nattempts;
	for (size_t i = 0; i < s->nskipped; i++)
		str_push(&r->skipped, &r->nskipped, xstrdup(s->skipped[i].rung));
	for (size_t i = 0; i < s->ntraj; i++) {
		char *l = label(s->traj[i].cls, s->traj[i].subkind);

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
		r->next[i].action = rdup(r, plan[i]->action);
		r->next[i].change = *change ? rdup(r, change) : NULL;
		r->next[i].expect = rdup(r, plan[i]->expect);
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
	r->flags[r->nflags].why = f->why ? xstrdup(f->why) : NULL;
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
	build_diagnosis(r, s);
	build_history(r, s);
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

/* --- writers --- */

static const char *
orq(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

static void
text_attempts(const struct report *r, FILE *fp)
{
	fprintf(fp, "\nattempts (%d of %d):\n", r->attempts_used, r->attempt_cap);
	if (!r->natt)
		fputs("  none\n", fp);
	for (size_t i = 0; i < r->natt; i++) {
		const struct report_attempt *a = &r->att[i];

		fprintf(fp, "  %d. %s: %s -> %s\n", a->n, a->rung, a->result, a->cls_after);
		fprintf(fp, "     changed: %s\n", *a->change ? a->change : "(not described)");
		if (a->log)
			fprintf(fp, "     log: %s\n", a->log);
		if (a->note)
			fprintf(fp, "     note: %s\n", a->note);
	}
	if (r->nskipped) {
		fputs("skipped as not applicable:", fp);
		for (size_t i = 0; i < r->nskipped; i++)
			fprintf(fp, "%s %s", i ? "," : "", r->skipped[i]);
		fputc('\n', fp);
	}
	fputs("class trajectory:", fp);
	for (size_t i = 0; i < r->ntraj; i++)
		fprintf(fp, "%s %s", i ? " ->" : "", r->trajectory[i]);
	fputc('\n', fp);
}

static void
text_next(const struct report *r, FILE *fp)
{
	if (r->nnext) {
		fputs("\nwhat to try next:\n", fp);
		for (size_t i = 0; i < r->nnext; i++) {
			fprintf(fp, "  %s%s%s%s: %s\n%s%s%s", r->next[i].rung,
				r->next[i].family ? " (family " : "", orq(r->next[i].family, ""),
				r->next[i].family ? ")" : "", orq(r->next[i].action, ""),
				r->next[i].change ? "    change: " : "", orq(r->next[i].change, ""),
				r->next[i].change ? "\n" : "");
			if (r->next[i].note)
				fprintf(fp, "    note: %s\n", r->next[i].note);
		}
	}
	if (r->nmore) {
		fputs("\nwith more information:\n", fp);
		for (size_t i = 0; i < r->nmore; i++)
			fprintf(fp, "  - %s\n", r->more[i]);
	}
	if (r->nflags) {
		fputs("\ndebug flags to turn on:\n", fp);
		for (size_t i = 0; i < r->nflags; i++)
			fprintf(fp, "  %s%s%s%s%s\n", r->flags[i].snippet, r->flags[i].why ? "  # " : "",
				orq(r->flags[i].why, ""), r->flags[i].note ? "; " : "",
				orq(r->flags[i].note, ""));
	}
	if (r->spelling)
		fprintf(fp, "\nnote: %s\n", r->spelling);
}

static void
write_text(const struct report *r, FILE *fp)
{
	fprintf(fp, "pallas-triage report: %s\n", r->title);
	fprintf(fp, "status: %s: %s\n", r->status, r->status_line);
	fprintf(fp, "fingerprint: %s\n", orq(r->fingerprint, "(none)"));
	if (r->fingerprint_text)
		fprintf(fp, "  %s\n", r->fingerprint_text);
	fprintf(fp, "\nfirst diagnosis: %s (confidence %.2f)\n", r->diagnosis, r->confidence);
	if (r->message)
		fprintf(fp, "  %s\n", r->message);
	if (r->rule)
		fprintf(fp, "  rule: %s\n", r->rule);
	if (r->location)
		fprintf(fp, "  location: %s\n", r->location);
	if (r->runner_up)
		fprintf(fp, "  runner-up: %s\n", r->runner_up);
	for (size_t i = 0; i < r->nevidence; i++)
		fprintf(fp, "  %s: %s\n", r->evidence[i].key, r->evidence[i].value);
	for (size_t i = 0; i < r->nvalues; i++)
		fprintf(fp, "  %s = %s\n", r->values[i].key, r->values[i].value);
	fputs("\nenvironment:\n", fp);
	for (size_t i = 0; i < r->nenv; i++)
		fprintf(fp, "  %s: %s\n", r->env[i].key, orq(r->env[i].value, "(not in the log)"));
	fprintf(fp, "  tool: %s\n", r->tool);
	fprintf(fp, "\ninterpret mode: %s\n", r->interpret);
	fputs("ruled out:", fp);
	fputs(r->nruled ? "\n" : " nothing yet\n", fp);
	for (size_t i = 0; i < r->nruled; i++)
		fprintf(fp, "  %s: %s\n", r->ruled[i].key, r->ruled[i].value);
	text_attempts(r, fp);
	fprintf(fp, "now: %s\n", r->current);
	text_next(r, fp);
	fprintf(fp, "\nartifacts:\n  log: %s\n", r->log);
	if (r->kernel)
		fprintf(fp, "  kernel: %s\n", r->kernel);
	fprintf(fp, "  pre-debug copy: %s\n", orq(r->pre_debug, "(none: run with --kernel FILE)"));
	fprintf(fp, "session: started %s, last updated %s\n", r->created, r->updated);
}

/* Longest run of backticks in s: code spans and fences must be longer. */
static size_t
tick_run(const char *s)
{
	size_t best = 0, cur = 0;

	for (; s && *s; s++) {
		cur = *s == '`' ? cur + 1 : 0;
		if (cur > best)
			best = cur;
	}
	return best;
}

/*
 * Prose: escape what markdown would turn into markup or HTML, and '|' for
 * tables. Underscores and brackets stay: GitHub does not emphasise inside
 * words (jax_pallas_verbose_errors) and brackets make links only before "(".
 */
static void
md_text(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		if (strchr("\\`*<>|", *s))
			fputc('\\', fp);
		fputc(*s == '\n' ? ' ' : *s, fp);
	}
}

static void
md_code(FILE *fp, const char *s, bool in_table)
{
	size_t n = tick_run(s) + 1;
	bool pad = s && (*s == '`' || (*s && s[strlen(s) - 1] == '`'));

	for (size_t i = 0; i < n; i++)
		fputc('`', fp);
	if (pad)
		fputc(' ', fp);
	for (; s && *s; s++) {
		if (in_table && *s == '|')
			fputc('\\', fp);
		fputc(*s == '\n' ? ' ' : *s, fp);
	}
	if (pad)
		fputc(' ', fp);
	for (size_t i = 0; i < n; i++)
		fputc('`', fp);
}

static void
md_fence(FILE *fp, const char *lang, const char *const *lines, size_t n)
{
	size_t ticks = 3;

	for (size_t i = 0; i < n; i++)
		if (tick_run(lines[i]) >= ticks)
			ticks = tick_run(lines[i]) + 1;
	for (size_t i = 0; i < ticks; i++)
		fputc('`', fp);
	fprintf(fp, "%s\n", lang);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%s\n", lines[i]);
	for (size_t i = 0; i < ticks; i++)
		fputc('`', fp);
	fputc('\n', fp);
}

static void
md_row(FILE *fp, const char *key, const char *code, const char *text)
{
	fprintf(fp, "| %s | ", key);
	if (code)
		md_code(fp, code, true);
	else
		md_text(fp, text ? text : "not in the log");
	fputs(" |\n", fp);
}

static void
md_summary(const struct report *r, FILE *fp)
{
	char *att = xasprintf("%d of %d", r->attempts_used, r->attempt_cap);
	char *diag = xasprintf("%s (confidence %.2f)", r->diagnosis, r->confidence);
	char *when = xasprintf("started %s, last updated %s", r->created, r->updated);

	fputs("# Debugging report: ", fp);
	md_text(fp, r->title);
	fprintf(fp, "\n\n**Status: %s**: ", r->status);
	md_text(fp, r->status_line);
	fputs("\n\n| | |\n|---|---|\n", fp);
	md_row(fp, "Attempts", NULL, att);
	md_row(fp, "Failure fingerprint", r->fingerprint, "none");
	md_row(fp, "First diagnosis", NULL, diag);
	md_row(fp, "Now", NULL, r->current);
	md_row(fp, "Interpret mode", NULL, r->interpret);
	md_row(fp, "Session", NULL, when);
	free(att);
	free(diag);
	free(when);
}

static void
md_evidence(const struct report *r, FILE *fp)
{
	char **lines = xcalloc(r->nevidence + 1, sizeof(*lines));

	if (r->nevidence) {
		fputs("\nEvidence from ", fp);
		md_code(fp, r->log, false);
		fputs(":\n\n", fp);
		for (size_t i = 0; i < r->nevidence; i++)
			lines[i] = xasprintf("%s: %s", r->evidence[i].key, r->evidence[i].value);
		md_fence(fp, "text", (const char *const *)lines, r->nevidence);
	}
	for (size_t i = 0; i < r->nevidence; i++)
		free(lines[i]);
	free(lines);
	if (r->nvalues) {
		fputs("\nValues read from the log or derived from it: ", fp);
		for (size_t i = 0; i < r->nvalues; i++) {
			char *kv = xasprintf("%s=%s", r->values[i].key, r->values[i].value);

			fputs(i ? ", " : "", fp);
			md_code(fp, kv, false);
			free(kv);
		}
		fputs(".\n", fp);
	}
}

static void
md_diagnosis(const struct report *r, FILE *fp)
{
	const char *fp_lines[1] = { r->fingerprint_text ? r->fingerprint_text : "" };

	fputs("\n## Failure fingerprint\n\n", fp);
	if (r->fingerprint) {
		md_code(fp, r->fingerprint, false);
		fputs(" names this failure on any machine: it is computed from the key error "
		      "line with numbers, paths and addresses masked:\n\n", fp);
		md_fence(fp, "text", fp_lines, 1);
	} else {
		fputs("The log held no key error line to compute a fingerprint from.\n", fp);
	}
	fprintf(fp, "\n## First diagnosis\n\n**%s**, confidence %.2f", r->diagnosis, r->confidence);
	if (r->rule) {
		fputs(" (rule ", fp);
		md_code(fp, r->rule, false);
		fputc(')', fp);
	}
	if (r->runner_up)
		fprintf(fp, "; runner-up: %s", r->runner_up);
	fputs(".\n", fp);
	if (r->message) {
		fputc('\n', fp);
		md_text(fp, r->message);
		fputc('\n', fp);
	}
	if (r->location) {
		fputs("\nLocation: ", fp);
		md_code(fp, r->location, false);
		fputc('\n', fp);
	}
	md_evidence(r, fp);
}

static void
md_env(const struct report *r, FILE *fp)
{
	fputs("\n## Environment\n\n| | |\n|---|---|\n", fp);
	for (size_t i = 0; i < r->nenv; i++)
		md_row(fp, r->env[i].key, r->env[i].value, NULL);
	md_row(fp, "tool", NULL, r->tool);
	fputs("\n## Ruled out\n\n", fp);
	if (!r->nruled)
		fputs("Nothing has been ruled out yet.\n", fp);
	for (size_t i = 0; i < r->nruled; i++) {
		fprintf(fp, "- **%s**: ", r->ruled[i].key);
		md_text(fp, r->ruled[i].value);
		fputc('\n', fp);
	}
}

static void
md_attempts(const struct report *r, FILE *fp)
{
	bool notes = false;

	fprintf(fp, "\n## Attempts (%d of %d)\n\n", r->attempts_used, r->attempt_cap);
	if (r->natt)
		fputs("| # | Rung | What changed | Result | Class after |\n|---|---|---|---|---|\n", fp);
	else
		fputs("No attempt has been recorded.\n", fp);
	for (size_t i = 0; i < r->natt; i++) {
		const struct report_attempt *a = &r->att[i];

		fprintf(fp, "| %d | ", a->n);
		md_code(fp, a->rung, true);
		fputs(" | ", fp);
		if (*a->change)
			md_code(fp, a->change, true);
		else
			fputs("(not described)", fp);
		fprintf(fp, " | %s | %s |\n", a->result, a->cls_after);
		notes = notes || a->note || a->log;
	}
	if (notes)
		fputc('\n', fp);
	for (size_t i = 0; i < r->natt; i++) {
		if (!r->att[i].note && !r->att[i].log)
			continue;
		fprintf(fp, "- Attempt %d: ", r->att[i].n);
		if (r->att[i].note)
			md_text(fp, r->att[i].note);
		if (r->att[i].log) {
			fputs(r->att[i].note ? ". Its log: " : "its log: ", fp);
			md_code(fp, r->att[i].log, false);
		}
		fputs(".\n", fp);
	}
	if (r->nskipped) {
		fputs("\nSkipped as not applicable: ", fp);
		for (size_t i = 0; i < r->nskipped; i++) {
			fputs(i ? ", " : "", fp);
			md_code(fp, r->skipped[i], false);
		}
		fputs(".\n", fp);
	}
	fputs("\n## Class trajectory\n\n", fp);
	for (size_t i = 0; i < r->ntraj; i++) {
		fputs(i ? " -> " : "", fp);
		md_text(fp, r->trajectory[i]);
	}
	fputc('\n', fp);
}

static void
md_next(const struct report *r, FILE *fp)
{
	fputs("\n## What to try next\n\n", fp);
	if (!r->nnext)
		fputs(strcmp(r->status, "resolved") == 0 ? "Nothing: the failure is fixed.\n"
			  : "No rung is left on the ladder; the information below would help.\n", fp);
	for (size_t i = 0; i < r->nnext; i++) {
		fprintf(fp, "%zu. ", i + 1);
		md_code(fp, r->next[i].rung, false);
		fputs(": ", fp);
		md_text(fp, r->next[i].action);
		if (r->next[i].change) {
			fputs("\n   Change: ", fp);
			md_code(fp, r->next[i].change, false);
		}
		if (r->next[i].expect) {
			fputs("\n   Expect: ", fp);
			md_text(fp, r->next[i].expect);
		}
		if (r->next[i].note) {
			fputs("\n   Note: ", fp);
			md_text(fp, r->next[i].note);
		}
		fputc('\n', fp);
	}
	if (r->spelling) {
		fputs("\nNote: ", fp);
		md_text(fp, r->spelling);
		fputs(".\n", fp);
	}
	if (r->nmore) {
		fputs("\n### With more information\n\n", fp);
		for (size_t i = 0; i < r->nmore; i++) {
			fputs("- ", fp);
			md_text(fp, r->more[i]);
			fputc('\n', fp);
		}
	}
}

static void
md_flags(const struct report *r, FILE *fp)
{
	char **lines;

	if (!r->nflags)
		return;
	lines = xcalloc(r->nflags, sizeof(*lines));
	for (size_t i = 0; i < r->nflags; i++)
		lines[i] = xasprintf("%s%s%s%s%s", r->flags[i].snippet, r->flags[i].why ? "  # " : "",
				     orq(r->flags[i].why, ""), r->flags[i].note ? "; " : "",
				     orq(r->flags[i].note, ""));
	fputs("\n## Debug flags to turn on\n\n", fp);
	md_fence(fp, "python", (const char *const *)lines, r->nflags);
	for (size_t i = 0; i < r->nflags; i++)
		free(lines[i]);
	free(lines);
}

static void
write_md(const struct report *r, FILE *fp)
{
	md_summary(r, fp);
	md_diagnosis(r, fp);
	md_env(r, fp);
	md_attempts(r, fp);
	md_next(r, fp);
	md_flags(r, fp);
	fputs("\n## Artifacts\n\n| | |\n|---|---|\n", fp);
	md_row(fp, "Log", r->log, NULL);
	if (r->kernel)
		md_row(fp, "Kernel", r->kernel, NULL);
	if (r->pre_debug)
		md_row(fp, "Original kernel (pre-debug copy)", r->pre_debug, NULL);
	else
		md_row(fp, "Original kernel (pre-debug copy)", NULL, "none: run with --kernel FILE");
	fputs("\n---\n\nAttempt results were reported by the person debugging; pallas-triage did "
	      "not run the kernel. A class counts as ruled out only by the evidence listed. ", fp);
	fprintf(fp, "Written by %s%s.\n", r->tool, r->redacted ? " with --redact" : "");
}

static int
write_text_w(const struct report *r, FILE *fp)
{
	write_text(r, fp);
	return 0;
}

static int
write_md_w(const struct report *r, FILE *fp)
{
	write_md(r, fp);
	return 0;
}

static const struct {
	const char *name;
	int (*write)(const struct report *r, FILE *fp);
} writers[] = {
	{ "text", write_text_w },
	{ "md", write_md_w },
	{ "markdown", write_md_w },
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
