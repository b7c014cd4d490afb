/* SPDX-License-Identifier: MIT */
/*
 * Lent regions (pt/xalloc.h): xfree() leaves alone a pointer anywhere
 * inside a lent region and frees every other, a region is lent again once
 * taken back, and no more than XALLOC_LENT are lent at once. Run under
 * valgrind or ASan, a wrong free() here is a report, a skipped one a leak.
 */
#include <stdlib.h>
#include <string.h>

#include "pt/xalloc.h"
#include "test.h"

static void
test_lent_is_not_freed(void)
{
	char *bytes = xmalloc(64);

	memcpy(bytes, "first\0second\0third", 19);
	CHECK_INTEQ(xalloc_lend(bytes, 64), 0);
	xfree(bytes);          /* its first byte */
	xfree(bytes + 6);      /* inside */
	xfree(bytes + 63);     /* its last byte */
	CHECK(strcmp(bytes + 6, "second") == 0);
	xfree(xstrdup("a heap string is freed"));
	xfree(NULL);
	xalloc_unlend(bytes);
	xfree(bytes);          /* taken back: now it is freed */
}

/* The byte after a region is not in it: a block that starts there is freed. */
static void
test_region_ends(void)
{
	char *bytes = xmalloc(128), *after;

	CHECK_INTEQ(xalloc_lend(bytes, 64), 0);
	after = xstrdup("the block after the region");
	CHECK_INTEQ(xalloc_lend(bytes + 64, 0), 0);	/* empty: holds nothing */
	xfree(after);
	xalloc_unlend(bytes + 64);
	xalloc_unlend(bytes);
	free(bytes);
}

static void
test_slots(void)
{
	char *bytes = xmalloc(XALLOC_LENT + 1);

	for (size_t i = 0; i < XALLOC_LENT; i++)
		CHECK_INTEQ(xalloc_lend(bytes + i, 1), 0);
	CHECK_INTEQ(xalloc_lend(bytes + XALLOC_LENT, 1), -1);
	xalloc_unlend(bytes + 3);
	CHECK_INTEQ(xalloc_lend(bytes + XALLOC_LENT, 1), 0);
	xfree(bytes + XALLOC_LENT);	/* lent in the slot given back */
	for (size_t i = 0; i <= XALLOC_LENT; i++)
		if (i != 3)
			xalloc_unlend(bytes + i);
	free(bytes);
}

int
main(void)
{
	test_lent_is_not_freed();
	test_region_ends();
	test_slots();
	return TEST_DONE();
}
