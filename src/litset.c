/* SPDX-License-Identifier: MIT */
/*
 * The prefilter's multi-literal matcher; see pt/litset.h for the design.
 *
 * Why every occurrence is found: literal L (length m, folded) indexes s
 * windows L[o .. o+4), one for each residue of o mod s (s <= m - 3, so each
 * residue has an o <= m - 4). An occurrence at q >= from puts them at
 * positions q + o, all inside the buffer, and exactly one of those has
 * q + o = from (mod s): a probe. That probe finds its window's bit set, the
 * exact table lists (L, o) under the window, and the folded compare at
 * q = probe - o confirms L.
 *
 * Windows are folded with |0x20, which also merges some non-letters ('@'
 * and '`', '[' and '{', control bytes and digits...). That only adds false
 * bitmap hits; the final compare folds A-Z only.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt/buf.h"
#include "pt/litset.h"
#include "pt/xalloc.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(PT_LITSET_NO_AVX2)
#define PT_LITSET_AVX2 1
#include <immintrin.h>
#else
#define PT_LITSET_AVX2 0
#endif

#define BM_BITS 18
#define STRIDE_MAX 8

struct lit {
	unsigned char *s;    /* folded A-Z -> a-z, NUL-terminated for convenience */
	unsigned char *cased; /* the one spelling that counts; NULL: any case */
	size_t len;
	unsigned *ids;
	size_t nids, alloc_ids;
	uint32_t offs[STRIDE_MAX]; /* indexed windows L[o .. o+4), one per residue mod s */
};

struct went {
	uint32_t win;        /* folded window value, as loaded from memory */
	uint32_t lit;        /* index into lits */
	uint32_t len;        /* the literal's length */
	uint32_t off;        /* window offset in the literal */
	uint32_t chkoff;     /* the literal's folded 4 bytes at chkoff, chk, */
	uint32_t chk;        /* are a cheap first test before the full compare */
};

struct litset {
	struct lit *lits;
	size_t nlits, alloc_lits;
	bool built;
	bool borrowed;       /* loaded in place: the literals and tables point into the caller's bytes */
	uint64_t id;         /* litset_id(), given when built */
	size_t stride;       /* s */
	size_t shortest;     /* 0 while empty */
	size_t maxoff;       /* largest window offset indexed */
	uint32_t bitmap[(1u << BM_BITS) / 32];
	bool avx2;           /* use the AVX2 probe (checked at build time) */
	size_t force_stride; /* litset_tune(): 0 = choose */
	bool force_scalar;
	uint8_t shuf[16];    /* its byte shuffle: which windows one load holds */
	struct went *ents;   /* sorted by win, then by off from the largest */
	size_t nents;
	/* exact table: open addressing over distinct windows */
	uint32_t *tkey;
	uint32_t *tstart;    /* first entry in ents */
	uint32_t *tcount;    /* 0 = empty slot */
	size_t tmask;
	/* literal dedup while adding: open addressing, lit index + 1, 0 = empty;
	 * a linear search made adding n literals cost n^2 compares at startup */
	uint32_t *dedup;
	size_t dedup_mask;
};

/* Ids of built sets, unique in the process: threads build sets at once. */
static atomic_uint_fast64_t last_id;

static uint64_t
new_id(void)
{
	return (uint64_t)atomic_fetch_add(&last_id, 1) + 1;
}

static inline unsigned
fold(unsigned c)
{
	return c - 'A' < 26u ? c | 0x20 : c;
}

#if PT_LITSET_AVX2
static bool
have_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}
#endif

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

/* 0 or 1; not bool, so that probes can be or-ed without short-circuits. */
static inline uint32_t
bm_test(const uint32_t *bm, uint32_t h)
{
	return bm[h >> 5] >> (h & 31) & 1;
}

static inline void
bm_set(uint32_t *bm, uint32_t h)
{
	bm[h >> 5] |= (uint32_t)1 << (h & 31);
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
	if (!ls->borrowed) {
		for (size_t i = 0; i < ls->nlits; i++) {
			free(ls->lits[i].s);
			free(ls->lits[i].cased);
			free(ls->lits[i].ids);
		}
		free(ls->ents);
		free(ls->tkey);
		free(ls->tstart);
		free(ls->tcount);
	}
	free(ls->lits);
	free(ls->dedup);
	free(ls);
}

/* The eight bytes of x with A-Z folded to a-z, in one go: no byte's sum
 * carries into the next, as each is at most 0x7f + 0x3f; zero bytes stay
 * zero, so four bytes fold in the low half. */
static inline uint64_t
fold_word(uint64_t x)
{
	const uint64_t low7 = 0x7F7F7F7F7F7F7F7Fu, high = 0x8080808080808080u;
	uint64_t ge_a = (x & low7) + 0x3F3F3F3F3F3F3F3Fu;    /* high bit: (c & 0x7f) >= 'A' */
	uint64_t gt_z = (x & low7) + 0x2525252525252525u;    /* high bit: (c & 0x7f) > 'Z' */

	return x | (ge_a & ~gt_z & ~x & high) >> 2;
}

static inline uint64_t
fold8(const unsigned char *p)
{
	uint64_t x;

	memcpy(&x, p, 8);
	return fold_word(x);
}

static inline uint32_t
fold4(const unsigned char *p)
{
	uint32_t x;

	memcpy(&x, p, 4);
	return (uint32_t)fold_word(x);
}

/* Does text[0..len) fold to lit (folded already)? Eight bytes at a time:
 * the literals a line holds are compared whole, and some are long; one
 * of 4 to 7 bytes (`File "`, on every frame line) as two words that may
 * overlap. */
static bool
eq_fold(const unsigned char *text, const unsigned char *lit, size_t len)
{
	uint64_t l;
	uint32_t a, b;
	size_t i = 0;

	if (len < 4) {
		for (; i < len; i++)
			if (fold(text[i]) != lit[i])
				return false;
		return true;
	}
	if (len < 8) {
		memcpy(&a, lit, 4);
		memcpy(&b, lit + len - 4, 4);
		return fold4(text) == a && fold4(text + len - 4) == b;
	}
	for (; i + 8 < len; i += 8) {
		memcpy(&l, lit + i, 8);
		if (fold8(text + i) != l)
			return false;
	}
	memcpy(&l, lit + len - 8, 8);
	return fold8(text + len - 8) == l;
}

void
litset_tune(struct litset *ls, size_t stride, bool scalar)
{
	ls->force_stride = stride;
	ls->force_scalar = scalar;
}

/* FNV-1a of the folded literal. */
static uint32_t
fold_hash(const unsigned char *s, size_t len, bool folded)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (folded ? s[i] : fold(s[i]))) * 16777619u;
	return h;
}

static void
dedup_insert(struct litset *ls, uint32_t index)
{
	const struct lit *l = &ls->lits[index];
	size_t i = fold_hash(l->s, l->len, true) & ls->dedup_mask;

	while (ls->dedup[i])
		i = (i + 1) & ls->dedup_mask;
	ls->dedup[i] = index + 1;
}

/* Keep the dedup table at most half full. */
static void
dedup_grow(struct litset *ls)
{
	size_t size = ls->dedup_mask ? (ls->dedup_mask + 1) * 2 : 1024;

	if (ls->dedup && ls->nlits * 2 < ls->dedup_mask + 1)
		return;
	free(ls->dedup);
	ls->dedup = xcalloc(size, sizeof(*ls->dedup));
	ls->dedup_mask = size - 1;
	for (size_t i = 0; i < ls->nlits; i++)
		dedup_insert(ls, (uint32_t)i);
}

/* A literal added again in another spelling, or in any case, counts in any case. */
static void
merge_case(struct lit *l, const char *lit, bool cased)
{
	if (l->cased && (!cased || memcmp(l->cased, lit, l->len) != 0)) {
		free(l->cased);
		l->cased = NULL;
	}
}

static int
add(struct litset *ls, const char *lit, size_t len, unsigned id, bool cased)
{
	struct lit *l = NULL;
	size_t slot;

	if (len < LITSET_MIN_LEN || ls->built)
		return -1;
	dedup_grow(ls);
	slot = fold_hash((const unsigned char *)lit, len, false) & ls->dedup_mask;
	for (; ls->dedup[slot]; slot = (slot + 1) & ls->dedup_mask) {
		struct lit *c = &ls->lits[ls->dedup[slot] - 1];

		if (c->len == len && eq_fold((const unsigned char *)lit, c->s, len)) {
			l = c;
			break;
		}
	}
	if (l) {
		merge_case(l, lit, cased);
	} else {
		XGROW(ls->lits, ls->alloc_lits, ls->nlits + 1);
		l = &ls->lits[ls->nlits++];
		memset(l, 0, sizeof(*l));
		l->s = xmalloc(len + 1);
		for (size_t i = 0; i < len; i++)
			l->s[i] = (unsigned char)fold((unsigned char)lit[i]);
		l->s[len] = '\0';
		l->len = len;
		if (cased) {
			l->cased = xmalloc(len);
			memcpy(l->cased, lit, len);
		}
		if (ls->shortest == 0 || len < ls->shortest)
			ls->shortest = len;
		ls->dedup[slot] = (uint32_t)ls->nlits;
	}
	for (size_t i = 0; i < l->nids; i++)
		if (l->ids[i] == id)
			return 0;
	XGROW(l->ids, l->alloc_ids, l->nids + 1);
	l->ids[l->nids++] = id;
	return 0;
}

int
litset_add(struct litset *ls, const char *lit, size_t len, unsigned id)
{
	return add(ls, lit, len, id, false);
}

int
litset_add_cased(struct litset *ls, const char *lit, size_t len, unsigned id)
{
	return add(ls, lit, len, id, true);
}

/*
 * Rough frequency of a (lower-case) byte in log text, for the static window
 * cost when there is no sample: letters by English frequency (weight 30 /
 * rank, space most common), digits 2, punctuation 1.5, anything else 0.3.
 * A table, since a build weighs every window of every literal.
 */
enum { DIGIT = 100, PUNCT = 101 };
static const unsigned char byte_rank[256] = {
	[' '] = 2, ['e'] = 3, ['t'] = 4, ['a'] = 5, ['o'] = 6, ['i'] = 7, ['n'] = 8,
	['s'] = 9, ['r'] = 10, ['h'] = 11, ['l'] = 12, ['d'] = 13, ['c'] = 14, ['u'] = 15,
	['m'] = 16, ['f'] = 17, ['p'] = 18, ['g'] = 19, ['w'] = 20, ['y'] = 21, ['b'] = 22,
	['v'] = 23, ['k'] = 24, ['x'] = 25, ['j'] = 26, ['q'] = 27, ['z'] = 28, ['0'] = DIGIT,
	['1'] = DIGIT, ['2'] = DIGIT, ['3'] = DIGIT, ['4'] = DIGIT, ['5'] = DIGIT,
	['6'] = DIGIT, ['7'] = DIGIT, ['8'] = DIGIT, ['9'] = DIGIT, ['.'] = PUNCT,
	['_'] = PUNCT, [','] = PUNCT, [':'] = PUNCT, ['/'] = PUNCT, ['-'] = PUNCT,
	['='] = PUNCT, ['('] = PUNCT, [')'] = PUNCT, ['['] = PUNCT, [']'] = PUNCT,
	['\''] = PUNCT, ['\"'] = PUNCT,
};

static double
byte_weight(unsigned c)
{
	unsigned r = byte_rank[c & 0xff];

	return r == DIGIT ? 2.0 : r == PUNCT ? 1.5 : r ? 30.0 / (double)r : 0.3;
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
cmp_went(const void *a, const void *b)
{
	const struct went *x = a, *y = b;

	if (x->win != y->win)
		return (x->win > y->win) - (x->win < y->win);
	/* under one window, the latest offset (the earliest start) first */
	if (x->off != y->off)
		return (x->off < y->off) - (x->off > y->off);
	return (x->lit > y->lit) - (x->lit < y->lit);
}

/*
 * Choose each literal's windows, shortest literals (fewest choices) first:
 * for every residue r mod s, the cheapest window at an offset o = r (mod s).
 * Any s offsets with distinct residues work (an occurrence at q meets a
 * probe at q + o for the o with q + o = from mod s), which leaves long
 * literals much more room than s consecutive windows would.
 */
static void
choose_windows(struct litset *ls, const uint32_t *freq)
{
	struct lit **order = xmalloc(ls->nlits * sizeof(*order));
	size_t s = ls->stride, maxlen = 0, *start;

	/* a stable counting sort by length: the order qsort's merge sort gave,
	 * without its cost on a thousand literals at every start */
	for (size_t i = 0; i < ls->nlits; i++)
		if (ls->lits[i].len > maxlen)
			maxlen = ls->lits[i].len;
	start = xcalloc(maxlen + 2, sizeof(*start));
	for (size_t i = 0; i < ls->nlits; i++)
		start[ls->lits[i].len + 1]++;
	for (size_t n = 1; n <= maxlen + 1; n++)
		start[n] += start[n - 1];
	for (size_t i = 0; i < ls->nlits; i++)
		order[start[ls->lits[i].len]++] = &ls->lits[i];
	free(start);
	for (size_t i = 0; i < ls->nlits; i++) {
		struct lit *l = order[i];

		for (size_t r = 0; r < s; r++) {
			double best = -1.0;

			for (size_t o = r; o + 4 <= l->len; o += s) {
				double c = win_cost(ls, freq, l->s + o);

				if (best < 0.0 || c < best) {
					best = c;
					l->offs[r] = (uint32_t)o;
				}
			}
			bm_set(ls->bitmap, bm_hash(load_win(l->s + l->offs[r])));
			if (l->offs[r] > ls->maxoff)
				ls->maxoff = l->offs[r];
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
			const struct lit *l = &ls->lits[i];
			struct went *e = &ls->ents[n++];

			e->win = load_win(l->s + l->offs[j]);
			e->lit = (uint32_t)i;
			e->len = (uint32_t)l->len;
			e->off = l->offs[j];
			/* Check the bytes away from the window: they still differ
			 * when the window matched. */
			e->chkoff = (uint32_t)(e->off >= 4 ? 0 : l->len - 4);
			e->chk = load_win(l->s + e->chkoff);
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

/*
 * Stride choice. A longer stride means fewer probes, but each literal then
 * has fewer windows per residue to choose from, so more false bitmap hits,
 * and a hit costs far more than a probe. Measured on Zen 3 with ~190
 * literals: 0.6 ns per probe with AVX2 for s <= 4, 0.9 ns above (more loads
 * per 8 probes), 2 ns scalar, about 80 ns per hit. Each allowed stride is
 * tried on (the first EVAL_MAX bytes of) the sample and the cheapest kept.
 */
#define EVAL_MAX ((size_t)1 << 20)
#define SAMPLE_MIN ((size_t)64 << 10)   /* less says little: use the static guess */
#define HIT_NS 80.0

static double
stride_cost(struct litset *ls, const uint32_t *freq, const unsigned char *sample, size_t n,
	    size_t s)
{
	size_t hits = 0, probes = 0;
	double probe_ns = ls->avx2 ? (s <= 4 ? 0.6 : 0.9) : 2.0;

	memset(ls->bitmap, 0, sizeof(ls->bitmap));
	ls->maxoff = 0;
	ls->stride = s;
	choose_windows(ls, freq);
	for (size_t p = 0; p + 4 <= n; p += s, probes++)
		hits += bm_test(ls->bitmap, bm_hash(load_win(sample + p)));
	return (double)probes * probe_ns + (double)hits * HIT_NS;
}

void
litset_build(struct litset *ls, const char *sample, size_t sample_len)
{
	const unsigned char *smp = (const unsigned char *)sample;
	uint32_t *freq = NULL;
	size_t smax, best_s;

	if (ls->built)
		return;
	ls->built = true;
	ls->id = new_id();
	if (ls->nlits == 0)
		return;
#if PT_LITSET_AVX2
	ls->avx2 = !ls->force_scalar && have_avx2();
#endif
	smax = ls->shortest - 3 < STRIDE_MAX ? ls->shortest - 3 : STRIDE_MAX;
	/* Without a sample, a middle course (see stride_cost). */
	best_s = smax < 4 ? smax : 4;
	if (ls->force_stride)
		best_s = ls->force_stride < smax ? ls->force_stride : smax;
	if (smp && sample_len >= SAMPLE_MIN) {
		size_t n = sample_len < EVAL_MAX ? sample_len : EVAL_MAX;
		double best = -1.0;

		freq = xcalloc((size_t)1 << BM_BITS, sizeof(*freq));
		for (size_t i = 0; i + 4 <= sample_len; i++)
			freq[bm_hash(load_win(smp + i))]++;
		for (size_t s = 1; s <= smax && !ls->force_stride; s++) {
			double c = stride_cost(ls, freq, smp, n, s);

			if (best < 0.0 || c < best) {
				best = c;
				best_s = s;
			}
		}
	}
	ls->stride = best_s;
	memset(ls->bitmap, 0, sizeof(ls->bitmap));
	ls->maxoff = 0;
	choose_windows(ls, freq);
	free(freq);
	build_table(ls);
	/* Byte k of the shuffle picks byte shuf[k] of a 16-byte load: windows
	 * at 0, s, 2s, 3s (s <= 4) or at 0 and s (s > 4; 0x80 = zero). */
	for (size_t k = 0; k < 16; k++) {
		size_t w = k / 4, j = k % 4;

		if (ls->stride <= 4)
			ls->shuf[k] = (uint8_t)(w * ls->stride + j);
		else
			ls->shuf[k] = w < 2 ? (uint8_t)(w * ls->stride + j) : 0x80;
	}
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
probe_s(const uint32_t *bm, const unsigned char *b, size_t p, size_t end, size_t s)
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
probe_scalar(const struct litset *ls, const unsigned char *b, size_t p, size_t end)
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

#if PT_LITSET_AVX2
/*
 * The same probes, eight per step, with AVX2 (chosen at run time, so the
 * build needs no -march). Two 16-byte loads (four for s > 4) and a byte
 * shuffle collect the eight windows, one multiply hashes them all, and a
 * gather tests their bits. About twice the scalar speed on Zen 3; gathering
 * the windows themselves instead of shuffling was slower than scalar.
 * Returns the first group p + k*s (k < 8) with a hit and the hits in *mask
 * (bit k), or hands the tail of the buffer to the scalar loop.
 */
/* 16 bytes from lo in the low lane, 16 from hi in the high one. */
__attribute__((target("avx2"))) static inline __m256i
load2(const unsigned char *lo, const unsigned char *hi)
{
	return _mm256_inserti128_si256(_mm256_castsi128_si256(
		_mm_loadu_si128((const __m128i *)lo)), _mm_loadu_si128((const __m128i *)hi), 1);
}

/* The bitmap bits of the eight windows of one group (s <= 4) at q, not yet masked to bit 0. */
__attribute__((target("avx2"))) static inline __m256i
group_bits(const int *bm, const unsigned char *q, size_t s, __m256i shuf, __m256i fold,
	   __m256i mul, __m256i m31)
{
	__m256i w = _mm256_shuffle_epi8(load2(q, q + 4 * s), shuf);
	__m256i h = _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_or_si256(w, fold), mul), 32 - BM_BITS);

	return _mm256_srlv_epi32(_mm256_i32gather_epi32(bm, _mm256_srli_epi32(h, 5), 4),
				 _mm256_and_si256(h, m31));
}

__attribute__((target("avx2"))) static size_t
probe_avx2(const struct litset *ls, const unsigned char *b, size_t p, size_t end, size_t len,
	   unsigned *mask, size_t *n)
{
	const size_t s = ls->stride;
	const __m256i shuf = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)ls->shuf));
	const __m256i fold = _mm256_set1_epi32(0x20202020);
	const __m256i mul = _mm256_set1_epi32((int)0x9E3779B1u);
	const __m256i m31 = _mm256_set1_epi32(31);
	const __m256i one = _mm256_set1_epi32(1);
	const int *bm = (const int *)ls->bitmap;

	/* Four groups (32 probes) per test: the gathers of one step overlap,
	 * where one group per step waited on each (about 13 % more bytes per
	 * second on Zen 3). A hit returns the first group that has one. */
	if (s <= 4)
		while (p + 31 * s < end && p + 28 * s + 16 <= len) {
			__m256i g0 = group_bits(bm, b + p, s, shuf, fold, mul, m31);
			__m256i g1 = group_bits(bm, b + p + 8 * s, s, shuf, fold, mul, m31);
			__m256i g2 = group_bits(bm, b + p + 16 * s, s, shuf, fold, mul, m31);
			__m256i g3 = group_bits(bm, b + p + 24 * s, s, shuf, fold, mul, m31);
			__m256i any = _mm256_and_si256(_mm256_or_si256(_mm256_or_si256(g0, g1),
								       _mm256_or_si256(g2, g3)), one);
			size_t k = 0;

			if (_mm256_testz_si256(any, any)) {
				p += 32 * s;
				continue;
			}
			g0 = _mm256_and_si256(g0, one);
			if (_mm256_testz_si256(g0, g0)) {
				k = 1;
				g0 = _mm256_and_si256(g1, one);
			}
			if (_mm256_testz_si256(g0, g0)) {
				k = 2;
				g0 = _mm256_and_si256(g2, one);
			}
			if (_mm256_testz_si256(g0, g0)) {
				k = 3;
				g0 = _mm256_and_si256(g3, one);
			}
			*mask = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(g0, one)));
			*n = 8;
			return p + 8 * s * k;
		}
	for (;;) {
		__m256i w, h, word, bit;
		unsigned m;

		/* The last group may reach past end (not past the buffer): its
		 * probes from end on are masked off, as scalar probes cost more. */
		if (p >= end)
			break;
		if (s <= 4) {
			if (p + 4 * s + 16 > len)
				break;
			w = load2(b + p, b + p + 4 * s);
			w = _mm256_shuffle_epi8(w, shuf);
		} else {
			__m256i w0, w1;

			if (p + 6 * s + 16 > len)
				break;
			w0 = load2(b + p, b + p + 2 * s);
			w1 = load2(b + p + 4 * s, b + p + 6 * s);
			w = _mm256_unpacklo_epi64(_mm256_shuffle_epi8(w0, shuf),
						  _mm256_shuffle_epi8(w1, shuf));
		}
		w = _mm256_or_si256(w, fold);
		h = _mm256_srli_epi32(_mm256_mullo_epi32(w, mul), 32 - BM_BITS);
		word = _mm256_i32gather_epi32(bm, _mm256_srli_epi32(h, 5), 4);
		bit = _mm256_and_si256(_mm256_srlv_epi32(word, _mm256_and_si256(h, m31)), one);
		if (_mm256_testz_si256(bit, bit)) {
			p += 8 * s;
			continue;
		}
		m = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(bit, one)));
		/* For s > 4 the lanes hold windows 0,1,4,5,2,3,6,7. */
		if (s > 4)
			m = (m & 0xC3) | (m & 0x0C) << 2 | (m & 0x30) >> 2;
		if (p + 7 * s >= end)
			m &= (1u << ((end - p + s - 1) / s)) - 1;
		if (!m) {
			p += 8 * s;
			continue;
		}
		*mask = m;
		*n = 8;
		return p;
	}
	*mask = 1;
	*n = 1;
	return probe_scalar(ls, b, p, end);
}
#endif

/*
 * Probe from p, in the buffer b[0..len) (len >= end + 3): returns the
 * start of a group of *n probes p' + k*s (p' >= p, k < *n) whose hits are
 * the bits of *mask, or end (mask 0 then means nothing) when no probe
 * below end hits.
 */
static inline size_t
probe(const struct litset *ls, const unsigned char *b, size_t p, size_t end, size_t len,
      unsigned *mask, size_t *n)
{
#if PT_LITSET_AVX2
	if (ls->avx2)
		return probe_avx2(ls, b, p, end, len, mask, n);
#endif
	*mask = 1;
	*n = 1;
	return probe_scalar(ls, b, p, end);
}

/*
 * Does the entry's literal occur at b + p - e->off (within [lo, len))? The
 * check word rejects almost every false bitmap hit with one compare.
 */
static inline bool
entry_match(const struct litset *ls, const struct went *e, const unsigned char *b,
	    size_t len, size_t p, size_t lo)
{
	const struct lit *l;
	size_t q;

	if (e->off > p - lo)
		return false;
	q = p - e->off;
	if (e->len > len - q || load_win(b + q + e->chkoff) != e->chk)
		return false;
	l = &ls->lits[e->lit];
	return eq_fold(b + q, l->s, e->len) && (!l->cased || memcmp(b + q, l->cased, e->len) == 0);
}

size_t
litset_find_range(const struct litset *ls, const char *buf, size_t len, size_t from,
		  size_t stop, size_t *lit_index)
{
	const unsigned char *b = (const unsigned char *)buf;
	size_t end, limit, p, n, s = ls->stride, best = len, best_lit = 0;
	unsigned mask;

	if (!ls->built || ls->nlits == 0 || len < LITSET_MIN_LEN || from > len - LITSET_MIN_LEN)
		return len;
	end = len - 3;
	/* A start below stop is seen by a probe below stop + maxoff. */
	limit = stop < end && end - stop > ls->maxoff ? stop + ls->maxoff : end;
	for (p = from; (p = probe(ls, b, p, limit, len, &mask, &n)) < limit; p += n * s) {
		for (; mask; mask &= mask - 1) {
			size_t at = p + (size_t)__builtin_ctz(mask) * s, k;
			const struct went *e;

			if (at >= limit)
				break;
			k = table_get(ls, load_win(b + at), &e);
			/* in order of start: once one is not before best, none is;
			 * a Pallas log's windows list ten literals each */
			for (size_t i = 0; i < k; i++) {
				if (e[i].off > at - from)
					continue;    /* it would start before from */
				if (at - e[i].off >= best)
					break;
				if (!entry_match(ls, &e[i], b, len, at, from))
					continue;
				best = at - e[i].off;
				best_lit = e[i].lit;
				/* An earlier start can only be seen by a probe
				 * below best + maxoff; stop after those. */
				if (best + ls->maxoff < limit)
					limit = best + ls->maxoff;
			}
		}
	}
	if (best >= stop)
		return len;
	if (lit_index)
		*lit_index = best_lit;
	return best;
}

size_t
litset_find(const struct litset *ls, const char *buf, size_t len, size_t from,
	    size_t *lit_index)
{
	return litset_find_range(ls, buf, len, from, len, lit_index);
}

/* Every occurrence of a literal in line[0..len): fn(arg, literal, position). */
static inline size_t
line_each(const struct litset *ls, const char *line, size_t len, size_t from,
	  void (*fn)(void *arg, const struct lit *l, size_t lit, size_t pos), void *arg)
{
	const unsigned char *b = (const unsigned char *)line;
	size_t end, p, n, found = 0;
	unsigned mask;

	if (!ls->built || ls->nlits == 0 || len < LITSET_MIN_LEN)
		return 0;
	end = len - 3;
	/* an occurrence at or after from is probed at or after from + its window's
	 * offset; on the stride's grid from 0, so that the windows are the same */
	from -= from % ls->stride;
	for (p = from; (p = probe(ls, b, p, end, len, &mask, &n)) < end; p += n * ls->stride) {
		for (; mask; mask &= mask - 1) {
			size_t at = p + (size_t)__builtin_ctz(mask) * ls->stride;
			const struct went *e;
			size_t k = table_get(ls, load_win(b + at), &e);

			for (size_t i = 0; i < k; i++) {
				if (!entry_match(ls, &e[i], b, len, at, 0))
					continue;
				found++;
				fn(arg, &ls->lits[e[i].lit], e[i].lit, at - e[i].off);
			}
		}
	}
	return found;
}

static void
set_bits(void *arg, const struct lit *l, size_t lit, size_t pos)
{
	unsigned char *hits = arg;

	(void)lit;
	(void)pos;
	for (size_t j = 0; j < l->nids; j++)
		hits[l->ids[j] >> 3] |= (unsigned char)(1u << (l->ids[j] & 7));
}

size_t
litset_line_hits(const struct litset *ls, const char *line, size_t len, unsigned char *hits)
{
	return line_each(ls, line, len, 0, set_bits, hits);
}

struct each_arg {
	void (*fn)(void *arg, size_t lit, size_t pos);
	void *arg;
};

static void
call_each(void *arg, const struct lit *l, size_t lit, size_t pos)
{
	const struct each_arg *a = arg;

	(void)l;
	a->fn(a->arg, lit, pos);
}

size_t
litset_line_each_from(const struct litset *ls, const char *line, size_t len, size_t from,
		      void (*fn)(void *arg, size_t lit, size_t pos), void *arg)
{
	struct each_arg a = { fn, arg };

	return line_each(ls, line, len, from, call_each, &a);
}

size_t
litset_line_each(const struct litset *ls, const char *line, size_t len,
		 void (*fn)(void *arg, size_t lit, size_t pos), void *arg)
{
	return litset_line_each_from(ls, line, len, 0, fn, arg);
}

size_t
litset_alone(const struct litset *ls, const char *text, size_t len)
{
	size_t at = SIZE_MAX;
	unsigned first = len ? fold((unsigned char)text[0]) : 0;

	for (size_t i = 0; i < ls->nlits && len; i++) {
		const struct lit *l = &ls->lits[i];
		size_t common = l->len < len ? l->len : len, k = 1;

		if (l->s[0] != first)
			continue;
		while (k < common && l->s[k] == fold((unsigned char)text[k]))
			k++;
		if (k < common)
			continue;
		if (l->len != len)
			return SIZE_MAX;    /* one is a prefix of the other */
		at = i;
	}
	return at;
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
litset_longest(const struct litset *ls)
{
	size_t longest = 0;

	for (size_t i = 0; i < ls->nlits; i++)
		if (ls->lits[i].len > longest)
			longest = ls->lits[i].len;
	return longest;
}

bool
litset_has_byte(const struct litset *ls, unsigned char byte)
{
	unsigned char folded = (unsigned char)fold(byte);

	for (size_t i = 0; i < ls->nlits; i++)
		if (memchr(ls->lits[i].s, folded, ls->lits[i].len))
			return true;
	return false;
}

uint64_t
litset_id(const struct litset *ls)
{
	return ls->id;
}

size_t
litset_stride(const struct litset *ls)
{
	return ls->stride;
}

bool
litset_sample_matters(size_t sample_len)
{
	return sample_len >= SAMPLE_MIN;
}

/* ---- a built set as bytes (the rules cache) ---- */

#define SAVE_MAGIC 0x5445534cu   /* "LSET" */

static void
put_u32(struct buf *b, uint32_t v)
{
	buf_add(b, &v, sizeof(v));
}

static void
put_u32s(struct buf *b, const uint32_t *v, size_t n)
{
	if (n)
		buf_add(b, v, n * sizeof(*v));
}

/*
 * Every table starts at a multiple of 4 bytes from the set's first byte,
 * and every literal is saved with its NUL, so that litset_load_in_place()
 * can use them where they lie.
 */
static void
put_pad(struct buf *b, size_t start)
{
	static const char zeros[4];

	buf_add(b, zeros, (4 - (b->len - start) % 4) % 4);
}

void
litset_save(const struct litset *ls, struct buf *b)
{
	size_t size = ls->tkey ? ls->tmask + 1 : 0, start = b->len;

	put_u32(b, SAVE_MAGIC);
	put_u32(b, (uint32_t)ls->nlits);
	put_u32(b, (uint32_t)ls->stride);
	put_u32(b, (uint32_t)ls->shortest);
	put_u32(b, (uint32_t)ls->maxoff);
	put_u32(b, (uint32_t)ls->nents);
	put_u32(b, (uint32_t)size);
	buf_add(b, ls->shuf, sizeof(ls->shuf));
	buf_add(b, ls->bitmap, sizeof(ls->bitmap));
	for (size_t i = 0; i < ls->nlits; i++) {
		const struct lit *l = &ls->lits[i];

		put_pad(b, start);
		put_u32(b, (uint32_t)l->len);
		put_u32(b, (uint32_t)l->nids);
		put_u32(b, l->cased != NULL);
		put_u32s(b, l->offs, ls->stride);	/* the rest are unused */
		buf_add(b, l->s, l->len + 1);
		if (l->cased) {
			buf_add(b, l->cased, l->len);
			buf_add(b, "", 1);
		}
		put_pad(b, start);
		if (l->nids)
			buf_add(b, l->ids, l->nids * sizeof(*l->ids));
	}
	put_pad(b, start);
	if (ls->nents)
		buf_add(b, ls->ents, ls->nents * sizeof(*ls->ents));
	put_u32s(b, ls->tkey, size);
	put_u32s(b, ls->tstart, size);
	put_u32s(b, ls->tcount, size);
}

struct rd {
	const unsigned char *start, *p, *end;
	bool bad;
	bool in_place;              /* get_table() points into the bytes instead of copying */
};

static const void *
take(struct rd *r, size_t n)
{
	const void *at = r->p;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return NULL;
	}
	r->p += n;
	return at;
}

static uint32_t
get_u32(struct rd *r)
{
	const void *at = take(r, sizeof(uint32_t));
	uint32_t v = 0;

	if (at)
		memcpy(&v, at, sizeof(v));
	return v;
}

static bool
get_into(struct rd *r, void *out, size_t n)
{
	const void *at = take(r, n);

	if (at)
		memcpy(out, at, n);
	return at != NULL;
}

/* The zero bytes put_pad() wrote. */
static void
skip_pad(struct rd *r)
{
	size_t n = (size_t)(r->start - r->p) & 3;	/* to the next multiple of 4 */
	const unsigned char *at = take(r, n);

	for (size_t i = 0; at && i < n; i++)
		if (at[i])
			r->bad = true;
}

/*
 * n bytes, then a NUL when `nul`: in place, or in a new buffer (one byte
 * more, zeroed, so that strings end); NULL when short or the NUL is not there.
 */
static void *
get_table(struct rd *r, size_t n, bool nul)
{
	const unsigned char *at = take(r, n + nul);
	unsigned char *c;

	if (!at || (nul && at[n])) {
		r->bad = true;
		return NULL;
	}
	if (r->in_place)
		return (void *)at;	/* never written: a built set is read-only */
	c = xmalloc(n + 1);
	memcpy(c, at, n);
	c[n] = 0;
	return c;
}

static bool
lit_sane(const struct lit *l, size_t stride)
{
	if (l->len < LITSET_MIN_LEN || l->len > (1u << 20) || l->len < stride + 3)
		return false;
	for (size_t r = 0; r < stride; r++)
		if (l->offs[r] + 4 > l->len || l->offs[r] % stride != r)
			return false;
	return true;
}

/*
 * Every index a probe or a compare follows stays inside the set, the
 * largest offset is the one the probes allow for, and the table has an
 * empty slot to end a lookup.
 */
static bool
tables_sane(const struct litset *ls, size_t size)
{
	size_t maxoff = 0, empty = 0;

	for (size_t i = 0; i < ls->nlits; i++)
		for (size_t r = 0; r < ls->stride; r++)
			if (ls->lits[i].offs[r] > maxoff)
				maxoff = ls->lits[i].offs[r];
	if (maxoff != ls->maxoff)
		return false;
	for (size_t i = 0; i < ls->nents; i++) {
		const struct went *e = &ls->ents[i];

		if (e->lit >= ls->nlits || e->len != ls->lits[e->lit].len || e->off + 4 > e->len ||
		    e->chkoff + 4 > e->len || e->off > ls->maxoff)
			return false;
	}
	for (size_t k = 0; k < size; k++) {
		if (ls->tstart[k] > ls->nents || ls->tcount[k] > ls->nents - ls->tstart[k])
			return false;
		empty += ls->tcount[k] == 0;
	}
	return size == 0 || empty > 0;
}

static bool
ids_below(const unsigned *ids, size_t n, unsigned id_limit)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] >= id_limit)
			return false;
	return true;
}

static bool
get_lits(struct rd *r, struct litset *ls, unsigned id_limit)
{
	for (size_t i = 0; i < ls->nlits && !r->bad; i++) {
		struct lit *l = &ls->lits[i];
		const unsigned char *head;
		uint32_t f[3];
		bool cased;

		skip_pad(r);
		/* length, id count, cased, then one offset per residue: one bounds check for all */
		if (!(head = take(r, sizeof(f) + ls->stride * sizeof(uint32_t))))
			return false;
		memcpy(f, head, sizeof(f));
		memcpy(l->offs, head + sizeof(f), ls->stride * sizeof(uint32_t));
		l->len = f[0];
		l->nids = l->alloc_ids = f[1];
		cased = f[2] != 0;
		if (!lit_sane(l, ls->stride) ||
		    l->nids > (size_t)(r->end - r->p) / sizeof(unsigned))
			return false;
		l->s = get_table(r, l->len, true);
		l->cased = cased ? get_table(r, l->len, true) : NULL;
		skip_pad(r);
		l->ids = get_table(r, l->nids * sizeof(unsigned), false);
		if (ls->shortest == 0 || l->len < ls->shortest ||
		    (l->ids && !ids_below(l->ids, l->nids, id_limit)))
			return false;
	}
	return !r->bad;
}

static struct litset *
load(const void *data, size_t len, unsigned id_limit, bool in_place)
{
	struct rd r = { data, data, (const unsigned char *)data + len, false, in_place };
	struct litset *ls = litset_new();
	size_t nlits, size;

	if (get_u32(&r) != SAVE_MAGIC)
		goto bad;
	nlits = get_u32(&r);
	ls->stride = get_u32(&r);
	ls->shortest = get_u32(&r);
	ls->maxoff = get_u32(&r);
	ls->nents = get_u32(&r);
	size = get_u32(&r);
	if (!get_into(&r, ls->shuf, sizeof(ls->shuf)) || !get_into(&r, ls->bitmap, sizeof(ls->bitmap)))
		goto bad;
	/* an empty set is built with stride 0 and no table */
	if (nlits ? ls->stride < 1 || ls->stride > STRIDE_MAX || size < 2 : ls->stride || size)
		goto bad;
	if ((size & (size - 1)) || ls->nents != nlits * ls->stride || nlits > len || size > len)
		goto bad;
	/* litset_free() walks nlits entries: they exist, zeroed, before it is set */
	ls->lits = xcalloc(nlits + 1, sizeof(*ls->lits));
	ls->nlits = ls->alloc_lits = nlits;
	ls->borrowed = in_place;
	if (!get_lits(&r, ls, id_limit))
		goto bad;
	skip_pad(&r);
	ls->ents = get_table(&r, ls->nents * sizeof(*ls->ents), false);
	if (size) {	/* none for an empty set, as its build leaves it */
		ls->tkey = get_table(&r, size * sizeof(uint32_t), false);
		ls->tstart = get_table(&r, size * sizeof(uint32_t), false);
		ls->tcount = get_table(&r, size * sizeof(uint32_t), false);
		ls->tmask = size - 1;
	}
	if (r.bad || r.p != r.end || !tables_sane(ls, size))
		goto bad;
	ls->built = true;
	ls->id = new_id();
#if PT_LITSET_AVX2
	ls->avx2 = have_avx2();
#endif
	return ls;
bad:
	litset_free(ls);
	return NULL;
}

struct litset *
litset_load(const void *data, size_t len, unsigned id_limit)
{
	return load(data, len, id_limit, false);
}

struct litset *
litset_load_in_place(const void *data, size_t len, unsigned id_limit)
{
	if ((uintptr_t)data % 4)
		return NULL;
	return load(data, len, id_limit, true);
}
