/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the rule loader. Arbitrary bytes go through libyaml, the node
 * tree (ytree.c: depth, size and alias limits, duplicate keys) and the rule
 * schema (rules.c: patterns compiled, literals extracted); a file that loads
 * goes on to ruleset_finish(). Any crash, leak, sanitizer report or a load
 * that fails without saying why is a finding.
 */
#include <string.h>

#include "fuzz.h"
#include "pt/diag.h"
#include "pt/rules.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ruleset *rs = ruleset_new();
	struct diag d = DIAG_INIT;
	int rc = ruleset_load_buf(rs, (const char *)data, size, "fuzz.yaml", NULL, &d);

	if (rc < 0 && d.nerrors == 0)
		FUZZ_FAIL("ruleset_load_buf failed without a diagnostic");
	if (rc == 0 && d.nerrors == 0) {
		if (ruleset_finish(rs, &d) < 0 && d.nerrors == 0)
			FUZZ_FAIL("ruleset_finish failed without a diagnostic");
		for (size_t i = 0; i < rs->nrules; i++)
			(void)ruleset_find_rule(rs, rs->rules[i]->id);
	}
	diag_print(&d, fuzz_devnull());
	diag_release(&d);
	ruleset_free(rs);
	return 0;
}
