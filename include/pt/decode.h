/* SPDX-License-Identifier: MIT */
/*
 * Logs in other encodings than UTF-8. PowerShell's `>` writes UTF-16LE with
 * a byte-order mark, Windows tools write UTF-16 without one, and a few write
 * UTF-32: read as bytes, such a log has a NUL between all its letters and
 * no rule matches. This module detects those encodings at the start of a
 * log and transcodes them to UTF-8 as a streaming filter, so the classifier
 * only ever sees UTF-8 (or the bytes as they were, for anything else).
 *
 * Detection looks at the first DECODE_SNIFF_BYTES bytes (fewer when the log
 * is shorter): a byte-order mark (UTF-8, UTF-16LE/BE, UTF-32LE/BE) that the
 * text after it agrees with (a newline byte there is a newline code unit),
 * or else ASCII interleaved with NULs in the pattern of UTF-16 or UTF-32 (at
 * least 3 in 4 code units ASCII, none zero). Everything else passes
 * unchanged. Decoding never fails: a
 * lone surrogate, a code point past U+10FFFF or a code unit cut by the end
 * of the log becomes U+FFFD. The byte-order mark itself is dropped.
 *
 * No I/O but through decode_read(), no printing; memory is bounded by one
 * read's worth of transcoded text.
 */
#ifndef PT_DECODE_H
#define PT_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "pt/buf.h"

#define DECODE_SNIFF_BYTES 512

enum decode_enc {
	DECODE_UNDECIDED,   /* fewer than DECODE_SNIFF_BYTES seen so far */
	DECODE_PASS,        /* bytes pass unchanged (UTF-8 or anything unknown) */
	DECODE_UTF8_BOM,    /* UTF-8 after a byte-order mark, which is dropped */
	DECODE_UTF16LE,
	DECODE_UTF16BE,
	DECODE_UTF32LE,
	DECODE_UTF32BE,
};

/* "UTF-16LE" and so on; "UTF-8" for DECODE_PASS and DECODE_UNDECIDED. */
const char *decode_enc_name(enum decode_enc enc);

/*
 * The encoding of a log that starts with p[0..n). *bom_len is set to the
 * length of its byte-order mark (0 without one). With at_end false and n
 * under DECODE_SNIFF_BYTES the answer may be DECODE_UNDECIDED: more bytes
 * are needed to tell.
 */
enum decode_enc decode_detect(const unsigned char *p, size_t n, bool at_end, size_t *bom_len);

/*
 * The streaming transcoder: feed the log in pieces split anywhere (the
 * first piece may be short: input is held until the encoding is known),
 * then call decoder_finish() once. Output is appended to out.
 */
struct decoder {
	enum decode_enc enc;
	unsigned char part[4];     /* a code unit cut by the end of a piece */
	size_t npart;
	unsigned pending_hi;       /* UTF-16: a high surrogate waiting for its low half, or 0 */
	struct buf head;           /* input held while enc is DECODE_UNDECIDED */
};

#define DECODER_INIT { DECODE_UNDECIDED, { 0 }, 0, 0, BUF_INIT }

void decoder_feed(struct decoder *d, const char *in, size_t n, struct buf *out);
void decoder_finish(struct decoder *d, struct buf *out);
void decoder_release(struct decoder *d);

/*
 * read(2) that transcodes: fills dst[0..cap) with UTF-8 from fd and returns
 * the number of bytes, 0 at the end, or -1 with errno (EINTR included, as
 * read(2)). A log that needs no transcoding is read straight into dst, so
 * UTF-8 costs nothing but the first sniff. The first call reads until it
 * has DECODE_SNIFF_BYTES bytes (or the end, or cap), to detect the encoding;
 * with stream set (a pipe, whose writer may print a line and then wait), it
 * decides on what the first read brings, so that line is not held back.
 */
struct decode_reader {
	struct decoder dec;
	struct buf out;            /* transcoded text not yet handed out */
	size_t off;                /* ... starting here */
	bool eof;
	bool stream;               /* fd is a pipe or a terminal, not a file */
};

#define DECODE_READER_INIT { DECODER_INIT, BUF_INIT, 0, false, false }

ssize_t decode_read(struct decode_reader *r, int fd, char *dst, size_t cap);
/* True once the bytes handed out differ from the file's: byte offsets no
 * longer match (a BOM dropped, or text transcoded). */
bool decode_reader_transcodes(const struct decode_reader *r);
void decode_reader_release(struct decode_reader *r);

#endif
