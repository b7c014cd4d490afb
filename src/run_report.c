/* SPDX-License-Identifier: MIT */
/* Presenting what `run` saw; see pt/run_report.h. */
#include <stdlib.h>
#include <string.h>

#include "pt/buf.h"
#include "pt/json.h"
#include "pt/run_report.h"
#include "pt/term.h"
#include "pt/xalloc.h"

static const char *
result_word(const struct run_record *r)
{
	return run_outcome_of(r) == OUTCOME_PASS ? "pass" : "fail";
}

static void
put_cell(FILE *out, const char *s, int width)
{
	char *e = s ? term_escape(s, strlen(s)) : NULL;

	fprintf(out, " %-*s", width, e ? e : "-");
	free(e);
}

static void
print_table(FILE *out, const struct run_summary *sum)
{
	fprintf(out, "%-9s %-6s %-11s %-24s %-12s %s\n", sum->sweep ? "precision" : "run",
		"result", "ending", "class", "max_abs", "max_rel");
	for (size_t i = 0; i < sum->done; i++) {
		const struct run_record *r = &sum->rec[i];
		struct buf end = BUF_INIT;
		char *cls = run_outcome_of(r) == OUTCOME_PASS ? xstrdup("-") :
			    class_label(r->cls, r->subkind);

		run_ending_text(&r->res, &end);
		if (sum->sweep)
			fprintf(out, "%-9s", r->precision);
		else
			fprintf(out, "%-9zu", i + 1);
		fprintf(out, " %-6s %-11s %-24s", result_word(r), end.data, cls);
		put_cell(out, r->numbers[0], 12);
		put_cell(out, r->numbers[1], 0);
		fputc('\n', out);
		buf_release(&end);
		free(cls);
	}
}

static void
print_single(FILE *out, const struct run_summary *sum, const struct verdict *v)
{
	const struct run_record *r = &sum->rec[0];
	struct buf b = BUF_INIT;

	run_ending_text(&r->res, &b);
	if (r->res.end == RUNNER_TIMED_OUT)
		buf_addf(&b, " after %g s: stopped with %s (a hang)", sum->timeout,
			 r->res.killed ? "SIGKILL" : "SIGTERM");
	if (run_outcome_of(r) == OUTCOME_PASS && r->small_error)
		fprintf(out, "run: %s, and the error it printed (%s %s) is within the bounds of a "
			"pass (run_pass, rules/run.yaml): the command passed\n", b.data,
			r->numbers[0] ? "max_abs" : "max_rel", r->numbers[0] ? r->numbers[0] :
			r->numbers[1]);
	else if (run_outcome_of(r) == OUTCOME_PASS)
		fprintf(out, "run: %s, no failure evidence in %zu line%s of output: the command "
			"passed\n", b.data, v->nlines, v->nlines == 1 ? "" : "s");
	else if (r->res.end == RUNNER_EXITED && r->res.code == 0)
		fprintf(out, "run: %s, but the output shows a failure\n", b.data);
	else
		fprintf(out, "run: %s\n", b.data);
	buf_release(&b);
}

void
run_print(FILE *out, const struct run_summary *sum, const struct verdict *v)
{
	if (sum->planned == 1) {
		print_single(out, sum, v);
		return;
	}
	print_table(out, sum);
	fprintf(out, "%s\n", sum->conclusion);
}

static void
json_run(struct json *o, const struct run_record *r, size_t i)
{
	static const char *const endings[] = {
		[RUNNER_EXITED] = "exit", [RUNNER_SIGNALED] = "signal",
		[RUNNER_TIMED_OUT] = "timeout", [RUNNER_INTERRUPTED] = "interrupted",
	};
	struct json *nums;

	json_add_int(o, "run", (long long)i + 1);
	json_add_str(o, "precision", r->precision);
	json_add_str(o, "result", result_word(r));
	json_add_str(o, "ending", endings[r->res.end]);
	if (r->res.end == RUNNER_EXITED)
		json_add_int(o, "exit_code", r->res.code);
	else
		json_add_null(o, "exit_code");
	if (r->res.end == RUNNER_SIGNALED)
		json_add_str(o, "signal", runner_signal_name(r->res.sig));
	else
		json_add_null(o, "signal");
	json_add_bool(o, "killed", r->res.killed);
	json_add_bool(o, "small_error", r->small_error);
	json_add_str(o, "class", class_name(r->cls));
	json_add_str(o, "subkind", r->subkind);
	json_add_str(o, "fingerprint", r->fingerprint);
	nums = json_add_object(o, "numbers");
	for (size_t k = 0; k < RUN_NNUMBERS; k++)
		if (r->numbers[k])
			json_add_str(nums, run_number_names[k], r->numbers[k]);
}

/* The facts of the fact line, as strings (a machine reads them, as the rules do). */
static void
json_facts(struct json *o, const struct run_facts *f)
{
	struct json *obj = json_add_object(o, "facts");

	for (size_t i = 0; f && i < f->nline; i++)
		json_add_str(obj, f->v.v[i].name, f->v.v[i].value);
}

static void
json_repeat(struct json *o, const struct run_summary *sum)
{
	const struct repeat_cmp *cmp = sum->cmp;
	struct json *r, *arr;

	if (sum->planned == 1 || sum->sweep) {
		json_add_null(o, "repeat");
		return;
	}
	r = json_add_object(o, "repeat");
	json_add_str(r, "kind", cmp->kind == REPEAT_DIFFERENT ? "nondeterministic" :
		     cmp->kind == REPEAT_SAME ? "deterministic" : "all-pass");
	arr = json_add_array(r, "differs");
	if (cmp->ending_differs)
		json_push_str(arr, "exit status");
	if (cmp->fingerprint_differs)
		json_push_str(arr, "failure");
	for (size_t k = 0; k < RUN_NNUMBERS; k++)
		if (cmp->number_differs[k])
			json_push_str(arr, run_number_names[k]);
	json_add_str(r, "text", sum->conclusion);
	json_facts(r, sum->facts);
}

static void
json_sweep(struct json *o, const struct run_summary *sum)
{
	const struct sweep_verdict *sv = sum->sv;
	struct json *s, *ro;

	if (!sum->sweep) {
		json_add_null(o, "sweep");
		return;
	}
	s = json_add_object(o, "sweep");
	json_add_str(s, "conclusion", sweep_kind_name(sv->kind));
	json_add_str(s, "text", sv->text);
	json_facts(s, sum->facts);
	if (sv->ruled_cls == CLASS_COUNT) {
		json_add_null(s, "rules_out");
		return;
	}
	ro = json_add_object(s, "rules_out");
	json_add_str(ro, "class", class_name(sv->ruled_cls));
	json_add_str(ro, "subkind", sv->ruled_subkind);
	json_add_str(ro, "reason", sv->ruled_reason);
}

struct json *
run_json_add(struct json *root, const struct run_summary *sum)
{
	struct json *o = json_add_object(root, "run"), *arr;

	arr = json_add_array(o, "command");
	for (size_t i = 0; sum->cmd[i]; i++)
		json_push_str(arr, sum->cmd[i]);
	json_add_str(o, "mode", sum->sweep ? "sweep-precision" : sum->planned > 1 ? "repeat" :
		     "single");
	if (sum->timeout > 0)
		json_add_num(o, "timeout", sum->timeout);
	else
		json_add_null(o, "timeout");
	json_add_str(o, "timeout_from", sum->timeout <= 0 ? NULL : sum->timeout_default ?
		     "default" : "option");
	json_add_bool(o, "interrupted", sum->interrupted);
	json_add_bool(o, "passed", sum->passed);
	arr = json_add_array(o, "runs");
	for (size_t i = 0; i < sum->done; i++)
		json_run(json_push_object(arr), &sum->rec[i], i);
	json_repeat(o, sum);
	json_sweep(o, sum);
	return o;
}
