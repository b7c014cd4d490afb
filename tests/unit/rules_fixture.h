/* SPDX-License-Identifier: MIT */
/*
 * For unit tests: load and finish the rules of $SRC/DIR (the shipped
 * "rules", or "tests/fixtures/rules"), the way the rules loader does.
 * Exits on failure.
 */
#ifndef PT_RULES_FIXTURE_H
#define PT_RULES_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "pt/diag.h"
#include "pt/rules.h"

static struct ruleset *
load_rules_of(const char *dir)
{
	const char *src = getenv("SRC");
	char path[4096];
	struct diag d = DIAG_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct ruleset *rs = ruleset_new();

	snprintf(path, sizeof(path), "%s/%s", src ? src : ".", dir);
	if (ruleset_load_dir(rs, path, NULL, &d, &err) < 0 || ruleset_finish(rs, &d) < 0) {
		diag_print(&d, stderr);
		fprintf(stderr, "%s\n", err.msg);
		exit(2);
	}
	diag_release(&d);
	return rs;
}

#endif
