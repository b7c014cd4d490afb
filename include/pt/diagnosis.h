/* SPDX-License-Identifier: MIT */
/*
 * Presenting a verdict: the human text of `pallas-triage LOG` and the JSON
 * object of `--json` (schema in docs/json.md). Shared by triage, attempt and
 * the walk so a diagnosis looks the same everywhere.
 */
#ifndef PT_DIAGNOSIS_H
#define PT_DIAGNOSIS_H

#include <stdbool.h>
#include <stdio.h>
#include "pt/classify.h"
#include "pt/rules.h"

struct json;

/* 2: `values` holds numbers and booleans as such (docs/json.md) */
#define DIAGNOSIS_SCHEMA_VERSION 2

struct diagnosis_opts {
	bool color;          /* ANSI colour and highlighted matches */
	bool whole_ladder;   /* every applicable rung, not only the first */
	bool no_ladder;      /* no rung and no next steps: a walk follows and shows them */
	const char *source;  /* the log's name, for the header */
	/* printed after the contexts, before the ladder (triage's kernel source), or NULL */
	void (*extra)(FILE *fp, void *arg, bool color);
	void *extra_arg;
};


void diagnosis_print(FILE *fp, const struct ruleset *rs, const struct verdict *v,
		     const struct diagnosis_opts *o);
/* Print rungs [from, n) of the selected ladder, numbered from 1. */
void diagnosis_print_ladder(FILE *fp, const struct ruleset *rs, const struct verdict *v,
			    bool whole, bool color);
struct api_render;
/* After a ladder rendered with ar: one line on the JAX version its API names are spelled for. */
void diagnosis_print_api_note(FILE *fp, const struct api_render *ar);
/* One sentence on why the runner-up lost; a new string, or NULL when there is none. */
char *diagnosis_runner_up_reason(const struct verdict *v);
/* Returns a new JSON object; free with json_free(). */
struct json *diagnosis_json(const struct ruleset *rs, const struct verdict *v, const char *source);

#endif
