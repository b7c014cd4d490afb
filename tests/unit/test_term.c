/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for terminal escaping (pt/term.h): what a log line may not
 * send to a terminal (C0, DEL, C1 as UTF-8 or as raw bytes, bidirectional
 * controls) comes out as
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
	/* a raw 0x9b inside an overlong form or a surrogate is still a CSI byte */
	same("\xe0\x9b\x80", 3, "\xe0\\x9b\\x80");
	same("\xed\xa0\x9b", 3, "\xed\xa0\\x9b");
	/* bidirectional controls (Trojan Source): RLO, LRI..PDI, RLM, ALM */
	same("a\xe2\x80\xae" "b", 5, "a\\xe2\\x80\\xaeb");
	same("\xe2\x81\xa6x\xe2\x81\xa9", 7, "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9");
	same("\xe2\x80\x8f\xd8\x9c", 5, "\\xe2\\x80\\x8f\\xd8\\x9c");
	/* their neighbours are text: U+202F (narrow no-break space), U+2065 */
	same("\xe2\x80\xaf\xe2\x81\xa5", 6, "\xe2\x80\xaf\xe2\x81\xa5");
	return TEST_DONE();
}
