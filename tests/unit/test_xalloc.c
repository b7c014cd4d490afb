/* SPDX-License-Identifier: MIT */
/*
 * Lent regions (pt/xalloc.h): xfree() leaves alone a pointer anywhere
 * inside a lent region and frees every other, a region is lent again once
 * taken back, and no more than XALLOC_LENT are lent at once; xrealloc()
 * moves a lent string or an arena's piece to the heap with its bytes. An
 * arena's pieces are zeroed, aligned and apart, and a full arena goes on
 * with the heap. Run under valgrind or ASan, a wrong free() here is a
 * report, a skipped one a leak.
 */
#include <stdbool.h>
#include <stdint.h>
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

/* A string of a lent region, grown: copied up to its NUL, never past the region. */
static void
test_realloc_lent_string(void)
{
	char *bytes = xmalloc(16), *grown;

	memcpy(bytes, "abc\0defghijklmn", 16);	/* the last has no NUL */
	CHECK_INTEQ(xalloc_lend(bytes, 16), 0);
	grown = xrealloc(bytes, 64);
	CHECK(grown != bytes && strcmp(grown, "abc") == 0);
	strcat(grown, " and more");
	CHECK(strcmp(grown, "abc and more") == 0);
	free(grown);
	grown = xrealloc(bytes + 4, 32);	/* no NUL before the region ends: its 12 bytes */
	CHECK(memcmp(grown, "defghijklmn", 11) == 0);
	free(grown);
	xalloc_unlend(bytes);
	free(bytes);
}

static void
test_arena(void)
{
	struct xarena *a = xarena_new(4096);
	char *p, *q, *big, *moved;
	bool zero = true;

	CHECK(a != NULL);
	p = xarena_zalloc(a, 13);
	q = xarena_zalloc(a, 40);
	for (size_t i = 0; i < 40; i++)
		zero = zero && q[i] == 0 && (i >= 13 || p[i] == 0);
	CHECK(zero);
	CHECK((uintptr_t)p % 8 == 0 && (uintptr_t)q % 8 == 0);
	CHECK(q >= p + 13);
	memset(p, 'x', 13);
	memset(q, 'y', 40);
	CHECK(p[12] == 'x' && q[0] == 'y');
	xfree(p);		/* a piece: nothing happens */
	moved = xrealloc(q, 100);	/* to the heap, with its 40 bytes */
	CHECK(moved[0] == 'y' && moved[39] == 'y');
	free(moved);
	big = xarena_zalloc(a, 8192);	/* more than is left: from the heap */
	CHECK(big != NULL && big[8191] == 0);
	free(big);
	xarena_free(a);
	p = xarena_zalloc(NULL, 24);	/* no arena: the heap */
	CHECK(p[23] == 0);
	free(p);
	xarena_free(NULL);
}

int
main(void)
{
	test_lent_is_not_freed();
	test_region_ends();
	test_slots();
	test_realloc_lent_string();
	test_arena();
	return TEST_DONE();
}
