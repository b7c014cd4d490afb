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
#include "pt/literal.h"
#include "pt/xalloc.h"

/* A rebuild costs about a millisecond; this many wasted lines cost more. */
#define REBUILD_AFTER_WASTED 4096

/* Literal ids past the patterns' ids, for the lines the engine reads itself. */
enum { AUX_PY_FRAME, AUX_LOC, AUX_TRACEBACK, AUX_ERROR, AUX_EXCEPTION, AUX_COUNT };
static const char *const aux_literals[AUX_COUNT] = {
	"File \"", "loc(", "Traceback (most recent call last)", "Error: ", "Exception: ",
};

/* Wrap pieces found on a line: litset literal and position in the raw line. */
#define LINE_MAX_PIECES 32
struct piece_at {
	size_t lit, pos;
};

/* the fallback tier's patterns share a few lookahead lists */
#define AHEAD_SEEN 8

/* The candidate line at hand. */
struct line_ctx {
	const struct window *w;
	struct linematch *lm;
	const char *raw;            /* the line as read */
	const char *s;              /* the trimmed line */
	size_t n;
	size_t lineno;
	size_t start, end, limit;   /* raw line in the window, for the neighbours */
	bool have_neighbours;       /* prev/next are computed on first need */
	struct join_piece prev[JOIN_LINES], next[JOIN_LINES];  /* nearest first */
	size_t nprev, nnext;
	struct piece_at pieces[LINE_MAX_PIECES];  /* found with the line's literals */
	size_t npieces;             /* LINE_MAX_PIECES + 1: too many to keep */
	uint32_t fits, fits_known;  /* pieces_fit() of the piece id at lm->ids[i], once known */
	char *const *ahead_seen[AHEAD_SEEN];  /* lookahead lists asked of the neighbourhood, */
	bool ahead_near[AHEAD_SEEN];          /* and whether one of its lines holds a word */
	size_t nahead;
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

/* f from a frame line known to parse (a copy of it kept by run_frame()). */
static void
snap_parse(struct snap_frame *f, const char *line, size_t len)
{
	struct frame fr;

	if (ingest_parse_py_frame(line, len, &fr))
		snap_set(f, &fr);
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

/*
 * Where lit[0..len) is cut into wrap pieces: at cut[0] and, for three
 * pieces, cut[1] (cut[1] == len: two pieces). Returns false when it gets
 * none: no cut leaves phrases on both sides.
 */
static bool
wrap_cuts(const char *lit, size_t len, size_t cut[2])
{
	size_t best = 0, k = 0;
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
					cut[0] = sp[x];
					cut[1] = y < k ? sp[y] : len;
				}
			}
		}
	return best > 0;
}

/* Wrap pieces have ids of their own (linematch_piece_id()): a line with a
 * piece but not the whole literal can only match joined. */
static void
add_wrap_literals(struct litset *ls, const char *lit, unsigned id)
{
	size_t len = strlen(lit), cut[2];

	if (!wrap_cuts(lit, len, cut))
		return;
	litset_add(ls, lit, cut[0], id);
	litset_add(ls, lit + cut[0] + 1, cut[1] - cut[0] - 1, id);
	if (cut[1] < len)
		litset_add(ls, lit + cut[1] + 1, len - cut[1] - 1, id);
}

/* Id layout: patterns, the engine's own literals, then each pattern's wrap pieces. */
size_t
linematch_id_count(const struct ruleset *rs)
{
	return 2 * rs->npatterns + AUX_COUNT;
}

static unsigned
piece_id(const struct ruleset *rs, size_t pattern)
{
	return (unsigned)(rs->npatterns + AUX_COUNT + pattern);
}

/*
 * Only a rule's matching patterns are retried on joined lines. Context
 * evidence and facts are names and paths, and a capture reads one value
 * (a test id, a file name, a dtype) that stops at a blank, which is what
 * a join puts where the wrap was: joining for them would cost a join on
 * every line that mentions one (every frame line, for a file name).
 */
static bool
pattern_joins(const struct pattern *p)
{
	return p->rule && p->role != PAT_CAPTURE;
}

/*
 * A case-sensitive pattern's own literal counts only as the pattern spells
 * it (literal_spelling()): "FAILED " in `^FAILED ...`, where every
 * "failed " of a log would make a candidate line. A rule's declared
 * literals and wrap pieces count in any case. cased false: every literal
 * in any case (an exhaustive reading, which shows that this changes no
 * verdict).
 */
static void
add_pattern_literals(struct litset *ls, const struct ruleset *rs, const struct pattern *p,
		     bool cased)
{
	char **lits = p->scan_lits;

	for (char **l = lits; l && *l; l++) {
		const char *spelled = cased && lits == p->lits ? literal_spelling(p->src, *l) : NULL;
		size_t n = strlen(*l);

		if (spelled)
			litset_add_cased(ls, spelled, n, (unsigned)p->index);
		else
			litset_add(ls, *l, n, (unsigned)p->index);
		if (pattern_joins(p))
			add_wrap_literals(ls, *l, piece_id(rs, p->index));
	}
}

/* Is the engine's own literal still worth finding? */
static bool
aux_live(const struct linematch *lm, size_t aux)
{
	switch (aux) {
	case AUX_PY_FRAME:
	case AUX_TRACEBACK:
		return lm->need_frames;
	case AUX_LOC:
		return !lm->loc_frame.file;
	default:
		return lm->need_error;
	}
}

static bool
pattern_live(const struct linematch *lm, size_t i)
{
	return !lm->ps[i].hit && !lm->quiet[i];
}

struct litset *
linematch_prefilter(const struct ruleset *rs, const struct linematch *lm)
{
	struct litset *ls = litset_new();

	for (size_t i = 0; i < rs->npatterns; i++)
		if (!lm || pattern_live(lm, i))
			add_pattern_literals(ls, rs, rs->patterns[i], !lm || !lm->exhaustive);
	for (size_t i = 0; i < AUX_COUNT; i++)
		if (!lm || aux_live(lm, i))
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
	/* with rs->prefilter, nothing is made until the first block shows
	 * whether its sample would change the build */
	lm->ls = shared || rs->prefilter ? NULL : linematch_prefilter(rs, NULL);
	lm->pf = shared ? shared : lm->ls ? lm->ls : rs->prefilter;
	lm->built = shared != NULL;
	/* whole 64-bit words, so that linematch_line() reads it a word at a time */
	lm->hits_len = (linematch_id_count(rs) + 63) / 64 * 8;
	lm->hits = xcalloc(lm->hits_len, 1);
	lm->ids = xcalloc(linematch_id_count(rs), sizeof(*lm->ids));
	lm->quiet = xcalloc(lm->npat + 1, sizeof(*lm->quiet));
	lm->cuts = xcalloc(lm->npat + 1, sizeof(*lm->cuts));
	lm->ctx_state = xcalloc(rs->ncontexts + 1, sizeof(*lm->ctx_state));
	lm->need_frames = lm->need_error = true;
	buf_init(&lm->last_raw, 0);
	buf_init(&lm->last_error, 0);
	lm->waiting = xcalloc(lm->npat + 1, sizeof(*lm->waiting));
	lm->hit = xcalloc(lm->npat + 1, sizeof(*lm->hit));
	lm->ps = xcalloc(lm->npat + 1, sizeof(*lm->ps));
	lm->rcaps = xcalloc(rs->nrules + 1, sizeof(*lm->rcaps));
}

void
linematch_release(struct linematch *lm)
{
	if (!lm->mt_borrowed)
		matcher_free(lm->mt);
	litset_free(lm->ls);
	free(lm->quiet);
	for (size_t i = 0; lm->cuts && i < lm->npat; i++)
		free(lm->cuts[i]);
	free(lm->cuts);
	free(lm->ctx_state);
	free(lm->hits);
	free(lm->ids);
	line_memo_release(&lm->memo);
	free(lm->waiting);
	/* only a pattern that hit keeps a text, a place, its rule's captures */
	for (size_t k = 0; k < lm->nhit; k++) {
		const struct pattern *p = lm->rs->patterns[lm->hit[k]];

		free(lm->ps[p->index].text);
		snap_release(&lm->ps[p->index].where);
		if (p->rule)
			vars_release(&lm->rcaps[p->rule->index]);
	}
	free(lm->hit);
	free(lm->ps);
	free(lm->rcaps);
	vars_release(&lm->env);
	buf_release(&lm->joins[0].text);
	buf_release(&lm->joins[1].text);
	snap_release(&lm->last_frame);
	snap_release(&lm->loc_frame);
	buf_release(&lm->last_raw);
	buf_release(&lm->last_error);
	memset(lm, 0, sizeof(*lm));
}

void
linematch_exhaustive(struct linematch *lm)
{
	lm->exhaustive = true;
	if (lm->built)
		return;
	litset_free(lm->ls);
	lm->ls = linematch_prefilter(lm->rs, lm);
	lm->pf = lm->ls;
}

void
linematch_build(struct linematch *lm, const char *sample, size_t len)
{
	if (lm->built)
		return;
	if (!lm->ls && !litset_sample_matters(len)) {
		lm->pf = lm->rs->prefilter;
	} else {
		if (!lm->ls)
			lm->pf = lm->ls = linematch_prefilter(lm->rs, NULL);
		litset_build(lm->ls, sample, len);
	}
	lm->built = true;
	lm->built_gen = lm->live_gen;
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

	if (!st->hit)
		lm->hit[lm->nhit++] = p->index;
	st->hit = true;
	lm->live_gen++;
	lm->settle_due = true;
	st->line = lineno;
	st->mstart = ms - show < keep ? ms - show : keep;
	st->mend = me - show < keep ? me - show : keep;
	st->text = dup_visible(subj + show, keep, &st->mstart, &st->mend);
	if (lm->last_raw.len)
		snap_parse(&st->where, lm->last_raw.data, lm->last_raw.len);
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

static bool
blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

static unsigned char
fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c | 0x20 : c;
}

/* Is x (lower case, m bytes) at s, ASCII case aside? */
static bool
folded_at(const char *s, const char *x, size_t m)
{
	for (size_t k = 0; k < m; k++)
		if (fold((unsigned char)s[k]) != (unsigned char)x[k])
			return false;
	return true;
}

typedef unsigned char byte16 __attribute__((vector_size(16)));

/*
 * Does s[0..n) hold the lower-case string x, ASCII case aside? The first
 * byte is looked for 16 at a time (GCC vector extension, as in window.c's
 * newline count): subjects are joins of up to seven lines, tried for
 * every pattern with a lookahead.
 */
static bool
letter(unsigned char c)
{
	return c >= 'a' && c <= 'z';
}

static bool
holds(const char *s, size_t n, const char *x)
{
	size_t m = strlen(x), i = 0;
	unsigned char c = (unsigned char)x[0], d = m > 1 ? (unsigned char)x[1] : 0;
	byte16 want, want2, low, low2;

	if (m < 2)
		return true;    /* not worth a search: say it may be there */
	if (m > n)
		return false;
	/* the first two bytes at once: "e" alone is on every line */
	memset(&want, c, sizeof(want));
	memset(&want2, d, sizeof(want2));
	memset(&low, letter(c) ? 0x20 : 0, sizeof(low));
	memset(&low2, letter(d) ? 0x20 : 0, sizeof(low2));
	for (; i + 17 <= n - m + 2; i += 16) {
		byte16 v, v2, eq;
		uint64_t a, b;

		memcpy(&v, s + i, 16);
		memcpy(&v2, s + i + 1, 16);
		eq = (byte16)((v | low) == want) & (byte16)((v2 | low2) == want2);
		memcpy(&a, &eq, 8);
		memcpy(&b, (char *)&eq + 8, 8);
		if (!(a | b))
			continue;
		for (size_t k = 0; k < 16; k++)
			if (eq[k] && folded_at(s + i + k, x, m))
				return true;
	}
	for (; i + m <= n; i++)
		if (fold((unsigned char)s[i]) == c && folded_at(s + i, x, m))
			return true;
	return false;
}

/* Does s[0..n) hold one of the (lower-case) strings of v, ASCII case aside? */
static bool
holds_any(const char *s, size_t n, char *const *v)
{
	for (; *v; v++)
		if (holds(s, n, *v))
			return true;
	return false;
}

/* Can a join hold ahead's words only where one of its lines does? Not
 * when a word has a blank. Asked on every try of a lookahead pattern: the
 * answer for each list is kept. */
static bool
ahead_piecewise(struct linematch *lm, char *const *ahead)
{
	bool piecewise = true;

	for (size_t i = 0; i < lm->npiecewise; i++)
		if (lm->piecewise_list[i] == ahead)
			return lm->piecewise[i];
	for (char *const *w = ahead; piecewise && *w; w++)
		piecewise = !strpbrk(*w, " \t");
	if (lm->npiecewise < PIECEWISE_LISTS) {
		lm->piecewise_list[lm->npiecewise] = ahead;
		lm->piecewise[lm->npiecewise++] = piecewise;
	}
	return piecewise;
}

/* The word's bit in the lines' memo, or -1 when there is no room left. */
static int
word_bit(struct linematch *lm, const char *word)
{
	size_t n = lm->nahead_words;
	int bit = -1;

	for (size_t i = 0; i < n; i++)
		if (lm->ahead_words[i] == word)
			return lm->ahead_bit[i];
	/* a copy not seen yet: the bit of its spelling, or a new one */
	for (size_t i = 0; i < n && bit < 0; i++)
		if (strcmp(lm->ahead_words[i], word) == 0)
			bit = lm->ahead_bit[i];
	if (bit < 0 && lm->nahead_bits < AHEAD_BITS)
		bit = (int)lm->nahead_bits++;
	if (bit >= 0 && n < AHEAD_WORDS) {
		lm->ahead_words[n] = word;
		lm->ahead_bit[n] = (unsigned char)bit;
		lm->nahead_words++;
	}
	return bit;
}

/* Does line `lineno`, s[0..n) trimmed, hold the word? */
static bool
line_holds(struct linematch *lm, size_t lineno, const char *s, size_t n, const char *word,
	   int bit)
{
	struct line_words *e = &lm->line_words[lineno % WORD_LINES];
	uint32_t m = bit >= 0 ? (uint32_t)1 << bit : 0;

	if (!m)
		return holds(s, n, word);
	if (e->lineno != lineno + 1)
		*e = (struct line_words){ .lineno = lineno + 1 };
	if (!(e->known & m)) {
		e->known |= m;
		if (holds(s, n, word))
			e->has |= m;
	}
	return (e->has & m) != 0;
}

/*
 * Does the candidate line hold the word, or its join of that kind (0: with
 * the lines after it, 1: both ways; -1: the line alone)? A word without a
 * blank is in a join only where it is in one of its lines, and each line is
 * asked once per word: the fallback patterns' lists repeat "error:",
 * "failed"..., and a line is the neighbour of the candidate lines around it.
 */
static bool
lines_hold(struct linematch *lm, const struct line_ctx *l, int kind, const char *word)
{
	int bit = word_bit(lm, word);

	if (line_holds(lm, l->lineno, l->s, l->n, word, bit))
		return true;
	for (size_t k = 0; kind == 1 && k < l->nprev; k++)
		if (line_holds(lm, l->lineno - 1 - k, l->prev[k].s, l->prev[k].n, word, bit))
			return true;
	for (size_t k = 0; kind >= 0 && k < l->nnext; k++)
		if (line_holds(lm, l->lineno + 1 + k, l->next[k].s, l->next[k].n, word, bit))
			return true;
	return false;
}

/* Does that subject, subj[0..len), hold one of the lookahead's words? */
static bool
subject_ahead(struct linematch *lm, const struct line_ctx *l, int kind, char *const *ahead,
	      const char *subj, size_t len)
{
	if (!ahead_piecewise(lm, ahead))
		return holds_any(subj, len, ahead);
	for (; *ahead; ahead++)
		if (lines_hold(lm, l, kind, *ahead))
			return true;
	return false;
}

/*
 * Could fallback pattern p (`(?i)^(?=LOOK).*?TAIL`) match subj and end past
 * `from`? Only if its tail alone does (literal_lookahead_tail()): PCRE2
 * finds TAIL's first match from start bits, where the pattern itself
 * tries TAIL at every byte after the lookahead. Its match starts at 0, so
 * it must end past the candidate line's start.
 */
static bool
tail_reaches(struct linematch *lm, const struct pattern *p, const char *subj, size_t len,
	     size_t from)
{
	size_t ms, me;

	switch (matcher_exec_src(lm->mt, p->index, p->m, p->tail, subj, len, &ms, &me)) {
	case MATCH_NO:
		return false;
	case MATCH_YES:
		return me > from;
	case MATCH_LIMIT:
		break;
	}
	return true;
}

/*
 * Try one pattern on the candidate line alone (kind -1) or on its join of
 * that kind (lm->joins[kind]: npieces lines starting at `starts`, the first
 * of them line `lineno`, piece `own` the candidate line). Returns true when
 * it matched there: the match must overlap the candidate line, since a
 * match wholly inside a neighbour is that line's to find (alone, with its
 * own captures). The hit belongs to the piece where the match starts.
 */
static bool
try_pattern_at(struct linematch *lm, const struct pattern *p, const struct line_ctx *l, int kind)
{
	static const size_t whole[1] = { 0 };
	const struct join *j = kind >= 0 ? &lm->joins[kind] : NULL;
	const char *subj = j ? j->text.data : l->s;
	size_t len = j ? j->text.len : l->n, npieces = j ? j->npieces : 1, own = j ? j->own : 0;
	size_t lineno = l->lineno - own;
	const size_t *starts = j ? j->starts : whole;
	size_t ms = 0, me = 0, k = 0;
	size_t own_end = own + 1 < npieces ? starts[own + 1] : len;

	lm->work++;
	/* a subject without what its lookahead requires cannot match: the
	 * fallback tier's (?=.*?(?:Error|...)) on a line or join with none */
	if (!lm->exhaustive && p->ahead && p->ahead[0] &&
	    !subject_ahead(lm, l, kind, p->ahead, subj, len))
		return false;
	/* nor one without its second requirement: `Check failed: .*\bpacking\b`
	 * on every line and join that says "Check failed: " */
	if (!lm->exhaustive && p->also && p->also[0] && !holds_any(subj, len, p->also))
		return false;
	if (!lm->exhaustive && p->tail && !tail_reaches(lm, p, subj, len, starts[own]))
		return false;
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

/* Do p[0..16) hold no tab, and no space followed by a space (p[16] included)? */
static inline bool
plain16(const char *p)
{
	byte16 v, next, tab, pair;
	uint64_t a, b;

	memcpy(&v, p, 16);
	memcpy(&next, p + 1, 16);
	tab = (byte16)(v == '\t');
	pair = (byte16)(v == ' ') & (byte16)((next == ' ') | (next == '\t'));
	tab |= pair;
	memcpy(&a, &tab, 8);
	memcpy(&b, (char *)&tab + 8, 8);
	return !(a | b);
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
		/* 16 bytes with no tab and no two blanks in a row (counting the
		 * byte after them) are copied as they are: most of a line */
		if (end - s >= 17 && plain16(s)) {
			memcpy(o, s, 16);
			o += 16;
			s += 16;
			continue;
		}
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

/* The candidate line's neighbours, found on first need. */
static void
need_neighbours(struct linematch *lm, struct line_ctx *l)
{
	if (l->have_neighbours)
		return;
	if (!ingest_is_join_boundary(l->s, l->n))
		window_neighbours(l->w, l->start, l->end, l->limit, l->prev, &l->nprev, l->next,
				  &l->nnext);
	l->have_neighbours = true;
	lm->joins[0].lineno = lm->joins[1].lineno = SIZE_MAX;
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

	need_neighbours(lm, l);
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
 * Could some join around the line pass the lookahead `ahead`? A join puts
 * a blank between its lines and folds only blanks, so a word without one
 * is in the join only where it is in one of its lines: checking the lines
 * saves building joins for the fallback tier's patterns on every candidate
 * line without an error word near it (most of the joins of a small log).
 */
static bool
ahead_near(struct linematch *lm, struct line_ctx *l, char *const *ahead)
{
	bool near;

	for (size_t i = 0; i < l->nahead; i++)
		if (l->ahead_seen[i] == ahead)
			return l->ahead_near[i];
	if (!ahead_piecewise(lm, ahead))
		return true;
	need_neighbours(lm, l);
	near = false;
	for (char *const *w = ahead; !near && *w; w++)
		near = lines_hold(lm, l, 1, *w);
	if (l->nahead < AHEAD_SEEN) {
		l->ahead_seen[l->nahead] = ahead;
		l->ahead_near[l->nahead++] = near;
	}
	return near;
}

/*
 * Could the pattern match join j where the candidate line is? Such a match
 * starts before the piece after the line's, so it cannot when no match can
 * start in the text up to there, whatever came after it: a prefix that is
 * the line alone for the forward join. Most lines that fail alone fail
 * there, before the line's end, and cost no match of the whole join. Not
 * for the fallback tier's lookahead patterns, whose `.*?` reaches the end
 * of any prefix.
 */
static bool
join_may_match(struct linematch *lm, const struct pattern *p, const struct join *j)
{
	if (lm->exhaustive || (p->ahead && p->ahead[0]) || j->own + 1 >= j->npieces)
		return true;
	return matcher_may_start(lm->mt, p->index, p->m, j->text.data, j->starts[j->own + 1]);
}

/*
 * A hard-wrapped message: retry on the line joined with the lines after it,
 * then with the lines before it too. The hit is recorded on the line where
 * the match starts.
 */
static void
try_joined(struct linematch *lm, const struct pattern *p, struct line_ctx *l)
{
	if (!lm->exhaustive && p->ahead && p->ahead[0] && !ahead_near(lm, l, p->ahead))
		return;
	for (int kind = 0; kind < 2; kind++) {
		struct join *j = &lm->joins[kind];

		if (join_of(lm, l, kind) && join_may_match(lm, p, j) && try_pattern_at(lm, p, l, kind))
			return;
	}
}

/* Returns false when the pattern has hit or can no longer matter, and was not run. */
static bool
run_pattern(struct linematch *lm, size_t id, struct line_ctx *l)
{
	const struct pattern *p = lm->rs->patterns[id];

	if (!pattern_live(lm, id))
		return false;
	if (!try_pattern_at(lm, p, l, -1) && pattern_joins(p))
		try_joined(lm, p, l);
	return true;
}

/*
 * Could the literal x[0..xl), whose piece x[po..po+m) is at s[q..q+m),
 * run on past the line's edges into a joined neighbour? The bytes of it
 * on the line must be the line's (ASCII case and runs of blanks aside, as
 * a join folds them), and where the line ends first the literal must go
 * on with a space, the one a join puts between lines. It may also lie
 * wholly on the line, in a spelling only the join's folding matches. Errs
 * on the side of yes.
 */
static bool
piece_fits(const char *s, size_t n, size_t q, size_t m, const char *x, size_t xl, size_t po)
{
	size_t lo = 0, i = q, k = po;

	/* a join drops the line's leading blanks: the line starts after them */
	while (lo < q && blank((unsigned char)s[lo]))
		lo++;
	while (i > lo && k > 0) {
		if (blank((unsigned char)s[i - 1]) && blank((unsigned char)x[k - 1])) {
			while (i > lo && blank((unsigned char)s[i - 1]))
				i--;
			while (k > 0 && blank((unsigned char)x[k - 1]))
				k--;
			continue;
		}
		if (fold((unsigned char)s[i - 1]) != fold((unsigned char)x[k - 1]))
			return false;
		i--;
		k--;
	}
	if (k > 0 && !blank((unsigned char)x[k - 1]))
		return false;
	for (i = q + m, k = po + m; i < n && k < xl;) {
		if (blank((unsigned char)s[i]) && blank((unsigned char)x[k])) {
			while (i < n && blank((unsigned char)s[i]))
				i++;
			while (k < xl && blank((unsigned char)x[k]))
				k++;
			continue;
		}
		if (fold((unsigned char)s[i]) != fold((unsigned char)x[k]))
			return false;
		i++;
		k++;
	}
	return k == xl || blank((unsigned char)x[k]);
}

static bool
has_id(const unsigned *ids, size_t n, unsigned id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* Does piece x[po..po+m) of literal x, found as text at s[q..], fit there? */
static bool
piece_fits_at(const struct line_ctx *l, size_t q, const char *text, size_t tl, const char *x,
	      size_t xl, size_t po, size_t m)
{
	for (size_t i = 0; i < m && m == tl; i++)
		if (fold((unsigned char)x[po + i]) != (unsigned char)text[i])
			return false;
	return m == tl && piece_fits(l->s, l->n, q, m, x, xl, po);
}

/*
 * Where pattern id's literals are cut into wrap pieces (wrap_cuts(); 0, 0
 * for a literal with none), worked out on first need: a line of its
 * pieces may come by thousands of times.
 */
static const size_t *
pattern_cuts(struct linematch *lm, size_t id)
{
	char **lits = lm->rs->patterns[id]->scan_lits;
	size_t n = 0, *cuts;

	if (lm->cuts[id])
		return lm->cuts[id];
	while (lits && lits[n])
		n++;
	cuts = xcalloc(2 * n + 1, sizeof(*cuts));
	for (size_t i = 0; i < n; i++)
		if (!wrap_cuts(lits[i], strlen(lits[i]), cuts + 2 * i))
			cuts[2 * i] = cuts[2 * i + 1] = 0;
	return lm->cuts[id] = cuts;
}

/* Is some piece of pattern id on the line where a wrap could have cut its literal? */
static bool
pieces_fit(struct line_ctx *l, size_t id)
{
	struct linematch *lm = l->lm;
	const struct pattern *p = lm->rs->patterns[id];
	const size_t *cuts = pattern_cuts(lm, id);
	size_t off = (size_t)(l->s - l->raw);

	if (l->npieces > LINE_MAX_PIECES)
		return true;
	for (size_t k = 0; k < l->npieces; k++) {
		size_t nids, tl;
		const unsigned *ids = litset_ids(lm->pf, l->pieces[k].lit, &nids);
		const char *text = litset_literal(lm->pf, l->pieces[k].lit, &tl);
		size_t q = l->pieces[k].pos - off;

		if (!has_id(ids, nids, piece_id(lm->rs, id)) || l->pieces[k].pos < off ||
		    q + tl > l->n)
			continue;
		const size_t *cut = cuts;

		for (char **lit = p->scan_lits; lit && *lit; lit++, cut += 2) {
			size_t xl = strlen(*lit);

			if (!cut[0])
				continue;
			if (piece_fits_at(l, q, text, tl, *lit, xl, 0, cut[0]) ||
			    piece_fits_at(l, q, text, tl, *lit, xl, cut[0] + 1, cut[1] - cut[0] - 1) ||
			    (cut[1] < xl &&
			     piece_fits_at(l, q, text, tl, *lit, xl, cut[1] + 1, xl - cut[1] - 1)))
				return true;
		}
	}
	return false;
}

/* pieces_fit(l, id) for lm->ids[i], from the line's memo when it knows. */
static bool
pieces_fit_known(struct line_ctx *l, size_t id, size_t i)
{
	uint32_t bit = i < 32 ? (uint32_t)1 << i : 0;
	bool fits;

	if (l->fits_known & bit)
		return (l->fits & bit) != 0;
	fits = pieces_fit(l, id);
	l->fits_known |= bit;
	if (fits)
		l->fits |= bit;
	return fits;
}

/*
 * The line holds a wrap piece of pattern id but none of its literals: it
 * can match only joined with its neighbours, and only if some piece sits
 * where a wrap could have cut its literal. Most such lines merely share a
 * phrase ("in pallas_call") with a message and cost no join at all. (An
 * exhaustive reading joins them all, to show that this changes nothing.)
 */
static bool
run_piece(struct linematch *lm, size_t id, struct line_ctx *l, size_t i)
{
	const struct pattern *p = lm->rs->patterns[id];

	if (!pattern_live(lm, id) || !pattern_joins(p))
		return false;
	if (lm->exhaustive || pieces_fit_known(l, id, i))
		try_joined(lm, p, l);
	return true;
}

/*
 * A Python frame line: a user's frame becomes the last frame (a copy of the
 * line, in a buffer that is reused: parsed into a struct snap_frame only
 * for a hit and at the end; a Pallas log has a user frame every 25 lines).
 * user: the walk has found it a user's frame already (alone).
 */
static void
run_frame(struct linematch *lm, const struct line_ctx *l, bool user)
{
	struct frame f;

	if (!ingest_parse_py_frame(l->s, l->n, &f) ||
	    (!user && ingest_is_library_path(f.file, f.file_len)))
		return;
	buf_reset(&lm->last_raw);
	buf_add(&lm->last_raw, l->s, l->n);
	/* An error printed before its traceback (JaxStackTraceBeforeTransformation)
	 * takes the deepest user frame of the traceback that follows it. */
	for (size_t i = 0; i < lm->nwaiting; i++)
		snap_set(&lm->ps[lm->waiting[i]].where, &f);
}

static void
run_aux(struct linematch *lm, size_t aux, const struct line_ctx *l)
{
	struct frame f;

	switch (aux) {
	case AUX_PY_FRAME:
		run_frame(lm, l, false);
		break;
	case AUX_TRACEBACK:
		buf_reset(&lm->last_raw);
		for (size_t i = 0; i < lm->nwaiting;)
			if (lm->ps[lm->waiting[i]].where.file)
				lm->waiting[i] = lm->waiting[--lm->nwaiting];
			else
				i++;
		break;
	case AUX_LOC:
		if (!lm->loc_frame.file && ingest_parse_loc(l->s, l->n, &f)) {
			snap_set(&lm->loc_frame, &f);
			lm->settle_due = true;
		}
		break;
	default:
		/* kept in a buffer that is reused: error lines come by thousands */
		buf_reset(&lm->last_error);
		buf_add(&lm->last_error, l->s, l->n < EVIDENCE_MAX_TEXT ? l->n : EVIDENCE_MAX_TEXT);
		lm->last_error_line = l->lineno;
		break;
	}
}

/* What run_aux() does with a frame line that changes nothing. */
static bool
frame_line_quiet(const char *line, size_t len)
{
	size_t n = len, off = ingest_trim(line, &n);
	struct frame f;

	return !ingest_parse_py_frame(line + off, n, &f) || ingest_is_library_path(f.file, f.file_len);
}

void
linematch_finish(struct linematch *lm)
{
	snap_release(&lm->last_frame);
	if (lm->last_raw.len)
		snap_parse(&lm->last_frame, lm->last_raw.data, lm->last_raw.len);
}

/*
 * linematch_skip()'s answers, per thread, for the two sets it was asked
 * about last, the latest first: litset_alone() reads every literal of a
 * set, a scan shares one set across its logs, and a big log's classifier
 * asks for its own set and the scout's twin in turn. litset_id() names a
 * build uniquely in the process, so a freed set's answer is never taken.
 */
static _Thread_local struct frame_answer {
	uint64_t id;                /* the set, or 0 */
	size_t lit;                 /* its literal that is the frame literal alone, or SIZE_MAX */
} pf_frame[2];

static size_t
frame_literal(const struct linematch *lm, const struct litset *pf, const char *frame)
{
	uint64_t id = litset_id(pf);
	struct frame_answer a = { id, SIZE_MAX };
	size_t nids;
	const unsigned *ids;

	if (id && pf_frame[0].id == id)
		return pf_frame[0].lit;
	if (id && pf_frame[1].id == id) {
		a = pf_frame[1];
	} else {
		a.lit = litset_alone(pf, frame, strlen(frame));
		if (a.lit != SIZE_MAX) {
			ids = litset_ids(pf, a.lit, &nids);
			if (nids != 1 || ids[0] != lm->npat + AUX_PY_FRAME)
				a.lit = SIZE_MAX;
		}
	}
	pf_frame[1] = pf_frame[0];
	pf_frame[0] = a;
	return a.lit;
}

struct scout_skip
linematch_skip(const struct linematch *lm, const struct litset *pf)
{
	const char *frame = aux_literals[AUX_PY_FRAME];
	struct scout_skip sk = { SIZE_MAX, frame_line_quiet, "\", line ", ", in " };

	if (!lm->exhaustive)
		sk.lit = frame_literal(lm, pf, frame);
	return sk;
}

/*
 * What can still change the verdict (score_settle()). Quiet patterns stop
 * running, and the prefilter is rebuilt without them once lines go by
 * that run nothing. The frames are needed until a Mosaic loc(...) names
 * the location (it outranks every traceback frame); the last error line
 * until a rule has fired for good (the fingerprint then comes from its
 * key line).
 */
static void
settle(struct linematch *lm)
{
	struct engine_result e = { .rs = lm->rs, .ps = lm->ps,
				  .asserted = lm->asserted, .nasserted = lm->nasserted };
	struct settle st = { .quiet = lm->quiet, .ctx = lm->ctx_state };
	size_t quiet = 0;
	bool frames, error;

	lm->settle_due = false;
	lm->since_settle = 0;
	if (lm->exhaustive)
		return;
	score_settle(&e, &st);
	for (size_t i = 0; i < lm->npat; i++)
		quiet += lm->quiet[i] && !lm->ps[i].hit;
	frames = !lm->loc_frame.file;
	error = !st.rule_fired_final;
	if (quiet != lm->nquiet || frames != lm->need_frames || error != lm->need_error)
		lm->live_gen++;
	lm->nquiet = quiet;
	lm->need_frames = frames;
	lm->need_error = error;
}

/*
 * Patterns stop running after their first hit, or when they can no longer
 * change the verdict, but their literals keep making lines candidates: a
 * tie pattern such as `kernel|pallas` would send every such line of a big
 * log through the candidate path for nothing. After enough wasted
 * candidates, index only the literals still needed (when something changed
 * since the last build: otherwise the set would be the same).
 */
bool
linematch_rebuild(struct linematch *lm, const char *sample, size_t len)
{
	lm->wasted = 0;
	if (lm->live_gen == lm->built_gen)
		return false;
	litset_free(lm->ls);
	lm->ls = linematch_prefilter(lm->rs, lm);
	litset_build(lm->ls, sample, len);
	lm->pf = lm->ls;
	lm->built_gen = lm->live_gen;
	return true;
}

/* Settling costs a pass over the rules; after this many candidate lines it
 * is due again when something hit. */
#define SETTLE_EVERY 256

/* After a candidate line: settle when due; true when the prefilter is worth rebuilding. */
static bool
line_done(struct linematch *lm, bool useful)
{
	if (lm->settle_due && ++lm->since_settle >= SETTLE_EVERY)
		settle(lm);
	if (useful || ++lm->wasted < REBUILD_AFTER_WASTED)
		return false;
	if (lm->settle_due)
		settle(lm);
	return true;
}

/*
 * Every literal occurrence on the line, in one walk of it: each id once
 * into lm->ids (its bit in lm->hits set), and the wrap pieces' places
 * into l->pieces for pieces_fit().
 */
static void
collect(void *arg, size_t lit, size_t pos)
{
	struct line_ctx *l = arg;
	struct linematch *lm = l->lm;
	size_t nids, first = lm->npat + AUX_COUNT;
	const unsigned *ids = litset_ids(lm->pf, lit, &nids);
	bool piece = false;

	for (size_t i = 0; i < nids; i++) {
		unsigned id = ids[i];
		unsigned char bit = (unsigned char)(1u << (id & 7));

		piece |= id >= first;
		if (lm->hits[id >> 3] & bit)
			continue;
		lm->hits[id >> 3] |= bit;
		lm->ids[lm->nids++] = id;
	}
	if (!piece || l->npieces > LINE_MAX_PIECES)
		return;
	if (l->npieces < LINE_MAX_PIECES)
		l->pieces[l->npieces] = (struct piece_at){ lit, pos };
	l->npieces++;
}

/* The ids in increasing order, as a scan of the bitmap gave them. */
static void
sort_ids(size_t *ids, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		size_t v = ids[i], k = i;

		for (; k > 0 && ids[k - 1] > v; k--)
			ids[k] = ids[k - 1];
		ids[k] = v;
	}
}

/* The line's ids and pieces from the memo, as collect() would have set them. */
static void
walk_restore(struct linematch *lm, struct line_ctx *l, const struct line_found *f)
{
	for (size_t i = 0; i < f->nids; i++) {
		lm->hits[f->ids[i] >> 3] |= (unsigned char)(1u << (f->ids[i] & 7));
		lm->ids[i] = f->ids[i];
	}
	lm->nids = f->nids;
	for (size_t k = 0; k < f->npieces; k++)
		l->pieces[k] = (struct piece_at){ f->piece_lit[k], f->piece_pos[k] };
	l->npieces = f->npieces;
	l->fits = f->fits;
	l->fits_known = f->fits_known;
}

/* The walk of a line into the memo, when it fits there and adds something (found: the memo's). */
static void
walk_keep(struct linematch *lm, const struct line_ctx *l, const struct line_found *found)
{
	struct line_found f;

	if (!lm->memo.key.kept || lm->nids > LINE_MEMO_IDS || l->npieces > LINE_MEMO_PIECES ||
	    (found && found->fits_known == l->fits_known))
		return;
	for (size_t i = 0; i < lm->nids; i++)
		if (lm->ids[i] > LINE_MEMO_VALUE)
			return;
	for (size_t k = 0; k < l->npieces; k++)
		if (l->pieces[k].lit > LINE_MEMO_VALUE || l->pieces[k].pos > LINE_MEMO_VALUE)
			return;
	f.nids = (uint16_t)lm->nids;
	f.npieces = (uint16_t)l->npieces;
	f.fits = l->fits;
	f.fits_known = l->fits_known;
	for (size_t i = 0; i < lm->nids; i++)
		f.ids[i] = (uint16_t)lm->ids[i];
	for (size_t k = 0; k < l->npieces; k++) {
		f.piece_lit[k] = (uint16_t)l->pieces[k].lit;
		f.piece_pos[k] = (uint16_t)l->pieces[k].pos;
	}
	line_memo_put(&lm->memo, &f);
}

bool
linematch_line(struct linematch *lm, const struct window *w, size_t start, size_t end,
	       size_t limit, size_t lineno, size_t first, bool alone)
{
	/* Fields set one by one: an initializer would zero the arrays too, a
	 * tenth of the line's own cost, and they are read only up to their counts. */
	struct line_ctx l;
	size_t n = end - start, nids = 0, npat = lm->npat;
	size_t off = ingest_trim(w->buf + start, &n);
	const struct line_found *found;
	bool useful = false;

	l.w = w;
	l.lm = lm;
	l.raw = w->buf + start;
	l.s = w->buf + start + off;
	l.n = n;
	l.lineno = lineno;
	l.start = start;
	l.end = end;
	l.limit = limit;
	l.have_neighbours = false;
	l.nprev = l.nnext = l.npieces = l.nahead = 0;
	l.fits = l.fits_known = 0;
	lm->work++;
	if (alone) {
		/* a user's frame: what the search of the line would come to */
		useful = aux_live(lm, AUX_PY_FRAME);
		if (useful)
			run_frame(lm, &l, true);
		return line_done(lm, useful);
	}
	found = line_memo_get(&lm->memo, litset_id(lm->pf), l.raw, end - start);
	if (found) {
		walk_restore(lm, &l, found);
	} else {
		lm->nids = 0;
		/* the window found no literal before first: the scout's set holds ours */
		litset_line_each_from(lm->pf, w->buf + start, end - start,
				      first > start && first < end ? first - start : 0, collect, &l);
		sort_ids(lm->ids, lm->nids);
	}
	nids = lm->nids;
	/* Patterns first, so an evidence line is tied to the frame seen before it. */
	for (size_t i = 0; i < nids; i++) {
		size_t id = lm->ids[i];

		if (id < npat)
			useful |= run_pattern(lm, id, &l);
		else if (id >= npat + AUX_COUNT &&
			 !(lm->hits[(id - npat - AUX_COUNT) / 8] >> ((id - npat - AUX_COUNT) % 8) & 1))
			useful |= run_piece(lm, id - npat - AUX_COUNT, &l, i);
	}
	for (size_t i = 0; i < lm->rs->nalways; i++)
		run_pattern(lm, lm->rs->always[i], &l);
	for (size_t i = 0; i < nids; i++)
		if (lm->ids[i] >= npat && lm->ids[i] < npat + AUX_COUNT &&
		    aux_live(lm, lm->ids[i] - npat)) {
			run_aux(lm, lm->ids[i] - npat, &l);
			useful = true;
		}
	/* kept after the patterns ran, with what pieces_fit() found */
	walk_keep(lm, &l, found);
	for (size_t i = 0; i < nids; i++)
		lm->hits[lm->ids[i] >> 3] = 0;
	return line_done(lm, useful);
}
