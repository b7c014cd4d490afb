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
#include "pt/engine.h"
#include "pt/ingest.h"
#include "pt/litset.h"
#include "pt/match.h"
#include "pt/scout.h"
#include "pt/xalloc.h"

#define READ_CHUNK (128u * 1024)      /* page cache reads fall off a cliff above 128 KiB */
/*
 * Hard-wrapped messages: a candidate line is joined with up to JOIN_LINES
 * lines before and after it, each of at most JOIN_MAX_LINE bytes (wrapped
 * text is short). The window keeps that many processed lines and holds back
 * that many complete ones, so the neighbours never depend on read sizes.
 */
#define JOIN_LINES 3
#define JOIN_MAX_LINE 1024u
/* Kept: JOIN_LINES previous lines (<= JOIN_MAX_LINE each), JOIN_LINES held
 * lines and the partial one (each <= MAX + READ_CHUNK before it is cut),
 * plus room for a read. */
#define WIN_SIZE (JOIN_LINES * JOIN_MAX_LINE + (JOIN_LINES + 1) * (CLASSIFY_MAX_LINE + READ_CHUNK) + \
		  2 * READ_CHUNK)
#define MIN_READ (CLASSIFY_MAX_LINE)
/* A rebuild costs about a millisecond; this many wasted lines cost more. */
#define REBUILD_AFTER_WASTED 4096

/* Literal ids past the patterns' ids, for the lines the engine reads itself. */
enum { AUX_PY_FRAME, AUX_LOC, AUX_TRACEBACK, AUX_ERROR, AUX_EXCEPTION, AUX_COUNT };
static const char *const aux_literals[AUX_COUNT] = {
	"File \"", "loc(", "Traceback (most recent call last)", "Error: ", "Exception: ",
};

struct join_piece {
	const char *s;              /* trimmed */
	size_t n;
};

/* A candidate line joined with wrapped neighbours (try_joined()). */
struct join {
	struct buf text;
	size_t starts[2 * JOIN_LINES + 1];  /* where each line starts in text */
	size_t npieces, own;        /* own: the candidate line's piece */
	size_t lineno;              /* the candidate line it was built for, or SIZE_MAX */
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

	struct join joins[2];         /* the candidate line's joins: forward, both ways */
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

	const char *assert_context, *assert_why;
	bool *ctx_held;             /* after finish: per ruleset context */
	double *ctx_score;
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
 * A hard wrap puts a newline where a literal had a space, so a literal with
 * spaces may be found on no line. Cut at spaces into pieces, a literal
 * survives one wrap fewer than it has pieces: each wrap breaks one piece at
 * most, a whole piece makes its line a candidate, and the joined neighbours
 * (try_joined()) complete the match. Each piece must be a phrase (two words
 * or more, WRAP_MIN_PIECE bytes): single words such as "memory" or "shape"
 * are on too many lines of a big log. Literals too short for two such
 * pieces get none; a wrap inside a short phrase is rare.
 */
#define WRAP_MIN_PIECE 8
#define WRAP_MAX_SPACES 64

/*
 * The shortest piece of lit[0..len) cut at its spaces sp[x] < sp[y] (y ==
 * k: two pieces), or 0 when a piece is not a phrase. sp[] holds the k
 * spaces in order, so a piece has a space inside when a space index falls
 * between its cuts: the search is over pairs of spaces, not of bytes.
 */
static size_t
wrap_cut_score(const size_t *sp, size_t k, size_t len, size_t x, size_t y)
{
	size_t i = sp[x], j = y < k ? sp[y] : len;
	size_t a = i, b = j - i - 1, c = y < k ? len - j - 1 : SIZE_MAX;

	if (a < WRAP_MIN_PIECE || x == 0 || b < WRAP_MIN_PIECE ||
	    (y < k ? y <= x + 1 : x + 1 >= k))
		return 0;
	if (y < k && (c < WRAP_MIN_PIECE || y + 1 >= k))
		return 0;
	return a < b ? (a < c ? a : c) : (b < c ? b : c);
}

static void
add_wrap_literals(struct litset *ls, const char *lit, unsigned id)
{
	size_t len = strlen(lit), best = 0, bi = 0, bj = 0, k = 0;
	size_t sp[WRAP_MAX_SPACES];

	for (size_t i = 0; i < len && k < WRAP_MAX_SPACES; i++)
		if (lit[i] == ' ')
			sp[k++] = i;
	/* three pieces (two wraps) when the literal is long enough, else two */
	for (int three = 1; three >= 0 && !best; three--)
		for (size_t x = 0; x < k; x++) {
			if (sp[x] == 0)
				continue;
			for (size_t y = three ? x + 1 : k; y <= k && (!three || y < k); y++) {
				size_t score = wrap_cut_score(sp, k, len, x, y);

				if (score > best) {
					best = score;
					bi = sp[x];
					bj = y < k ? sp[y] : len;
				}
			}
		}
	if (!best || !ls)
		return;
	litset_add(ls, lit, bi, id);
	litset_add(ls, lit + bi + 1, (bj < len ? bj : len) - bi - 1, id);
	if (bj < len)
		litset_add(ls, lit + bj + 1, len - bj - 1, id);
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
	for (char **l = lits; ls && *l; l++) {
		litset_add(ls, *l, strlen(*l), (unsigned)p->index);
		add_wrap_literals(ls, *l, (unsigned)p->index);
	}
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
	c->ctx_held = xcalloc(rs->ncontexts + 1, sizeof(*c->ctx_held));
	c->ctx_score = xcalloc(rs->ncontexts + 1, sizeof(*c->ctx_score));
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
	free(c->ctx_held);
	free(c->ctx_score);
	vars_release(&c->env);
	free(c->win);
	buf_release(&c->joins[0].text);
	buf_release(&c->joins[1].text);
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

/* subj[show..len) is what the evidence shows; captures are read from all of subj. */
static void
record_hit(struct classifier *c, const struct pattern *p, const char *subj, size_t len,
	   size_t show, size_t lineno, size_t ms, size_t me)
{
	struct pat_state *st = &c->ps[p->index];
	size_t keep = len - show < EVIDENCE_MAX_TEXT ? len - show : EVIDENCE_MAX_TEXT;
	size_t nnames = match_name_count(p->m);	/* compiled: it just matched */

	st->hit = true;
	c->nhit++;
	st->line = lineno;
	st->mstart = ms - show < keep ? ms - show : keep;
	st->mend = me - show < keep ? me - show : keep;
	st->text = dup_visible(subj + show, keep, &st->mstart, &st->mend);
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

/*
 * Try one pattern on a subject made of npieces lines starting at `starts`
 * (one piece for a plain line), the first of them line `lineno`, piece
 * `own` the candidate line. Returns true when it matched there: the match
 * must overlap the candidate line, since a match wholly inside a neighbour
 * is that line's to find (alone, with its own captures). The hit belongs to
 * the piece where the match starts.
 */
static bool
try_pattern_at(struct classifier *c, struct pattern *p, const char *subj, size_t len,
	       size_t lineno, const size_t *starts, size_t npieces, size_t own)
{
	struct match *m = pattern_compiled(p);
	size_t ms = 0, me = 0, k = 0;
	size_t own_end = own + 1 < npieces ? starts[own + 1] : len;

	if (!m) {
		c->match_errors++;
		return false;
	}
	switch (match_exec(m, subj, len, &ms, &me)) {
	case MATCH_YES:
		if (ms >= own_end || me <= starts[own])
			return false;
		while (k + 1 < npieces && starts[k + 1] <= ms)
			k++;
		record_hit(c, p, subj, len, starts[k], lineno + k, ms, me);
		return true;
	case MATCH_LIMIT:
		c->match_errors++;
		return false;
	case MATCH_NO:
		break;
	}
	return false;
}

static bool
try_pattern(struct classifier *c, struct pattern *p, const char *subj, size_t len,
	    size_t lineno)
{
	static const size_t whole[1] = { 0 };

	return try_pattern_at(c, p, subj, len, lineno, whole, 1, 0);
}


struct line_ctx {
	const char *s;              /* the trimmed line */
	size_t n;
	size_t lineno;
	size_t start, end, limit;   /* raw line in the window, for the neighbours */
	bool have_neighbours;       /* prev/next are computed on first need */
	struct join_piece prev[JOIN_LINES], next[JOIN_LINES];  /* nearest first */
	size_t nprev, nnext;
};

static void set_neighbours(struct classifier *c, struct line_ctx *l);

/* Append a piece with its runs of blanks folded to one space; returns where it starts. */
static size_t
join_add(struct buf *b, const char *s, size_t n)
{
	const char *end = s + n;
	size_t at;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (b->len)
		buf_addch(b, ' ');
	at = b->len;
	/* bounded by end, not by a NUL: a log line may hold NUL bytes */
	while (s < end) {
		const char *run = s;

		while (s < end && *s != ' ' && *s != '\t')
			s++;
		buf_add(b, run, (size_t)(s - run));
		if (s < end) {
			buf_addch(b, ' ');
			while (s < end && (*s == ' ' || *s == '\t'))
				s++;
		}
	}
	return at;
}

/*
 * The line joined with its neighbours, built once per candidate line: the
 * line and the lines after it (kind 0), then the lines before it too
 * (kind 1). Returns false when that join would add nothing.
 */
static bool
join_of(struct classifier *c, struct line_ctx *l, int kind)
{
	struct join *j = &c->joins[kind];

	if (!l->have_neighbours) {
		set_neighbours(c, l);
		l->have_neighbours = true;
		c->joins[0].lineno = c->joins[1].lineno = SIZE_MAX;
	}
	if (kind == 0 ? l->nnext == 0 : l->nprev == 0)
		return false;
	if (j->lineno == l->lineno)
		return true;
	buf_reset(&j->text);
	j->npieces = 0;
	for (size_t k = kind ? l->nprev : 0; k > 0; k--)
		j->starts[j->npieces++] = join_add(&j->text, l->prev[k - 1].s, l->prev[k - 1].n);
	j->own = j->npieces;
	j->starts[j->npieces++] = join_add(&j->text, l->s, l->n);
	for (size_t k = 0; k < l->nnext; k++)
		j->starts[j->npieces++] = join_add(&j->text, l->next[k].s, l->next[k].n);
	j->lineno = l->lineno;
	return true;
}

/*
 * A hard-wrapped message: retry on the line joined with the lines after it,
 * then with the lines before it too. The hit is recorded on the line where
 * the match starts.
 */
static void
try_joined(struct classifier *c, struct pattern *p, struct line_ctx *l)
{
	for (int kind = 0; kind < 2; kind++) {
		struct join *j = &c->joins[kind];

		if (join_of(c, l, kind) &&
		    try_pattern_at(c, p, j->text.data, j->text.len, l->lineno - j->own, j->starts,
				   j->npieces, j->own))
			return;
	}
}

/* Returns false when the pattern had already hit and was not run. */
static bool
run_pattern(struct classifier *c, size_t id, struct line_ctx *l)
{
	struct pattern *p = c->rs->patterns[id];

	if (c->ps[id].hit)
		return false;
	/* Context evidence and facts are names and paths, which do not wrap;
	 * joining for them would cost a join on every line that mentions one. */
	if (!try_pattern(c, p, l->s, l->n, l->lineno) && p->rule)
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

/* A neighbour for joins, trimmed; false when [ls, le) cannot be one. */
static bool
join_piece_of(const char *win, size_t ls, size_t le, struct join_piece *out)
{
	size_t n = le - ls, off;

	if (n > JOIN_MAX_LINE)
		return false;
	off = ingest_trim(win + ls, &n);
	if (ingest_is_join_boundary(win + ls + off, n))
		return false;
	out->s = win + ls + off;
	out->n = n;
	return true;
}

/*
 * Up to JOIN_LINES lines on each side of the line, nearest first, stopping
 * at a boundary, a line over JOIN_MAX_LINE, a cut line (noprev_at) and the
 * held lines' end (limit). compact() and advance() keep exactly these.
 */
static void
set_neighbours(struct classifier *c, struct line_ctx *l)
{
	size_t pos = l->start;

	l->nprev = l->nnext = 0;
	if (ingest_is_join_boundary(l->s, l->n))
		return;
	while (l->nprev < JOIN_LINES && pos > 0 && pos != c->noprev_at) {
		const char *nl = rfind_nl(c->win, pos - 1);
		size_t ls = nl ? (size_t)(nl - c->win) + 1 : 0;

		if (!join_piece_of(c->win, ls, pos - 1, &l->prev[l->nprev]))
			break;
		l->nprev++;
		pos = ls;
	}
	pos = l->end + 1;
	while (l->nnext < JOIN_LINES && pos < l->limit) {
		const char *nl = find_nl(c->win + pos, l->limit - pos);

		if (!nl || !join_piece_of(c->win, pos, (size_t)(nl - c->win), &l->next[l->nnext]))
			break;
		l->nnext++;
		pos = (size_t)(nl - c->win) + 1;
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
	l.nprev = l.nnext = 0;
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

/* Keep the processed lines that joins may still need, and everything unprocessed. */
static void
compact(struct classifier *c)
{
	size_t keep = c->proc;

	for (int k = 0; k < JOIN_LINES && keep > 0; k++) {
		const char *nl = rfind_nl(c->win, keep - 1);
		size_t ls = nl ? (size_t)(nl - c->win) + 1 : 0;

		if (keep - 1 - ls > JOIN_MAX_LINE)
			break;
		keep = ls;
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
 * Process what the window holds. The last JOIN_LINES complete lines are
 * held back so that a candidate line always sees its successors, whatever
 * the read sizes were: the verdict must not depend on how a pipe chunked
 * the log.
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
	before = last;
	for (int k = 0; k < JOIN_LINES && before; k++)
		before = rfind_nl(c->win + c->proc, (size_t)(before - (c->win + c->proc)));
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

	if (o && o->assert_context)
		classifier_assert_context(c, o->assert_context, o->assert_why);
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

void
classifier_finish(struct classifier *c, struct verdict *v)
{
	struct engine_result e = {
		.rs = c->rs, .ps = c->ps, .rcaps = c->rcaps, .env = &c->env,
		.loc_frame = &c->loc_frame, .last_frame = &c->last_frame,
		.last_error = c->last_error, .last_error_line = c->last_error_line,
		.assert_context = c->assert_context, .assert_why = c->assert_why,
	};

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
	e.last_error = c->last_error;
	e.last_error_line = c->last_error_line;
	e.ctx_held = c->ctx_held;
	e.ctx_score = c->ctx_score;
	score_contexts(&e);
	score_verdict(&e, v);
	verdict_build(&e, v);
}

bool
classifier_fired(const struct classifier *c, const struct rule *r)
{
	struct engine_result e = {
		.rs = c->rs, .ps = c->ps, .ctx_held = c->ctx_held, .ctx_score = c->ctx_score,
	};

	return score_rule_fired(&e, r);
}

bool
classifier_context_held(const struct classifier *c, const char *id)
{
	int k = ruleset_find_context(c->rs, id);

	return k >= 0 && c->ctx_held[k];
}

void
classifier_assert_context(struct classifier *c, const char *context, const char *why)
{
	c->assert_context = context;
	c->assert_why = why;
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
