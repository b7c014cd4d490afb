/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the echo of a piped log (pt/echo.h): whole lines as their
 * newline arrives, however the pipe splits them; a log's colours dropped
 * and its other control bytes escaped; CR LF ends a line; a last line
 * without a newline still shows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/echo.h"
#include "test.h"

/* Echo in the pieces given (sizes in step, cycling), return what came out. */
static char *
echoed(const char *in, size_t step, bool dim, size_t *lines)
{
	char *mem = NULL;
	size_t len = 0, n = strlen(in);
	FILE *fp = open_memstream(&mem, &len);
	struct echo e;

	echo_init(&e, fp, dim);
	for (size_t i = 0; i < n; i += step)
		echo_feed(&e, in + i, n - i < step ? n - i : step);
	echo_finish(&e);
	*lines = e.lines;
	fclose(fp);
	return mem;
}

static void
same_any_split(const char *in, const char *want, size_t want_lines)
{
	for (size_t step = 1; step <= strlen(in) + 1; step++) {
		size_t lines;
		char *got = echoed(in, step, false, &lines);

		if (strcmp(got, want) != 0 || lines != want_lines) {
			CHECK_STREQ(got, want);
			CHECK_INTEQ(lines, want_lines);
			free(got);
			return;
		}
		free(got);
	}
	CHECK(1);
}

int
main(void)
{
	size_t lines;
	char *got;

	same_any_split("step 1\nstep 2\n", "step 1\nstep 2\n", 2);
	same_any_split("windows\r\nline\r\n", "windows\nline\n", 2);
	/* a colour sequence, even cut across pieces, is dropped */
	same_any_split("\033[31mred\033[0m text\n", "red text\n", 1);
	/* other controls are shown, not sent */
	same_any_split("bell\a\n", "bell\\x07\n", 1);
	/* the last line of a hung program, without its newline */
	same_any_split("waiting on the semaphore", "waiting on the semaphore\n", 1);
	got = echoed("dim\n", 4, true, &lines);
	CHECK_STREQ(got, "\033[2mdim\033[0m\n");
	free(got);
	return TEST_DONE();
}
