/* SPDX-License-Identifier: MIT */
/* The plain-text report writer (`report --format text`); see pt/report.h. */
#include <stdlib.h>

#include "pt/report.h"

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
	fputs("logs:\n", fp);
	for (size_t i = 0; i < r->nlogs; i++)
		fprintf(fp, "  %s%s%s: %s: %s\n", r->logs[i].what, r->logs[i].log ? " " : "",
			orq(r->logs[i].log, ""), r->logs[i].cls, orq(r->logs[i].key_line, "(no key line)"));
}

static void
text_now(const struct report_failure *f, FILE *fp)
{
	if (!f->label) {
		fputs("\ncurrent failure: none (fixed)\n", fp);
		return;
	}
	fprintf(fp, "\ncurrent failure: %s, from %s%s%s%s\n", f->label, f->from,
		f->log ? " (" : "", orq(f->log, ""), f->log ? ")" : "");
	if (f->message)
		fprintf(fp, "  %s\n", f->message);
	if (f->key_line)
		fprintf(fp, "  line %zu: %s\n", f->key_lineno, f->key_line);
	if (f->location)
		fprintf(fp, "  location: %s\n", f->location);
}

static void
text_next(const struct report *r, FILE *fp)
{
	if (r->nnext) {
		fputs("\nwhat to try next:\n", fp);
		for (size_t i = 0; i < r->nnext; i++) {
			fprintf(fp, "  %s%s%s%s: %s\n", r->next[i].rung,
				r->next[i].family ? " (family " : "", orq(r->next[i].family, ""),
				r->next[i].family ? ")" : "", orq(r->next[i].action, ""));
			/* a snippet of several lines: each under the first, as lines */
			if (r->next[i].change) {
				fputs("    change: ", fp);
				for (const char *c = r->next[i].change; *c; c++)
					if (*c == '\n')
						fputs("\n            ", fp);
					else
						fputc(*c, fp);
				fputc('\n', fp);
			}
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
		for (size_t i = 0; i < r->nflags; i++) {
			char *line = report_flag_line(&r->flags[i]);

			fprintf(fp, "  %s\n", line);
			free(line);
		}
	}
	if (r->spelling)
		fprintf(fp, "\nnote: %s\n", r->spelling);
}

int
report_write_text(const struct report *r, FILE *fp)
{
	fprintf(fp, "pallas-triage report: %s\n", r->title);
	fprintf(fp, "status: %s: %s\n", r->status, r->status_line);
	text_now(&r->now, fp);
	fprintf(fp, "\nfingerprint of the first failure: %s\n", orq(r->fingerprint, "(none)"));
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
	fprintf(fp, "\nenvironment (as %s says):\n", orq(r->env_from, "the first log"));
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
	if (r->log_saved)
		fprintf(fp, "  log, as kept in the session: %s\n", r->log_saved);
	if (r->kernel)
		fprintf(fp, "  kernel: %s\n", r->kernel);
	fprintf(fp, "  pre-debug copy: %s\n", orq(r->pre_debug, "(none: run with --kernel FILE)"));
	fprintf(fp, "session: started %s, last updated %s\n", r->created, r->updated);
	return 0;
}
