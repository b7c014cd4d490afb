/* SPDX-License-Identifier: MIT */
/* UTF-16/UTF-32 logs transcoded to UTF-8; see pt/decode.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "pt/decode.h"

#define REPLACEMENT 0xfffdu

const char *
decode_enc_name(enum decode_enc enc)
{
	switch (enc) {
	case DECODE_UTF16LE: return "UTF-16LE";
	case DECODE_UTF16BE: return "UTF-16BE";
	case DECODE_UTF32LE: return "UTF-32LE";
	case DECODE_UTF32BE: return "UTF-32BE";
	default: return "UTF-8";
	}
}

static unsigned long
unit_value(const unsigned char *u, size_t unit, bool le)
{
	unsigned long v = 0;

	for (size_t k = 0; k < unit; k++)
		v = v << 8 | u[le ? unit - 1 - k : k];
	return v;
}

/*
 * ASCII as UTF-16 or UTF-32 without a byte-order mark: at least 3 of 4
 * code units are ASCII, no unit is zero (text holds no U+0000, binary data
 * often does) and none is past U+10FFFF. Plain text, with or without stray
 * NULs, and random bytes fail long before the end of the sniff.
 */
static bool
looks_interleaved(const unsigned char *p, size_t n, size_t unit, bool le)
{
	size_t units = n / unit, ascii = 0;

	if (units < 4)
		return false;
	for (size_t i = 0; i < units; i++) {
		unsigned long v = unit_value(p + i * unit, unit, le);

		if (v == 0 || v > 0x10ffff)
			return false;
		ascii += v < 0x80;
		/* a quarter not ASCII already: an ASCII log read as UTF-16 is out
		 * after a few units, not after the whole sniff */
		if ((i + 1 - ascii) * 4 > units)
			return false;
	}
	return ascii * 4 >= units * 3;
}

static const struct {
	const char *mark;
	size_t len;
	enum decode_enc enc;
} boms[] = {
	/* UTF-32LE's mark starts with UTF-16LE's: it comes first */
	{ "\xff\xfe\0\0", 4, DECODE_UTF32LE },
	{ "\0\0\xfe\xff", 4, DECODE_UTF32BE },
	{ "\xef\xbb\xbf", 3, DECODE_UTF8_BOM },
	{ "\xff\xfe", 2, DECODE_UTF16LE },
	{ "\xfe\xff", 2, DECODE_UTF16BE },
};

/*
 * A byte-order mark could also be two bytes of binary junk in front of a
 * UTF-8 log. When the sniff holds a newline byte but no newline code unit,
 * the text after the mark is not UTF-16 (or UTF-32) after all.
 */
static bool
mark_plausible(const unsigned char *p, size_t n, enum decode_enc enc)
{
	size_t unit = enc == DECODE_UTF16LE || enc == DECODE_UTF16BE ? 2 : 4;
	bool le = enc == DECODE_UTF16LE || enc == DECODE_UTF32LE;

	if (enc == DECODE_UTF8_BOM || !memchr(p, '\n', n))
		return true;
	for (size_t i = 0; i + unit <= n; i += unit)
		if (unit_value(p + i, unit, le) == '\n')
			return true;
	return false;
}

enum decode_enc
decode_detect(const unsigned char *p, size_t n, bool at_end, size_t *bom_len)
{
	static const struct { size_t unit; bool le; enum decode_enc enc; } guesses[] = {
		{ 4, true, DECODE_UTF32LE }, { 4, false, DECODE_UTF32BE },
		{ 2, true, DECODE_UTF16LE }, { 2, false, DECODE_UTF16BE },
	};

	*bom_len = 0;
	if (n < DECODE_SNIFF_BYTES && !at_end)
		return DECODE_UNDECIDED;
	if (n > DECODE_SNIFF_BYTES)
		n = DECODE_SNIFF_BYTES;
	for (size_t i = 0; i < ARRAY_SIZE(boms); i++)
		if (n >= boms[i].len && memcmp(p, boms[i].mark, boms[i].len) == 0) {
			if (!mark_plausible(p + boms[i].len, n - boms[i].len, boms[i].enc))
				return DECODE_PASS;
			*bom_len = boms[i].len;
			return boms[i].enc;
		}
	for (size_t i = 0; i < ARRAY_SIZE(guesses); i++)
		if (looks_interleaved(p, n, guesses[i].unit, guesses[i].le))
			return guesses[i].enc;
	return DECODE_PASS;
}

/* Append code point cp as UTF-8 to o[*len..) (4 bytes of room needed). */
static void
put_utf8(char *o, size_t *len, unsigned long cp)
{
	unsigned char *u = (unsigned char *)o + *len;

	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		*len += 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | cp >> 6);
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		*len += 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | cp >> 12);
		u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		*len += 3;
	} else {
		u[0] = (unsigned char)(0xf0 | cp >> 18);
		u[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (unsigned char)(0x80 | (cp & 0x3f));
		*len += 4;
	}
}

/* One code unit v: UTF-16 pairs its surrogates, anything invalid is U+FFFD. */
static void
put_unit(struct decoder *d, unsigned long v, char *o, size_t *len)
{
	bool utf16 = d->enc == DECODE_UTF16LE || d->enc == DECODE_UTF16BE;

	if (!utf16) {
		put_utf8(o, len, v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff) ? REPLACEMENT : v);
		return;
	}
	if (d->pending_hi) {
		if (v >= 0xdc00 && v <= 0xdfff) {
			put_utf8(o, len, 0x10000 + ((d->pending_hi - 0xd800ul) << 10) + (v - 0xdc00));
			d->pending_hi = 0;
			return;
		}
		put_utf8(o, len, REPLACEMENT);
		d->pending_hi = 0;
	}
	if (v >= 0xd800 && v <= 0xdbff)
		d->pending_hi = (unsigned)v;
	else
		put_utf8(o, len, v >= 0xdc00 && v <= 0xdfff ? REPLACEMENT : v);
}

/* Transcode p[0..n) by d->enc (decided) onto out. */
static void
transcode(struct decoder *d, const unsigned char *p, size_t n, struct buf *out)
{
	size_t unit = d->enc == DECODE_UTF16LE || d->enc == DECODE_UTF16BE ? 2 : 4;
	bool le = d->enc == DECODE_UTF16LE || d->enc == DECODE_UTF32LE;
	char o[4096 + 8];
	size_t len = 0;

	if (d->enc == DECODE_PASS || d->enc == DECODE_UTF8_BOM) {
		buf_add(out, p, n);
		return;
	}
	while (d->npart && d->npart < unit && n) {
		d->part[d->npart++] = *p++;
		n--;
	}
	if (d->npart == unit) {
		put_unit(d, unit_value(d->part, unit, le), o, &len);
		d->npart = 0;
	}
	for (; n >= unit; p += unit, n -= unit) {
		put_unit(d, unit_value(p, unit, le), o, &len);
		if (len >= 4096) {
			buf_add(out, o, len);
			len = 0;
		}
	}
	buf_add(out, o, len);
	memcpy(d->part + d->npart, p, n);
	d->npart += n;
}

/* Decide the encoding of the held input (forced at_end) and pass it on. */
static void
decide(struct decoder *d, struct buf *out, bool at_end)
{
	size_t bom;

	d->enc = decode_detect((const unsigned char *)d->head.data, d->head.len, at_end, &bom);
	if (d->enc == DECODE_UNDECIDED)
		return;
	transcode(d, (const unsigned char *)d->head.data + bom, d->head.len - bom, out);
	buf_release(&d->head);
}

void
decoder_feed(struct decoder *d, const char *in, size_t n, struct buf *out)
{
	if (d->enc != DECODE_UNDECIDED) {
		transcode(d, (const unsigned char *)in, n, out);
		return;
	}
	buf_add(&d->head, in, n);
	decide(d, out, false);
}

void
decoder_finish(struct decoder *d, struct buf *out)
{
	char o[8];
	size_t len = 0;

	if (d->enc == DECODE_UNDECIDED)
		decide(d, out, true);
	if (d->npart || d->pending_hi)
		put_utf8(o, &len, REPLACEMENT);
	d->npart = 0;
	d->pending_hi = 0;
	buf_add(out, o, len);
}

void
decoder_release(struct decoder *d)
{
	buf_release(&d->head);
}

/*
 * A stream decides on its first bytes, so that a program that prints a
 * line and then waits is seen at once. Only what could still turn out to
 * be UTF-16 or UTF-32 (a NUL, or a byte-order mark's first byte) waits for
 * a few units more.
 */
static bool
stream_needs_more(const unsigned char *p, size_t n)
{
	if (n >= 64)
		return false;
	return memchr(p, 0, n) || p[0] == 0xff || p[0] == 0xfe || p[0] == 0xef;
}

/*
 * Read the first bytes, enough to decide the encoding. Returns what
 * decode_read() returns when they pass to dst as they are; once they are
 * transcoded (into r->out), 0.
 */
static ssize_t
sniff(struct decode_reader *r, int fd, char *dst, size_t cap)
{
	size_t want = cap < DECODE_SNIFF_BYTES ? cap : DECODE_SNIFF_BYTES, got = 0, bom;

	while (got < want) {
		ssize_t n = read(fd, dst + got, want - got);

		/* a stream's reader may want to stop (Ctrl-C on a program that hangs) */
		if (n < 0 && errno == EINTR && !(r->stream && got == 0))
			continue;
		if (n < 0 && got == 0)
			return -1;
		if (n <= 0) {
			r->eof = n == 0;
			break;
		}
		got += (size_t)n;
		if (r->stream && !stream_needs_more((unsigned char *)dst, got))
			break;
	}
	r->dec.enc = decode_detect((unsigned char *)dst, got, true, &bom);
	if (r->dec.enc == DECODE_PASS)
		return (ssize_t)got;
	if (r->dec.enc == DECODE_UTF8_BOM) {
		memmove(dst, dst + bom, got - bom);
		if (got > bom || r->eof)
			return (ssize_t)(got - bom);
		return read(fd, dst, cap);
	}
	transcode(&r->dec, (unsigned char *)dst + bom, got - bom, &r->out);
	if (r->eof)
		decoder_finish(&r->dec, &r->out);
	return 0;
}

ssize_t
decode_read(struct decode_reader *r, int fd, char *dst, size_t cap)
{
	char raw[32768];
	size_t n;

	if (r->dec.enc == DECODE_UNDECIDED) {
		ssize_t got = sniff(r, fd, dst, cap);

		if (!decode_reader_transcodes(r) || r->dec.enc == DECODE_UTF8_BOM)
			return got;
	} else if (r->dec.enc == DECODE_PASS || r->dec.enc == DECODE_UTF8_BOM) {
		return read(fd, dst, cap);
	}
	while (r->off == r->out.len && !r->eof) {
		ssize_t got = read(fd, raw, sizeof(raw));

		if (got < 0)
			return -1;
		buf_reset(&r->out);
		r->off = 0;
		if (got == 0) {
			decoder_finish(&r->dec, &r->out);
			r->eof = true;
		} else {
			transcode(&r->dec, (unsigned char *)raw, (size_t)got, &r->out);
		}
	}
	n = r->out.len - r->off < cap ? r->out.len - r->off : cap;
	memcpy(dst, r->out.data + r->off, n);
	r->off += n;
	return (ssize_t)n;
}

bool
decode_reader_transcodes(const struct decode_reader *r)
{
	return r->dec.enc != DECODE_UNDECIDED && r->dec.enc != DECODE_PASS;
}

void
decode_reader_release(struct decode_reader *r)
{
	decoder_release(&r->dec);
	buf_release(&r->out);
}
