/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the head-and-tail copy of a stream (pt/logkeep.h): a short
 * stream is kept whole; a long one keeps its first and last lines with one
 * line saying how many bytes were cut between them; the result does not
 * depend on how the stream was split into pieces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/logkeep.h"
#include "test.h"

/* Feed s in pieces of `piece` bytes (0: all at once) to a keeper of max bytes. */
static char *
kept(const char *s, size_t max, size_t piece, bool *cut)
{
	struct logkeep k;
	struct buf out = BUF_INIT;
	size_t len = strlen(s);

	logkeep_init(&k, max);
	for (size_t i = 0; i < len; i += piece ? piece : len)
		logkeep_add(&k, s + i, piece && len - i > piece ? piece : len - i);
	*cut = logkeep_cut(&k);
	logkeep_finish(&k, &out);
	return buf_detach(&out, NULL);
}

static void
same_in_pieces(const char *s, size_t max, const char *want, bool want_cut)
{
	for (size_t piece = 0; piece <= 7; piece++) {
		bool cut = !want_cut;
		char *got = kept(s, max, piece, &cut);

		CHECK_STREQ(got, want);
		CHECK(cut == want_cut);
		free(got);
	}
}

int
main(void)
{
	/* whole: shorter than max, and exactly max */
	same_in_pieces("one\ntwo\n", 64, "one\ntwo\n", false);
	same_in_pieces("0123456789", 10, "0123456789", false);
	/* 40 bytes into 20: the first 10 to their last line end, the last 10
	 * from their first line start; 40 - 8 - 8 = 24 bytes cut */
	same_in_pieces("aaa\nbbb\nccc\nddd\neee\nfff\nggg\nhhh\niii\njjj\n", 20,
		       "aaa\nbbb\n[pallas-triage: 24 bytes cut here; the first and last 0 MiB are "
		       "kept]\niii\njjj\n", true);
	/* no line end at all: the halves as they are */
	same_in_pieces("abcdefghijklmnopqrstuvwxyz", 10,
		       "abcde\n[pallas-triage: 16 bytes cut here; the first and last 0 MiB are "
		       "kept]\nvwxyz", true);
	/* the error on the last line survives a long stream */
	{
		struct logkeep k;
		struct buf out = BUF_INIT;

		logkeep_init(&k, 1 << 12);
		for (int i = 0; i < 100000; i++)
			logkeep_add(&k, "INFO step ok\n", 13);
		logkeep_add(&k, "RESOURCE_EXHAUSTED: Ran out of memory\n", 38);
		CHECK(logkeep_cut(&k));
		logkeep_finish(&k, &out);
		CHECK(out.len <= (1 << 12) + 100);
		CHECK(strncmp(out.data, "INFO step ok\n", 13) == 0);
		CHECK(strstr(out.data, "RESOURCE_EXHAUSTED: Ran out of memory\n") != NULL);
		CHECK(strstr(out.data, "bytes cut here") != NULL);
		buf_release(&out);
		logkeep_release(&k);
	}
	return TEST_DONE();
}
