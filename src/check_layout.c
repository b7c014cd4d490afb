/* SPDX-License-Identifier: MIT */
/*
 * The layout analysis: every BlockSpec's block against its array, through
 * the block calculators (block.c for TPU, gpu_block.c for the GPU
 * backends), and every index map's arity and result against the grid and
 * the block. A block whose array shape the file does not fix is judged only
 * when no array dimension could make it legal; otherwise a note names what
 * is missing. A fix names the place the offending number was written
 * ("tiled_mm.py:12: bk=1000 -> 1024").
 */
#include <stdio.h>
#include <string.h>

#include "pt/block.h"
#include "pt/check_impl.h"
#include "pt/chips.h"
#include "pt/gpu_block.h"
#include "pt/gpus.h"

/* "operand 0 (x)", "output 1" */
static const char *
operand_label(struct cctx *cx, const struct kcall *k, const struct karg *a)
{
	bool out = a >= k->out && a < k->out + k->nout;
	size_t i = out ? (size_t)(a - k->out) : (size_t)(a - k->in);

	if (a->name)
		return ck_printf(cx, "%s %zu (%s)", out ? "output" : "input", i, a->name);
	if (a->v && a->v->kind == VAL_REF && a->v->ref)
		return ck_printf(cx, "%s %zu (%s)", out ? "output" : "input", i, a->v->ref->name);
	return ck_printf(cx, "%s %zu", out ? "output" : "input", i);
}

static const char *
shape_text(struct cctx *cx, const struct shape *s)
{
	struct buf b = BUF_INIT;
	const char *r;

	shape_format(s, &b);
	r = ck_strdup(cx, b.data);
	buf_release(&b);
	return r;
}

/* The node of one element of a block literal, for the caret. */
static const struct py_node *
dim_node(const struct val *block, int idx)
{
	const struct py_node *n = block->node;

	/* the element as written in the block literal, not where its value came from */
	if (n && (n->kind == PY_TUPLE || n->kind == PY_LIST) && idx >= 0 && (size_t)idx < n->items.n)
		return n->items.v[idx];
	return n;
}

static void
tpu_rule(struct cctx *cx, int bits, struct block_rule *r)
{
	block_rule_default(r);
	if (cx->chip) {
		block_rule_for_chip(r, cx->chip, bits);
		return;
	}
	/* no chip given: what every chip of the table requires, and the strictest tile of any */
	if (cx->rs->chips && bits != 32) {
		int lo = 0, hi = 0;

		for (size_t i = 0; i < cx->rs->chips->nchips; i++) {
			int t = chip_sublane_tile(cx->rs->chips->chips[i], bits);
			int s = chip_sublane_tile_strict(cx->rs->chips->chips[i], bits);

			if (t <= 0)
				continue;
			if (!lo || t < lo)
				lo = t;
			if (s > hi)
				hi = s;
		}
		if (lo) {
			r->sublane_tile = lo;
			r->strict_tile = hi > lo ? hi : lo;
			r->bits = bits;
		}
	}
}

static void
report_dim(struct cctx *cx, const struct kcall *k, const struct karg *a, const struct val *block,
	   const struct shape *bs, const struct block_check *c, const struct dim_check *d,
	   const char *code, const char *chips)
{
	struct vars vs = VARS_INIT;
	int idx = bs->rank + d->axis;
	const struct shape *p0 = c->nprops ? &c->props[0].shape : bs;
	long long to = p0->dims[idx], alt = c->nprops > 1 ? c->props[1].shape.dims[idx] : 0;
	const struct py_node *fix_at;

	vars_set(&vs, "operand", operand_label(cx, k, a), true);
	vars_set(&vs, "block", shape_text(cx, bs), true);
	vars_set(&vs, "dim", d->axis == -1 ? "last dim" : "second-to-last dim", true);
	vars_set(&vs, "value", ck_printf(cx, "%lld", d->size), true);
	vars_set(&vs, "tile", ck_printf(cx, "%lld", d->multiple), true);
	vars_set(&vs, "full", d->full ? ck_printf(cx, "%lld", d->full) : "not known", true);
	vars_set(&vs, "dtype", a->v && a->v->dt ? a->v->dt->name : "dtype not known", true);
	vars_set(&vs, "proposal", shape_text(cx, p0), true);
	vars_set(&vs, "chip", chips ? chips : cx->chip ? cx->chip->name : "every chip", true);
	fix_at = ck_dim_fix(cx, block, idx, to, alt, p0, &vs, "fix");
	ck_report(cx, code, dim_node(block, idx), fix_at, k, &vs);
	vars_release(&vs);
}

/* A dim that passes on some chips only: the chips it fails on, and the smallest tile it misses. */
static void
report_strict(struct cctx *cx, const struct kcall *k, const struct karg *a, const struct shape *bs,
	      const struct block_check *c, struct dim_check *d, int bits)
{
	struct buf chips = BUF_INIT;
	long long tile = 0;
	size_t tiled = 0, failing = 0;

	if (cx->chip) {
		report_dim(cx, k, a, a->spec.block, bs, c, d, "L002", cx->chip->name);
		return;
	}
	for (size_t i = 0; cx->rs->chips && i < cx->rs->chips->nchips; i++) {
		const struct chip *ch = cx->rs->chips->chips[i];
		int t = chip_sublane_tile_strict(ch, bits);

		tiled += t > 0;
		if (t <= 0 || d->size % t == 0 || d->size == d->full)
			continue;
		failing++;
		buf_addf(&chips, "%s%s", chips.len ? ", " : "", ch->name);
		if (!tile || t < tile)
			tile = t;
	}
	if (tile) {
		d->multiple = tile;
		/* failing on some chips only, with no --chip: a note, as for VMEM (C005) */
		report_dim(cx, k, a, a->spec.block, bs, c, d, failing < tiled ? "L013" : "L002",
			   ck_strdup(cx, chips.data));
	}
	buf_release(&chips);
}

static void
need_note(struct cctx *cx, const struct kcall *k, const struct karg *a, const char *need,
	  const struct py_node *at)
{
	struct vars vs = VARS_INIT;

	/* one note per call names what is missing first: the rest usually needs the same */
	if (k->need_noted)
		return;
	((struct kcall *)k)->need_noted = true;

	vars_set(&vs, "operand", operand_label(cx, k, a), true);
	vars_set(&vs, "need", need, true);
	ck_report(cx, "L009", at, at, k, &vs);
	vars_release(&vs);
}

static void
check_tpu_block(struct cctx *cx, struct kcall *k, struct karg *a, const struct shape *bs,
		bool *complete)
{
	const struct val *v = a->v;
	bool have_array = v && (v->kind == VAL_ARRAY || v->kind == VAL_REF) && v->has_shape;
	int bits = v && v->dt ? v->dt->bits : 32;
	struct block_rule rule;
	struct block_check c;
	enum block_memory mem = a->spec.any ? BLOCK_MEM_ANY : a->spec.smem ? BLOCK_MEM_SMEM
						       : BLOCK_MEM_VMEM;

	/* emit_pipeline hands an HBM/ANY operand's window to the body as a view: nothing is copied */
	if (k->is_pipeline && a->spec.any)
		return;
	if (!v || !v->dt)
		*complete = false;
	if (bits > 32)
		bits = 32;
	tpu_rule(cx, bits, &rule);
	block_check(bs, have_array ? &v->shape : NULL, &rule, mem, &c);
	if (c.legal) {
		if (c.e2002_risk && v && v->dt)
			for (int i = 0; i < c.ndims; i++)
				if (!c.dims[i].strict_ok) {
					struct dim_check d = c.dims[i];

					d.multiple = rule.strict_tile;
					report_strict(cx, k, a, bs, &c, &d, bits);
					break;
				}
		return;
	}
	switch (c.problem) {
	case BLOCK_DIMS:
		for (int i = 0; i < c.ndims; i++) {
			if (c.dims[i].status != DIM_BAD)
				continue;
			if (!have_array) {
				/* it may equal the array's dimension: say what is needed */
				*complete = false;
				need_note(cx, k, a, ck_operand_need(cx, a, "shape"),
					  dim_node(a->spec.block, bs->rank + c.dims[i].axis));
				return;
			}
			/* a file that says nothing of its backend may be a GPU kernel: a note */
			report_dim(cx, k, a, a->spec.block, bs, &c, &c.dims[i],
				   k->backend_assumed ? "L012" : "L001", NULL);
			return;
		}
		break;
	case BLOCK_ANY_NOT_WHOLE:
	case BLOCK_RANK_MISMATCH: {
		struct vars vs = VARS_INIT;

		vars_set(&vs, "operand", operand_label(cx, k, a), true);
		vars_set(&vs, "block", shape_text(cx, bs), true);
		vars_set(&vs, "array", have_array ? shape_text(cx, &v->shape) : "?", true);
		ck_report(cx, c.problem == BLOCK_ANY_NOT_WHOLE ? "L003" : "L004",
			  a->spec.block->node, a->spec.block->node, k, &vs);
		vars_release(&vs);
		break;
	}
	case BLOCK_ANY_NO_ARRAY:
		*complete = false;
		break;
	default:
		break;
	}
}

static void
check_gpu_block(struct cctx *cx, struct kcall *k, struct karg *a, const struct shape *bs,
		bool *complete)
{
	const struct val *v = a->v;
	struct gpu_block_rule rule;
	struct gpu_block_check c;
	struct vars vs = VARS_INIT;
	const char *why = NULL;
	const struct py_node *fix_at;

	memset(&rule, 0, sizeof(rule));
	rule.triton = strcmp(k->backend, "triton") == 0;
	rule.bits = v && v->dt ? v->dt->bits : 32;
	rule.mma = cx->gpu ? cx->gpu->mma : NULL;
	if (bs->rank == 0)
		return;         /* a scalar block: the GPU backends load it as it is */
	if (!v || !v->dt) {
		*complete = false;
		if (!rule.triton)
			return;     /* Mosaic GPU's rules count bytes */
	}
	gpu_block_check(bs, &rule, &c);
	if (c.legal)
		return;
	for (size_t i = 0; i < c.nf && !why; i++)
		if (!c.f[i].ok)
			why = c.f[i].text;
	vars_set(&vs, "operand", operand_label(cx, k, a), true);
	vars_set(&vs, "block", shape_text(cx, bs), true);
	vars_set(&vs, "why", why ? why : "the backend refuses it", true);
	vars_set(&vs, "backend", k->backend, true);
	vars_set(&vs, "proposal", c.nprops ? shape_text(cx, &c.props[0]) : "?", true);
	vars_set(&vs, "fix_where", ck_where(cx, a->spec.block->node), true);
	{
		char was[128];

		val_format(a->spec.block, was, sizeof(was));
		vars_set(&vs, "fix_change", ck_printf(cx, "block %s -> %s", was,
						     c.nprops ? shape_text(cx, &c.props[0]) : "?"), true);
	}
	/* one dim named: point at where its number was written */
	if (c.nprops && a->spec.block->kind == VAL_TUPLE)
		for (int i = 0; i < bs->rank; i++)
			if (bs->dims[i] != c.props[0].dims[i]) {
				fix_at = ck_dim_fix(cx, a->spec.block, i, c.props[0].dims[i], 0,
						    &c.props[0], &vs, "fix");
				ck_report(cx, "L010", dim_node(a->spec.block, i), fix_at, k, &vs);
				vars_release(&vs);
				return;
			}
	ck_report(cx, "L010", a->spec.block->node, NULL, k, &vs);
	vars_release(&vs);
}

/* Index maps: called with one program id per grid axis (plus the scalar-prefetch refs). */
static void
check_index_map(struct cctx *cx, struct kcall *k, struct karg *a)
{
	const struct val *im = a->spec.index_map;
	size_t required = 0, positional = 0, want;
	bool star = false;
	struct val *res;
	struct vars vs = VARS_INIT;

	if (!im || im->kind != VAL_FUNC || k->grid_rank < 0 || im->n || im->nkw)
		return;
	for (size_t i = 0; i < im->fn->more.n; i++) {
		const struct py_node *p = im->fn->more.v[i];

		if (p->op == '*')
			star = true;
		else if (p->op == 0 || p->op == 'p') {
			positional++;
			if (!p->x)
				required++;
		}
	}
	want = (size_t)k->grid_rank + (size_t)(k->is_pipeline ? 0 : k->nprefetch);
	vars_set(&vs, "operand", operand_label(cx, k, a), true);
	if (required > want || (!star && positional < want)) {
		vars_set(&vs, "takes", ck_printf(cx, "%zu", required), true);
		vars_set(&vs, "want", ck_printf(cx, "%zu", want), true);
		vars_set(&vs, "grid_rank", ck_printf(cx, "%d", k->grid_rank), true);
		vars_set(&vs, "prefetch", ck_printf(cx, "%d", k->nprefetch), true);
		ck_report(cx, "L005", im->fn, im->fn, k, &vs);
		vars_release(&vs);
		return;
	}
	res = ck_index_map_result(cx, k, &a->spec);
	if (res && res->kind == VAL_TUPLE && a->spec.block && a->spec.block->kind == VAL_TUPLE &&
	    res->n != a->spec.block->n) {
		vars_set(&vs, "returns", ck_printf(cx, "%zu", res->n), true);
		vars_set(&vs, "rank", ck_printf(cx, "%zu", a->spec.block->n), true);
		ck_report(cx, "L006", im->fn->kind == PY_LAMBDA ? im->fn->x : im->fn, im->fn, k, &vs);
	}
	vars_release(&vs);
}

static bool
pow2(long long x)
{
	return x > 0 && (x & (x - 1)) == 0;
}

static long long
next_pow2(long long x)
{
	long long p = 1;

	while (p < x && p < (1LL << 40))
		p <<= 1;
	return p;
}

/* Triton's rule holds per dimension: the known ones are judged even when others are open. */
static bool
check_triton_partial(struct cctx *cx, struct kcall *k, struct karg *a)
{
	const struct val *b = a->spec.block;
	struct vars vs = VARS_INIT;
	const struct py_node *fix_at;

	if (strcmp(k->backend, "triton") != 0 || b->kind != VAL_TUPLE)
		return false;
	for (size_t i = 0; i < b->n; i++) {
		const struct val *e = b->elts[i];
		struct shape prop;
		char was[128];

		if (e->kind != VAL_INT || pow2(e->i))
			continue;
		memset(&prop, 0, sizeof(prop));
		prop.rank = 1;
		prop.dims[0] = next_pow2(e->i);
		val_format(b, was, sizeof(was));
		vars_set(&vs, "operand", operand_label(cx, k, a), true);
		vars_set(&vs, "block", was, true);
		vars_set(&vs, "why", ck_printf(cx, "%lld is not a power of two; the Pallas Triton lowering "
					       "loads and stores only power-of-two sizes", e->i), true);
		vars_set(&vs, "backend", k->backend, true);
		fix_at = ck_dim_fix(cx, b, (int)i, prop.dims[0], 0, &prop, &vs, "fix");
		ck_report(cx, "L010", dim_node(b, (int)i), fix_at, k, &vs);
		vars_release(&vs);
		return true;
	}
	return false;
}

static void
check_one(struct cctx *cx, struct kcall *k, struct karg *a, bool *complete)
{
	struct shape bs;
	const char *need;

	if (!a->spec.present)
		return;
	check_index_map(cx, k, a);
	if (!a->spec.block)
		return;
	if (!val_shape(a->spec.block, &bs)) {
		*complete = false;
		if (!check_triton_partial(cx, k, a) && (need = val_need(a->spec.block)))
			need_note(cx, k, a, need, a->spec.block->node);
		return;
	}
	if (strcmp(k->backend, "mosaic-tpu") == 0)
		check_tpu_block(cx, k, a, &bs, complete);
	else
		check_gpu_block(cx, k, a, &bs, complete);
}

void
ck_layout(struct cctx *cx, struct kcall *k)
{
	bool complete = k->in_known && k->out_known;

	for (size_t i = 0; i < k->nin; i++)
		check_one(cx, k, &k->in[i], &complete);
	for (size_t i = 0; i < k->nout; i++)
		check_one(cx, k, &k->out[i], &complete);
	k->layout_known = complete;
}
