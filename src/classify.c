/* SPDX-License-Identifier: MIT */
/*
 * The classifier engine; see pt/classify.h and docs/architecture.md.
 *
 * Bytes arrive in blocks. A multi-literal prefilter (litset) finds candidate
 * lines; only there do the PCRE2 patterns whose literal occurs in the line
 * run, and each pattern runs only until its first hit (the first hit is the
 * evidence; later ones add nothing). At the end the fired rules are scored
 * per class and the verdict is built.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt/buf.h"
#include "pt/classify.h"
#include "pt/decode.h"
#include "pt/ingest.h"
#include "pt/litset.h"
#include "pt/match.h"
#include "pt/scout.h"
#include "pt/xalloc.h"

#define READ_CHUNK (128u * 1024)      /* page cache reads fall off a cliff above 128 KiB */
/* Kept: the previous line (<= MAX), the held line and the partial one (each
 * <= MAX + READ_CHUNK before it is cut), plus room for a read. */
#define WIN_SIZE (4 * CLASSIFY_MAX_LINE + 2 * READ_CHUNK)
#define MIN_READ (CLASSIFY_MAX_LINE)
/* A rebuild costs about a millisecond; this many wasted lines cost more. */
#define REBUILD_AFTER_WASTED 4096

/* Literal ids past the patterns' ids, for the lines the engine reads itself. */
enum { AUX_PY_FRAME, AUX_LOC, AUX_TRACEBACK, AUX_ERROR, AUX_EXCEPTION, AUX_COUNT };
static const char *const aux_literals[AUX_COUNT] = {
	"File \"", "loc(", "Traceback (most recent call last)", "Error: ", "Exception: ",
};

struct snap_frame {
	char *file, *func;
	long line, col;
};

struct pat_state {
	bool hit;
	size_t line;
	char *text;                 /* first hit line, capped at EVIDENCE_MAX_TEXT */
	size_t mstart, mend;
	struct snap_frame where;    /* the last user frame seen before the hit */
};

struct classifier {
	const struct ruleset *rs;
	struct litset *ls;          /* our own prefilter, or NULL while we use a shared one */
	const struct litset *pf;    /* the prefilter in use: ls, or the shared one */
	size_t npat;                /* pattern ids are 0..npat-1; aux ids follow */
	size_t *always;             /* patterns with no usable literal: tried on every line */
	size_t nalways;
	unsigned char *hits;        /* bitmap over npat + AUX_COUNT ids */
	size_t hits_len;
	size_t *ids;                /* scratch: the ids set in hits */
	struct pat_state *ps;
	struct vars *rcaps;         /* per rule: captures of its first hits */
	struct vars env;            /* facts */

	char *win;                  /* the window: [done lines][held line][partial][free] */
	size_t win_len;
	size_t proc;                /* offset of the first unprocessed byte */
	size_t noprev_at;           /* the line starting here follows a cut line: no
	                             * previous neighbour (SIZE_MAX: none) */
	size_t lineno;              /* lines before proc */
	bool skipping;              /* inside an over-long line: drop bytes to the next newline */
	bool built;                 /* litset built (from the first block, to pick rare windows) */
	size_t wasted;              /* candidate lines since the last build that ran nothing */
	size_t ansi_tail;           /* bytes at the window's end: an escape sequence cut by a read */

	struct buf join;
	struct snap_frame last_frame, loc_frame;
	size_t *waiting;            /* hit patterns whose traceback comes after them */
	size_t nwaiting;
	char *last_error;
	size_t last_error_line;
	size_t nlines, long_lines, match_errors;
	unsigned long long nbytes;

	size_t nhit, built_nhit;    /* patterns hit, now and at the last build */
	/* The scout (pt/scout.h), on big regular files. Window offset w holds
	 * the file's byte w + map_delta (from base) for w >= map_from, a line
	 * start in both; map_from is SIZE_MAX while no such stretch exists. */
	struct scout *scout;
	int scout_fd;               /* -1: no scout wanted */
	off_t scout_base;
	uint64_t scout_size;
	size_t map_from;
	uint64_t map_delta;
};

static void
snap_release(struct snap_frame *f)
{
	free(f->file);
	free(f->func);
	memset(f, 0, sizeof(*f));
}

static void
snap_set(struct snap_frame *f, const struct frame *src)
{
	snap_release(f);
	f->file = xstrndup(src->file, src->file_len);
	f->func = src->func ? xstrndup(src->func, src->func_len) : NULL;
	f->line = src->line;
	f->col = src->col;
}

static void
snap_copy(struct snap_frame *dst, const struct snap_frame *src)
{
	snap_release(dst);
	dst->file = src->file ? xstrdup(src->file) : NULL;
	dst->func = src->func ? xstrdup(src->func) : NULL;
	dst->line = src->line;
	dst->col = src->col;
}

/*
 * Index pattern p's literals in ls (NULL: only find out). Literals shorter
 * than the prefilter's window, or none, leave only the rule's declared
 * literals; returns false when there are none either: the pattern must run
 * on every line.
 */
static bool
add_pattern_literals(struct litset *ls, const struct pattern *p)
{
	bool usable = p->lits && p->lits[0];
	char **lits;

	for (char **l = p->lits; usable && *l; l++)
		if (strlen(*l) < RULE_MIN_LITERAL)
			usable = false;
	lits = usable ? p->lits : p->rule ? p->rule->literals : NULL;
	if (!lits)
		return false;
	for (char **l = lits; ls && *l; l++)
		litset_add(ls, *l, strlen(*l), (unsigned)p->index);
	return true;
}

/*
 * A prefilter (not built) of rs's patterns, those not hit yet when ps is
 * given, plus the engine's own literals, whose ids follow the patterns'.
 */
static struct litset *
prefilter_of(const struct ruleset *rs, const struct pat_state *ps)
{
	struct litset *ls = litset_new();

	for (size_t i = 0; i < rs->npatterns; i++)
		if (!ps || !ps[i].hit)
			add_pattern_literals(ls, rs->patterns[i]);
	for (size_t i = 0; i < AUX_COUNT; i++)
		litset_add(ls, aux_literals[i], strlen(aux_literals[i]),
			   (unsigned)(rs->npatterns + i));
	return ls;
}

/* shared: a built prefilter of every pattern to use until a rebuild, or NULL. */
static struct classifier *
classifier_create(const struct ruleset *rs, const struct litset *shared)
{
	struct classifier *c = xcalloc(1, sizeof(*c));

	c->rs = rs;
	c->npat = rs->npatterns;
	c->ls = shared ? NULL : prefilter_of(rs, NULL);
	c->pf = shared ? shared : c->ls;
	c->always = xcalloc(c->npat + 1, sizeof(*c->always));
	for (size_t i = 0; i < c->npat; i++)
		if (!add_pattern_literals(NULL, rs->patterns[i]))
			c->always[c->nalways++] = rs->patterns[i]->index;
	c->built = shared != NULL;
	/* whole 64-bit words, so that process_line() reads it a word at a time */
	c->hits_len = (c->npat + AUX_COUNT + 63) / 64 * 8;
	c->hits = xcalloc(c->hits_len, 1);
	c->ids = xcalloc(c->npat + AUX_COUNT, sizeof(*c->ids));
	c->waiting = xcalloc(c->npat + 1, sizeof(*c->waiting));
	c->ps = xcalloc(c->npat + 1, sizeof(*c->ps));
	c->rcaps = xcalloc(rs->nrules + 1, sizeof(*c->rcaps));
	c->win = xmalloc(WIN_SIZE);
	c->noprev_at = SIZE_MAX;
	c->scout_fd = -1;
	c->map_from = SIZE_MAX;
	return c;
}

struct classifier *
classifier_new(const struct ruleset *rs)
{
	return classifier_create(rs, NULL);
}

struct litset *
classify_prefilter_new(const struct ruleset *rs)
{
	struct litset *ls = prefilter_of(rs, NULL);

	litset_build(ls, NULL, 0);
	return ls;
}

void
classifier_free(struct classifier *c)
{
	if (!c)
		return;
	scout_stop(c->scout);
	litset_free(c->ls);
	free(c->always);
	free(c->hits);
	free(c->ids);
	free(c->waiting);
	for (size_t i = 0; i < c->npat; i++) {
		free(c->ps[i].text);
		snap_release(&c->ps[i].where);
	}
	free(c->ps);
	for (size_t i = 0; i < c->rs->nrules; i++)
		vars_release(&c->rcaps[i]);
	free(c->rcaps);
	vars_release(&c->env);
	free(c->win);
	buf_release(&c->join);
	snap_release(&c->last_frame);
	snap_release(&c->loc_frame);
	free(c->last_error);
	free(c);
}

/*
 * A copy of s[0..len) as a C string: each NUL becomes U+FFFD, so the text
 * after it is not lost, and the offsets *ms, *me move with it.
 */
static char *
dup_visible(const char *s, size_t len, size_t *ms, size_t *me)
{
	size_t nuls = 0, ms0 = *ms, me0 = *me;
	char *out, *o;

	for (size_t i = 0; i < len; i++)
		nuls += s[i] == '\0';
	if (nuls == 0)
		return xstrndup(s, len);
	o = out = xmalloc(len + 2 * nuls + 1);
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '\0') {
			*o++ = s[i];
			continue;
		}
		memcpy(o, "\xef\xbf\xbd", 3);
		o += 3;
		*ms += i < ms0 ? 2 : 0;
		*me += i < me0 ? 2 : 0;
	}
	*o = '\0';
	return out;
}

static void
record_hit(struct classifier *c, const struct pattern *p, const char *subj, size_t len,
	   size_t lineno, size_t ms, size_t me)
{
	struct pat_state *st = &c->ps[p->index];
	size_t keep = len < EVIDENCE_MAX_TEXT ? len : EVIDENCE_MAX_TEXT;
	size_t nnames = match_name_count(p->m);	/* compiled: it just matched */

	st->hit = true;
	c->nhit++;
	st->line = lineno;
	st->mstart = ms < keep ? ms : keep;
	st->mend = me < keep ? me : keep;
	st->text = dup_visible(subj, keep, &st->mstart, &st->mend);
	snap_copy(&st->where, &c->last_frame);
	if (!st->where.file)
		c->waiting[c->nwaiting++] = p->index;
	for (size_t i = 0; i < nnames; i++) {
		const char *name = match_name(p->m, i);
		size_t gs, ge;

		if (!match_group(p->m, i, &gs, &ge))
			continue;
		if (p->rule)
			vars_setn(&c->rcaps[p->rule->index], name, subj + gs, ge - gs, false);
		else if (strcmp(name, "value") == 0)
			for (size_t f = 0; f < c->rs->nfacts; f++)
				if (c->rs->facts[f].pat == p)
					vars_setn(&c->env, c->rs->facts[f].sets, subj + gs, ge - gs, false);
	}
}

/* Try one pattern on a subject; returns true when it matched (and was recorded). */
static bool
try_pattern(struct classifier *c, struct pattern *p, const char *subj, size_t len,
	    size_t lineno)
{
	struct match *m = pattern_compiled(p);
	size_t ms = 0, me = 0;

	if (!m) {
		c->match_errors++;
		return false;
	}
	switch (match_exec(m, subj, len, &ms, &me)) {
	case MATCH_YES:
		record_hit(c, p, subj, len, lineno, ms, me);
		return true;
	case MATCH_LIMIT:
		c->match_errors++;
		return false;
	case MATCH_NO:
		break;
	}
	return false;
}

struct line_ctx {
	const char *s;              /* the trimmed line */
	size_t n;
	size_t lineno;
	const char *prev, *next;    /* neighbours (trimmed), NULL when none */
	size_t prevn, nextn;
	size_t start, end, limit;   /* raw line in the window, for the neighbours */
	bool have_neighbours;       /* prev/next are computed on first need */
};

static void set_neighbours(struct classifier *c, struct line_ctx *l, size_t start, size_t end,
			   size_t limit);

/* A hard-wrapped message: retry on the line joined with a neighbour. */
static void
try_joined(struct classifier *c, struct pattern *p, struct line_ctx *l)
{
	if (!l->have_neighbours) {
		set_neighbours(c, l, l->start, l->end, l->limit);
		l->have_neighbours = true;
	}
	if (l->prev && ingest_is_continuation(l->prev, l->prevn, l->s, l->n)) {
		buf_reset(&c->join);
		buf_add(&c->join, l->prev, l->prevn);
		buf_addch(&c->join, ' ');
		buf_add(&c->join, l->s, l->n);
		if (try_pattern(c, p, c->join.data, c->join.len, l->lineno - 1))
			return;
	}
	if (l->next && ingest_is_continuation(l->s, l->n, l->next, l->nextn)) {
		buf_reset(&c->join);
		buf_add(&c->join, l->s, l->n);
		buf_addch(&c->join, ' ');
		buf_add(&c->join, l->next, l->nextn);
		try_pattern(c, p, c->join.data, c->join.len, l->lineno);
	}
}

/* Returns false when the pattern had already hit and was not run. */
static bool
run_pattern(struct classifier *c, size_t id, struct line_ctx *l)
{
	struct pattern *p = c->rs->patterns[id];

	if (c->ps[id].hit)
		return false;
	if (!try_pattern(c, p, l->s, l->n, l->lineno))
		try_joined(c, p, l);
	return true;
}

static void
run_aux(struct classifier *c, size_t aux, const struct line_ctx *l)
{
	struct frame f;

	switch (aux) {
	case AUX_PY_FRAME:
		if (!ingest_parse_py_frame(l->s, l->n, &f) || ingest_is_library_path(f.file, f.file_len))
			break;
		snap_set(&c->last_frame, &f);
		/* An error printed before its traceback (JaxStackTraceBeforeTransformation)
		 * takes the deepest user frame of the traceback that follows it. */
		for (size_t i = 0; i < c->nwaiting; i++)
			snap_set(&c->ps[c->waiting[i]].where, &f);
		break;
	case AUX_TRACEBACK:
		snap_release(&c->last_frame);
		for (size_t i = 0; i < c->nwaiting;)
			if (c->ps[c->waiting[i]].where.file)
				c->waiting[i] = c->waiting[--c->nwaiting];
			else
				i++;
		break;
	case AUX_LOC:
		if (!c->loc_frame.file && ingest_parse_loc(l->s, l->n, &f))
			snap_set(&c->loc_frame, &f);
		break;
	default:
		free(c->last_error);
		c->last_error = xstrndup(l->s, l->n < EVIDENCE_MAX_TEXT ? l->n : EVIDENCE_MAX_TEXT);
		c->last_error_line = l->lineno;
		break;
	}
}

/*
 * A pattern stops running after its first hit, but its literal keeps making
 * lines candidates: a tie pattern such as `kernel|pallas` would send every
 * such line of a big log through the candidate path for nothing. After
 * enough wasted candidates, index only the literals still needed (when some
 * pattern was hit since the last build: otherwise the set would be the
 * same). The scout gets a copy.
 */
static void
rebuild_prefilter(struct classifier *c)
{
	c->wasted = 0;
	if (c->nhit == c->built_nhit)
		return;
	litset_free(c->ls);
	c->ls = prefilter_of(c->rs, c->ps);
	litset_build(c->ls, c->win, c->win_len);
	c->pf = c->ls;
	c->built_nhit = c->nhit;
	if (c->scout) {
		struct litset *twin = prefilter_of(c->rs, c->ps);

		litset_build(twin, c->win, c->win_len);
		scout_update(c->scout, twin);
	}
}

/* One candidate line (raw bytes, without its newline). */
static void
process_line(struct classifier *c, struct line_ctx *l, const char *raw, size_t rawlen)
{
	size_t nids = 0;
	bool useful = false;

	memset(c->hits, 0, c->hits_len);
	litset_line_hits(c->pf, raw, rawlen, c->hits);
	for (size_t w = 0; w < c->hits_len; w += 8) {
		uint64_t bits;

		memcpy(&bits, c->hits + w, sizeof(bits));
		for (; bits; bits &= bits - 1)
			c->ids[nids++] = w * 8 + (size_t)__builtin_ctzll(bits);
	}
	/* Patterns first, so an evidence line is tied to the frame seen before it. */
	for (size_t i = 0; i < nids; i++)
		if (c->ids[i] < c->npat)
			useful |= run_pattern(c, c->ids[i], l);
	for (size_t i = 0; i < c->nalways; i++)
		run_pattern(c, c->always[i], l);
	for (size_t i = 0; i < nids; i++)
		if (c->ids[i] >= c->npat) {
			run_aux(c, c->ids[i] - c->npat, l);
			useful = true;
		}
	if (!useful && ++c->wasted >= REBUILD_AFTER_WASTED)
		rebuild_prefilter(c);
}

/*
 * Count newlines 16 bytes at a time: line numbers are needed only at
 * candidate lines, but every byte between them must be counted. Per-byte
 * counters (GCC vector extension: SSE2 on x86-64, NEON on arm64) are summed
 * every 255 vectors, before they can wrap.
 */
typedef unsigned char nl_vec __attribute__((vector_size(16)));

static size_t
count_newlines(const char *p, size_t n)
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

/* Neighbour lines for joins: trimmed, or NULL. */
static void
set_neighbours(struct classifier *c, struct line_ctx *l, size_t start, size_t end, size_t limit)
{
	l->prev = l->next = NULL;
	l->prevn = l->nextn = 0;
	if (start > 0 && start != c->noprev_at) {
		const char *nl = rfind_nl(c->win, start - 1);
		size_t ps = nl ? (size_t)(nl - c->win) + 1 : 0;
		size_t n = start - 1 - ps;

		if (start - 1 - ps <= CLASSIFY_MAX_LINE) {
			size_t off = ingest_trim(c->win + ps, &n);

			l->prev = c->win + ps + off;
			l->prevn = n;
		}
	}
	if (end < limit) {
		const char *nl = find_nl(c->win + end + 1, limit - end - 1);

		if (nl) {
			size_t n = (size_t)(nl - (c->win + end + 1));
			size_t off = ingest_trim(c->win + end + 1, &n);

			l->next = c->win + end + 1 + off;
			l->nextn = n;
		}
	}
}

static void
handle_line(struct classifier *c, size_t start, size_t end, size_t limit)
{
	struct line_ctx l;
	size_t n = end - start;
	size_t off = ingest_trim(c->win + start, &n);

	l.s = c->win + start + off;
	l.n = n;
	l.lineno = c->lineno;
	l.start = start;
	l.end = end;
	l.limit = limit;
	l.have_neighbours = false;
	process_line(c, &l, c->win + start, end - start);
}

/*
 * The first literal occurrence in [pos, region_end), pos a line start, or
 * region_end: asked of the scout where the window holds the file's bytes
 * unchanged. The scout's literals may be a superset of ours (it adopts a
 * rebuilt set a block late): an extra candidate line only finds no hits.
 */
static size_t
next_hit(struct classifier *c, size_t pos, size_t region_end)
{
	uint64_t f, fend;

	if (c->nalways)
		return pos;
	if (!c->scout || pos < c->map_from)
		return litset_find(c->pf, c->win, region_end, pos, NULL);
	f = pos + c->map_delta;
	fend = region_end + c->map_delta;
	while (f < fend) {
		uint64_t at, covered;
		size_t w;

		switch (scout_ask(c->scout, f, fend, &at, &covered)) {
		case SCOUT_FOUND:
			return (size_t)(at - c->map_delta);
		case SCOUT_YOURS:
			w = litset_find_range(c->pf, c->win, region_end, (size_t)(f - c->map_delta),
					      (size_t)(covered - c->map_delta), NULL);
			if (w < region_end)
				return w;
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
next_long_line(const char *win, size_t pos, size_t end)
{
	while (end - pos > CLASSIFY_MAX_LINE) {
		const char *nl = memrchr(win + pos, '\n', CLASSIFY_MAX_LINE);

		if (!nl)
			return pos;
		pos = (size_t)(nl - win) + 1;
	}
	return end;
}

/* Candidate lines in [pos, region_end), none of them over-long. */
static void
scan_lines(struct classifier *c, size_t pos, size_t region_end, size_t limit)
{
	while (pos < region_end) {
		size_t h, ls, le;
		const char *nl;

		h = next_hit(c, pos, region_end);
		if (h >= region_end) {
			c->lineno += count_newlines(c->win + pos, region_end - pos);
			break;
		}
		nl = rfind_nl(c->win + pos, h - pos);
		ls = nl ? (size_t)(nl - c->win) + 1 : pos;
		le = (size_t)(find_nl(c->win + h, region_end - h) - c->win);
		c->lineno += count_newlines(c->win + pos, ls - pos) + 1;
		handle_line(c, ls, le, limit);
		pos = le + 1;
	}
}

/*
 * Process the complete lines in [c->proc, region_end); region_end is just
 * after a newline. `limit` is where the window's known bytes end (the held
 * line after the region is visible to joins). A line of CLASSIFY_MAX_LINE
 * bytes or more is matched on its first CLASSIFY_MAX_LINE bytes, alone, as
 * when it is too long to wait for (cut_long_line()): whether a long line
 * came whole in one read must not change what is matched.
 */
static void
scan_region(struct classifier *c, size_t region_end, size_t limit)
{
	size_t pos = c->proc;

	while (pos < region_end) {
		size_t at = next_long_line(c->win, pos, region_end), end;
		char saved;

		scan_lines(c, pos, at, limit);
		if (at == region_end)
			break;
		end = at + CLASSIFY_MAX_LINE;
		saved = c->win[end];
		c->long_lines++;
		c->lineno++;
		c->win[end] = '\n';
		handle_line(c, at, end, end);
		c->win[end] = saved;
		pos = (size_t)(find_nl(c->win + at, region_end - at) - c->win) + 1;
		c->noprev_at = pos;
	}
	c->proc = region_end;
}

/* Keep the last processed line (for joins) and everything unprocessed. */
static void
compact(struct classifier *c)
{
	size_t keep = c->proc;
	const char *nl;

	if (c->proc > 0) {
		nl = rfind_nl(c->win, c->proc - 1);
		keep = nl ? (size_t)(nl - c->win) + 1 : 0;
		if (c->proc - keep > CLASSIFY_MAX_LINE)
			keep = c->proc;
	}
	if (keep == 0)
		return;
	memmove(c->win, c->win + keep, c->win_len - keep);
	c->win_len -= keep;
	c->proc -= keep;
	c->noprev_at = c->noprev_at != SIZE_MAX && c->noprev_at >= keep ? c->noprev_at - keep : SIZE_MAX;
	/* keep is a line start: if it is past map_from, so is the newline before it. */
	if (c->map_from != SIZE_MAX) {
		c->map_from = c->map_from > keep ? c->map_from - keep : 0;
		c->map_delta += keep;
	}
}

/* An over-long line: match its first CLASSIFY_MAX_LINE bytes, drop the rest. */
static void
cut_long_line(struct classifier *c)
{
	size_t start = c->proc, end = start + CLASSIFY_MAX_LINE;
	char saved = c->win[end];

	c->long_lines++;
	c->lineno++;
	c->win[end] = '\n';
	handle_line(c, start, end, end);
	c->win[end] = saved;
	c->win_len = start;
	c->proc = start;
	c->noprev_at = start;
	c->skipping = true;
}

/* In an over-long line: drop bytes up to its newline. False while none came yet. */
static bool
skip_long_tail(struct classifier *c)
{
	size_t unproc = c->win_len - c->proc;
	const char *nl = find_nl(c->win + c->proc, unproc);

	if (!nl) {
		c->win_len = c->proc;
		return false;
	}
	memmove(c->win + c->proc, nl + 1, (size_t)(c->win + c->win_len - nl - 1));
	c->win_len -= (size_t)(nl + 1 - (c->win + c->proc));
	c->skipping = false;
	c->map_from = SIZE_MAX;     /* bytes left out: no longer the file's */
	return true;
}

/*
 * Process what the window holds. The last complete line is held back so
 * that a candidate line always sees its successor, whatever the read sizes
 * were: the verdict must not depend on how a pipe chunked the log.
 */
static void
advance(struct classifier *c, bool final)
{
	const char *last, *before;
	size_t partial;

	if (c->skipping && !skip_long_tail(c))
		return;
	last = rfind_nl(c->win + c->proc, c->win_len - c->proc);
	if (!last) {
		if (!final && c->win_len - c->proc >= CLASSIFY_MAX_LINE)
			cut_long_line(c);
		return;
	}
	partial = (size_t)(c->win + c->win_len - last - 1);
	if (final || partial >= CLASSIFY_MAX_LINE) {
		scan_region(c, (size_t)(last - c->win) + 1, c->win_len);
		if (!final)
			cut_long_line(c);
		return;
	}
	before = rfind_nl(c->win + c->proc, (size_t)(last - (c->win + c->proc)));
	if (before)
		scan_region(c, (size_t)(before - c->win) + 1, c->win_len);
}

/* Room for the next read, at least READ_CHUNK bytes. */
static char *
window_space(struct classifier *c, size_t *space)
{
	compact(c);
	if (WIN_SIZE - c->win_len < MIN_READ) {
		/* Cannot happen with the size invariants (docs/architecture.md); if it
		 * ever does, give up the lookahead rather than the bytes. */
		const char *last = rfind_nl(c->win + c->proc, c->win_len - c->proc);

		if (last)
			scan_region(c, (size_t)(last - c->win) + 1, c->win_len);
		compact(c);
	}
	*space = WIN_SIZE - c->win_len - 1;
	if (*space > READ_CHUNK)
		*space = READ_CHUNK;
	return c->win + c->win_len;
}

/*
 * The read of n bytes at window offset w, file offset f, came in unchanged
 * (or not): keep, extend, start or drop the window-to-file map. A new map
 * starts after the read's first newline, so that its first byte is a line
 * start in the file too.
 */
static void
map_read(struct classifier *c, size_t w, uint64_t f, size_t n, bool unchanged)
{
	const char *nl;

	if (!unchanged) {
		c->map_from = SIZE_MAX;
		return;
	}
	if (c->map_from != SIZE_MAX && w + c->map_delta == f)
		return;
	nl = find_nl(c->win + w, n);
	c->map_from = nl ? (size_t)(nl - c->win) + 1 : SIZE_MAX;
	c->map_delta = f - w;
}

/* The scout gets its own copy of the prefilter: sets are not shared. */
static void
start_scout(struct classifier *c)
{
	struct litset *twin;

	if (c->nalways || litset_has_byte(c->pf, '\n'))
		return;
	twin = prefilter_of(c->rs, c->ps);
	litset_build(twin, c->win, c->win_len);
	c->scout = scout_start(c->scout_fd, c->scout_base, c->scout_size, twin);
}

static void
window_commit(struct classifier *c, size_t n)
{
	/* An escape sequence cut by the previous read is stripped again with its rest. */
	char *p = c->win + c->win_len - c->ansi_tail;
	size_t len = n + c->ansi_tail, w = c->win_len;
	bool unchanged = c->ansi_tail == 0;

	c->win_len -= c->ansi_tail;
	c->ansi_tail = 0;
	if (memchr(p, 0x1b, len)) {
		len = ingest_strip_ansi(p, len, &c->ansi_tail);
		unchanged = false;
	}
	c->win_len += len;
	if (c->scout_fd >= 0)
		map_read(c, w, c->nbytes, n, unchanged);
	c->nbytes += n;
	if (!c->built) {
		litset_build(c->ls, c->win, c->win_len);
		c->built = true;
		c->built_nhit = c->nhit;
		if (c->scout_fd >= 0)
			start_scout(c);
	}
	advance(c, false);
}

void
classifier_feed(struct classifier *c, const char *data, size_t len)
{
	while (len) {
		size_t space, n;
		char *dst = window_space(c, &space);

		n = len < space ? len : space;
		memcpy(dst, data, n);
		window_commit(c, n);
		data += n;
		len -= n;
	}
}

/*
 * A scout pays on big regular files with a second core free. Below this
 * size the thread costs more than it saves.
 */
#define SCOUT_MIN_BYTES ((uint64_t)32 << 20)

static void
want_scout(struct classifier *c, int fd, unsigned threads)
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
	c->scout_fd = fd;
	c->scout_base = here;
	c->scout_size = (uint64_t)(st.st_size - here);
}

int
classify_fd(const struct ruleset *rs, int fd, const char *name, const struct classify_opts *o,
	    struct verdict *v, struct pt_err *err)
{
	struct classifier *c = classifier_create(rs, o ? o->prefilter : NULL);
	struct decode_reader dr = DECODE_READER_INIT;

	want_scout(c, fd, o ? o->threads : 0);
	for (;;) {
		size_t space;
		char *dst = window_space(c, &space);
		ssize_t n = decode_read(&dr, fd, dst, space);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			pt_err_errno(err, PT_EXIT_DATA, "cannot read '%s'", name);
			classifier_free(c);
			decode_reader_release(&dr);
			return -1;
		}
		if (n == 0)
			break;
		if (decode_reader_transcodes(&dr))
			c->scout_fd = -1;   /* it reads the file's own bytes */
		window_commit(c, (size_t)n);
	}
	classifier_finish(c, v);
	classifier_free(c);
	decode_reader_release(&dr);
	return 0;
}

void
classify_text(const struct ruleset *rs, const char *buf, size_t len, struct verdict *v)
{
	struct classifier *c = classifier_new(rs);

	classifier_feed(c, buf, len);
	classifier_finish(c, v);
	classifier_free(c);
}

static bool
rule_fired(const struct classifier *c, const struct rule *r)
{
	bool any = r->nany == 0;

	for (size_t i = 0; i < r->npats; i++) {
		const struct pattern *p = r->pats[i];
		bool hit = c->ps[p->index].hit;

		if (p->role == PAT_ANY && hit)
			any = true;
		else if (p->role == PAT_ALL && !hit)
			return false;
		else if (p->role == PAT_NONE && hit)
			return false;
	}
	return any;
}

/* The rule's key line: its first `any` hit, else its first `all` hit. */
static const struct pat_state *
rule_key(const struct classifier *c, const struct rule *r)
{
	const struct pat_state *best = NULL;

	for (int pass = 0; pass < 2 && !best; pass++)
		for (size_t i = 0; i < r->npats; i++) {
			const struct pattern *p = r->pats[i];
			const struct pat_state *st = &c->ps[p->index];

			if (!st->hit || p->role != (pass == 0 ? PAT_ANY : PAT_ALL))
				continue;
			if (!best || st->line < best->line)
				best = st;
		}
	return best;
}

/* Strongest first; ties go to the earlier key line (the innermost cause
 * of a Python exception chain is printed first). */
static int
fired_cmp(const void *a, const void *b, void *ctx)
{
	const struct classifier *c = ctx;
	const struct rule *ra = *(const struct rule *const *)a, *rb = *(const struct rule *const *)b;
	const struct pat_state *ka = rule_key(c, ra), *kb = rule_key(c, rb);

	if (ra->weight != rb->weight)
		return rb->weight - ra->weight;
	if (ka && kb && ka->line != kb->line)
		return ka->line < kb->line ? -1 : 1;
	return strcmp(ra->id, rb->id);
}

static void
score_rules(struct classifier *c, struct verdict *v)
{
	const struct ruleset *rs = c->rs;

	v->fired = xcalloc(rs->nrules + 1, sizeof(*v->fired));
	for (size_t i = 0; i < rs->nrules; i++)
		if (rule_fired(c, rs->rules[i]))
			v->fired[v->nfired++] = rs->rules[i];
	qsort_r(v->fired, v->nfired, sizeof(*v->fired), fired_cmp, c);
	for (int k = 0; k < CLASS_COUNT; k++)
		v->scores[k].score = 0.0;
	for (size_t i = 0; i < v->nfired; i++) {
		const struct rule *r = v->fired[i];
		struct class_score *cs = &v->scores[r->cls];
		const struct pat_state *key = rule_key(c, r);
		double miss = 1.0 - cs->score;

		cs->score = 1.0 - miss * (1.0 - r->weight / 100.0);
		if (!cs->top_rule) {
			cs->top_rule = r;
			cs->top_weight = r->weight;
		}
		if (key && (!cs->first_line || key->line < cs->first_line))
			cs->first_line = key->line;
		cs->nrules++;
	}
}

static bool
class_beats(const struct class_score *a, const struct class_score *b)
{
	if (a->score != b->score)
		return a->score > b->score;
	if (a->top_weight != b->top_weight)
		return a->top_weight > b->top_weight;
	return a->first_line && (!b->first_line || a->first_line < b->first_line);
}

static void
pick_winner(struct verdict *v)
{
	enum pt_class best = CLASS_COUNT, second = CLASS_COUNT;
	double s1, s2;

	for (int k = 0; k < CLASS_COUNT; k++) {
		if (v->scores[k].nrules == 0)
			continue;
		if (best == CLASS_COUNT || class_beats(&v->scores[k], &v->scores[best])) {
			second = best;
			best = (enum pt_class)k;
		} else if (second == CLASS_COUNT || class_beats(&v->scores[k], &v->scores[second]))
			second = (enum pt_class)k;
	}
	v->cls = best == CLASS_COUNT ? CLASS_UNKNOWN : best;
	v->runner_up = second;
	v->top_rule = best == CLASS_COUNT ? NULL : v->scores[best].top_rule;
	s1 = best == CLASS_COUNT ? 0.0 : v->scores[best].score;
	s2 = second == CLASS_COUNT ? 0.0 : v->scores[second].score;
	/* A clear winner keeps its own score; a close runner-up halves it at worst. */
	v->confidence = s1 > 0 ? s1 * (1.0 - s2 / (2.0 * s1)) : 0.0;
	for (size_t i = 0; v->top_rule && i < v->nfired; i++)
		if (v->fired[i]->cls == v->cls && v->fired[i]->subkind) {
			v->subkind = v->fired[i]->subkind;
			break;
		}
}

static int
evidence_cmp(const void *a, const void *b)
{
	const struct evidence *ea = a, *eb = b;

	if (ea->line != eb->line)
		return ea->line < eb->line ? -1 : 1;
	return strcmp(ea->rule->id, eb->rule->id);
}

static void
collect_evidence(const struct classifier *c, struct verdict *v)
{
	size_t alloc = 0;

	for (size_t i = 0; i < v->nfired && v->nev < CLASSIFY_MAX_EVIDENCE; i++) {
		const struct rule *r = v->fired[i];
		size_t first = v->nev;

		for (size_t k = 0; k < r->npats && v->nev < CLASSIFY_MAX_EVIDENCE; k++) {
			const struct pattern *p = r->pats[k];
			const struct pat_state *st = &c->ps[p->index];
			struct evidence *e;
			bool seen = false;

			if (!st->hit || p->role == PAT_NONE)
				continue;
			/* two patterns of one rule on one line are one piece of evidence */
			for (size_t j = first; j < v->nev; j++)
				seen |= v->ev[j].line == st->line;
			if (seen)
				continue;
			XGROW(v->ev, alloc, v->nev + 1);
			e = &v->ev[v->nev++];
			e->line = st->line;
			e->text = xstrdup(st->text);
			e->mstart = st->mstart;
			e->mend = st->mend;
			e->rule = r;
			e->role = p->role;
		}
	}
	/* no evidence leaves v->ev NULL, and qsort(NULL, 0, ...) is undefined */
	if (v->nev)
		if (v->nev > 1)
		qsort(v->ev, v->nev, sizeof(*v->ev), evidence_cmp);
}

/* Captures: the deciding rule's first, then its class's, then the rest;
 * environment facts after that, and the calculators' values last. */
static void
collect_vars(const struct classifier *c, struct verdict *v)
{
	if (v->top_rule)
		vars_copy(&v->vars, &c->rcaps[v->top_rule->index], false);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < v->nfired; i++)
			if ((v->fired[i]->cls == v->cls) == (pass == 0))
				vars_copy(&v->vars, &c->rcaps[v->fired[i]->index], false);
	vars_copy(&v->vars, &c->env, false);
	advice_derive(c->rs, &v->vars);
	if (!vars_get(&v->vars, "chip") && vars_get(&v->vars, "chip_name"))
		vars_set(&v->vars, "chip", vars_get(&v->vars, "chip_name"), false);
}

static void
set_location(const struct classifier *c, struct verdict *v)
{
	const struct snap_frame *f = NULL;
	const char *how = NULL;
	const struct pat_state *key = v->top_rule ? rule_key(c, v->top_rule) : NULL;

	if (c->loc_frame.file) {
		f = &c->loc_frame;
		how = "loc";
	} else if (key && key->where.file) {
		f = &key->where;
		how = "traceback";
	} else if (c->last_frame.file) {
		f = &c->last_frame;
		how = "traceback";
	}
	if (!f)
		return;
	v->loc.file = xstrdup(f->file);
	v->loc.func = f->func ? xstrdup(f->func) : NULL;
	v->loc.line = f->line;
	v->loc.col = f->col;
	v->loc.how = how;
}

/* A path starts at "/x" or "~/" after a separator, not at " / " in "12 / 4096". */
static bool
starts_path(const char *text, const char *p)
{
	unsigned char next;

	if (!(p[0] == '/' || (p[0] == '~' && p[1] == '/')))
		return false;
	/* only now is p[2] known to be inside the string (a line may end in "~") */
	next = (unsigned char)p[p[0] == '~' ? 2 : 1];
	if (p > text && !strchr(" \t\"'(=:[", p[-1]))
		return false;
	return isalnum(next) || next == '.' || next == '_' || next == '-';
}

/*
 * The failure's identity, stable across machines: the key line with
 * numbers, hex addresses, quoted strings and paths masked, hashed with
 * FNV-1a together with the class.
 */
static void
set_fingerprint(struct verdict *v, const char *text)
{
	struct buf b = BUF_INIT;
	uint64_t h = 0xcbf29ce484222325ull;
	const char *p = text ? text : "";

	while (*p) {
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			for (p += 2; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F'); p++)
				;
			buf_adds(&b, "0x#");
		} else if (*p >= '0' && *p <= '9') {
			while ((*p >= '0' && *p <= '9') || *p == '.')
				p++;
			buf_addch(&b, '#');
		} else if (starts_path(text, p)) {
			while (*p && *p != ' ' && *p != '"' && *p != '\'' && *p != ',' && *p != ')' && *p != ':')
				p++;
			buf_adds(&b, "<path>");
		} else {
			buf_addch(&b, *p++);
		}
	}
	for (const char *q = class_name(v->cls); *q; q++)
		h = (h ^ (unsigned char)*q) * 0x100000001b3ull;
	for (size_t i = 0; i < b.len; i++)
		h = (h ^ (unsigned char)b.data[i]) * 0x100000001b3ull;
	v->fingerprint = xasprintf("%s-%016llx", class_name(v->cls), (unsigned long long)h);
	v->fingerprint_text = buf_detach(&b, NULL);
}

static void
set_reason(const struct classifier *c, struct verdict *v)
{
	struct buf b = BUF_INIT;

	if (v->cls != CLASS_UNKNOWN)
		return;
	if (v->top_rule) {
		vars_expand(&v->vars, v->top_rule->message, &b);
	} else if (c->last_error) {
		buf_addf(&b, "no Pallas kernel failure evidence in %zu lines; the last error line "
			 "(line %zu) matches no rule", v->nlines, c->last_error_line);
	} else {
		buf_addf(&b, "no Pallas kernel failure evidence and no error line in %zu lines", v->nlines);
	}
	v->reason = buf_detach(&b, NULL);
}

void
classifier_finish(struct classifier *c, struct verdict *v)
{
	const struct pat_state *key;

	memset(v, 0, sizeof(*v));
	if (!c->built) {
		litset_build(c->ls, NULL, 0);
		c->built = true;
	}
	if (c->win_len > c->proc && c->win[c->win_len - 1] != '\n' && !c->skipping)
		c->win[c->win_len++] = '\n';	/* window_space always leaves this byte */
	advance(c, true);
	v->nlines = c->lineno;
	v->nbytes = c->nbytes;
	v->long_lines = c->long_lines;
	v->threads = c->scout ? 2 : 1;
	v->match_errors = c->match_errors;
	v->runner_up = CLASS_COUNT;
	score_rules(c, v);
	pick_winner(v);
	collect_evidence(c, v);
	collect_vars(c, v);
	set_location(c, v);
	key = v->top_rule ? rule_key(c, v->top_rule) : NULL;
	if (key) {
		v->key_line = xstrdup(key->text);
		v->key_lineno = key->line;
	}
	if (v->top_rule) {
		struct buf b = BUF_INIT;

		vars_expand(&v->vars, v->top_rule->message, &b);
		v->message = buf_detach(&b, NULL);
	}
	set_reason(c, v);
	set_fingerprint(v, v->key_line ? v->key_line : c->last_error);
}

void
verdict_release(struct verdict *v)
{
	for (size_t i = 0; i < v->nev; i++)
		free(v->ev[i].text);
	free(v->ev);
	free(v->fired);
	free(v->reason);
	free(v->message);
	free(v->key_line);
	free(v->fingerprint);
	free(v->fingerprint_text);
	vars_release(&v->vars);
	free(v->loc.file);
	free(v->loc.func);
	memset(v, 0, sizeof(*v));
}

bool
classifier_fired(const struct classifier *c, const struct rule *r)
{
	return rule_fired(c, r);
}

const struct vars *
classifier_captures(const struct classifier *c, const struct rule *r)
{
	return &c->rcaps[r->index];
}

const struct vars *
classifier_env(const struct classifier *c)
{
	return &c->env;
}
