/* SPDX-License-Identifier: MIT */
/* Writing a source check: text, JSON, GitHub annotations (pt/check_print.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/check_print.h"
#include "pt/checktab.h"
#include "pt/github.h"
#include "pt/json.h"
#include "pt/term.h"
#include "pt/xalloc.h"

static const char *
c_on(bool color, const char *code)
{
	return color ? code : "";
}

static const char *
severity_color(int s)
{
	return s == CHECK_ERROR ? TERM_RED : s == CHECK_WARNING ? TERM_YELLOW : TERM_CYAN;
}

/* The caret's indentation: tabs stay tabs, escaped bytes take their escape's width. */
static void
caret(FILE *out, const char *src, int col, int end_col, bool color)
{
	int width = end_col > col ? end_col - col : 1;

	fputs("      | ", out);
	for (int i = 0; i < col - 1 && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c == '\t')
			fputc('\t', out);
		else if (c < 0x20 || c == 0x7f)
			fputs("    ", out);
		else if ((c & 0xc0) != 0x80)
			fputc(' ', out);
	}
	fprintf(out, "%s^", c_on(color, TERM_GREEN));
	for (int i = 1; i < width && i < 60; i++)
		fputc('~', out);
	fprintf(out, "%s\n", c_on(color, TERM_RESET));
}

static void
print_head(FILE *out, const struct check_finding *f, bool color)
{
	int sev = f->severity;

	fprintf(out, "%s", c_on(color, TERM_BOLD));
	term_puts_untrusted(out, f->file);
	fprintf(out, ":%d:%d:%s %s%s:%s ", f->line, f->col, c_on(color, TERM_RESET),
		c_on(color, severity_color(sev)), check_severity_name((enum check_severity)sev),
		c_on(color, TERM_RESET));
	term_puts_untrusted(out, f->message);
	fprintf(out, " %s[%s %s]%s\n", c_on(color, TERM_DIM), f->def->code, class_name(f->def->cls),
		c_on(color, TERM_RESET));
}

static void
print_fix(FILE *out, const struct check_finding *f, bool color, int indent)
{
	if (!f->fix)
		return;
	fprintf(out, "%*s%sfix:%s ", indent, "", c_on(color, TERM_BOLD), c_on(color, TERM_RESET));
	term_puts_untrusted(out, f->fix);
	fputc('\n', out);
}

void
check_print_finding_line(FILE *out, const struct check_finding *f, bool color, int indent)
{
	fprintf(out, "%*s", indent, "");
	print_head(out, f, color);
	print_fix(out, f, color, indent + 6);
}

static void
print_problems(FILE *err, const struct check_result *r, bool color)
{
	for (size_t i = 0; i < r->np; i++) {
		const struct check_problem *p = &r->p[i];

		fprintf(err, "%s", c_on(color, TERM_BOLD));
		term_puts_untrusted(err, p->file);
		if (p->line)
			fprintf(err, ":%d:%d", p->line, p->col);
		fprintf(err, ":%s %s%s%s ", c_on(color, TERM_RESET), c_on(color, TERM_RED),
			p->line ? "syntax error:" : "error:", c_on(color, TERM_RESET));
		term_puts_untrusted(err, p->message);
		fputc('\n', err);
	}
}

void
check_print_text(FILE *out, FILE *err, const struct check_result *r,
		 const struct check_print_opts *o)
{
	size_t e, w, n;

	print_problems(err, r, o->color);
	for (size_t i = 0; i < r->n; i++) {
		const struct check_finding *f = &r->f[i];
		const char *src = o->source_lines && f->source && *f->source ? f->source : NULL;

		print_head(out, f, o->color);
		if (src) {
			fprintf(out, "%5d | ", f->line);
			term_puts_untrusted(out, src);
			fputc('\n', out);
			caret(out, src, f->col, f->end_col, o->color);
		}
		if (src && f->use_line && f->use_source) {
			fprintf(out, "      = used at line %d:\n%5d | ", f->use_line, f->use_line);
			term_puts_untrusted(out, f->use_source);
			fputc('\n', out);
			caret(out, f->use_source, f->use_col, f->use_end_col, o->color);
		}
		print_fix(out, f, o->color, 6);
	}
	check_counts(r, &e, &w, &n);
	if (r->n)
		fprintf(out, "%s%zu error%s, %zu warning%s, %zu note%s%s in %zu file%s (%zu kernel%s)\n",
			r->n ? "\n" : "", e, e == 1 ? "" : "s", w, w == 1 ? "" : "s", n,
			n == 1 ? "" : "s", "", r->files, r->files == 1 ? "" : "s", r->nk,
			r->nk == 1 ? "" : "s");
	else
		fprintf(out, "no findings in %zu file%s (%zu kernel%s checked)\n", r->files,
			r->files == 1 ? "" : "s", r->nk, r->nk == 1 ? "" : "s");
}

void
check_json_finding(struct json *arr, const struct check_finding *f)
{
	struct json *o = json_push_object(arr), *rungs, *vals;

	json_add_str(o, "file", f->file);
	json_add_int(o, "line", f->line);
	json_add_int(o, "column", f->col);
	if (f->end_col)
		json_add_int(o, "end_column", f->end_col);
	else
		json_add_null(o, "end_column");
	if (f->use_line) {
		json_add_int(o, "use_line", f->use_line);
		json_add_int(o, "use_column", f->use_col);
	} else {
		json_add_null(o, "use_line");
		json_add_null(o, "use_column");
	}
	json_add_str(o, "class", class_name(f->def->cls));
	json_add_str(o, "severity", check_severity_name((enum check_severity)f->severity));
	json_add_str(o, "code", f->def->code);
	json_add_str(o, "name", f->def->name);
	json_add_str(o, "message", f->message);
	if (f->fix)
		json_add_str(o, "fix", f->fix);
	else
		json_add_null(o, "fix");
	if (f->fix_line)
		json_add_int(o, "fix_line", f->fix_line);
	else
		json_add_null(o, "fix_line");
	if (f->kernel)
		json_add_str(o, "kernel", f->kernel);
	else
		json_add_null(o, "kernel");
	if (f->call_line)
		json_add_int(o, "call_line", f->call_line);
	else
		json_add_null(o, "call_line");
	rungs = json_add_array(o, "rungs");
	for (size_t i = 0; f->rung_ids[i]; i++) {
		struct json *r = json_push_object(rungs);

		json_add_str(r, "id", f->rung_ids[i]);
		json_add_str(r, "change", f->rung_fixes[i]);
	}
	vals = json_add_object(o, "values");
	for (size_t i = 0; i < f->vars.n; i++)
		json_add_typed(vals, f->vars.v[i].name, f->vars.v[i].value);
}

struct json *
check_json(const struct check_result *r, const struct check_print_opts *o)
{
	struct json *j = json_new_object(), *sum, *arr;
	size_t e, w, n;

	json_add_int(j, "schema_version", CHECK_SCHEMA_VERSION);
	if (o->chip)
		json_add_str(j, "chip", o->chip);
	else
		json_add_null(j, "chip");
	if (o->jax)
		json_add_str(j, "jax", o->jax);
	else
		json_add_null(j, "jax");
	json_add_int(j, "files", (long long)r->files);
	json_add_int(j, "lines", (long long)r->lines);
	check_counts(r, &e, &w, &n);
	sum = json_add_object(j, "summary");
	json_add_int(sum, "errors", (long long)e);
	json_add_int(sum, "warnings", (long long)w);
	json_add_int(sum, "notes", (long long)n);
	json_add_int(sum, "problems", (long long)r->np);
	arr = json_add_array(j, "findings");
	for (size_t i = 0; i < r->n; i++)
		check_json_finding(arr, &r->f[i]);
	arr = json_add_array(j, "kernels");
	for (size_t i = 0; i < r->nk; i++) {
		const struct check_kernel *k = &r->k[i];
		struct json *ko = json_push_object(arr);

		json_add_str(ko, "file", k->file);
		if (k->name)
			json_add_str(ko, "name", k->name);
		else
			json_add_null(ko, "name");
		json_add_int(ko, "line", k->line);
		json_add_str(ko, "backend", k->backend);
		if (k->grid)
			json_add_str(ko, "grid", k->grid);
		else
			json_add_null(ko, "grid");
		if (k->vmem_known)
			json_add_int(ko, "working_set_bytes", (long long)k->vmem_bytes);
		else
			json_add_null(ko, "working_set_bytes");
	}
	arr = json_add_array(j, "problems");
	for (size_t i = 0; i < r->np; i++) {
		struct json *po = json_push_object(arr);

		json_add_str(po, "file", r->p[i].file);
		if (r->p[i].line) {
			json_add_int(po, "line", r->p[i].line);
			json_add_int(po, "column", r->p[i].col);
		} else {
			json_add_null(po, "line");
			json_add_null(po, "column");
		}
		json_add_str(po, "message", r->p[i].message);
		json_add_bool(po, "fatal", r->p[i].fatal);
	}
	return j;
}

int
check_print_github(FILE *out, const struct check_result *r, const char *workspace)
{
	static const char *const level[] = { "error", "warning", "notice" };
	int ret = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct check_finding *f = &r->f[i];
		char *title = xasprintf("pallas-triage %s (%s)", f->def->code, class_name(f->def->cls));
		char *msg = f->fix ? xasprintf("%s\nfix: %s", f->message, f->fix) : xstrdup(f->message);

		if (github_annotation(out, level[f->severity], f->file, f->line, f->col, title,
				      msg, workspace) < 0)
			ret = -1;
		free(title);
		free(msg);
	}
	for (size_t i = 0; i < r->np; i++)
		if (github_annotation(out, "error", r->p[i].file, r->p[i].line, r->p[i].col,
				      "pallas-triage check", r->p[i].message, workspace) < 0)
			ret = -1;
	return ret;
}
