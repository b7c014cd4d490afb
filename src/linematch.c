/* SPDX-License-Identifier: MIT */
/*
 * Candidate lines; see pt/linematch.h and docs/architecture.md
 * ("Prefilter", "Matching").
 *
 * Only on a candidate line do the PCRE2 patterns whose literal occurs in
 * the line run, and each pattern runs only until its first hit (the first
 * hit is the evidence; later ones add nothing).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt/ingest.h"
#include "pt/linematch.h"
#include "pt/xalloc.h"

/* A rebuild costs about a millisecond; this many wasted lines cost more. */
#define REBUILD_AFTER_WASTED 4096

/* Literal ids past the patterns' ids, for the lines the engine reads itself. */
enum { AUX_PY_FRAME, AUX_LOC, AUX_TRACEBACK, AUX_ERROR, AUX_EXCEPTION, AUX_COUNT };
static const char *const aux_literals[AUX_COUNT] = {
	"File \"", "loc(", "Traceback (most recent call last)", "Error: ", "Exception: ",
};

/* The candidate line at hand. */
struct line_ctx {
	const struct window *w;
	const char *s;              /* the trimmed line */
	size_t n;
	size_t lineno;
	size_t start, end, limit;   /* raw line in the window, for the neighbours */
	bool have_neighbours;       /* prev/next are computed on first need */
	struct join_piece prev[JOIN_LINES], next[JOIN_LINES];  /* nearest first */
	size_t nprev, nnext;
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

struct litset *
linematch_prefilter(const struct ruleset *rs, const struct pat_state *ps)
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

void
linematch_init(struct linematch *lm, const struct ruleset *rs, const struct litset *shared,
	       struct matcher *mt)
{
	memset(lm, 0, sizeof(*lm));
	lm->rs = rs;
	lm->npat = rs->npatterns;
	lm->mt = mt ? mt : matcher_new(rs->npatterns);
	lm->mt_borrowed = mt != NULL;
	lm->ls = shared ? NULL : linematch_prefilter(rs, NULL);
	lm->pf = shared ? shared : lm->ls;
	lm->built = shared != NULL;
	lm->always = xcalloc(lm->npat + 1, sizeof(*lm->always));
	for (size_t i = 0; i < lm->npat; i++)
		if (!add_pattern_literals(NULL, rs->patterns[i]))
			lm->always[lm->nalways++] = rs->patterns[i]->index;
	/* whole 64-bit words, so that linematch_line() reads it a word at a time */
	lm->hits_len = (lm->npat + AUX_COUNT + 63) / 64 * 8;
	lm->hits = xcalloc(lm->hits_len, 1);
	lm->ids = xcalloc(lm->npat + AUX_COUNT, sizeof(*lm->ids));
	lm->waiting = xcalloc(lm->npat + 1, sizeof(*lm->waiting));
	lm->ps = xcalloc(lm->npat + 1, sizeof(*lm->ps));
	lm->rcaps = xcalloc(rs->nrules + 1, sizeof(*lm->rcaps));
}

void
linematch_release(struct linematch *lm)
{
	if (!lm->mt_borrowed)
		matcher_free(lm->mt);
	litset_free(lm->ls);
	free(lm->always);
	free(lm->hits);
	free(lm->ids);
	free(lm->waiting);
	for (size_t i = 0; i < lm->npat; i++) {
		free(lm->ps[i].text);
		snap_release(&lm->ps[i].where);
	}
	free(lm->ps);
	for (size_t i = 0; lm->rcaps && i < lm->rs->nrules; i++)
		vars_release(&lm->rcaps[i]);
	free(lm->rcaps);
	vars_release(&lm->env);
	buf_release(&lm->joins[0].text);
	buf_release(&lm->joins[1].text);
	snap_release(&lm->last_frame);
	snap_release(&lm->loc_frame);
	free(lm->last_error);
	memset(lm, 0, sizeof(*lm));
}

void
linematch_build(struct linematch *lm, const char *sample, size_t len)
{
	if (lm->built)
		return;
	litset_build(lm->ls, sample, len);
	lm->built = true;
	lm->built_nhit = lm->nhit;
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
record_hit(struct linematch *lm, const struct pattern *p, const char *subj, size_t len,
	   size_t show, size_t lineno, size_t ms, size_t me)
{
	struct pat_state *st = &lm->ps[p->index];
	size_t keep = len - show < EVIDENCE_MAX_TEXT ? len - show : EVIDENCE_MAX_TEXT;
	size_t nnames = match_name_count(p->m);

	st->hit = true;
	lm->nhit++;
	st->line = lineno;
	st->mstart = ms - show < keep ? ms - show : keep;
	st->mend = me - show < keep ? me - show : keep;
	st->text = dup_visible(subj + show, keep, &st->mstart, &st->mend);
	snap_copy(&st->where, &lm->last_frame);
	if (!st->where.file)
		lm->waiting[lm->nwaiting++] = p->index;
	for (size_t i = 0; i < nnames; i++) {
		const char *name = match_name(p->m, i);
		size_t gs, ge;

		if (!matcher_group(lm->mt, p->m, i, &gs, &ge))
			continue;
		if (p->rule)
			vars_setn(&lm->rcaps[p->rule->index], name, subj + gs, ge - gs, false);
		else if (strcmp(name, "value") == 0)
			for (size_t f = 0; f < lm->rs->nfacts; f++)
				if (lm->rs->facts[f].pat == p)
					vars_setn(&lm->env, lm->rs->facts[f].sets, subj + gs, ge - gs, false);
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
try_pattern_at(struct linematch *lm, const struct pattern *p, const char *subj, size_t len,
	       size_t lineno, const size_t *starts, size_t npieces, size_t own)
{
	size_t ms = 0, me = 0, k = 0;
	size_t own_end = own + 1 < npieces ? starts[own + 1] : len;

	switch (matcher_exec(lm->mt, p->index, p->m, subj, len, &ms, &me)) {
	case MATCH_YES:
		if (ms >= own_end || me <= starts[own])
			return false;
		while (k + 1 < npieces && starts[k + 1] <= ms)
			k++;
		record_hit(lm, p, subj, len, starts[k], lineno + k, ms, me);
		return true;
	case MATCH_LIMIT:
		lm->match_errors++;
		return false;
	case MATCH_NO:
		break;
	}
	return false;
}

/*
 * Append a piece with its leading blanks dropped and every other run of
 * blanks folded to one space; returns where it starts. Written in place:
 * joins are built on every candidate line of a wrapped-message search,
 * and byte-wise appends were a sixth of `scan`'s time.
 */
static size_t
join_add(struct buf *b, const char *s, size_t n)
{
	const char *end = s + n;
	size_t at;
	char *o;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	buf_grow(b, (size_t)(end - s) + 1);	/* uncapped: cannot fail */
	o = b->data + b->len;
	if (b->len)
		*o++ = ' ';
	at = (size_t)(o - b->data);
	/* bounded by end, not by a NUL: a log line may hold NUL bytes */
	while (s < end) {
		if (*s != ' ' && *s != '\t') {
			*o++ = *s++;
			continue;
		}
		*o++ = ' ';
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
	}
	b->len = (size_t)(o - b->data);
	b->data[b->len] = '\0';
	return at;
}

/*
 * The line joined with its neighbours, built once per candidate line: the
 * line and the lines after it (kind 0), then the lines before it too
 * (kind 1). Returns false when that join would add nothing.
 */
static bool
join_of(struct linematch *lm, struct line_ctx *l, int kind)
{
	struct join *j = &lm->joins[kind];

	if (!l->have_neighbours) {
		if (!ingest_is_join_boundary(l->s, l->n))
			window_neighbours(l->w, l->start, l->end, l->limit, l->prev, &l->nprev,
					  l->next, &l->nnext);
		l->have_neighbours = true;
		lm->joins[0].lineno = lm->joins[1].lineno = SIZE_MAX;
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
try_joined(struct linematch *lm, const struct pattern *p, struct line_ctx *l)
{
	for (int kind = 0; kind < 2; kind++) {
		struct join *j = &lm->joins[kind];

		if (join_of(lm, l, kind) &&
		    try_pattern_at(lm, p, j->text.data, j->text.len, l->lineno - j->own, j->starts,
				   j->npieces, j->own))
			return;
	}
}

/* Returns false when the pattern had already hit and was not run. */
static bool
run_pattern(struct linematch *lm, size_t id, struct line_ctx *l)
{
	static const size_t whole[1] = { 0 };
	const struct pattern *p = lm->rs->patterns[id];

	if (lm->ps[id].hit)
		return false;
	/* Context evidence and facts are names and paths, which do not wrap;
	 * joining for them would cost a join on every line that mentions one. */
	if (!try_pattern_at(lm, p, l->s, l->n, l->lineno, whole, 1, 0) && p->rule)
		try_joined(lm, p, l);
	return true;
}

static void
run_aux(struct linematch *lm, size_t aux, const struct line_ctx *l)
{
	struct frame f;

	switch (aux) {
	case AUX_PY_FRAME:
		if (!ingest_parse_py_frame(l->s, l->n, &f) || ingest_is_library_path(f.file, f.file_len))
			break;
		snap_set(&lm->last_frame, &f);
		/* An error printed before its traceback (JaxStackTraceBeforeTransformation)
		 * takes the deepest user frame of the traceback that follows it. */
		for (size_t i = 0; i < lm->nwaiting; i++)
			snap_set(&lm->ps[lm->waiting[i]].where, &f);
		break;
	case AUX_TRACEBACK:
		snap_release(&lm->last_frame);
		for (size_t i = 0; i < lm->nwaiting;)
			if (lm->ps[lm->waiting[i]].where.file)
				lm->waiting[i] = lm->waiting[--lm->nwaiting];
			else
				i++;
		break;
	case AUX_LOC:
		if (!lm->loc_frame.file && ingest_parse_loc(l->s, l->n, &f))
			snap_set(&lm->loc_frame, &f);
		break;
	default:
		free(lm->last_error);
		lm->last_error = xstrndup(l->s, l->n < EVIDENCE_MAX_TEXT ? l->n : EVIDENCE_MAX_TEXT);
		lm->last_error_line = l->lineno;
		break;
	}
}

/*
 * A pattern stops running after its first hit, but its literal keeps making
 * lines candidates: a tie pattern such as `kernel|pallas` would send every
 * such line of a big log through the candidate path for nothing. After
 * enough wasted candidates, index only the literals still needed (when some
 * pattern was hit since the last build: otherwise the set would be the
 * same).
 */
bool
linematch_rebuild(struct linematch *lm, const char *sample, size_t len)
{
	lm->wasted = 0;
	if (lm->nhit == lm->built_nhit)
		return false;
	litset_free(lm->ls);
	lm->ls = linematch_prefilter(lm->rs, lm->ps);
	litset_build(lm->ls, sample, len);
	lm->pf = lm->ls;
	lm->built_nhit = lm->nhit;
	return true;
}

bool
linematch_line(struct linematch *lm, const struct window *w, size_t start, size_t end,
	       size_t limit, size_t lineno)
{
	struct line_ctx l = { .w = w, .lineno = lineno, .start = start, .end = end, .limit = limit };
	size_t n = end - start, nids = 0;
	size_t off = ingest_trim(w->buf + start, &n);
	bool useful = false;

	l.s = w->buf + start + off;
	l.n = n;
	memset(lm->hits, 0, lm->hits_len);
	litset_line_hits(lm->pf, w->buf + start, end - start, lm->hits);
	for (size_t k = 0; k < lm->hits_len; k += 8) {
		uint64_t bits;

		memcpy(&bits, lm->hits + k, sizeof(bits));
		for (; bits; bits &= bits - 1)
			lm->ids[nids++] = k * 8 + (size_t)__builtin_ctzll(bits);
	}
	/* Patterns first, so an evidence line is tied to the frame seen before it. */
	for (size_t i = 0; i < nids; i++)
		if (lm->ids[i] < lm->npat)
			useful |= run_pattern(lm, lm->ids[i], &l);
	for (size_t i = 0; i < lm->nalways; i++)
		run_pattern(lm, lm->always[i], &l);
	for (size_t i = 0; i < nids; i++)
		if (lm->ids[i] >= lm->npat) {
			run_aux(lm, lm->ids[i] - lm->npat, &l);
			useful = true;
		}
	return !useful && ++lm->wasted >= REBUILD_AFTER_WASTED;
}
