/* SPDX-License-Identifier: MIT */
/*
 * Presenting what `pallas-triage run` saw (docs/run.md): the line of a
 * single run or the table of several with their conclusion, and the "run"
 * member of the JSON object. The judging itself is in run_eval.c; the
 * command (cmd_run.c) runs, records and chooses the output.
 */
#ifndef PT_RUN_REPORT_H
#define PT_RUN_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "pt/classify.h"
#include "pt/run_eval.h"

struct json;

/* One `run`: what was asked and what the runs showed (all borrowed). */
struct run_summary {
	char *const *cmd;                 /* the command line, NULL-terminated */
	bool sweep;                       /* --sweep-precision */
	size_t planned;                   /* runs asked for: 1, --repeat N, the sweep's levels */
	const struct run_record *rec;     /* the runs done, in order */
	size_t done;
	double timeout;                   /* --timeout in seconds; 0: none */
	bool timeout_default;             /* ... run's default, not given */
	bool passed;                      /* every run passed */
	const struct repeat_cmp *cmp;     /* several runs, no sweep: how they compare */
	const struct sweep_verdict *sv;   /* sweep: what the levels say */
	const char *conclusion;           /* several runs: the conclusion for people */
	const struct run_facts *facts;    /* several runs: what they showed, as facts */
	bool interrupted;                 /* Ctrl-C stopped the last run: a diagnosis of what came */
};

/* The line of a single run (v: its verdict), or the table and the conclusion. */
void run_print(FILE *out, const struct run_summary *sum, const struct verdict *v);

/* Add the "run" member to root (the diagnosis_json() object); returns it. */
struct json *run_json_add(struct json *root, const struct run_summary *sum);

#endif
