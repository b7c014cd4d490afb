/* SPDX-License-Identifier: MIT */
/*
 * Block legality on the Pallas GPU backends and the nearest legal shapes;
 * see pt/gpu_block.h for the rules and their sources.
 */
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/gpu_block.h"
#include "pt/xalloc.h"

#define TMA_BOX_MAX 256         /* elements per dimension of one TMA copy window */
#define TMA_RANK_MAX 5
#define TILE_ROWS 8             /* the second-minor of the (8, swizzle_elems) SMEM tile */
#define WGMMA_M 64              /* Hopper's fixed M instruction shape */
#define MMA_N_UNIT 8
#define MMA_N_MAX 256
#define TCGEN05_N_WIDE 512      /* the only N above 256 tcgen05 takes */
#define CAND_MAX 16             /* candidate values per varied dimension */
#define COMBO_MAX 4096          /* shapes tried for proposals */

int
gpu_role_parse(const char *s, enum gpu_role *out)
{
	static const char *const names[] = { "lhs", "rhs", "acc" };

	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum gpu_role)(i + 1);
			return 0;
		}
	return -1;
}

const char *
gpu_role_name(enum gpu_role r)
{
	static const char *const names[] = { "none", "lhs", "rhs", "acc" };

	return r <= GPU_ROLE_ACC ? names[r] : "?";
}

static bool
is_pow2(long long x)
{
	return x > 0 && (x & (x - 1)) == 0;
}

int
gpu_find_swizzle(long long minor, int bits)
{
	static const int sizes[] = { 128, 64, 32, 16 };
	unsigned long long b = (unsigned long long)minor * (unsigned)bits;

	if (b % 8)
		return 0;
	for (size_t i = 0; i < 4; i++)
		if ((b / 8) % (unsigned)sizes[i] == 0)
			return sizes[i];
	return 0;
}

static void PT_PRINTF(4, 5)
add(struct gpu_block_check *c, const char *id, bool ok, const char *fmt, ...)
{
	struct gpu_finding *f;
	va_list ap;

	if (!ok)
		c->legal = false;
	if (c->nf == GPU_MAX_FINDINGS)
		return;
	f = &c->f[c->nf++];
	f->id = id;
	f->ok = ok;
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
}

/* ---- Pallas Triton ---- */

static void
judge_triton(const struct shape *s, const struct gpu_block_rule *r, struct gpu_block_check *c)
{
	bool all = true;

	for (int i = 0; i < s->rank; i++)
		if (!is_pow2(s->dims[i])) {
			all = false;
			add(c, "power-of-two", false, "%lld: not a power of two, so the block's %llu "
			    "elements are not either; the Pallas Triton lowering refuses loads and "
			    "stores of it", s->dims[i], c->elements);
		}
	if (all)
		add(c, "power-of-two", true, "every dimension is a power of two: %llu elements per "
		    "load and store", c->elements);
	if (r->role == GPU_ROLE_NONE)
		return;
	if (s->rank != 2) {
		add(c, "dot-rank", false, "a dot operand must be 2-D in the Triton lowering; put "
		    "batch dimensions on the grid");
		return;
	}
	if (r->bits == 64) {
		/* lhs (M, K), rhs (K, N), acc (M, N): M >= 16, N >= 8, K >= 16 */
		long long need1 = r->role == GPU_ROLE_LHS ? 16 : 8;
		bool ok = s->dims[0] >= 16 && s->dims[1] >= need1;

		add(c, "f64-dot-tile", ok, "a float64 dot needs M >= 16, N >= 8, K >= 16 (Triton's "
		    "MMAv2 layout); this %s block is (%lld, %lld)", gpu_role_name(r->role),
		    s->dims[0], s->dims[1]);
	}
}

/* ---- Pallas Mosaic GPU ---- */

/* The swizzle the MMA rules use: the given one, else plgpu.find_swizzle's. */
static int
mma_swizzle(const struct shape *s, const struct gpu_block_rule *r, struct gpu_block_check *c)
{
	int sw = r->swizzle;

	if (!sw) {
		sw = gpu_find_swizzle(s->dims[s->rank - 1], r->bits);
		c->swizzle_suggested = true;
	}
	c->swizzle = sw;
	return sw;
}

static void
judge_mma_n(struct gpu_block_check *c, const struct gpu_block_rule *r, long long n)
{
	bool wide = r->mma && strcmp(r->mma, "tcgen05") == 0;
	bool ok = n % MMA_N_UNIT == 0 && (n <= MMA_N_MAX || (wide && n == TCGEN05_N_WIDE));

	add(c, wide ? "tcgen05-n" : "wgmma-n", ok, "N %lld: %s multiple of 8 and at most 256%s, as "
	    "%s needs", n, ok ? "a" : "not a", wide ? " (or exactly 512)" : "",
	    wide ? "tcgen05" : "WGMMA");
}

static void
judge_mma_m(struct gpu_block_check *c, const struct gpu_block_rule *r, long long m)
{
	bool ok;

	if (strcmp(r->mma, "tcgen05") == 0) {
		ok = m == 64 || m == 128;
		add(c, "tcgen05-m", ok, "M %lld: %s64 or 128, the M tcgen05 takes per CTA", m,
		    ok ? "" : "not ");
	} else {
		ok = m % WGMMA_M == 0;
		add(c, "wgmma-m", ok, "M %lld: %s multiple of 64, Hopper's fixed M instruction shape "
		    "for WGMMA", m, ok ? "a" : "not a");
	}
}

static void
judge_mma_k(struct gpu_block_check *c, const struct gpu_block_rule *r, const struct shape *s,
	    long long k)
{
	int sw = mma_swizzle(s, r, c);
	long long unit;

	if (sw < 32) {
		add(c, "mma-swizzle", false, "the minor %lld (%lld bytes) allows no 32, 64 or "
		    "128-byte swizzle, and MMA operands in SMEM need one", s->dims[s->rank - 1],
		    s->dims[s->rank - 1] * r->bits / 8);
		return;
	}
	unit = (long long)sw * 8 / r->bits;
	add(c, "mma-k", k % unit == 0, "K %lld: %s multiple of %lld, the %d-byte swizzle over "
	    "%d-bit elements", k, k % unit == 0 ? "a" : "not a", unit, sw, r->bits);
}

static void
judge_role(const struct shape *s, const struct gpu_block_rule *r, struct gpu_block_check *c)
{
	long long d0, d1;

	if (r->role == GPU_ROLE_NONE || !r->mma || strcmp(r->mma, "mma") == 0)
		return;
	if (s->rank != 2) {
		add(c, "mma-rank", false, "an MMA operand is 2-D; this block has %d dimensions",
		    s->rank);
		return;
	}
	d0 = s->dims[0];
	d1 = s->dims[1];
	switch (r->role) {
	case GPU_ROLE_LHS:              /* (M, K) */
		judge_mma_m(c, r, d0);
		judge_mma_k(c, r, s, d1);
		break;
	case GPU_ROLE_RHS:              /* (K, N) */
		judge_mma_k(c, r, s, d0);
		judge_mma_n(c, r, d1);
		break;
	case GPU_ROLE_ACC:              /* (M, N), in registers or TMEM */
		judge_mma_m(c, r, d0);
		judge_mma_n(c, r, d1);
		break;
	case GPU_ROLE_NONE:
		break;
	}
}

static void
judge_window(const struct shape *s, int se, bool tiled, struct gpu_block_check *c)
{
	long long worst = 0;

	for (int i = 0; i < s->rank; i++) {
		long long w = s->dims[i];

		if (tiled && i == s->rank - 1)
			w = w / se > se ? w / se : se;
		else if (tiled && i == s->rank - 2)
			w = w / TILE_ROWS > TILE_ROWS ? w / TILE_ROWS : TILE_ROWS;
		if (w > worst)
			worst = w;
	}
	if (worst <= TMA_BOX_MAX)
		add(c, "tma-window", true, "every TMA window dimension is at most 256 elements%s",
		    tiled ? " after the (8, swizzle) tiling" : "");
	else if (tiled)
		add(c, "tma-window", false, "a tiled dimension of %lld exceeds the 256 elements a TMA "
		    "copy window allows", worst);
	else
		add(c, "tma-window", false, "a dimension of %lld exceeds the 256 elements a TMA copy "
		    "window allows; a tiling transform (a swizzle) splits it into tiles", worst);
}

static void
judge_mosaic(const struct shape *s, const struct gpu_block_rule *r, struct gpu_block_check *c)
{
	long long minor = s->dims[s->rank - 1];
	unsigned long long mbits = (unsigned long long)minor * (unsigned)r->bits;
	bool sw_ok = r->swizzle == 32 || r->swizzle == 64 || r->swizzle == 128;
	bool tiled = false;
	int se = 0;

	if (s->rank > TMA_RANK_MAX)
		add(c, "tma-rank", false, "%d dimensions: a TMA copy takes at most 5", s->rank);
	add(c, "minor-16-bytes", mbits % 128 == 0, "minor %lld: %llu bytes, %s multiple of 16 bytes "
	    "(TMA moves the last dimension in 16-byte units: %d elements of %d bits)", minor,
	    mbits / 8 + (mbits % 8 != 0), mbits % 128 == 0 ? "a" : "not a", 128 / r->bits, r->bits);
	add(c, "block-128-bytes", c->bytes % 128 == 0 && c->bytes >= 128, "the block is %llu bytes, "
	    "%s multiple of the 128 bytes a warpgroup copies at a time", c->bytes,
	    c->bytes % 128 == 0 && c->bytes >= 128 ? "a" : "not a");
	if (r->swizzle && !sw_ok)
		add(c, "swizzle", false, "swizzle %d: Mosaic GPU accepts only 32, 64 and 128",
		    r->swizzle);
	if (sw_ok) {
		bool rows = s->rank < 2 || s->dims[s->rank - 2] % TILE_ROWS == 0;

		se = r->swizzle * 8 / r->bits;
		add(c, "swizzle-tile", minor % se == 0, "minor %lld: %s multiple of %d, the tile of a "
		    "%d-byte swizzle (plgpu.TilingTransform((8, %d)))", minor,
		    minor % se == 0 ? "a" : "not a", se, r->swizzle, se);
		if (s->rank >= 2)
			add(c, "tile-rows", rows, "second-minor %lld: %s multiple of the tiling's 8 rows",
			    s->dims[s->rank - 2], rows ? "a" : "not a");
		tiled = minor % se == 0 && rows && s->rank >= 2;
		c->swizzle = r->swizzle;
	}
	judge_window(s, se, tiled, c);
	judge_role(s, r, c);
}

static void
judge(const struct shape *s, const struct gpu_block_rule *r, struct gpu_block_check *c)
{
	memset(c, 0, sizeof(*c));
	c->legal = true;
	if (s->rank == 0 || s->ellipsis || r->bits <= 0) {
		add(c, "shape", false, "the block needs its dimensions spelled out");
		return;
	}
	c->elements = shape_elements(s);
	c->bytes = (c->elements * (unsigned)r->bits + 7) / 8;
	if (r->triton)
		judge_triton(s, r, c);
	else
		judge_mosaic(s, r, c);
}

/* ---- proposals ---- */

struct cands {
	long long v[CAND_MAX];
	size_t n;
};

static void
cand_add(struct cands *k, long long v)
{
	if (v < 1 || k->n == CAND_MAX)
		return;
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i] == v)
			return;
	k->v[k->n++] = v;
}

static void
cand_multiples(struct cands *k, long long x, long long unit)
{
	if (unit < 1)
		return;
	cand_add(k, x / unit * unit);
	cand_add(k, (x + unit - 1) / unit * unit);
}

static long long
pow2_floor(long long x)
{
	long long p = 1;

	while (p * 2 <= x)
		p *= 2;
	return p;
}

/* Values worth trying for dim i; n == 0 means keep it. */
static void
candidates(const struct shape *s, int i, const struct gpu_block_rule *r, struct cands *k)
{
	long long x = s->dims[i], f = pow2_floor(x);
	bool minor = i == s->rank - 1, second = i == s->rank - 2;

	k->n = 0;
	if (r->triton) {
		if (!is_pow2(x)) {
			cand_add(k, f);
			cand_add(k, f * 2);
		}
		if (r->role != GPU_ROLE_NONE && r->bits == 64 && x < 16)
			cand_add(k, 16);
		return;
	}
	if (!minor && !second) {
		if (x > TMA_BOX_MAX)
			cand_add(k, TMA_BOX_MAX);
		return;
	}
	cand_add(k, x);
	for (int bytes = 16; bytes <= 128 && minor; bytes *= 2)
		cand_multiples(k, x, (long long)bytes * 8 / r->bits);
	if (second) {
		cand_multiples(k, x, TILE_ROWS);
		cand_multiples(k, x, WGMMA_M);
		cand_add(k, 64);
		cand_add(k, 128);
	}
	if (minor)
		cand_multiples(k, x, MMA_N_UNIT);
	if (x > TMA_BOX_MAX)
		cand_add(k, TMA_BOX_MAX);
}

static double
distance(const struct shape *a, const struct shape *b, bool *all_up)
{
	double d = 0;

	*all_up = true;
	for (int i = 0; i < a->rank; i++) {
		if (b->dims[i] < a->dims[i])
			*all_up = false;
		/* the ratio, not the difference: 8 -> 16 is as far as 128 -> 256 */
		d += b->dims[i] > a->dims[i] ? (double)b->dims[i] / (double)a->dims[i] - 1
					     : (double)a->dims[i] / (double)b->dims[i] - 1;
	}
	return d;
}

struct scored {
	struct shape s;
	double d;
	bool up;
};

static int
scored_cmp(const void *pa, const void *pb)
{
	const struct scored *a = pa, *b = pb;

	if (a->d != b->d)
		return a->d < b->d ? -1 : 1;
	return memcmp(a->s.dims, b->s.dims, sizeof(a->s.dims));
}

static void
propose(const struct shape *s, const struct gpu_block_rule *r, struct gpu_block_check *out)
{
	struct cands k[SHAPE_MAX_RANK];
	struct scored *found;
	size_t nfound = 0, total = 1, best_up = SIZE_MAX;

	for (int i = 0; i < s->rank; i++) {
		candidates(s, i, r, &k[i]);
		if (k[i].n)
			total *= k[i].n;
		if (total > COMBO_MAX)
			return;
	}
	found = xcalloc(total, sizeof(*found));
	for (size_t combo = 0; combo < total; combo++) {
		struct gpu_block_check c;
		struct shape t = *s;
		size_t rest = combo;

		for (int i = 0; i < s->rank; i++)
			if (k[i].n) {
				t.dims[i] = k[i].v[rest % k[i].n];
				rest /= k[i].n;
			}
		if (shape_equal(&t, s))
			continue;
		judge(&t, r, &c);
		if (!c.legal)
			continue;
		found[nfound].s = t;
		found[nfound].d = distance(s, &t, &found[nfound].up);
		nfound++;
	}
	qsort(found, nfound, sizeof(*found), scored_cmp);
	for (size_t i = 0; i < nfound; i++)
		if (found[i].up) {
			best_up = i;
			break;
		}
	if (best_up != SIZE_MAX)
		out->props[out->nprops++] = found[best_up].s;
	for (size_t i = 0; i < nfound && out->nprops < BLOCK_MAX_PROPOSALS; i++)
		if (i != best_up)
			out->props[out->nprops++] = found[i].s;
	free(found);
}

void
gpu_block_check(const struct shape *block, const struct gpu_block_rule *r,
		struct gpu_block_check *out)
{
	judge(block, r, out);
	if (!out->legal && block->rank > 0 && !block->ellipsis && r->bits > 0)
		propose(block, r, out);
}
