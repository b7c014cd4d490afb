/* SPDX-License-Identifier: MIT */
/*
 * The markdown report writer, the default of `report` and the file the walk
 * writes: meant to be pasted into an upstream bug as it is. Text from logs
 * is escaped for markdown here (it was escaped for terminals and masked
 * when the model was built).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pt/report.h"
#include "pt/xalloc.h"

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
	md_row(fp, "Current failure", NULL, r->now.label ? r->now.label : "none: fixed");
	md_row(fp, "First diagnosis", NULL, diag);
	md_row(fp, "Fingerprint of the first failure", r->fingerprint, "none");
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
		md_code(fp, r->log_saved ? r->log_saved : r->log, false);
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

/* What the report leads with: the failure in front of the user now. */
static void
md_now(const struct report *r, FILE *fp)
{
	const struct report_failure *f = &r->now;
	const char *key[1] = { f->key_line };

	fputs("\n## Current failure\n\n", fp);
	if (!f->label) {
		fputs("None: the failure is fixed.\n", fp);
		return;
	}
	fprintf(fp, "**%s**, from %s", f->label, f->from);
	if (f->log) {
		fputs(" (", fp);
		md_code(fp, f->log, false);
		fputc(')', fp);
	}
	fputs(".\n", fp);
	if (f->message) {
		fputc('\n', fp);
		md_text(fp, f->message);
		fputc('\n', fp);
	}
	if (f->key_line) {
		fprintf(fp, "\nKey line (line %zu):\n\n", f->key_lineno);
		md_fence(fp, "text", key, 1);
	}
	if (f->location) {
		fputs("\nLocation: ", fp);
		md_code(fp, f->location, false);
		fputc('\n', fp);
	}
}

static void
md_diagnosis(const struct report *r, FILE *fp)
{
	const char *fp_lines[1] = { r->fingerprint_text ? r->fingerprint_text : "" };

	fputs("\n## Fingerprint of the first failure\n\n", fp);
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
	fputs("\n## Environment\n\nAs ", fp);
	md_text(fp, r->env_from ? r->env_from : "the first log");
	fputs(" says (with what earlier logs said and it does not):\n\n| | |\n|---|---|\n", fp);
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
		notes = notes || a->note || a->log || a->kernel;
	}
	if (notes)
		fputc('\n', fp);
	for (size_t i = 0; i < r->natt; i++) {
		if (!r->att[i].note && !r->att[i].log && !r->att[i].kernel)
			continue;
		fprintf(fp, "- Attempt %d: ", r->att[i].n);
		if (r->att[i].note)
			md_text(fp, r->att[i].note);
		if (r->att[i].log) {
			fputs(r->att[i].note ? ". Its log: " : "its log: ", fp);
			md_code(fp, r->att[i].log, false);
		}
		if (r->att[i].kernel) {
			fputs(r->att[i].note || r->att[i].log ? ". The kernel: " : "the kernel: ", fp);
			md_text(fp, r->att[i].kernel);
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
	fputs("\n| Log | Class | Key line |\n|---|---|---|\n", fp);
	for (size_t i = 0; i < r->nlogs; i++) {
		const struct report_log *l = &r->logs[i];

		fputs("| ", fp);
		md_text(fp, l->what);
		if (l->log) {
			fputs(": ", fp);
			md_code(fp, l->log, true);
		}
		fprintf(fp, " | %s | ", l->cls);
		if (l->key_line)
			md_code(fp, l->key_line, true);
		else
			fputs("(none)", fp);
		fputs(" |\n", fp);
	}
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
		lines[i] = report_flag_line(&r->flags[i]);
	fputs("\n## Debug flags to turn on\n\n", fp);
	md_fence(fp, "python", (const char *const *)lines, r->nflags);
	for (size_t i = 0; i < r->nflags; i++)
		free(lines[i]);
	free(lines);
}

int
report_write_md(const struct report *r, FILE *fp)
{
	md_summary(r, fp);
	md_now(r, fp);
	md_diagnosis(r, fp);
	md_env(r, fp);
	md_attempts(r, fp);
	md_next(r, fp);
	md_flags(r, fp);
	fputs("\n## Artifacts\n\n| | |\n|---|---|\n", fp);
	md_row(fp, "Log", r->log, NULL);
	if (r->log_saved)
		md_row(fp, "Log, as kept in the session", r->log_saved, NULL);
	if (r->kernel)
		md_row(fp, "Kernel", r->kernel, NULL);
	if (r->pre_debug)
		md_row(fp, "Original kernel (pre-debug copy)", r->pre_debug, NULL);
	else
		md_row(fp, "Original kernel (pre-debug copy)", NULL, "none: run with --kernel FILE");
	fputs("\n---\n\nAttempt results were reported by the person debugging; pallas-triage did "
	      "not run the kernel. A class counts as ruled out only by the evidence listed. ", fp);
	fprintf(fp, "Written by %s%s.\n", r->tool, r->redacted ? " with --redact" : "");
	return 0;
}
