/* SPDX-License-Identifier: MIT */
/*
 * The classifier's streaming window; see pt/window.h and
 * docs/architecture.md ("Reading").
 *
 * The window never holds more than WINDOW_SIZE bytes: JOIN_LINES processed
 * lines for the joins, JOIN_LINES held lines and the partial one, and room
 * for a read. Lines are found with memchr and counted a vector at a time;
 * only candidate lines (the prefilter's, or the scout's) reach the owner.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt/classify.h"
#include "pt/ingest.h"
#include "pt/scout.h"
#include "pt/window.h"
#include "pt/xalloc.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define PT_WINDOW_AVX2 1
#include <immintrin.h>
#else
#define PT_WINDOW_AVX2 0
#endif

#define READ_CHUNK (128u * 1024)      /* page cache reads fall off a cliff above 128 KiB */
/* Kept: JOIN_LINES previous lines (<= JOIN_MAX_LINE each), JOIN_LINES held
 * lines and the partial one (each <= MAX + READ_CHUNK before it is cut),
 * plus room for a read. */
#define WINDOW_SIZE (JOIN_LINES * JOIN_MAX_LINE + \
		     (JOIN_LINES + 1) * (CLASSIFY_MAX_LINE + READ_CHUNK) + 2 * READ_CHUNK)
#define MIN_READ (CLASSIFY_MAX_LINE)
/*
 * A scout pays on big regular files with a second core free. Below this
 * size the thread costs more than it saves.
 */
#define SCOUT_MIN_BYTES ((uint64_t)32 << 20)

void
window_init(struct window *w, window_line_fn on_line, void *arg)
{
	memset(w, 0, sizeof(*w));
	w->buf = xmalloc(WINDOW_SIZE);
	w->noprev_at = SIZE_MAX;
	w->scout_fd = -1;
	w->map_from = SIZE_MAX;
	w->skip.lit = SIZE_MAX;
	w->on_line = on_line;
	w->arg = arg;
}

void
window_release(struct window *w)
{
	scout_stop(w->scout);
	scout_memo_release(&w->memo);
	free(w->buf);
	memset(w, 0, sizeof(*w));
	w->scout_fd = -1;
}

/*
 * Count newlines: line numbers are needed only at candidate lines, but
 * every byte between them must be counted, and on a Pallas log candidates
 * are a few lines apart, so a call is often short. With AVX2 (checked at
 * run time, so the build needs no -march): a compare, a mask and a popcount
 * per 32 bytes. Otherwise per-byte counters (GCC vector extension: SSE2 on
 * x86-64, NEON on arm64) summed every 255 vectors, before they can wrap.
 */
typedef unsigned char nl_vec __attribute__((vector_size(16)));

static size_t
count_newlines_vec(const char *p, size_t n)
{
	const nl_vec nl = { '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n',
			    '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n' };
	size_t count = 0, i = 0;

	while (i + 16 <= n) {
		nl_vec acc = { 0 };

		for (unsigned k = 0; k < 255 && i + 16 <= n; k++, i += 16) {
			nl_vec v;

			memcpy(&v, p + i, 16);
			acc -= (nl_vec)(v == nl);
		}
		for (unsigned j = 0; j < 16; j++)
			count += acc[j];
	}
	for (; i < n; i++)
		count += p[i] == '\n';
	return count;
}

#if PT_WINDOW_AVX2
/* The newlines of 32 bytes at p. */
__attribute__((target("avx2,popcnt"))) static inline size_t
newlines32(const char *p, __m256i nl)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);

	return (size_t)_mm_popcnt_u32((unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, nl)));
}

/*
 * 64 bytes a step into byte counters (a compare gives -1 where it holds),
 * summed every 127 steps before one can pass 255; the last bytes from a
 * zeroed copy, as a count runs between every two candidate lines and its
 * tail was a quarter of its cost a byte at a time.
 */
__attribute__((target("avx2,popcnt"))) static size_t
count_newlines_avx2(const char *p, size_t n)
{
	const __m256i nl = _mm256_set1_epi8('\n'), zero = _mm256_setzero_si256();
	size_t count = 0, i = 0;
	char tail[32];

	while (i + 64 <= n) {
		__m256i acc = zero, sum;

		for (unsigned k = 0; k < 127 && i + 64 <= n; k++, i += 64) {
			__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));
			__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + i + 32));

			acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(a, nl));
			acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(b, nl));
		}
		sum = _mm256_sad_epu8(acc, zero);
		count += (size_t)_mm256_extract_epi64(sum, 0) + (size_t)_mm256_extract_epi64(sum, 1) +
			 (size_t)_mm256_extract_epi64(sum, 2) + (size_t)_mm256_extract_epi64(sum, 3);
	}
	if (i + 32 <= n) {
		count += newlines32(p + i, nl);
		i += 32;
	}
	if (i < n) {
		memset(tail, 0, sizeof(tail));
		memcpy(tail, p + i, n - i);
		count += newlines32(tail, nl);
	}
	return count;
}

static size_t
count_newlines(const char *p, size_t n)
{
	/* libgcc fills the CPU model in before main; reading it is a load */
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
		return count_newlines_avx2(p, n);
	return count_newlines_vec(p, n);
}
#else
static size_t
count_newlines(const char *p, size_t n)
{
	return count_newlines_vec(p, n);
}
#endif

static const char *
find_nl(const char *p, size_t n)
{
	return memchr(p, '\n', n);
}

static const char *
rfind_nl(const char *p, size_t n)
{
	return n ? memrchr(p, '\n', n) : NULL;
}

/* A neighbour for joins, trimmed; false when [ls, le) cannot be one. */
static bool
join_piece_of(const char *buf, size_t ls, size_t le, struct join_piece *out)
{
	size_t n = le - ls, off;

	if (n > JOIN_MAX_LINE)
		return false;
	off = ingest_trim(buf + ls, &n);
	if (ingest_is_join_boundary(buf + ls + off, n))
		return false;
	out->s = buf + ls + off;
	out->n = n;
	return true;
}

/* compact() and window_advance() keep exactly the lines this may look at. */
void
window_neighbours(const struct window *w, size_t start, size_t end, size_t limit,
		  struct join_piece *prev, size_t *nprev, struct join_piece *next, size_t *nnext)
{
	size_t pos = start;

	*nprev = *nnext = 0;
	while (*nprev < JOIN_LINES && pos > 0 && pos != w->noprev_at) {
		const char *nl = rfind_nl(w->buf, pos - 1);
		size_t ls = nl ? (size_t)(nl - w->buf) + 1 : 0;

		if (!join_piece_of(w->buf, ls, pos - 1, &prev[*nprev]))
			break;
		(*nprev)++;
		pos = ls;
	}
	pos = end + 1;
	while (*nnext < JOIN_LINES && pos < limit) {
		const char *nl = find_nl(w->buf + pos, limit - pos);

		if (!nl || !join_piece_of(w->buf, pos, (size_t)(nl - w->buf), &next[*nnext]))
			break;
		(*nnext)++;
		pos = (size_t)(nl - w->buf) + 1;
	}
}

/*
 * The first literal occurrence in [pos, region_end), pos a line start, or
 * region_end: asked of the scout where the window holds the file's bytes
 * unchanged. The scout's literals may be a superset of ours (it adopts a
 * rebuilt set a block late): an extra candidate line only finds no hits.
 */
static size_t
next_hit(struct window *w, size_t pos, size_t region_end, size_t *lit, bool *alone)
{
	uint64_t f, fend;

	*lit = SIZE_MAX;
	*alone = false;
	if (w->every_line)
		return pos;
	if (!w->scout || pos < w->map_from)
		return litset_find(w->pf, w->buf, region_end, pos, lit);
	f = pos + w->map_delta;
	fend = region_end + w->map_delta;
	while (f < fend) {
		uint64_t at, covered;
		size_t o;

		switch (scout_ask(w->scout, f, fend, &at, &covered, alone)) {
		case SCOUT_FOUND:
			return (size_t)(at - w->map_delta);
		case SCOUT_YOURS:
			o = litset_find_range(w->pf, w->buf, region_end, (size_t)(f - w->map_delta),
					      (size_t)(covered - w->map_delta), lit);
			if (o < region_end)
				return o;
			break;
		case SCOUT_NONE:
			break;
		}
		f = covered;
	}
	return region_end;
}

/*
 * The start of the first line in [pos, end) of CLASSIFY_MAX_LINE bytes or
 * more (pos a line start, end just after a newline), or end. It jumps from
 * the last newline within each CLASSIFY_MAX_LINE bytes to the next, so it
 * reads a few bytes per 64 KiB.
 */
static size_t
next_long_line(const char *buf, size_t pos, size_t end)
{
	while (end - pos > CLASSIFY_MAX_LINE) {
		const char *nl = memrchr(buf + pos, '\n', CLASSIFY_MAX_LINE);

		if (!nl)
			return pos;
		pos = (size_t)(nl - buf) + 1;
	}
	return end;
}

/*
 * Candidate lines in [pos, region_end), none of them over-long. A line the
 * owner's skip passes over (pt/scout.h) is counted, not handed over; the
 * scout's answers have been through the same test.
 */
static void
scan_lines(struct window *w, size_t pos, size_t region_end, size_t limit)
{
	while (pos < region_end) {
		size_t h, ls, le, lit;
		enum scout_line kind;
		const char *nl;
		bool alone;

		h = next_hit(w, pos, region_end, &lit, &alone);
		if (h >= region_end) {
			w->lineno += count_newlines(w->buf + pos, region_end - pos);
			break;
		}
		nl = rfind_nl(w->buf + pos, h - pos);
		ls = nl ? (size_t)(nl - w->buf) + 1 : pos;
		le = (size_t)(find_nl(w->buf + h, region_end - h) - w->buf);
		w->lineno += count_newlines(w->buf + pos, ls - pos) + 1;
		kind = alone ? SCOUT_LINE_ALONE :
		       scout_line_kind(w->pf, &w->skip, &w->memo, w->buf, region_end, ls, h, lit, le);
		if (kind != SCOUT_LINE_SKIP)
			w->on_line(w->arg, w, ls, le, limit, w->lineno, h, kind == SCOUT_LINE_ALONE);
		pos = le + 1;
	}
}

/* The first CLASSIFY_MAX_LINE bytes of the line at start, matched alone. */
static void
handle_cut_line(struct window *w, size_t start)
{
	size_t end = start + CLASSIFY_MAX_LINE;
	char saved = w->buf[end];

	w->long_lines++;
	w->lineno++;
	w->buf[end] = '\n';
	w->on_line(w->arg, w, start, end, end, w->lineno, start, false);
	w->buf[end] = saved;
}

/*
 * Process the complete lines in [w->proc, region_end); region_end is just
 * after a newline. `limit` is where the window's known bytes end (the held
 * line after the region is visible to joins). A line of CLASSIFY_MAX_LINE
 * bytes or more is matched on its first CLASSIFY_MAX_LINE bytes, alone, as
 * when it is too long to wait for (cut_long_line()): whether a long line
 * came whole in one read must not change what is matched.
 */
static void
scan_region(struct window *w, size_t region_end, size_t limit)
{
	size_t pos = w->proc;

	while (pos < region_end) {
		size_t at = next_long_line(w->buf, pos, region_end);

		scan_lines(w, pos, at, limit);
		if (at == region_end)
			break;
		handle_cut_line(w, at);
		pos = (size_t)(find_nl(w->buf + at, region_end - at) - w->buf) + 1;
		w->noprev_at = pos;
	}
	w->proc = region_end;
}

/* Keep the processed lines that joins may still need, and everything unprocessed. */
static void
compact(struct window *w)
{
	size_t keep = w->proc;

	for (int k = 0; k < JOIN_LINES && keep > 0; k++) {
		const char *nl = rfind_nl(w->buf, keep - 1);
		size_t ls = nl ? (size_t)(nl - w->buf) + 1 : 0;

		if (keep - 1 - ls > JOIN_MAX_LINE)
			break;
		keep = ls;
	}
	if (keep == 0)
		return;
	memmove(w->buf, w->buf + keep, w->len - keep);
	w->len -= keep;
	w->proc -= keep;
	w->noprev_at = w->noprev_at != SIZE_MAX && w->noprev_at >= keep ? w->noprev_at - keep : SIZE_MAX;
	/* keep is a line start: if it is past map_from, so is the newline before it. */
	if (w->map_from != SIZE_MAX) {
		w->map_from = w->map_from > keep ? w->map_from - keep : 0;
		w->map_delta += keep;
	}
}

/* An over-long line: match its first CLASSIFY_MAX_LINE bytes, drop the rest. */
static void
cut_long_line(struct window *w)
{
	size_t start = w->proc;

	handle_cut_line(w, start);
	w->len = start;
	w->proc = start;
	w->noprev_at = start;
	w->skipping = true;
}

/* In an over-long line: drop bytes up to its newline. False while none came yet. */
static bool
skip_long_tail(struct window *w)
{
	size_t unproc = w->len - w->proc;
	const char *nl = find_nl(w->buf + w->proc, unproc);

	if (!nl) {
		w->len = w->proc;
		return false;
	}
	memmove(w->buf + w->proc, nl + 1, (size_t)(w->buf + w->len - nl - 1));
	w->len -= (size_t)(nl + 1 - (w->buf + w->proc));
	w->skipping = false;
	w->map_from = SIZE_MAX;     /* bytes left out: no longer the file's */
	return true;
}

/*
 * The last JOIN_LINES complete lines are held back so that a candidate line
 * always sees its successors, whatever the read sizes were: the verdict
 * must not depend on how a pipe chunked the log.
 */
void
window_advance(struct window *w, bool final)
{
	const char *last, *before;
	size_t partial;

	if (final && w->len > w->proc && w->buf[w->len - 1] != '\n' && !w->skipping)
		w->buf[w->len++] = '\n';	/* window_space() always leaves this byte */
	if (w->skipping && !skip_long_tail(w))
		return;
	last = rfind_nl(w->buf + w->proc, w->len - w->proc);
	if (!last) {
		if (!final && w->len - w->proc >= CLASSIFY_MAX_LINE)
			cut_long_line(w);
		return;
	}
	partial = (size_t)(w->buf + w->len - last - 1);
	if (final || partial >= CLASSIFY_MAX_LINE) {
		scan_region(w, (size_t)(last - w->buf) + 1, w->len);
		if (!final)
			cut_long_line(w);
		return;
	}
	before = last;
	for (int k = 0; k < JOIN_LINES && before; k++)
		before = rfind_nl(w->buf + w->proc, (size_t)(before - (w->buf + w->proc)));
	if (before)
		scan_region(w, (size_t)(before - w->buf) + 1, w->len);
}

char *
window_space(struct window *w, size_t *space)
{
	compact(w);
	if (WINDOW_SIZE - w->len < MIN_READ) {
		/* Cannot happen with the size invariants (docs/architecture.md); if it
		 * ever does, give up the lookahead rather than the bytes. */
		const char *last = rfind_nl(w->buf + w->proc, w->len - w->proc);

		if (last)
			scan_region(w, (size_t)(last - w->buf) + 1, w->len);
		compact(w);
	}
	*space = WINDOW_SIZE - w->len - 1;
	if (*space > READ_CHUNK)
		*space = READ_CHUNK;
	return w->buf + w->len;
}

ssize_t
window_read(struct window *w, struct decode_reader *dr, int fd)
{
	size_t space;
	char *dst = window_space(w, &space);
	ssize_t n = decode_read(dr, fd, dst, space);

	if (n > 0 && decode_reader_transcodes(dr))
		w->scout_fd = -1;
	return n;
}

/*
 * The read of n bytes at window offset o, file offset f, came in unchanged
 * (or not): keep, extend, start or drop the window-to-file map. A new map
 * starts after the read's first newline, so that its first byte is a line
 * start in the file too.
 */
static void
map_read(struct window *w, size_t o, uint64_t f, size_t n, bool unchanged)
{
	const char *nl;

	if (!unchanged) {
		w->map_from = SIZE_MAX;
		return;
	}
	if (w->map_from != SIZE_MAX && o + w->map_delta == f)
		return;
	nl = find_nl(w->buf + o, n);
	w->map_from = nl ? (size_t)(nl - w->buf) + 1 : SIZE_MAX;
	w->map_delta = f - o;
}

void
window_add(struct window *w, size_t n)
{
	/* An escape sequence cut by the previous read is stripped again with its rest. */
	char *p = w->buf + w->len - w->ansi_tail;
	size_t len = n + w->ansi_tail, o = w->len;
	bool unchanged = w->ansi_tail == 0;

	w->len -= w->ansi_tail;
	w->ansi_tail = 0;
	if (memchr(p, 0x1b, len)) {
		len = ingest_strip_ansi(p, len, &w->ansi_tail);
		unchanged = false;
	}
	w->len += len;
	if (w->scout_fd >= 0)
		map_read(w, o, w->nbytes, n, unchanged);
	w->nbytes += n;
}

void
window_want_scout(struct window *w, int fd, unsigned threads)
{
	struct stat st;
	off_t here;

	if (threads == 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		threads = cpus > 1 ? 2 : 1;
	}
	if (threads < 2 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	here = lseek(fd, 0, SEEK_CUR);
	if (here < 0 || st.st_size - here < (off_t)SCOUT_MIN_BYTES)
		return;
	w->scout_fd = fd;
	w->scout_base = here;
	w->scout_size = (uint64_t)(st.st_size - here);
}

/* The scout asks about the file's bytes line by line: a set that finds a
 * newline, or a window that takes every line, cannot be scouted. */
void
window_start_scout(struct window *w, struct litset *twin)
{
	if (w->scout_fd < 0 || w->every_line || litset_has_byte(twin, '\n')) {
		litset_free(twin);
		return;
	}
	w->scout = scout_start(w->scout_fd, w->scout_base, w->scout_size, twin, &w->skip);
}

void
window_update_scout(struct window *w, struct litset *twin)
{
	if (w->scout)
		scout_update(w->scout, twin, &w->skip);
	else
		litset_free(twin);
}
