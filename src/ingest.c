/* SPDX-License-Identifier: MIT */
/*
 * Ingestion helpers; see pt/ingest.h. These recognise the shapes that real
 * CI systems, loggers and test runners wrap around error lines. They are
 * hand-written scanners rather than regexes because they run on every
 * candidate line and must never fail.
 */
#include <ctype.h>
#include <string.h>

#include "pt/ingest.h"

size_t
ingest_strip_ansi(char *buf, size_t len, size_t *incomplete)
{
	size_t r = 0, w = 0;

	*incomplete = 0;
	while (r < len) {
		size_t start = r;
		bool done = true;

		if (buf[r] != 0x1b) {
			buf[w++] = buf[r++];
			continue;
		}
		r++;
		if (r < len && buf[r] == '[') {          /* CSI: params then a final byte */
			r++;
			while (r < len && buf[r] != '\n' &&
			       !((unsigned char)buf[r] >= 0x40 && (unsigned char)buf[r] <= 0x7e))
				r++;
			if (r < len && buf[r] != '\n')
				r++;
			else
				done = r < len;
		} else if (r < len && buf[r] == ']') {   /* OSC: until BEL or ST */
			r++;
			while (r < len && buf[r] != '\n' && buf[r] != '\a' &&
			       !(buf[r] == 0x1b && r + 1 < len && buf[r + 1] == '\\'))
				r++;
			if (r < len && buf[r] == '\a')
				r++;
			else if (r + 1 < len && buf[r] == 0x1b)
				r += 2;
			else
				done = r < len && buf[r] == '\n';
		} else {                                 /* ESC, intermediates 0x20-0x2f, final byte */
			while (r < len && (unsigned char)buf[r] >= 0x20 && (unsigned char)buf[r] <= 0x2f)
				r++;
			if (r < len && buf[r] != '\n')
				r++;
			else
				done = r < len;
		}
		if (!done) {
			/* cut by the end of the buffer: keep it for the caller to complete */
			memmove(buf + w, buf + start, len - start);
			*incomplete = len - start;
			return w + *incomplete;
		}
	}
	return w;
}

static bool
starts(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return len >= n && memcmp(s, lit, n) == 0;
}

/* "(EngineCore pid=123) " or "(RayWorker pid=9, ip=1.2.3.4) " */
static size_t
skip_ray_prefix(const char *s, size_t len)
{
	const char *close;

	if (len < 8 || s[0] != '(' || !(close = memchr(s, ')', len < 120 ? len : 120)))
		return 0;
	if (!memmem(s, (size_t)(close - s), "pid=", 4))
		return 0;
	return (size_t)(close - s) + (close + 1 < s + len && close[1] == ' ' ? 2 : 1);
}

/* "[rank0]: ", "[1,0]<stderr>:" */
static size_t
skip_rank_prefix(const char *s, size_t len)
{
	const char *close;

	if (len < 4 || s[0] != '[' || !(close = memchr(s, ']', len < 40 ? len : 40)))
		return 0;
	if (!starts(s + 1, len - 1, "rank") && !memmem(s, len < 40 ? len : 40, "<std", 4))
		return 0;
	{
		const char *colon = memchr(close, ':', (size_t)(s + len - close));

		if (!colon || colon - close > 10)
			return 0;
		return (size_t)(colon - s) + (colon + 1 < s + len && colon[1] == ' ' ? 2 : 1);
	}
}

/* Cloud Build: `Step #4 - "run_e2e_tests": ` */
static size_t
skip_step_prefix(const char *s, size_t len)
{
	const char *q;

	if (!starts(s, len, "Step #"))
		return 0;
	if (!(q = memmem(s, len < 100 ? len : 100, "\": ", 3)))
		return 0;
	return (size_t)(q - s) + 3;
}

/* glog "I0000 00:00:1710194162.272765   61251 pjrt_api.cc:100] " and
 * "2022-03-07 18:41:42.980600: E external/...cc:2124] " */
static size_t
skip_glog_prefix(const char *s, size_t len)
{
	const char *br;
	size_t lim = len < 160 ? len : 160;

	if (len < 10)
		return 0;
	if (!((strchr("IWEF", s[0]) && isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[4])) ||
	      (isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[3]) && s[4] == '-')))
		return 0;
	if (!(br = memmem(s, lim, "] ", 2)))
		return 0;
	return (size_t)(br - s) + 2;
}

/* A leading ISO timestamp "2024-05-01T12:00:00.123Z " or "2024-05-01 12:00:00,123 " */
static size_t
skip_timestamp(const char *s, size_t len)
{
	size_t i = 0;

	if (len < 20 || !isdigit((unsigned char)s[0]) || s[4] != '-' || s[7] != '-' ||
	    (s[10] != 'T' && s[10] != ' '))
		return 0;
	i = 11;
	while (i < len && i < 40 && (isdigit((unsigned char)s[i]) || strchr(":.,Z+-", s[i])))
		i++;
	if (i < len && s[i] == ' ')
		i++;
	return i;
}

/* Python logging "ERROR:root:" / vLLM "ERROR 01-02 12:00:00 [file.py:12] " */
static size_t
skip_level_prefix(const char *s, size_t len)
{
	static const char *const levels[] = { "ERROR", "WARNING", "INFO", "DEBUG", "CRITICAL" };

	for (size_t k = 0; k < sizeof(levels) / sizeof(levels[0]); k++) {
		size_t n = strlen(levels[k]);
		const char *br;

		if (!starts(s, len, levels[k]) || len <= n)
			continue;
		if (s[n] == ' ' && len > n + 2 && isdigit((unsigned char)s[n + 1]) &&
		    (br = memmem(s, len < 80 ? len : 80, "] ", 2)))
			return (size_t)(br - s) + 2;
		if (s[n] == ':') {
			const char *c2 = memchr(s + n + 1, ':', len - n - 1);

			if (c2 && c2 - s < 60 && !memchr(s + n + 1, ' ', (size_t)(c2 - s - n - 1)))
				return (size_t)(c2 - s) + 1;
		}
	}
	return 0;
}

size_t
ingest_trim(const char *line, size_t *len)
{
	size_t off = 0, n = *len;
	bool again = true;

	while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	/* Decorations nest ("Step #1": "(Worker pid=3) ERROR ..."), so peel until none applies. */
	for (int rounds = 0; again && rounds < 6; rounds++) {
		const char *s = line + off;
		size_t rest = n - off, k;

		again = false;
		/* every decoration starts with one of these: most lines leave at once */
		if (!rest || !(isdigit((unsigned char)s[0]) || strchr("E([SIWFDC", s[0])))
			break;
		if (rest >= 3 && s[0] == 'E' && s[1] == ' ') {
			k = 1;
			while (k < rest && s[k] == ' ')
				k++;
			if (k >= 3) {
				off += k;
				again = true;
				continue;
			}
		}
		if ((k = skip_ray_prefix(s, rest)) || (k = skip_rank_prefix(s, rest)) ||
		    (k = skip_step_prefix(s, rest)) || (k = skip_glog_prefix(s, rest)) ||
		    (k = skip_timestamp(s, rest)) || (k = skip_level_prefix(s, rest))) {
			off += k;
			again = true;
		}
	}
	*len = n - off;
	return off;
}

/* Do the n bytes at p equal m? A loop, not memcmp: most tests fail at once. */
static inline bool
same(const char *p, const char *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != m[i])
			return false;
	return true;
}

/* Does [p, end) start with the string literal m? */
#define AT(p, end, m) ((size_t)((end) - (p)) >= sizeof(m) - 1 && same((p), (m), sizeof(m) - 1))

/*
 * One pass over the path, looking only at its slashes: every marker but
 * "<frozen" begins or ends with one. The byte after a slash picks the
 * markers that begin there, and those that end at it end in "s/". A frame
 * line is the commonest candidate line of a traceback-heavy log, and a
 * memmem per marker was a tenth of such a log's time.
 */
bool
ingest_is_library_path(const char *path, size_t len)
{
	const char *end = path + len;

	if (len == 0 || path[0] == '<')
		return true;
	for (const char *p = path; p < end; p++) {
		if (*p == '<' && AT(p, end, "<frozen"))
			return true;
		if (*p != '/')
			continue;
		if (p > path && p[-1] == 's') {
			size_t before = (size_t)(p + 1 - path);

			if ((before >= 14 && (same(p - 8, "packages", 8) &&
					      (same(p - 13, "site-", 5) || same(p - 13, "dist-", 5)))) ||
			    (before >= 9 && same(p - 8, "runfiles", 8)))
				return true;
		}
		switch (p + 1 < end ? p[1] : 0) {
		case 'j':
			if (AT(p, end, "/jax/_src/") || AT(p, end, "/jaxlib/"))
				return true;
			break;
		case 'l':
			if (AT(p, end, "/lib/python"))
				return true;
			break;
		case 't':
			if (AT(p, end, "/torch_xla/"))
				return true;
			break;
		case 'a':
			if (AT(p, end, "/absl/"))
				return true;
			break;
		case '_':
			if (AT(p, end, "/_pytest/"))
				return true;
			break;
		case 'p':
			if (AT(p, end, "/pluggy/"))
				return true;
			break;
		case 'u':
			if (AT(p, end, "/unittest/"))
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

bool
ingest_parse_py_frame(const char *line, size_t len, struct frame *f)
{
	const char *s = line, *end = line + len, *q, *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (!starts(s, (size_t)(end - s), "File \""))
		return false;
	s += 6;
	if (!(q = memchr(s, '"', (size_t)(end - s))))
		return false;
	f->file = s;
	f->file_len = (size_t)(q - s);
	p = q + 1;
	if (!starts(p, (size_t)(end - p), ", line "))
		return false;
	p += 7;
	f->line = 0;
	while (p < end && isdigit((unsigned char)*p) && f->line < 100000000)
		f->line = f->line * 10 + (*p++ - '0');
	f->col = 0;
	f->func = NULL;
	f->func_len = 0;
	if (starts(p, (size_t)(end - p), ", in ")) {
		f->func = p + 5;
		f->func_len = (size_t)(end - f->func);
	}
	return f->line > 0;
}

/* One `"file":L:C` at p (p points at the opening quote). */
static bool
parse_file_line_col(const char *p, const char *end, struct frame *f)
{
	const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
	const char *s;

	if (!q || q + 2 >= end || q[1] != ':' || !isdigit((unsigned char)q[2]))
		return false;
	f->file = p + 1;
	f->file_len = (size_t)(q - p - 1);
	s = q + 2;
	f->line = 0;
	while (s < end && isdigit((unsigned char)*s) && f->line < 100000000)
		f->line = f->line * 10 + (*s++ - '0');
	f->col = 0;
	if (s < end && *s == ':')
		for (s++; s < end && isdigit((unsigned char)*s) && f->col < 100000; s++)
			f->col = f->col * 10 + (*s - '0');
	return true;
}

bool
ingest_parse_loc(const char *line, size_t len, struct frame *f)
{
	const char *end = line + len, *p = memmem(line, len, "loc(", 4);

	if (!p)
		return false;
	/* Each frame looks like "fn"("file":L:C); walk the quotes. */
	for (p = memchr(p, '"', (size_t)(end - p)); p && p < end;
	     p = memchr(p + 1, '"', (size_t)(end - p - 1))) {
		struct frame fr;
		const char *fn_end;

		if (!parse_file_line_col(p, end, &fr))
			continue;
		if (ingest_is_library_path(fr.file, fr.file_len))
			continue;
		fr.func = NULL;
		fr.func_len = 0;
		/* the function name precedes as "fn"( */
		if (p - line >= 4 && p[-1] == '(' && p[-2] == '"') {
			fn_end = p - 2;
			for (const char *b = fn_end - 1; b >= line; b--)
				if (*b == '"') {
					fr.func = b + 1;
					fr.func_len = (size_t)(fn_end - b - 1);
					break;
				}
		}
		*f = fr;
		return true;
	}
	return false;
}

bool
ingest_is_join_boundary(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	line += i;
	len -= i;
	return len == 0 || starts(line, len, "Traceback") || starts(line, len, "During handling") ||
	       starts(line, len, "The above exception") || starts(line, len, "File \"");
}
