/* SPDX-License-Identifier: MIT */
/*
 * The prefilter's multi-literal matcher; see pt/litset.h for the design.
 *
 * Why every occurrence is found: literal L (length m, folded) indexes the
 * windows L[o+j .. o+j+4) for j = 0..s-1, with 0 <= o <= m - 3 - s. An
 * occurrence at q puts these windows at positions q+o .. q+o+s-1, s
 * consecutive positions that all fit in the buffer; the scan probes every
 * position from + k*s, and exactly one of those s positions is such a probe.
 * The probe finds its window's bit set, the exact table lists (L, o+j) under
 * that window, and the folded compare at q = probe - (o+j) confirms L.
 *
 * Windows are folded with |0x20, which also merges some non-letters ('@'
 * and '`', '[' and '{', control bytes and digits...). That only adds false
 * bitmap hits; the final compare folds A-Z only.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt/litset.h"
#include "pt/xalloc.h"

#define BM_BITS 17
#define STRIDE_MAX 8

struct lit {
	unsigned char *s;    /* folded A-Z -> a-z, NUL-terminated for convenience */
	size_t len;
	unsigned *ids;
	size_t nids, alloc_ids;
	size_t off;          /* first indexed window: L[off .. off+s+3) */
};

struct went {
	uint32_t win;        /* folded window value, as loaded from memory */
	uint32_t lit;        /* index into lits */
	uint32_t off;        /* window offset in the literal */
};

struct litset {
	struct lit *lits;
	size_t nlits, alloc_lits;
	bool built;
	size_t stride;       /* s */
	size_t shortest;     /* 0 while empty */
	size_t maxoff;       /* largest window offset indexed */
	uint8_t bitmap[(1u << BM_BITS) / 8];
	struct went *ents;   /* sorted by win */
	size_t nents;
	/* exact table: open addressing over distinct windows */
	uint32_t *tkey;
	uint32_t *tstart;    /* first entry in ents */
	uint32_t *tcount;    /* 0 = empty slot */
	size_t tmask;
};

static inline unsigned
fold(unsigned c)
{
	return c - 'A' < 26u ? c | 0x20 : c;
}

static inline uint32_t
load_win(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v | 0x20202020u;
}

static inline uint32_t
bm_hash(uint32_t w)
{
	return (w * 0x9E3779B1u) >> (32 - BM_BITS);
}

static inline bool
bm_test(const uint8_t *bm, uint32_t h)
{
	return bm[h >> 3] >> (h & 7) & 1;
}

static inline uint32_t
tab_hash(uint32_t w)
{
	w ^= w >> 15;
	w *= 0x85EBCA6Bu;
	w ^= w >> 13;
	return w;
}

struct litset *
litset_new(void)
{
	return xcalloc(1, sizeof(struct litset));
}

void
litset_free(struct litset *ls)
{
	if (!ls)
		return;
	for (size_t i = 0; i < ls->nlits; i++) {
		free(ls->lits[i].s);
		free(ls->lits[i].ids);
	}
	free(ls->lits);
	free(ls->ents);
	free(ls->tkey);
	free(ls->tstart);
	free(ls->tcount);
	free(ls);
}

static bool
eq_fold(const unsigned char *text, const unsigned char *lit, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (fold(text[i]) != lit[i])
			return false;
	return true;
}

int
litset_add(struct litset *ls, const char *lit, size_t len, unsigned id)
{
	struct lit *l = NULL;

	if (len < LITSET_MIN_LEN || ls->built)
		return -1;
	for (size_t i = 0; i < ls->nlits; i++)
		if (ls->lits[i].len == len && eq_fold((const unsigned char *)lit, ls->lits[i].s, len)) {
			l = &ls->lits[i];
			break;
		}
	if (!l) {
		XGROW(ls->lits, ls->alloc_lits, ls->nlits + 1);
		l = &ls->lits[ls->nlits++];
		memset(l, 0, sizeof(*l));
		l->s = xmalloc(len + 1);
		for (size_t i = 0; i < len; i++)
			l->s[i] = (unsigned char)fold((unsigned char)lit[i]);
		l->s[len] = '\0';
		l->len = len;
		if (ls->shortest == 0 || len < ls->shortest)
			ls->shortest = len;
	}
	for (size_t i = 0; i < l->nids; i++)
		if (l->ids[i] == id)
			return 0;
	XGROW(l->ids, l->alloc_ids, l->nids + 1);
	l->ids[l->nids++] = id;
	return 0;
}

/*
 * Rough frequency of a (lower-case) byte in log text, for the static window
 * cost when there is no sample: letters by English frequency, space most
 * common, punctuation rarer.
 */
static double
byte_weight(unsigned c)
{
	static const char common[] = " etaoinsrhldcumfpgwybvkxjqz";
	const char *p;

	if (c && (p = strchr(common, (int)c)))
		return 30.0 / (double)(p - common + 2);
	if (c >= '0' && c <= '9')
		return 2.0;
	if (strchr("._,:/-=()[]'\"", (int)c) && c)
		return 1.5;
	return 0.3;
}

static double
win_cost(const struct litset *ls, const uint32_t *freq, const unsigned char *w)
{
	uint32_t v = load_win(w);

	if (bm_test(ls->bitmap, bm_hash(v)))
		return 0.0;   /* already set: no new false hits */
	if (freq)
		return (double)freq[bm_hash(v)];
	return byte_weight(w[0]) * byte_weight(w[1]) * byte_weight(w[2]) * byte_weight(w[3]);
}

static int
cmp_len(const void *a, const void *b)
{
	const struct lit *x = *(const struct lit *const *)a, *y = *(const struct lit *const *)b;

	return (x->len > y->len) - (x->len < y->len);
}

static int
cmp_went(const void *a, const void *b)
{
	const struct went *x = a, *y = b;

	if (x->win != y->win)
		return (x->win > y->win) - (x->win < y->win);
	if (x->lit != y->lit)
		return (x->lit > y->lit) - (x->lit < y->lit);
	return (x->off > y->off) - (x->off < y->off);
}

/* Choose each literal's span, fewest choices (shortest) first, greedily. */
static void
choose_spans(struct litset *ls, const uint32_t *freq)
{
	struct lit **order = xmalloc(ls->nlits * sizeof(*order));
	size_t s = ls->stride;

	for (size_t i = 0; i < ls->nlits; i++)
		order[i] = &ls->lits[i];
	qsort(order, ls->nlits, sizeof(*order), cmp_len);
	for (size_t i = 0; i < ls->nlits; i++) {
		struct lit *l = order[i];
		double best = -1.0;

		for (size_t o = 0; o + s + 3 <= l->len; o++) {
			double c = 0.0;

			for (size_t j = 0; j < s; j++)
				c += win_cost(ls, freq, l->s + o + j);
			if (best < 0.0 || c < best) {
				best = c;
				l->off = o;
			}
		}
		for (size_t j = 0; j < s; j++) {
			uint32_t h = bm_hash(load_win(l->s + l->off + j));

			ls->bitmap[h >> 3] |= (uint8_t)(1u << (h & 7));
		}
	}
	free(order);
}

static void
build_table(struct litset *ls)
{
	size_t s = ls->stride, n = 0, distinct = 0, size = 16;

	ls->ents = xmalloc(ls->nlits * s * sizeof(*ls->ents));
	for (size_t i = 0; i < ls->nlits; i++)
		for (size_t j = 0; j < s; j++) {
			struct went *e = &ls->ents[n++];

			e->win = load_win(ls->lits[i].s + ls->lits[i].off + j);
			e->lit = (uint32_t)i;
			e->off = (uint32_t)(ls->lits[i].off + j);
		}
	qsort(ls->ents, n, sizeof(*ls->ents), cmp_went);
	ls->nents = n;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || ls->ents[i].win != ls->ents[i - 1].win)
			distinct++;
	while (size < 2 * distinct)
		size *= 2;
	ls->tkey = xcalloc(size, sizeof(*ls->tkey));
	ls->tstart = xcalloc(size, sizeof(*ls->tstart));
	ls->tcount = xcalloc(size, sizeof(*ls->tcount));
	ls->tmask = size - 1;
	for (size_t i = 0; i < n;) {
		size_t k = i, slot = tab_hash(ls->ents[i].win) & ls->tmask;

		while (k < n && ls->ents[k].win == ls->ents[i].win)
			k++;
		while (ls->tcount[slot])
			slot = (slot + 1) & ls->tmask;
		ls->tkey[slot] = ls->ents[i].win;
		ls->tstart[slot] = (uint32_t)i;
		ls->tcount[slot] = (uint32_t)(k - i);
		i = k;
	}
}

void
litset_build(struct litset *ls, const char *sample, size_t sample_len)
{
	uint32_t *freq = NULL;

	if (ls->built)
		return;
	ls->built = true;
	if (ls->nlits == 0)
		return;
	ls->stride = ls->shortest - 3 < STRIDE_MAX ? ls->shortest - 3 : STRIDE_MAX;
	if (sample && sample_len >= 4) {
		const unsigned char *p = (const unsigned char *)sample;

		freq = xcalloc((size_t)1 << BM_BITS, sizeof(*freq));
		for (size_t i = 0; i + 4 <= sample_len; i++)
			freq[bm_hash(load_win(p + i))]++;
	}
	choose_spans(ls, freq);
	free(freq);
	for (size_t i = 0; i < ls->nlits; i++)
		if (ls->lits[i].off + ls->stride - 1 > ls->maxoff)
			ls->maxoff = ls->lits[i].off + ls->stride - 1;
	build_table(ls);
}

/* The entries indexed under window w: returns their count, *first the first. */
static inline size_t
table_get(const struct litset *ls, uint32_t w, const struct went **first)
{
	size_t slot = tab_hash(w) & ls->tmask;

	while (ls->tcount[slot]) {
		if (ls->tkey[slot] == w) {
			*first = &ls->ents[ls->tstart[slot]];
			return ls->tcount[slot];
		}
		slot = (slot + 1) & ls->tmask;
	}
	return 0;
}

/*
 * The hot loop: the first probe position in [p, end), stepping by s, whose
 * window has its bitmap bit set; end if none. Four probes per branch, as
 * one test per probe costs more than the rare false break.
 */
static inline size_t
probe_s(const uint8_t *bm, const unsigned char *b, size_t p, size_t end, size_t s)
{
	while (p + 3 * s < end) {
		uint32_t h0 = bm_hash(load_win(b + p));
		uint32_t h1 = bm_hash(load_win(b + p + s));
		uint32_t h2 = bm_hash(load_win(b + p + 2 * s));
		uint32_t h3 = bm_hash(load_win(b + p + 3 * s));

		if (bm_test(bm, h0) | bm_test(bm, h1) | bm_test(bm, h2) | bm_test(bm, h3))
			break;
		p += 4 * s;
	}
	for (; p < end; p += s)
		if (bm_test(bm, bm_hash(load_win(b + p))))
			return p;
	return end;
}

/* One copy per stride, so that the compiler sees a constant step. */
static size_t
probe(const struct litset *ls, const unsigned char *b, size_t p, size_t end)
{
	switch (ls->stride) {
	case 1: return probe_s(ls->bitmap, b, p, end, 1);
	case 2: return probe_s(ls->bitmap, b, p, end, 2);
	case 3: return probe_s(ls->bitmap, b, p, end, 3);
	case 4: return probe_s(ls->bitmap, b, p, end, 4);
	case 5: return probe_s(ls->bitmap, b, p, end, 5);
	case 6: return probe_s(ls->bitmap, b, p, end, 6);
	case 7: return probe_s(ls->bitmap, b, p, end, 7);
	default: return probe_s(ls->bitmap, b, p, end, 8);
	}
}

size_t
litset_find(const struct litset *ls, const char *buf, size_t len, size_t from,
	    size_t *lit_index)
{
	const unsigned char *b = (const unsigned char *)buf;
	size_t end, limit, p, best = len, best_lit = 0;

	if (!ls->built || ls->nlits == 0 || len < LITSET_MIN_LEN || from > len - LITSET_MIN_LEN)
		return len;
	end = len - 3;
	limit = end;
	for (p = from; (p = probe(ls, b, p, limit)) < limit; p += ls->stride) {
		const struct went *e;
		size_t n = table_get(ls, load_win(b + p), &e);

		for (size_t i = 0; i < n; i++) {
			const struct lit *l = &ls->lits[e[i].lit];
			size_t q;

			if (e[i].off > p - from)
				continue;
			q = p - e[i].off;
			if (q >= best || l->len > len - q || !eq_fold(b + q, l->s, l->len))
				continue;
			best = q;
			best_lit = e[i].lit;
			/* An earlier start can only be seen by a probe below
			 * best + maxoff; stop after those. */
			if (best + ls->maxoff < limit)
				limit = best + ls->maxoff;
		}
	}
	if (best < len && lit_index)
		*lit_index = best_lit;
	return best;
}

size_t
litset_line_hits(const struct litset *ls, const char *line, size_t len, unsigned char *hits)
{
	const unsigned char *b = (const unsigned char *)line;
	size_t end, p, found = 0;

	if (!ls->built || ls->nlits == 0 || len < LITSET_MIN_LEN)
		return 0;
	end = len - 3;
	for (p = 0; (p = probe(ls, b, p, end)) < end; p += ls->stride) {
		const struct went *e;
		size_t n = table_get(ls, load_win(b + p), &e);

		for (size_t i = 0; i < n; i++) {
			const struct lit *l = &ls->lits[e[i].lit];
			size_t q;

			if (e[i].off > p)
				continue;
			q = p - e[i].off;
			if (l->len > len - q || !eq_fold(b + q, l->s, l->len))
				continue;
			found++;
			for (size_t k = 0; k < l->nids; k++)
				hits[l->ids[k] >> 3] |= (unsigned char)(1u << (l->ids[k] & 7));
		}
	}
	return found;
}

size_t
litset_count(const struct litset *ls)
{
	return ls->nlits;
}

const char *
litset_literal(const struct litset *ls, size_t i, size_t *len)
{
	if (len)
		*len = ls->lits[i].len;
	return (const char *)ls->lits[i].s;
}

const unsigned *
litset_ids(const struct litset *ls, size_t i, size_t *n)
{
	*n = ls->lits[i].nids;
	return ls->lits[i].ids;
}

size_t
litset_shortest(const struct litset *ls)
{
	return ls->shortest;
}

size_t
litset_stride(const struct litset *ls)
{
	return ls->stride;
}
