/* SPDX-License-Identifier: MIT */
/*
 * The session's kernel, re-read after every attempt. A session started with
 * --kernel FILE knows the source being debugged; after each recorded
 * attempt its current text is kept in the session directory
 * (logs/kernel-attempt-N-HASH.log), checked (pt/check.h) and set against
 * the copy of the attempt before (for the first attempt, FILE.pre-debug):
 * which lines changed, which findings went away or are new. The report
 * shows that under each attempt, so "what was tried" is what the source
 * says, not only what the user typed.
 */
#ifndef PT_SESSION_KERNEL_H
#define PT_SESSION_KERNEL_H

#include "pt/rules.h"
#include "pt/session.h"

/*
 * Fill the newest attempt's kernel_copy and kernel_diff, if the session
 * has a kernel and rs has checks. Never fails the attempt: a kernel that
 * cannot be read or kept is said in kernel_diff instead. Does nothing
 * when the attempt already has a kernel_diff.
 */
void session_kernel_recheck(struct session_txn *t, const struct ruleset *rs);

/*
 * What changed between two texts of a source, appended to out as one
 * clause: "line 35: `bk=1000` -> `bk=1024`", "lines 12-20 changed (9
 * lines -> 11)", or nothing when they are equal. Returns whether they
 * differ.
 */
bool session_kernel_line_diff(const char *before, size_t nb, const char *after, size_t na,
			      struct buf *out);

#endif
