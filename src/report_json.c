/* SPDX-License-Identifier: MIT */
/*
 * The json report writer, on pt/json.h. Keys come in a fixed order and
 * absent values are null, so the output diffs cleanly and a consumer can
 * rely on every key being there (schema in docs/sessions.md).
 */
#include <stdlib.h>
#include <string.h>

#include "pt/json.h"
#include "pt/report.h"
#include "pt/xalloc.h"

static void
strv(struct json *o, const char *key, char *const *v, size_t n)
{
	struct json *a = json_add_array(o, key);

	for (size_t i = 0; i < n; i++)
		json_push_str(a, v[i]);
}

static void
kv_object(struct json *o, const char *key, const struct report_kv *kv, size_t n)
{
	struct json *m = json_add_object(o, key);

	for (size_t i = 0; i < n; i++)
		json_add_str(m, kv[i].key, kv[i].value);
}

/* Values as `--json` types them (docs/json.md): numbers and booleans as such. */
static void
kv_typed(struct json *o, const char *key, const struct report_kv *kv, size_t n)
{
	struct json *m = json_add_object(o, key);

	for (size_t i = 0; i < n; i++)
		json_add_typed(m, kv[i].key, kv[i].value);
}

static void
diagnosis(struct json *parent, const struct report *r)
{
	struct json *o = json_add_object(parent, "first_diagnosis"), *ev;

	json_add_str(o, "class", r->diagnosis);
	json_add_num(o, "confidence", r->confidence);
	json_add_str(o, "runner_up", r->runner_up);
	json_add_str(o, "rule", r->rule);
	json_add_str(o, "message", r->message);
	json_add_str(o, "location", r->location);
	json_add_str(o, "key_line", r->key_line);
	json_add_int(o, "key_lineno", (long long)r->key_lineno);
	ev = json_add_array(o, "evidence");
	for (size_t i = 0; i < r->nevidence; i++) {
		struct json *e = json_push_object(ev);

		json_add_str(e, "where", r->evidence[i].key);
		json_add_str(e, "text", r->evidence[i].value);
	}
	kv_typed(o, "values", r->values, r->nvalues);
}

static void
history(struct json *o, const struct report *r)
{
	struct json *a = json_add_array(o, "ruled_out");

	for (size_t i = 0; i < r->nruled; i++) {
		struct json *e = json_push_object(a);

		json_add_str(e, "class", r->ruled[i].key);
		json_add_str(e, "evidence", r->ruled[i].value);
	}
	a = json_add_array(o, "attempts");
	for (size_t i = 0; i < r->natt; i++) {
		const struct report_attempt *t = &r->att[i];
		struct json *e = json_push_object(a);

		json_add_int(e, "n", t->n);
		json_add_str(e, "rung", t->rung);
		json_add_str(e, "change", t->change);
		json_add_str(e, "result", t->result);
		json_add_str(e, "class_after", t->cls_after);
		json_add_str(e, "log", t->log);
		json_add_str(e, "note", t->note);
		json_add_str(e, "kernel", t->kernel);
		json_add_str(e, "time", t->time);
	}
	strv(o, "skipped", r->skipped, r->nskipped);
	strv(o, "trajectory", r->trajectory, r->ntraj);
	json_add_str(o, "now", r->current);
}

static void
next_steps(struct json *o, const struct report *r)
{
	struct json *a = json_add_array(o, "next");

	for (size_t i = 0; i < r->nnext; i++) {
		struct json *e = json_push_object(a);

		json_add_str(e, "rung", r->next[i].rung);
		json_add_str(e, "family", r->next[i].family);
		json_add_str(e, "action", r->next[i].action);
		json_add_str(e, "change", r->next[i].change);
		json_add_str(e, "expect", r->next[i].expect);
		json_add_str(e, "note", r->next[i].note);
	}
	strv(o, "more_information", r->more, r->nmore);
	a = json_add_array(o, "debug_flags");
	for (size_t i = 0; i < r->nflags; i++) {
		struct json *e = json_push_object(a);

		json_add_str(e, "id", r->flags[i].id);
		json_add_str(e, "snippet", r->flags[i].snippet);
		json_add_str(e, "why", r->flags[i].why);
		json_add_str(e, "note", r->flags[i].note);
	}
	json_add_str(o, "snippets_for_jax", r->snippets_for_jax);
}

static void
current_failure(struct json *parent, const struct report *r)
{
	const struct report_failure *f = &r->now;
	struct json *o = json_add_object(parent, "current_failure"), *a;

	json_add_str(o, "class", f->label);
	json_add_str(o, "from", f->from);
	json_add_str(o, "log", f->log);
	json_add_str(o, "message", f->message);
	json_add_str(o, "key_line", f->key_line);
	json_add_int(o, "key_lineno", (long long)f->key_lineno);
	json_add_str(o, "location", f->location);
	json_add_str(o, "fingerprint", f->fingerprint);
	a = json_add_array(parent, "logs");
	for (size_t i = 0; i < r->nlogs; i++) {
		struct json *e = json_push_object(a);

		json_add_str(e, "what", r->logs[i].what);
		json_add_str(e, "log", r->logs[i].log);
		json_add_str(e, "class", r->logs[i].cls);
		json_add_str(e, "key_line", r->logs[i].key_line);
	}
}

int
report_write_json(const struct report *r, FILE *fp)
{
	struct json *o = json_new_object(), *j;
	int ret;

	json_add_int(o, "schema_version", REPORT_SCHEMA_VERSION);
	json_add_str(o, "title", r->title);
	json_add_str(o, "status", r->status);
	json_add_str(o, "status_line", r->status_line);
	json_add_int(o, "attempts_used", r->attempts_used);
	json_add_int(o, "attempt_cap", r->attempt_cap);
	current_failure(o, r);
	j = json_add_object(o, "fingerprint");
	json_add_str(j, "id", r->fingerprint);
	json_add_str(j, "text", r->fingerprint_text);
	diagnosis(o, r);
	kv_object(o, "environment", r->env, r->nenv);
	json_add_str(o, "environment_from", r->env_from);
	json_add_str(o, "interpret", r->interpret);
	history(o, r);
	next_steps(o, r);
	j = json_add_object(o, "artifacts");
	json_add_str(j, "log", r->log);
	json_add_str(j, "log_saved", r->log_saved);
	json_add_str(j, "kernel", r->kernel);
	json_add_str(j, "pre_debug", r->pre_debug);
	json_add_str(o, "created", r->created);
	json_add_str(o, "updated", r->updated);
	json_add_str(o, "tool", r->tool);
	json_add_bool(o, "redacted", r->redacted);
	ret = json_print(o, fp);
	json_free(o);
	return ret;
}
