/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for terminal escaping (pt/term.h): what a log line may not
 * send to a terminal (C0, DEL, C1 as UTF-8 or as raw bytes) comes out as
 * \xNN; valid UTF-8, tabs and ordinary text come out unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/term.h"
#include "test.h"

static void
same(const char *in, size_t len, const char *want)
{
	char *got = term_escape(in, len);
	char *mem = NULL;
	size_t memlen = 0;
	FILE *fp = open_memstream(&mem, &memlen);

	CHECK_STREQ(got, want);
	term_put_untrusted(fp, in, len);
	fclose(fp);
	CHECK_STREQ(mem, want);   /* both paths escape the same bytes */
	free(got);
	free(mem);
}

int
main(void)
{
	same("plain text", 10, "plain text");
	same("a\tb", 3, "a\tb");
	same("\x1b[31mred\x1b[0m", 12, "\\x1b[31mred\\x1b[0m");
	same("bell\a del\x7f", 10, "bell\\x07 del\\x7f");
	same("nul\0x", 5, "nul\\x00x");
	/* UTF-8 passes: é, █, an emoji */
	same("caf\xc3\xa9 \xe2\x96\x88 \xf0\x9f\x94\xa5", 14, "caf\xc3\xa9 \xe2\x96\x88 \xf0\x9f\x94\xa5");
	/* C1 CSI as UTF-8 (U+009B) and as a raw byte */
	same("x\xc2\x9b" "2Jy", 6, "x\\xc2\\x9b2Jy");
	same("x\x9b" "2J", 4, "x\\x9b2J");
	/* U+00A0 (no-break space) is not a control */
	same("a\xc2\xa0" "b", 4, "a\xc2\xa0" "b");
	/* stray or cut sequences: only the 0x80..0x9f bytes are escaped */
	same("\xe2\x96", 2, "\xe2\\x96");
	same("\xff\xa5", 2, "\xff\xa5");
	same("\xc2", 1, "\xc2");
	return TEST_DONE();
}
