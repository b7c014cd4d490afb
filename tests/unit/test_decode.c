/* SPDX-License-Identifier: MIT */
/*
 * UTF-16/UTF-32 detection and transcoding: byte-order marks, NUL-interleaved
 * ASCII without one, what must pass unchanged (UTF-8, stray NULs, binary
 * junk), surrogates, bad code units, input split at every byte, and the
 * fd reader through a pipe fed a few bytes at a time.
 */
#include "test.h"

#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pt/decode.h"

/* A BOM plus "E\u00e9\U0001F600\n" in every encoding, and the UTF-8 it must give. */
static const char want_utf8[] = "E\xc3\xa9\xf0\x9f\x98\x80\n";
static const struct {
	const char *bytes;
	size_t len;
	enum decode_enc enc;
} samples[] = {
	{ "\xff\xfe" "E\0\xe9\0\x3d\xd8\x00\xde\n\0", 12, DECODE_UTF16LE },
	{ "\xfe\xff" "\0E\0\xe9\xd8\x3d\xde\x00\0\n", 12, DECODE_UTF16BE },
	{ "\xff\xfe\0\0" "E\0\0\0\xe9\0\0\0\x00\xf6\x01\0\n\0\0\0", 20, DECODE_UTF32LE },
	{ "\0\0\xfe\xff" "\0\0\0E\0\0\0\xe9\0\x01\xf6\x00\0\0\0\n", 20, DECODE_UTF32BE },
	{ "\xef\xbb\xbf" "E\xc3\xa9\xf0\x9f\x98\x80\n", 11, DECODE_UTF8_BOM },
};

static char *
decode_all(const char *in, size_t len, size_t piece, enum decode_enc *enc, size_t *outlen)
{
	struct decoder d = DECODER_INIT;
	struct buf out = BUF_INIT;

	for (size_t i = 0; i < len; i += piece)
		decoder_feed(&d, in + i, len - i < piece ? len - i : piece, &out);
	decoder_finish(&d, &out);
	*enc = d.enc;
	decoder_release(&d);
	return buf_detach(&out, outlen);
}

static void
test_marks(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(samples); i++) {
		bool all_ok = true;

		for (size_t piece = 1; piece <= samples[i].len; piece++) {
			enum decode_enc enc;
			size_t n;
			char *got = decode_all(samples[i].bytes, samples[i].len, piece, &enc, &n);

			all_ok = all_ok && enc == samples[i].enc && n == strlen(want_utf8) &&
				 memcmp(got, want_utf8, n) == 0;
			free(got);
		}
		CHECK(all_ok);
	}
}

static void
test_guess_without_mark(void)
{
	const char *text = "RESOURCE_EXHAUSTED: Ran out of memory\r\n";
	char le16[200], be16[200], le32[400];
	size_t n = strlen(text), bom;

	for (size_t i = 0; i < n; i++) {
		le16[2 * i] = text[i], le16[2 * i + 1] = 0;
		be16[2 * i] = 0, be16[2 * i + 1] = text[i];
		memset(le32 + 4 * i, 0, 4);
		le32[4 * i] = text[i];
	}
	CHECK_INTEQ(decode_detect((unsigned char *)le16, 2 * n, true, &bom), DECODE_UTF16LE);
	CHECK_INTEQ(bom, 0);
	CHECK_INTEQ(decode_detect((unsigned char *)be16, 2 * n, true, &bom), DECODE_UTF16BE);
	CHECK_INTEQ(decode_detect((unsigned char *)le32, 4 * n, true, &bom), DECODE_UTF32LE);
	/* not yet: a short start of a longer log waits for more */
	CHECK_INTEQ(decode_detect((unsigned char *)le16, 2 * n, false, &bom), DECODE_UNDECIDED);
}

/* UTF-8, stray NULs, binary junk and a BOM-like prefix all pass as they are. */
static void
test_passes(void)
{
	static const struct { const char *b; size_t len; } cases[] = {
		{ "plain ASCII log line\nanother one\n", 33 },
		{ "caf\xc3\xa9 \xe2\x82\xac and more text here\n", 29 },
		{ "junk\0\1\2\nRan out of\0 memory in memory space vmem\n\377\376\0\n", 52 },
		{ "\0\1\377\376 garbage \200\201\n\0\0\nIndexError: Out-of-bounds\n", 45 },
		{ "\xff\xfe" "UTF-8 after two junk bytes\nsecond line\n", 41 },
		{ "E\0\0\0r\0", 6 },   /* too short to tell */
	};
	unsigned char rnd[512];
	size_t bom;
	int passed = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum decode_enc enc;
		size_t n;
		char *got = decode_all(cases[i].b, cases[i].len, 7, &enc, &n);

		CHECK_INTEQ(enc, DECODE_PASS);
		CHECK(n == cases[i].len && memcmp(got, cases[i].b, n) == 0);
		free(got);
	}
	srand(7);
	for (int round = 0; round < 200; round++) {
		for (size_t i = 0; i < sizeof(rnd); i++)
			rnd[i] = (unsigned char)(rand() >> 4);
		if (rnd[0] == 0xff || rnd[0] == 0xfe || rnd[0] == 0 || rnd[0] == 0xef)
			rnd[0] = 'x';
		passed += decode_detect(rnd, sizeof(rnd), true, &bom) == DECODE_PASS;
	}
	CHECK_INTEQ(passed, 200);
}

/* Lone and reversed surrogates, code units cut at the end, > U+10FFFF. */
static void
test_bad_units(void)
{
	static const struct { const char *in; size_t len; const char *out; } cases[] = {
		{ "\xff\xfe" "a\0\x00\xd8" "b\0", 8, "a\xef\xbf\xbd" "b" },        /* lone high */
		{ "\xff\xfe" "a\0\x00\xdc" "b\0", 8, "a\xef\xbf\xbd" "b" },        /* lone low */
		{ "\xff\xfe" "a\0\x00\xd8", 6, "a\xef\xbf\xbd" },                 /* high at the end */
		{ "\xff\xfe" "a\0b", 5, "a\xef\xbf\xbd" },                        /* half a unit */
		{ "\xff\xfe\0\0" "a\0\0\0\0\0\x11\0", 12, "a\xef\xbf\xbd" },      /* U+110000 */
		{ "\xff\xfe\0\0" "a\0\0\0\0\xd8\0\0", 12, "a\xef\xbf\xbd" },      /* surrogate */
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum decode_enc enc;
		size_t n;
		char *got = decode_all(cases[i].in, cases[i].len, 1, &enc, &n);

		CHECK(n == strlen(cases[i].out) && memcmp(got, cases[i].out, n) == 0);
		free(got);
	}
}

/* decode_read() from a pipe written 3 bytes at a time: the sniff waits for
 * enough, also on a stream, where a mark's first byte asks for more. */
static void
test_reader(bool stream)
{
	char text[3000], wire[6002], got[4096];
	struct decode_reader r = DECODE_READER_INIT;
	size_t have = 0;
	int fds[2];
	pid_t pid;

	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = i % 50 == 49 ? '\n' : (char)('a' + i % 26);
	wire[0] = (char)0xff, wire[1] = (char)0xfe;
	for (size_t i = 0; i < sizeof(text); i++)
		wire[2 + 2 * i] = text[i], wire[3 + 2 * i] = 0;
	r.stream = stream;
	if (pipe(fds) < 0 || (pid = fork()) < 0) {
		CHECK(!"pipe or fork");
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		for (size_t i = 0; i < sizeof(wire); i += 3)
			if (write(fds[1], wire + i, sizeof(wire) - i < 3 ? sizeof(wire) - i : 3) < 0)
				_exit(1);
		_exit(0);
	}
	close(fds[1]);
	for (;;) {
		ssize_t n = decode_read(&r, fds[0], got + have, 100);

		if (n <= 0 || have + (size_t)n > sizeof(text))
			break;
		have += (size_t)n;
	}
	close(fds[0]);
	waitpid(pid, NULL, 0);
	CHECK(decode_reader_transcodes(&r));
	CHECK_INTEQ(have, sizeof(text));
	CHECK(memcmp(got, text, sizeof(text)) == 0);
	decode_reader_release(&r);
}

/*
 * A stream (a pipe from a program that printed a line and then waits)
 * hands out that line at once: the sniff does not wait for 512 bytes. A
 * UTF-16 stream, written 3 bytes at a time, is still transcoded.
 */
static void
test_stream(void)
{
	struct decode_reader r = DECODE_READER_INIT;
	char got[64];
	int fds[2];
	ssize_t n;

	if (pipe(fds) < 0) {
		CHECK(!"pipe");
		return;
	}
	r.stream = true;
	CHECK(write(fds[1], "step 1\n", 7) == 7);
	alarm(10);                  /* a sniff that waits for more fails the test, not hangs it */
	n = decode_read(&r, fds[0], got, sizeof(got));
	alarm(0);
	CHECK_INTEQ(n, 7);
	CHECK(n == 7 && memcmp(got, "step 1\n", 7) == 0);
	CHECK(!decode_reader_transcodes(&r));
	close(fds[0]);
	close(fds[1]);
	decode_reader_release(&r);
}

int
main(void)
{
	test_marks();
	test_guess_without_mark();
	test_passes();
	test_bad_units();
	test_reader(false);
	test_reader(true);
	test_stream();
	return TEST_DONE();
}
