/* SPDX-License-Identifier: MIT */
/*
 * GitHub Actions workflow commands for a diagnosis (`--format github`):
 *
 *   ::error file=kernels/flash.py,line=118,title=pallas-triage: capacity/scoped-vmem::MESSAGE
 *
 * A run's log then shows the diagnosis as an annotation on the kernel's
 * source line. The file is the verdict's location (the user's source, from a
 * Mosaic callsite or the last traceback frame), made relative to the
 * workspace when it lies inside it; without a location the annotation has
 * no file. Everything from a log is escaped twice: control bytes as \xNN
 * (pt/term.h), then by GitHub's rules (% CR LF in the message; also : and
 * , in property values), so a log can neither break the line nor start a
 * command of its own.
 */
#ifndef PT_GITHUB_H
#define PT_GITHUB_H

#include <stdio.h>
#include "pt/classify.h"
#include "pt/rules.h"

/*
 * Write one workflow command for verdict v of the log named source: an
 * `error` for a Pallas failure class, a `notice` for unknown (when
 * quiet_unknown is false; nothing when it is true). workspace (may be
 * NULL): $GITHUB_WORKSPACE, stripped from the front of the file. Returns
 * -1 on a write error.
 */
int github_annotate(FILE *out, const struct ruleset *rs, const struct verdict *v,
		    const char *source, const char *workspace, bool quiet_unknown);

/*
 * One workflow command: `::LEVEL file=...,line=...,col=...,title=...::MESSAGE`
 * (level "error", "warning" or "notice"; file may be NULL, line and col 0
 * when not known), every part escaped as above. Returns -1 on a write error.
 */
int github_annotation(FILE *out, const char *level, const char *file, long line, long col,
		      const char *title, const char *message, const char *workspace);

/* s escaped as a workflow command's message (property: as a property value); a new string. */
char *github_escape(const char *s, bool property);

#endif
