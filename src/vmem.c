/* SPDX-License-Identifier: MIT */
/*
 * VMEM working set, budget, bisection and limit proposal; see pt/vmem.h.
 * Pure: callers print. All byte arithmetic is checked against
 * VMEM_MAX_BYTES, so absurd shapes become errors instead of wrapping.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pt/chips.h"
#include "pt/vmem.h"

/* ---- sizes ---- */

static int
suffix_shift(const char *s, int *shift)
{
	static const struct { const char *name; int shift; } units[] = {
		{ "", 0 }, { "b", 0 },
		{ "k", 10 }, { "kb", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mb", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gb", 30 }, { "gib", 30 },
		{ "t", 40 }, { "tb", 40 }, { "tib", 40 },
	};

	while (isspace((unsigned char)*s))
		s++;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (strcasecmp(s, units[i].name) == 0) {
			*shift = units[i].shift;
			return 0;
		}
	return -1;
}

int
vmem_parse_size(const char *s, unsigned long long *out)
{
	char num[64];
	size_t n = 0, digits = 0;
	int shift;
	double v;

	if (!s)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	while ((isdigit((unsigned char)s[n]) || s[n] == '.') && n + 1 < sizeof(num)) {
		digits += isdigit((unsigned char)s[n]) ? 1 : 0;
		num[n] = s[n];
		n++;
	}
	num[n] = '\0';
	if (!digits || strchr(num, '.') != strrchr(num, '.') || suffix_shift(s + n, &shift) < 0)
		return -1;
	v = strtod(num, NULL) * (double)(1ULL << shift) + 0.5;
	if (!(v < (double)VMEM_MAX_BYTES))
		return -1;
	*out = (unsigned long long)v;
	return 0;
}

void
vmem_format_size(unsigned long long b, struct buf *out)
{
	static const struct { unsigned long long unit; const char *name; } units[] = {
		{ 1ULL << 30, "GiB" }, { 1ULL << 20, "MiB" }, { 1ULL << 10, "KiB" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (b < units[i].unit)
			continue;
		if (b % units[i].unit == 0)
			buf_addf(out, "%llu %s", b / units[i].unit, units[i].name);
		else
			buf_addf(out, "%.2f %s", (double)b / (double)units[i].unit, units[i].name);
		return;
	}
	buf_addf(out, "%llu B", b);
}

/* ---- the working set ---- */

static bool
mul_ok(unsigned long long a, unsigned long long b, unsigned long long *out)
{
	if (a && b > VMEM_MAX_BYTES / a)
		return false;
	*out = a * b;
	return true;
}

/* 1-D memrefs are tiled by packing x 128 elements, twice that before gen 4 (JAX infer_tiling). */
static long long
tile1d(const struct chip *c, int bits)
{
	long long t = (long long)c->lanes * (bits < 32 ? 32 / bits : 1);

	return c->generation < 4 ? 2 * t : t;
}

static int
alloc_compute(struct vmem_alloc *a, const struct shape *s, const struct chip *c, int bits,
	      unsigned long long copies, struct pt_err *err)
{
	unsigned long long padded = 1, plain = 1;

	if (s->ellipsis)
		return pt_err_set(err, PT_EXIT_USAGE, "a shape with '...' has no size");
	a->shape = *s;
	a->bits = bits;
	a->tile = chip_sublane_tile(c, bits);
	a->copies = copies;
	block_padded(s, a->tile, c->lanes, tile1d(c, bits), &a->padded);
	for (int i = 0; i < s->rank; i++)
		if (!mul_ok(padded, (unsigned long long)a->padded.dims[i], &padded) ||
		    !mul_ok(plain, (unsigned long long)s->dims[i], &plain))
			return pt_err_set(err, PT_EXIT_USAGE, "the shape is too large");
	if (!mul_ok(padded, (unsigned long long)bits, &padded) ||
	    !mul_ok(plain, (unsigned long long)bits, &plain))
		return pt_err_set(err, PT_EXIT_USAGE, "the shape is too large");
	a->bytes = (padded + 7) / 8;
	a->unpadded = (plain + 7) / 8;
	if (!mul_ok(a->bytes, copies, &a->total))
		return pt_err_set(err, PT_EXIT_USAGE, "the working set is too large");
	return 0;
}

int
vmem_compute(const struct vmem_spec *s, struct vmem_usage *u, struct pt_err *err)
{
	unsigned long long copies = (unsigned long long)(s->n_in + s->n_out) * (unsigned)s->buffers;

	memset(u, 0, sizeof(*u));
	if (alloc_compute(&u->block, &s->block, s->chip, s->dtype->bits, copies, err) < 0)
		return -1;
	u->blocks_bytes = u->block.total;
	for (size_t i = 0; i < s->nother && i < VMEM_MAX_SCRATCH; i++) {
		struct vmem_alloc *a = &u->other[u->nother++];

		if (alloc_compute(a, &s->other[i].shape, s->chip, s->other[i].dtype->bits,
				  (unsigned)s->buffers, err) < 0)
			return -1;
		u->blocks_bytes += a->total;
		if (u->blocks_bytes > VMEM_MAX_BYTES)
			return pt_err_set(err, PT_EXIT_USAGE, "the operands are too large");
	}
	for (size_t i = 0; i < s->nscratch && i < VMEM_MAX_SCRATCH; i++) {
		struct vmem_alloc *a = &u->scratch[u->nscratch++];

		if (alloc_compute(a, &s->scratch[i].shape, s->chip, s->scratch[i].dtype->bits, 1,
				  err) < 0)
			return -1;
		u->scratch_bytes += a->total;
		if (u->scratch_bytes > VMEM_MAX_BYTES)
			return pt_err_set(err, PT_EXIT_USAGE, "the scratch is too large");
	}
	u->total = u->blocks_bytes + u->scratch_bytes;
	if (u->total > VMEM_MAX_BYTES)
		return pt_err_set(err, PT_EXIT_USAGE, "the working set is too large");
	return 0;
}

void
vmem_budget_init(struct vmem_budget *b, const struct chip *c, unsigned long long limit)
{
	unsigned long long cap;

	b->physical = c->vmem_bytes;
	b->internal = c->internal_scratch_bytes;
	if (limit) {
		b->limit = limit;
		b->from = VMEM_LIMIT_GIVEN;
	} else if (c->scoped_default_bytes) {
		b->limit = c->scoped_default_bytes;
		b->from = VMEM_LIMIT_DEFAULT;
	} else {
		b->limit = c->vmem_bytes;
		b->from = VMEM_LIMIT_PHYSICAL;
	}
	cap = b->limit < b->physical ? b->limit : b->physical;
	b->avail = cap > b->internal ? cap - b->internal : 0;
}

int
vmem_propose_limit(unsigned long long need, unsigned long long cap, unsigned long long *out)
{
	unsigned long long head = need / 4 > VMEM_MIN_HEADROOM ? need / 4 : VMEM_MIN_HEADROOM;
	unsigned long long v;

	if (cap && need > cap)
		return -1;
	v = (need + head + MIB - 1) / MIB * MIB;
	*out = cap && v > cap ? cap : v;
	return 0;
}

/* ---- bisection ---- */

const char *
vmem_step_name(enum vmem_step_kind k)
{
	switch (k) {
	case VMEM_STEP_HALVE_MINOR: return "halve the last dimension";
	case VMEM_STEP_HALVE_SECOND: return "halve the second-minor dimension";
	case VMEM_STEP_ONE_BUFFER: return "single-buffer the blocks";
	case VMEM_STEP_GROW_SECOND: return "bisect the second-minor dimension";
	case VMEM_STEP_GROW_MINOR: return "bisect the last dimension";
	}
	return "?";
}

struct search {
	struct vmem_spec spec;          /* the current candidate */
	unsigned long long avail;
	const struct vmem_spec *orig;
	struct vmem_bisect *out;
	struct pt_err *err;
};

/* Was (b, buffers) tried already? The start does not fit, or we would not search. */
static bool
tested(const struct search *st, const struct shape *b, int buffers, bool *fits)
{
	*fits = false;
	if (shape_equal(b, &st->orig->block) && buffers == st->orig->buffers)
		return true;
	for (size_t i = 0; i < st->out->nsteps; i++)
		if (shape_equal(&st->out->steps[i].block, b) && st->out->steps[i].buffers == buffers) {
			*fits = st->out->steps[i].fits;
			return true;
		}
	return false;
}

/* Try candidate (block, buffers); record it as a step. Returns 1 fits, 0 not, -1 error. */
static int
try_step(struct search *st, enum vmem_step_kind kind, const struct shape *b, int buffers)
{
	struct vmem_spec s = st->spec;
	struct vmem_usage u;
	struct vmem_step *step;
	bool fits;

	if (tested(st, b, buffers, &fits) && !fits)
		return 0;
	s.block = *b;
	s.buffers = buffers;
	if (vmem_compute(&s, &u, st->err) < 0)
		return -1;
	if (st->out->nsteps >= VMEM_MAX_STEPS)
		PT_BUG("vmem bisection took more steps than VMEM_MAX_STEPS");
	step = &st->out->steps[st->out->nsteps++];
	step->kind = kind;
	step->block = *b;
	step->buffers = buffers;
	step->total = u.total;
	step->fits = u.total <= st->avail;
	if (step->fits) {
		st->spec = s;
		st->out->total = u.total;
	}
	return step->fits;
}

/* Halve one dimension until the working set fits or it cannot shrink. */
static int
shrink(struct search *st, enum vmem_step_kind kind, int unit)
{
	struct shape next;
	int r = 0;

	while (r == 0) {
		bool ok = kind == VMEM_STEP_HALVE_MINOR ? block_halve_minor(&st->spec.block, unit, &next)
						       : block_halve_second(&st->spec.block, unit, &next);
		if (!ok)
			return 0;
		r = try_step(st, kind, &next, st->spec.buffers);
		if (r == 0)
			st->spec.block = next;
	}
	return r;
}

/* Same shape except possibly at dims[idx]? */
static bool
same_but(const struct shape *a, const struct shape *b, int idx)
{
	if (a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (i != idx && a->dims[i] != b->dims[i])
			return false;
	return true;
}

/* The smallest value of dims[idx] already seen not to fit with the other dims as now, or 0. */
static long long
known_too_big(const struct search *st, int idx)
{
	const struct shape *cur = &st->spec.block;
	long long best = 0;

	if (st->orig->buffers == st->spec.buffers && same_but(&st->orig->block, cur, idx))
		best = st->orig->block.dims[idx];
	for (size_t i = 0; i < st->out->nsteps; i++) {
		const struct vmem_step *s = &st->out->steps[i];

		if (!s->fits && s->buffers == st->spec.buffers && same_but(&s->block, cur, idx) &&
		    (!best || s->block.dims[idx] < best))
			best = s->block.dims[idx];
	}
	return best;
}

/*
 * Bisect dims[idx] back up between the current value (fits) and the
 * original, in multiples of unit. The working set grows with the dimension,
 * so the smallest value known not to fit bounds the search.
 */
static int
grow(struct search *st, enum vmem_step_kind kind, int idx, long long unit)
{
	long long lo = st->spec.block.dims[idx], hi = st->orig->block.dims[idx];
	long long bad = known_too_big(st, idx), a = lo / unit, b;
	struct shape cand = st->spec.block;
	int r;

	if (lo >= hi)
		return 0;
	if (!bad) {
		cand.dims[idx] = hi;
		cand.squeezed = st->orig->block.squeezed & st->spec.block.squeezed;
		if ((r = try_step(st, kind, &cand, st->spec.buffers)) != 0)
			return r < 0 ? -1 : 0;
		bad = hi;
	}
	for (b = (bad + unit - 1) / unit; b - a > 1;) {
		long long mid = a + (b - a) / 2;

		cand = st->spec.block;
		cand.dims[idx] = mid * unit;
		if ((r = try_step(st, kind, &cand, st->spec.buffers)) < 0)
			return -1;
		if (r)
			a = mid;
		else
			b = mid;
	}
	return 0;
}

static int
search_fit(struct search *st)
{
	const struct chip *c = st->spec.chip;
	struct shape *b = &st->spec.block;
	int rank1 = b->rank == 1, minor = b->rank - 1, r;
	int unit = rank1 ? c->sublanes * c->lanes : c->lanes;
	int tile = chip_sublane_tile(c, st->spec.dtype->bits);

	if ((r = shrink(st, VMEM_STEP_HALVE_MINOR, unit)) == 0 && !rank1)
		r = shrink(st, VMEM_STEP_HALVE_SECOND, tile);
	if (r == 0 && st->spec.buffers > 1 && (r = try_step(st, VMEM_STEP_ONE_BUFFER, b, 1)) == 0)
		st->spec.buffers = 1;   /* report the smallest configuration tried */
	if (r <= 0)
		return r;
	st->out->found = true;
	if (!rank1 && grow(st, VMEM_STEP_GROW_SECOND, minor - 1, tile) < 0)
		return -1;
	if (grow(st, VMEM_STEP_GROW_MINOR, minor, unit) < 0)
		return -1;
	return 1;
}

int
vmem_bisect(const struct vmem_spec *s, unsigned long long avail, struct vmem_bisect *out,
	    struct pt_err *err)
{
	struct search st = { *s, avail, s, out, err };
	struct vmem_usage u;

	memset(out, 0, sizeof(*out));
	if (vmem_compute(s, &u, err) < 0)
		return -1;
	if (u.total <= avail) {
		out->found = true;
	} else if (search_fit(&st) < 0) {
		return -1;
	}
	out->block = st.spec.block;
	out->buffers = st.spec.buffers;
	out->total = out->found ? (u.total <= avail ? u.total : out->total) : 0;
	return 0;
}
