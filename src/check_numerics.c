/* SPDX-License-Identifier: MIT */
/*
 * The numerics analysis, over the kernel walk's events and values:
 *  - an accumulator (a ref read and written back) that a revisited output
 *    or a scratch buffer keeps across the reduction axis, with no init
 *    under pl.when(program_id(axis) == 0) on that axis (N001), or an init
 *    keyed on another axis (N002);
 *  - a low-precision dot accumulated without preferred_element_type (N003);
 *  - an online softmax whose accumulator is added to without the rescale
 *    by exp(m_prev - m_new) (N005);
 *  - a grid that covers less than the output (N006).
 * (exp without the max subtracted, N004, is found as the walk sums it.)
 */
#include <stdio.h>
#include <string.h>

#include "pt/check_impl.h"
#include "pt/chips.h"

static const char *
axes_text(struct cctx *cx, unsigned mask)
{
	char buf[64];
	size_t n = 0;

	buf[0] = 0;
	for (int a = 0; a < 8; a++)
		if (mask & (1u << a))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%d", n ? ", " : "", a);
	return ck_strdup(cx, buf);
}

static int
first_axis(unsigned mask)
{
	for (int a = 0; a < 8; a++)
		if (mask & (1u << a))
			return a;
	return -1;
}

/* The axes a ref is carried across: where its block is revisited. */
static unsigned
carried_axes(const struct kcall *k, const struct kref *r, bool *known)
{
	unsigned m = 0;

	*known = true;
	if (k->grid_rank == 0)
		return 0;
	if (r->role == ROLE_OUTPUT) {
		if (r->red_known)
			return r->red_axes;
		*known = k->semantics_known;
		return k->arbitrary_axes;
	}
	/* scratch persists across every step: what matters is where outputs are revisited */
	for (size_t i = 0; i < k->nrefs; i++)
		if (k->refs[i]->role == ROLE_OUTPUT && k->refs[i]->red_known)
			m |= k->refs[i]->red_axes;
	if (m)
		return m;
	if (k->semantics_known)
		return k->arbitrary_axes;
	*known = false;
	return 0;
}

static void
check_accumulator(struct cctx *cx, struct kcall *k, struct kref *r)
{
	const struct kev *rmw = NULL;
	bool any_init = false, keyed_right = false, known;
	const struct kev *wrong = NULL;
	unsigned axes = carried_axes(k, r, &known);
	struct vars vs = VARS_INIT;
	int axis = first_axis(axes);

	for (size_t i = 0; i < k->nev; i++) {
		const struct kev *e = &k->ev[i];

		/* a DMA into it fills it (a copy, then an update in place) */
		if (e->kind == KEV_START && e->dma && e->dma->known && e->dma->dst &&
		    strcmp(e->dma->dst, r->name) == 0) {
			any_init = keyed_right = true;
			continue;
		}
		if (e->kind != KEV_WRITE || e->ref != r || e->identity)
			continue;
		if (e->rmw) {
			rmw = e;
			break;
		}
		any_init = true;
		if (e->cond_depth == 0 || e->cond_unknown || (e->cond_eq0 & axes) || !axes)
			keyed_right = true;
		else if (!wrong)
			wrong = e;
	}
	if (!rmw || keyed_right || (any_init && !known))
		return;
	vars_set(&vs, "ref", r->name, true);
	vars_set(&vs, "axis", axis >= 0 ? ck_printf(cx, "%d", axis) : "0", true);
	vars_set(&vs, "axes", axes ? axes_text(cx, axes) : "none", true);
	vars_set(&vs, "what", r->role == ROLE_OUTPUT ? "output block" : "scratch buffer", true);
	vars_set(&vs, "acc_line", ck_where(cx, rmw->node), true);
	if (any_init && wrong) {
		vars_set(&vs, "init_axes", axes_text(cx, wrong->cond_eq0), true);
		ck_report(cx, "N002", wrong->node, wrong->node, k, &vs);
	} else if (!any_init) {
		const struct py_node *at = rmw->node;

		vars_set(&vs, "first", axes ? ck_printf(cx, "the first step of axis %d", axis)
					    : "the step", true);
		/* a first-step block on that axis that does not zero it: the init belongs there */
		if (axis >= 0 && axis < 8 && k->first_step[axis])
			at = k->first_step[axis];
		ck_report(cx, "N001", at, at, k, &vs);
	}
	vars_release(&vs);
}

static void
check_low_precision(struct cctx *cx, struct kcall *k)
{
	for (size_t i = 0; i < k->nev; i++) {
		const struct kev *e = &k->ev[i];
		const struct val *v = e->v;
		struct vars vs = VARS_INIT;

		if (!((e->kind == KEV_WRITE && e->rmw) || e->kind == KEV_ACCUM) || !v ||
		    !(v->flags & VF_LOWP_DOT) || !v->dot_node)
			continue;
		vars_set(&vs, "dtype", v->dt ? v->dt->name : "low-precision", true);
		ck_report(cx, "N003", v->dot_node, v->dot_node, k, &vs);
		vars_release(&vs);
		return;
	}
}

/* Was r rescaled (r *= alpha, or r = r * alpha) before event index `before`? */
static bool
rescaled(const struct kcall *k, const struct kref *r, size_t before)
{
	for (size_t i = 0; i < before; i++)
		if (k->ev[i].kind == KEV_WRITE && k->ev[i].ref == r && k->ev[i].scaled)
			return true;
	return false;
}

/*
 * Where the unscaled state was made, when the addition's state operand is
 * a name bound just before from a plain copy of the state (o_corr = o_prev):
 * that is where the rescale went missing. Else the addition itself.
 */
static const struct py_node *
unscaled_at(const struct cctx *cx, const struct py_node *add, const struct py_node *state)
{
	const struct py_node *best = NULL;
	const struct py_node *stack[256];
	size_t n = 0;

	if (!state || state->kind != PY_NAME)
		return add;
	stack[n++] = cx->m->root;
	while (n) {
		const struct py_node *s = stack[--n];

		if (s->kind == PY_ASSIGN && s->items.n == 1 && s->items.v[0]->kind == PY_NAME &&
		    strcmp(s->items.v[0]->s, state->s) == 0 && s->line < add->line &&
		    add->line - s->line <= 20 && (!best || s->line > best->line) &&
		    (s->x->kind == PY_NAME || s->x->kind == PY_SUBSCRIPT))
			best = s;
		for (size_t i = 0; i < s->items.n && n < 250; i++)
			if (s->items.v[i] && s->items.v[i]->kind >= PY_DEF)
				stack[n++] = s->items.v[i];
		for (size_t i = 0; i < s->more.n && n < 250; i++)
			if (s->more.v[i] && s->more.v[i]->kind >= PY_DEF)
				stack[n++] = s->more.v[i];
		for (size_t i = 0; i < s->extra.n && n < 250; i++)
			if (s->extra.v[i] && s->extra.v[i]->kind >= PY_DEF)
				stack[n++] = s->extra.v[i];
	}
	return best ? best : add;
}

static void
check_online_softmax(struct cctx *cx, struct kcall *k)
{
	if (!k->running_max)
		return;
	for (size_t i = 0; i < k->nev; i++) {
		const struct kev *e = &k->ev[i];
		struct vars vs = VARS_INIT;
		char expr[96];

		if (e->kind != KEV_ACCUM || !(e->v->flags & VF_FROM_DOT))
			continue;
		if (e->ref && rescaled(k, e->ref, i))
			continue;
		py_render(e->node, expr, sizeof(expr));
		vars_set(&vs, "expr", expr, true);
		if (e->ref) {
			vars_set(&vs, "acc", e->ref->name, true);
		} else {
			char st[64];

			py_render(e->state, st, sizeof(st));
			vars_set(&vs, "acc", e->state ? st : "the accumulator", true);
		}
		{
			const struct py_node *at = unscaled_at(cx, e->node, e->state);

			ck_report(cx, "N005", at, at, k, &vs);
		}
		vars_release(&vs);
		return;
	}
}

/* An output dim mapped straight to a grid axis: grid x block must cover the array. */
static void
check_coverage(struct cctx *cx, struct kcall *k)
{
	for (size_t o = 0; o < k->nout; o++) {
		const struct karg *a = &k->out[o];
		struct shape bs;
		struct val *res;

		if (!a->spec.present || !a->spec.block || !val_shape(a->spec.block, &bs) ||
		    !a->v || a->v->kind != VAL_ARRAY || !a->v->has_shape ||
		    a->v->shape.rank != bs.rank || k->grid_rank <= 0 || !k->grid ||
		    k->grid->kind != VAL_TUPLE)
			continue;
		res = ck_index_map_result(cx, k, &a->spec);
		if (!res || res->kind != VAL_TUPLE || (int)res->n != bs.rank)
			continue;
		for (int d = 0; d < bs.rank; d++) {
			const struct val *e = res->elts[d];
			long long g, covered, full = a->v->shape.dims[d];
			struct vars vs = VARS_INIT;
			char gtext[96];

			if (e->kind != VAL_TRACED || e->pid_axis < 0 || e->pid_axis >= k->grid_rank ||
			    (bs.squeezed & (1u << d)))
				continue;
			if ((g = k->grid_dims[e->pid_axis]) <= 0)
				continue;
			covered = g * bs.dims[d];
			if (covered >= full)
				continue;
			py_render(k->grid->elts[e->pid_axis]->node, gtext, sizeof(gtext));
			{
				/* m // bm is pl.cdiv(m, bm) */
				const struct py_node *gn = k->grid->elts[e->pid_axis]->node;
				char x[64], y[64];

				if (gn && gn->kind == PY_BINOP && gn->op == PYOP_FLOORDIV) {
					py_render(gn->x, x, sizeof(x));
					py_render(gn->y, y, sizeof(y));
					vars_set(&vs, "cdiv_args", ck_printf(cx, "%s, %s", x, y), true);
				} else {
					vars_set(&vs, "cdiv_args", "...", true);
				}
			}
			vars_set(&vs, "axis", ck_printf(cx, "%d", e->pid_axis), true);
			vars_set(&vs, "grid", gtext, true);
			vars_set(&vs, "steps", ck_printf(cx, "%lld", g), true);
			vars_set(&vs, "block", ck_printf(cx, "%lld", bs.dims[d]), true);
			vars_set(&vs, "covered", ck_printf(cx, "%lld", covered), true);
			vars_set(&vs, "full", ck_printf(cx, "%lld", full), true);
			vars_set(&vs, "dim", ck_printf(cx, "%d", d), true);
			vars_set(&vs, "cdiv", ck_printf(cx, "%lld", (full + bs.dims[d] - 1) / bs.dims[d]),
				 true);
			ck_report(cx, "N006", k->grid->elts[e->pid_axis]->node,
				  k->grid->elts[e->pid_axis]->node, k, &vs);
			vars_release(&vs);
			return;
		}
	}
}

void
ck_numerics(struct cctx *cx, struct kcall *k)
{
	for (size_t i = 0; i < k->nrefs; i++) {
		struct kref *r = k->refs[i];

		if ((r->role == ROLE_OUTPUT && !r->aliased) || r->role == ROLE_SCRATCH)
			check_accumulator(cx, k, r);
	}
	check_low_precision(cx, k);
	check_online_softmax(cx, k);
	check_coverage(cx, k);
}
