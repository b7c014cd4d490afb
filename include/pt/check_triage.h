/* SPDX-License-Identifier: MIT */
/*
 * Diagnosis meets source: triage checks the kernel the log came from
 * (pt/check.h) and folds what the check found into the verdict.
 *
 *  - A finding of the verdict's class (error or warning) raises the
 *    confidence; a synchronization verdict (a hang says little) with a
 *    copy the source never waits becomes that concrete diagnosis.
 *  - Each finding's fixes for ladder rungs go into the verdict's values as
 *    `source_fix:RUNG-ID`, which the ladder shows as that rung's change
 *    (pt/ladder.h): "tiled_mm.py:31: bk=1000 -> 1024".
 *  - The working set the source accounts for is set against the VMEM the
 *    log reports (`source_vmem`, `source_vmem_note`).
 *
 * The kernel is the file given with --kernel, or the one the log's
 * traceback names when it exists under the working directory (found by
 * the longest suffix of the logged path that does; a path leaving the
 * directory through `..` or a symbolic link is not taken). Nothing here
 * prints to a terminal on its own: check_triage_print() writes to the
 * FILE it is given.
 */
#ifndef PT_CHECK_TRIAGE_H
#define PT_CHECK_TRIAGE_H

#include <stdbool.h>
#include <stdio.h>
#include "pt/check.h"
#include "pt/classify.h"
#include "pt/rules.h"

struct json;

struct source_link {
	char *path;                 /* the kernel file checked (relative to the working directory) */
	const char *how;            /* "--kernel" or "traceback" (static text) */
	struct check_result res;
	const struct check_kernel *kernel;   /* the pallas_call the log is about, or NULL */
	char *vmem_note;            /* the source's working set against the log's, or NULL */
	double confidence_before;   /* the verdict's confidence before the findings joined */
	bool changed_class;         /* the source turned an unknown into synchronization */
};

#define SOURCE_LINK_INIT { NULL, NULL, CHECK_RESULT_INIT, NULL, NULL, 0, false }

/*
 * The file under cwd that the verdict's location names, as a new relative
 * path (free()), or NULL when there is none.
 */
char *check_triage_find(const struct verdict *v, const char *cwd);

/*
 * Check the kernel at path and fold the findings into v (see above). how is
 * "--kernel" or "traceback". Returns 0, or -1 with err set when the check
 * could not run at all (rules without checks); an unreadable kernel is a
 * problem in l->res, not an error. Release l with source_link_release().
 */
int check_triage_link(const struct ruleset *rs, struct verdict *v, const char *path,
		      const char *how, struct source_link *l, struct pt_err *err);
void source_link_release(struct source_link *l);

/* The "source" block of the text diagnosis. */
void check_triage_print(FILE *fp, const struct source_link *l, bool color);
/* The "kernel_source" member of the JSON diagnosis (docs/json.md); l may be NULL (null). */
void check_triage_json(struct json *o, const struct source_link *l);

#endif
