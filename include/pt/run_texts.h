/* SPDX-License-Identifier: MIT */
/*
 * The `run_texts` and `run_pass` sections of the rules (rules/run.yaml,
 * docs/rules.md): what `pallas-triage run` says about the facts it saw, and
 * when a run that exits 0 with a printed error still passes. `run` hands the
 * classifier facts (NAME=VALUE tokens, pt/run_eval.h) and never a sentence;
 * every sentence it prints about runs is a text here, picked by those facts.
 */
#ifndef PT_RUN_TEXTS_H
#define PT_RUN_TEXTS_H

#include <stdbool.h>
#include "pt/buf.h"
#include "pt/diag.h"
#include "pt/rules.h"
#include "pt/vars.h"
#include "pt/ytree.h"

/* The `run_texts` list of one file, appended to rs. Returns -1 on errors in d. */
int run_texts_parse(struct ruleset *rs, const struct ynode *list, const char *file,
		    struct diag *d);
/* The `run_pass` mapping; one file may define it. Returns -1 on errors in d. */
int run_pass_parse(struct ruleset *rs, const struct ynode *map, const char *file,
		   struct diag *d);
/* After every file: the rules `run_pass` names exist. Errors into d. */
void run_texts_finish(const struct ruleset *rs, struct diag *d);
void run_texts_free(struct ruleset *rs);

/* The first text of rs whose `when` facts all hold in facts, or NULL. */
const struct run_text *run_text_pick(const struct ruleset *rs, const struct vars *facts);
/*
 * t's text with its ${names} filled from vs, appended to out; without a
 * text (t NULL: the rules have none for these facts) the facts' line is
 * shown as it is, line (may be NULL). */
void run_text_render(const struct run_text *t, const struct vars *vs, const char *line,
		     struct buf *out);
/* Is rule id one of those `run_pass` lets a run that exits 0 pass with? */
bool run_pass_rule(const struct ruleset *rs, const char *id);
/* The bound on max_abs (abs true) or max_rel: false when there is none. */
bool run_pass_bound(const struct ruleset *rs, bool abs, double *out);

#endif
