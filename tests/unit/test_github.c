/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for GitHub Actions annotations (pt/github.h): the escaping of
 * actions/toolkit's command.ts, and that nothing from a log can end the
 * command's line or start one of its own.
 */
#include <stdlib.h>
#include <string.h>

#include "pt/github.h"
#include "test.h"

static void
esc(const char *in, bool property, const char *want)
{
	char *got = github_escape(in, property);

	CHECK_STREQ(got, want);
	free(got);
}

int
main(void)
{
	esc("plain text", false, "plain text");
	esc("100% used\r\nnext", false, "100%25 used%0D%0Anext");
	esc("a: b, c", false, "a: b, c");
	esc("a: b, c", true, "a%3A b%2C c");
	esc("k.py,line=1::boom", true, "k.py%2Cline=1%3A%3Aboom");
	/* a log line that tries to start a command of its own stays on this line */
	esc("x\n::error::injected", false, "x%0A::error::injected");
	/* other control bytes are shown, never sent */
	esc("bell\a esc\033[31m", false, "bell\\x07 esc\\x1b[31m");
	return TEST_DONE();
}
