/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for wrapping (pt/wrap.h): no line longer than the width unless
 * one word is, no word cut, continuations under the text they continue,
 * escape sequences and UTF-8 taking no extra columns, code between the
 * markers never broken, and text that fits (or no width at all) passing
 * byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/wrap.h"
#include "test.h"

static char *
wrapped(const char *in, unsigned width)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&mem, &len);

	wrap_write(fp, in, strlen(in), width);
	fclose(fp);
	return mem;
}

static void
same_as(const char *in, unsigned width, const char *want)
{
	char *got = wrapped(in, width);

	CHECK_STREQ(got, want);
	free(got);
}

/* Every line fits in width columns, and the words are the input's, in order. */
static void
fits(const char *in, unsigned width)
{
	char *got = wrapped(in, width), *a, *b, *save_a = NULL, *save_b = NULL;
	char *x = strdup(in), *y = strdup(got);
	size_t col = 0;
	int ok = 1;

	for (const char *p = got; *p; p++) {
		if (*p == '\n')
			col = 0;
		else if (++col > width)
			ok = 0;
	}
	CHECK(ok);
	for (a = strtok_r(x, " \n", &save_a), b = strtok_r(y, " \n", &save_b); a && b;
	     a = strtok_r(NULL, " \n", &save_a), b = strtok_r(NULL, " \n", &save_b))
		if (strcmp(a, b) != 0)
			ok = 0;
	CHECK(ok && !a && !b);
	free(x);
	free(y);
	free(got);
}

int
main(void)
{
	static const char para[] = "the walk stops here without a fix, after 10 of 10 attempts, "
				   "and writes the escalation report next to the session directory\n";

	same_as("short line\n", 80, "short line\n");
	same_as(para, 0, para);
	fits(para, 60);
	fits(para, 20);
	/* a label with a gap: continuations line up after the gap */
	same_as("  action  raise the scoped VMEM limit of this kernel only\n", 30,
		"  action  raise the scoped\n"
		"          VMEM limit of this\n"
		"          kernel only\n");
	/* a short key: after "10: " */
	same_as("      10: jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Ran out\n", 40,
		"      10: jax.errors.JaxRuntimeError:\n"
		"          RESOURCE_EXHAUSTED: Ran out\n");
	/* a key and its gap: continuations start where the value does */
	same_as("  debug:  one two three four five six seven\n", 30,
		"  debug:  one two three four\n"
		"          five six seven\n");
	/* a bullet */
	same_as("  * ruled out numerics/logic: does not reproduce\n", 30,
		"  * ruled out numerics/logic:\n"
		"    does not reproduce\n");
	/* a word longer than the line overflows whole; it is never cut */
	same_as("  change  compiler_params=pltpu.CompilerParams(vmem_limit_bytes=1) # why\n", 30,
		"  change  compiler_params=pltpu.CompilerParams(vmem_limit_bytes=1)\n"
		"          # why\n");
	/* ... unless it has a '(' or ',' that fits: a break there keeps pasted Python valid */
	same_as("  debug   jax.config.update(\"jax_pallas_verbose_errors\", True)\n", 45,
		"  debug   jax.config.update(\n"
		"          \"jax_pallas_verbose_errors\", True)\n");
	/* colour takes no columns: this fits in 10 */
	same_as("\033[1mbold\033[0m text\n", 10, "\033[1mbold\033[0m text\n");
	/* a UTF-8 character is one column */
	same_as("caf\xc3\xa9 caf\xc3\xa9\n", 9, "caf\xc3\xa9 caf\xc3\xa9\n");
	/* code between the markers is never broken, neither at its spaces nor
	 * after a '(' or ','; the markers do not reach the output */
	same_as("  debug:  \x0eLIBTPU_INIT_ARGS=\"--xla_mosaic_dump_to=/tmp/mosaic\" python t.py\x0f\n", 40,
		"  debug:  LIBTPU_INIT_ARGS=\"--xla_mosaic_dump_to=/tmp/mosaic\" python t.py\n");
	same_as("  debug   \x0ejax.config.update(\"jax_pallas_verbose_errors\", True)\x0f\n", 45,
		"  debug   jax.config.update(\"jax_pallas_verbose_errors\", True)\n");
	/* prose around a code span breaks outside it only */
	same_as("  change: set \x0e`f(a, b, c, d, e)`\x0f with N above the use\n", 30,
		"  change: set\n"
		"          `f(a, b, c, d, e)`\n"
		"          with N above the use\n");
	/* a line that fits loses only its markers */
	same_as("a \x0e" "code\x0f b\n", 40, "a code b\n");
	/* a last line without a newline (a prompt) stays without one */
	same_as("result> ", 40, "result> ");
	CHECK(wrap_width(-1, "60") == 0);       /* no terminal: no wrapping */
	return TEST_DONE();
}
