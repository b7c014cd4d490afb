/* SPDX-License-Identifier: MIT */
/*
 * Shared-memory footprint of a Pallas GPU kernel, the fewest stages and the
 * largest block that fit; see pt/smem.h for the models and their sources.
 */
#include <string.h>

#include "pt/chips.h"
#include "pt/smem.h"

static bool
mul_ok(unsigned long long a, unsigned long long b, unsigned long long *out)
{
	if (a && b > SMEM_MAX_BYTES / a)
		return false;
	*out = a * b;
	return true;
}

static unsigned long long
round_up(unsigned long long v, unsigned long long to)
{
	return (v + to - 1) / to * to;
}

static int
shape_bytes(const struct shape *s, int bits, unsigned long long *out, struct pt_err *err)
{
	unsigned long long n = 1;

	if (s->ellipsis)
		return pt_err_set(err, PT_EXIT_USAGE, "a shape with '...' has no size");
	for (int i = 0; i < s->rank; i++)
		if (!mul_ok(n, (unsigned long long)s->dims[i], &n))
			return pt_err_set(err, PT_EXIT_USAGE, "the shape is too large");
	if (!mul_ok(n, (unsigned long long)bits, &n))
		return pt_err_set(err, PT_EXIT_USAGE, "the shape is too large");
	*out = (n + 7) / 8;
	return 0;
}

/* One operand: its block times the stages (Mosaic GPU: one allocation, rounded). */
static int
staged_bytes(const struct smem_spec *s, const struct shape *b, const struct dtype *dt,
	     unsigned long long *out, struct pt_err *err)
{
	unsigned long long one;

	if (shape_bytes(b, dt->bits, &one, err) < 0)
		return -1;
	if (!mul_ok(one, (unsigned long long)s->stages, out))
		return pt_err_set(err, PT_EXIT_USAGE, "the shared memory is too large");
	if (!s->triton)
		*out = round_up(*out, SMEM_ALIGN);
	return 0;
}

static int
add_to(unsigned long long *total, unsigned long long v, struct pt_err *err)
{
	if (v > SMEM_MAX_BYTES - *total)
		return pt_err_set(err, PT_EXIT_USAGE, "the shared memory is too large");
	*total += v;
	return 0;
}

int
smem_compute(const struct smem_spec *s, struct smem_usage *u, struct pt_err *err)
{
	unsigned long long n;

	memset(u, 0, sizeof(*u));
	u->staged = s->triton ? s->n_in : s->n_in + s->n_out;
	if (shape_bytes(&s->block, s->dtype->bits, &u->block, err) < 0 ||
	    staged_bytes(s, &s->block, s->dtype, &u->per_operand, err) < 0)
		return -1;
	if (!mul_ok(u->per_operand, (unsigned long long)u->staged, &u->operands))
		return pt_err_set(err, PT_EXIT_USAGE, "the shared memory is too large");
	u->total = u->operands;
	for (size_t i = 0; i < s->nother && i < SMEM_MAX_EXTRA; i++)
		if (staged_bytes(s, &s->other[i].shape, s->other[i].dtype, &u->other[i], err) < 0 ||
		    add_to(&u->total, u->other[i], err) < 0)
			return -1;
	for (size_t i = 0; i < s->nscratch && i < SMEM_MAX_EXTRA; i++) {
		if (shape_bytes(&s->scratch[i].shape, s->scratch[i].dtype->bits, &n, err) < 0)
			return -1;
		u->scratch[i] = round_up(n, SMEM_ALIGN);
		if (add_to(&u->total, u->scratch[i], err) < 0)
			return -1;
	}
	if (s->barriers)
		u->barriers = round_up(SMEM_BARRIER_BYTES * (unsigned)s->barriers, SMEM_ALIGN);
	if (s->reduction)
		u->reduction = round_up(s->reduction, SMEM_ALIGN);
	if (add_to(&u->total, u->barriers, err) < 0 || add_to(&u->total, u->reduction, err) < 0)
		return -1;
	return 0;
}

const char *
smem_step_name(enum smem_step_kind k, bool triton)
{
	switch (k) {
	case SMEM_STEP_FEWER_STAGES:
		return triton ? "one stage less (num_stages)" : "one step less (max_concurrent_steps)";
	case SMEM_STEP_HALVE_MINOR: return "halve the last dimension";
	case SMEM_STEP_HALVE_SECOND: return "halve the second-minor dimension";
	case SMEM_STEP_GROW_SECOND: return "bisect the second-minor dimension";
	case SMEM_STEP_GROW_MINOR: return "bisect the last dimension";
	}
	return "?";
}

struct search {
	struct smem_spec spec;          /* the current candidate */
	unsigned long long limit;
	struct smem_fit *out;
	struct pt_err *err;
};

/* Try (block, stages); record it. Returns 1 fits, 0 not, -1 error. */
static int
try_step(struct search *st, enum smem_step_kind kind, const struct shape *b, int stages)
{
	struct smem_spec s = st->spec;
	struct smem_usage u;
	struct smem_step *step;

	s.block = *b;
	s.stages = stages;
	if (smem_compute(&s, &u, st->err) < 0)
		return -1;
	if (st->out->nsteps >= SMEM_MAX_STEPS)
		return 0;
	step = &st->out->steps[st->out->nsteps++];
	step->kind = kind;
	step->block = *b;
	step->stages = stages;
	step->total = u.total;
	step->fits = u.total <= st->limit;
	return step->fits;
}

/* The units a dimension shrinks and grows in: Triton halves powers of two. */
static long long
unit_of(const struct smem_spec *s, int idx)
{
	/* below 16 a Triton dot has no tensor-core tile (and old Pallas refused it) */
	if (s->triton)
		return 16;
	if (idx == s->block.rank - 1)
		return s->dtype->bits >= 128 ? 1 : 128 / s->dtype->bits;
	return 8;
}

static bool
halve(const struct smem_spec *s, const struct shape *in, int idx, struct shape *out)
{
	long long unit = unit_of(s, idx), v = in->dims[idx] / 2 / unit * unit;

	if (s->triton)          /* the next power of two down, so the block stays legal */
		for (v = 1; v * 2 <= in->dims[idx] / 2; v *= 2)
			;

	if (v < unit || v < 1 || v >= in->dims[idx])
		return false;
	*out = *in;
	out->dims[idx] = v;
	return true;
}

static int
shrink(struct search *st)
{
	const struct shape *b = &st->spec.block;
	int minor = b->rank - 1, second = b->rank - 2, r = 0;

	while (r == 0) {
		struct shape next;
		int idx = second >= 0 && b->dims[second] > b->dims[minor] ? second : minor;
		int other = idx == minor ? second : minor;

		if (!halve(&st->spec, b, idx, &next)) {
			if (other < 0 || !halve(&st->spec, b, other, &next))
				return 0;
			idx = other;
		}
		r = try_step(st, idx == minor ? SMEM_STEP_HALVE_MINOR : SMEM_STEP_HALVE_SECOND, &next,
			     st->spec.stages);
		if (r >= 0)
			st->spec.block = next;
	}
	return r;
}

/* Grow dims[idx] back towards orig: Triton by doubling, Mosaic GPU by bisection in units. */
static int
grow(struct search *st, const struct shape *orig, int idx)
{
	enum smem_step_kind kind = idx == orig->rank - 1 ? SMEM_STEP_GROW_MINOR : SMEM_STEP_GROW_SECOND;
	long long unit = unit_of(&st->spec, idx), lo = st->spec.block.dims[idx] / unit;
	long long hi = (orig->dims[idx] + unit - 1) / unit + 1;
	struct shape cand = st->spec.block;
	int r;

	if (st->spec.triton) {
		while (cand.dims[idx] * 2 <= orig->dims[idx]) {
			cand.dims[idx] *= 2;
			if ((r = try_step(st, kind, &cand, st->spec.stages)) <= 0)
				return r;
			st->spec.block = cand;
		}
		return 0;
	}
	while (hi - lo > 1) {
		long long mid = lo + (hi - lo) / 2;

		cand = st->spec.block;
		cand.dims[idx] = mid * unit > orig->dims[idx] ? orig->dims[idx] : mid * unit;
		if ((r = try_step(st, kind, &cand, st->spec.stages)) < 0)
			return -1;
		if (r) {
			lo = mid;
			st->spec.block = cand;
		} else {
			hi = mid;
		}
	}
	return 0;
}

int
smem_fit(const struct smem_spec *s, unsigned long long limit, struct smem_fit *out,
	 struct pt_err *err)
{
	struct search st = { *s, limit, out, err };
	struct smem_usage u;
	int r;

	memset(out, 0, sizeof(*out));
	for (int stages = s->stages - 1; stages >= 1; stages--) {
		if ((r = try_step(&st, SMEM_STEP_FEWER_STAGES, &s->block, stages)) < 0)
			return -1;
		if (r) {
			out->stages_fit = stages;
			out->stages_total = out->steps[out->nsteps - 1].total;
			break;
		}
	}
	if (smem_compute(s, &u, err) < 0)
		return -1;
	if (u.total <= limit) {
		out->found = true;
		out->block = s->block;
		out->total = u.total;
		return 0;
	}
	/* what the other operands, scratch and barriers take does not shrink with the block */
	if (u.total - u.operands >= limit)
		return 0;
	if (s->block.rank < 1 || (r = shrink(&st)) < 0)
		return r < 0 ? -1 : 0;
	if (r == 0)
		return 0;
	if (s->block.rank >= 2 && grow(&st, &s->block, s->block.rank - 2) < 0)
		return -1;
	if (grow(&st, &s->block, s->block.rank - 1) < 0)
		return -1;
	if (smem_compute(&st.spec, &u, err) < 0)
		return -1;
	out->found = true;
	out->block = st.spec.block;
	out->total = u.total;
	return 0;
}
