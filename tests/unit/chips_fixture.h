/* SPDX-License-Identifier: MIT */
/*
 * For unit tests: load the shipped rules/chips.yaml (or any YAML text) into
 * a struct chiptab, the way the rules loader does. Exits on failure.
 */
#ifndef PT_CHIPS_FIXTURE_H
#define PT_CHIPS_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/buf.h"
#include "pt/chips.h"
#include "pt/util.h"
#include "pt/ytree.h"

#ifndef PT_SRCDIR
#define PT_SRCDIR "."
#endif

/* Parse text as one rules file named `name`; problems go to d. Returns the table (may be NULL). */
static struct chiptab *
chips_from_text(const char *text, const char *name, struct diag *d)
{
	struct ydoc doc = YDOC_INIT;
	struct chiptab *t = NULL;

	if (ydoc_parse(&doc, text, strlen(text), name, d) == 0 && doc.root) {
		chiptab_parse(&t, ynode_get(doc.root, "chips"), ynode_get(doc.root, "dtypes"), name, d);
		chiptab_finish(t, d);
	}
	ydoc_release(&doc);
	return t;
}

static struct chiptab *
load_shipped_chips(void)
{
	struct buf b = BUF_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct diag d = DIAG_INIT;
	struct chiptab *t;

	if (util_read_file(PT_SRCDIR "/rules/chips.yaml", &b, 1 << 20, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		exit(2);
	}
	t = chips_from_text(b.data, "rules/chips.yaml", &d);
	if (d.nerrors || !t) {
		diag_print(&d, stderr);
		exit(2);
	}
	diag_release(&d);
	buf_release(&b);
	return t;
}

#endif
