/* SPDX-License-Identifier: MIT */
/*
 * Writing a source check (pt/check.h) for people and programs: compiler
 * style text with the source line and a caret, one JSON document (schema in
 * docs/json.md, "check --json"), and GitHub Actions annotations. Source
 * lines come from an untrusted file: they are escaped before any terminal.
 */
#ifndef PT_CHECK_PRINT_H
#define PT_CHECK_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include "pt/check.h"

struct json;

#define CHECK_SCHEMA_VERSION 1

struct check_print_opts {
	bool color;
	bool source_lines;          /* show the line and a caret under each finding */
	const char *chip, *jax;     /* as given, for the JSON header */
};

/* The findings, then one summary line. Problems (syntax, unreadable files) go to err. */
void check_print_text(FILE *out, FILE *err, const struct check_result *r,
		      const struct check_print_opts *o);
/* One finding as a compiler line and its fix, indented (triage's source section), no caret. */
void check_print_finding_line(FILE *out, const struct check_finding *f, bool color, int indent);
/* Returns a new JSON object; free with json_free(). */
struct json *check_json(const struct check_result *r, const struct check_print_opts *o);
/* One finding's JSON object, added to arr (the shape of a `findings` entry). */
void check_json_finding(struct json *arr, const struct check_finding *f);
/* `::error file=...` lines; workspace (may be NULL) is stripped from paths. */
int check_print_github(FILE *out, const struct check_result *r, const char *workspace);

#endif
