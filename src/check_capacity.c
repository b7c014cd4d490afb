/* SPDX-License-Identifier: MIT */
/*
 * The capacity analysis: a kernel's static working set, through the VMEM
 * calculator (vmem.c: padded blocks x buffers + scratch, a lower bound) on
 * TPU and the shared-memory calculator (smem.c) on GPU, against the limit
 * in force: vmem_limit_bytes when given, else the chip's default scoped
 * limit, and physical VMEM. Without --chip the set is judged on every chip
 * whose default the table knows, and an error needs all of them to fail.
 * The fixes come from the calculators too: the vmem_limit_bytes to ask
 * for, and the halved blocks of the shrinking ladder, named where their
 * numbers were written.
 */
#include <stdio.h>
#include <string.h>

#include "pt/check_impl.h"
#include "pt/chips.h"
#include "pt/gpus.h"
#include "pt/smem.h"
#include "pt/vmem.h"

static const char *
size_text(struct cctx *cx, unsigned long long b)
{
	struct buf s = BUF_INIT;
	const char *r;

	vmem_format_size(b, &s);
	r = ck_strdup(cx, s.data);
	buf_release(&s);
	return r;
}

/* The block the kernel sees: squeezed dims dropped. */
static void
visible(const struct shape *in, struct shape *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < in->rank; i++)
		if (!(in->squeezed & (1u << i)))
			out->dims[out->rank++] = in->dims[i];
	if (!out->rank) {
		out->rank = 1;
		out->dims[0] = 1;
	}
}

struct tuned {
	const struct karg *a;       /* the operand whose block the fixes shrink */
	struct shape shape;         /* its block as written (for the fix's dims) */
	int offset;                 /* squeezed dims before the visible ones, per index */
};

/*
 * Build the calculator's spec from the call: the largest block is the one
 * tuned, the others go in `other`, single-buffered blocks count once (as
 * scratch does). Returns false, with *need set when the file names it, if
 * some block, dtype or scratch shape is not known.
 */
static bool
build_spec(struct cctx *cx, const struct kcall *k, const struct chip *chip, struct vmem_spec *s,
	   struct tuned *t, const char **need)
{
	unsigned long long best = 0;
	const struct karg *best_a = NULL;

	memset(s, 0, sizeof(*s));
	memset(t, 0, sizeof(*t));
	s->chip = chip;
	s->buffers = 2;
	*need = NULL;
	if (!k->in_known || !k->out_known || !k->scratch_known) {
		*need = !k->out_known ? "the out_shape" : NULL;
		return false;
	}
	for (size_t i = 0; i < k->nin + k->nout; i++) {
		const struct karg *a = i < k->nin ? &k->in[i] : &k->out[i - k->nin];
		struct shape b;

		if (a->spec.any || a->spec.smem || a->spec.sem || (a->v && a->v->kind == VAL_NONE))
			continue;
		if (a->spec.present && a->spec.block) {
			if (!val_shape(a->spec.block, &b)) {
				*need = val_need(a->spec.block);
				return false;
			}
		} else if (a->v && (a->v->kind == VAL_ARRAY || a->v->kind == VAL_REF) && a->v->has_shape) {
			b = a->v->shape;
		} else {
			*need = ck_operand_need(cx, a, "shape");
			return false;
		}
		if (!a->v || !a->v->dt || a->v->dt->bits > 32) {
			*need = a->v && a->v->dt ? NULL : ck_operand_need(cx, a, "dtype");
			return false;
		}
		{
			struct vmem_scratch *slot;
			struct shape vis;
			unsigned long long bytes = shape_elements(&b) * (unsigned)a->v->dt->bits;

			visible(&b, &vis);
			if (a->spec.buffers == 1 || a->spec.buffers > 2) {
				for (int r = 0; r < (a->spec.buffers == 1 ? 1 : a->spec.buffers); r++) {
					if (s->nscratch >= VMEM_MAX_SCRATCH)
						return false;
					slot = &s->scratch[s->nscratch++];
					slot->shape = vis;
					slot->dtype = a->v->dt;
				}
				continue;
			}
			if (s->nother >= VMEM_MAX_SCRATCH)
				return false;
			slot = &s->other[s->nother++];
			slot->shape = vis;
			slot->dtype = a->v->dt;
			if (bytes > best) {
				best = bytes;
				best_a = a;
				t->shape = b;
			}
		}
	}
	for (size_t i = 0; i < k->nscratch; i++) {
		const struct kscratch *sc = &k->scratch[i];

		if (strcmp(sc->kind, "vmem") != 0)
			continue;
		if (!sc->has_shape || !sc->dt) {
			*need = sc->shape_val ? val_need(sc->shape_val) : NULL;
			return false;
		}
		/* a 64-bit scratch has no TPU tile (U006 says so): no working set to compute */
		if (sc->dt->bits > 32)
			return false;
		if (s->nscratch >= VMEM_MAX_SCRATCH)
			return false;
		s->scratch[s->nscratch].shape = sc->shape;
		s->scratch[s->nscratch++].dtype = sc->dt;
	}
	if (!best_a) {
		/* no double-buffered block: a 1-element stand-in keeps the calculator happy */
		s->block.rank = 1;
		s->block.dims[0] = 1;
		s->dtype = ck_dtype(cx, "float32");
		return s->dtype != NULL;
	}
	/* the tuned block moves out of `other` into `block` */
	for (size_t i = 0; i < s->nother; i++) {
		struct shape vis;

		visible(&t->shape, &vis);
		if (shape_equal(&s->other[i].shape, &vis) && s->other[i].dtype == best_a->v->dt) {
			s->block = vis;
			s->dtype = best_a->v->dt;
			s->other[i] = s->other[--s->nother];
			break;
		}
	}
	s->n_in = best_a >= k->in && best_a < k->in + k->nin ? 1 : 0;
	s->n_out = 1 - s->n_in;
	t->a = best_a;
	return true;
}

static const char *
detail_text(struct cctx *cx, const struct vmem_usage *u, unsigned long long inner)
{
	char buf[256];
	size_t blocks = 1 + u->nother;

	snprintf(buf, sizeof(buf), "%zu block%s %s (double-buffered)%s%s%s%s", blocks,
		 blocks == 1 ? "" : "s", size_text(cx, u->blocks_bytes),
		 u->scratch_bytes ? " + scratch " : "", u->scratch_bytes ? size_text(cx, u->scratch_bytes)
									 : "",
		 inner ? " + emit_pipeline buffers " : "", inner ? size_text(cx, inner) : "");
	return ck_strdup(cx, buf);
}

/*
 * The halved blocks of the capacity ladder, as fixes where their numbers
 * were written. Returns where the first one changes the source, or NULL.
 */
static const struct py_node *
halving_fixes(struct cctx *cx, const struct tuned *t, const struct chip *chip, struct vars *vs)
{
	const struct py_node *minor = NULL, *second = NULL;
	struct shape out;
	int tile;

	if (!t->a || !t->a->spec.block)
		return NULL;
	tile = chip_sublane_tile(chip, t->a->v->dt->bits);
	if (block_halve_minor(&t->shape, chip->lanes, &out))
		minor = ck_dim_fix(cx, t->a->spec.block, t->shape.rank - 1, out.dims[out.rank - 1], 0,
				   &out, vs, "halve");
	if (t->shape.rank >= 2 && block_halve_second(&t->shape, tile, &out))
		second = ck_dim_fix(cx, t->a->spec.block, t->shape.rank - 2, out.dims[out.rank - 2], 0,
				    &out, vs, "halve2");
	return minor ? minor : second;
}

struct judged {
	bool computed, over, over_physical;
	struct vmem_usage u;
	struct vmem_budget b;
	unsigned long long total;
};

static void
judge(struct cctx *cx, const struct kcall *k, const struct chip *chip, struct judged *j,
      struct vmem_spec *s, struct tuned *t, const char **need)
{
	struct pt_err err = PT_ERR_INIT;

	memset(j, 0, sizeof(*j));
	if (!build_spec(cx, k, chip, s, t, need) || vmem_compute(s, &j->u, &err) < 0)
		return;
	j->computed = true;
	j->total = j->u.total + k->inner_vmem;
	vmem_budget_init(&j->b, chip, k->vmem_limit);
	/*
	 * Over the limit itself, not only over what Mosaic's internal scratch
	 * leaves of it: that part of the budget is the calculator's estimate,
	 * and an error here means the kernel surely does not fit.
	 */
	j->over = j->total > (j->b.limit < j->b.physical ? j->b.limit : j->b.physical);
	j->over_physical = j->total + j->b.internal > j->b.physical;
}

static void
report_tpu(struct cctx *cx, struct kcall *k, const struct chip *chip, const struct judged *j,
	   const struct tuned *t, const char *chips, bool all)
{
	struct vars vs = VARS_INIT;
	const struct py_node *at = k->node, *shrink;
	unsigned long long prop;

	vars_set(&vs, "total", size_text(cx, j->total), true);
	vars_set(&vs, "detail", detail_text(cx, &j->u, k->inner_vmem), true);
	vars_set(&vs, "limit", size_text(cx, j->b.limit), true);
	vars_set(&vs, "physical", size_text(cx, j->b.physical), true);
	vars_set(&vs, "chip", chips, true);
	vars_set(&vs, "limit_what", j->b.from == VMEM_LIMIT_GIVEN ? "vmem_limit_bytes given" :
		 j->b.from == VMEM_LIMIT_DEFAULT ? "default scoped-VMEM limit" : "physical VMEM", true);
	if (t->a)
		vars_set(&vs, "operand", t->a->name ? t->a->name : "the largest block", true);
	shrink = halving_fixes(cx, t, chip, &vs);
	if (!j->over_physical &&
	    vmem_propose_limit(j->total, j->b.physical - j->b.internal, &prop) == 0) {
		vars_set(&vs, "proposed", ck_printf(cx, "%llu", prop), true);
		vars_set(&vs, "proposed_human", size_text(cx, prop), true);
		vars_set(&vs, "limit_where", ck_where(cx, k->vmem_limit_node ? k->vmem_limit_node :
						      k->params_node ? k->params_node : k->node), true);
	}
	/*
	 * The line to change: a limit that is given but too small, else the
	 * largest block's number (the pallas_call stays beside it).
	 */
	if (k->vmem_limit_node)
		at = shrink = k->vmem_limit_node;
	ck_report(cx, !all ? "C005" : j->over_physical ? "C002" : "C001", at, shrink ? shrink : at,
		  k, &vs);
	vars_release(&vs);
}

/* Keep the halved-block fixes with the kernel: triage shows them for any capacity verdict. */
static void
keep_halving(struct cctx *cx, struct kcall *k, const struct tuned *t, const struct chip *chip)
{
	struct vars vs = VARS_INIT;
	static const char *const pre[2] = { "halve", "halve2" };

	halving_fixes(cx, t, chip, &vs);
	for (int i = 0; i < 2; i++) {
		char w[32], ch[32];
		const char *where, *change;

		snprintf(w, sizeof(w), "%s_where", pre[i]);
		snprintf(ch, sizeof(ch), "%s_change", pre[i]);
		where = vars_get(&vs, w);
		change = vars_get(&vs, ch);
		if (where && change && !k->halve_fix[i])
			k->halve_fix[i] = ck_printf(cx, "%s: %s", where, change);
	}
	vars_release(&vs);
}

static void
capacity_tpu(struct cctx *cx, struct kcall *k)
{
	struct vmem_spec s;
	struct tuned t;
	struct judged j;
	const char *need = NULL;

	if (cx->chip) {
		judge(cx, k, cx->chip, &j, &s, &t, &need);
		if (!j.computed)
			goto unknown;
		k->vmem_known = true;
		k->vmem_total = j.total;
		k->vmem_detail = (char *)detail_text(cx, &j.u, k->inner_vmem);
		keep_halving(cx, k, &t, cx->chip);
		if (k->vmem_limit > cx->chip->vmem_bytes) {
			struct vars vs = VARS_INIT;

			vars_set(&vs, "given", size_text(cx, k->vmem_limit), true);
			vars_set(&vs, "physical", size_text(cx, cx->chip->vmem_bytes), true);
			vars_set(&vs, "chip", cx->chip->name, true);
			ck_report(cx, "C003", k->vmem_limit_node, k->vmem_limit_node, k, &vs);
			vars_release(&vs);
		}
		if (j.over)
			report_tpu(cx, k, cx->chip, &j, &t, cx->chip->name, true);
		return;
	}
	/* no chip: every chip whose default limit is known */
	{
		struct buf failing = BUF_INIT;
		size_t nknown = 0, nover = 0;
		struct judged first;
		const struct chip *first_chip = NULL;
		struct tuned first_t;

		memset(&first, 0, sizeof(first));
		for (size_t i = 0; cx->rs->chips && i < cx->rs->chips->nchips; i++) {
			const struct chip *c = cx->rs->chips->chips[i];

			if (!c->scoped_default_bytes)
				continue;
			judge(cx, k, c, &j, &s, &t, &need);
			if (!j.computed) {
				buf_release(&failing);
				goto unknown;
			}
			if (!nknown++) {
				k->vmem_known = true;
				k->vmem_total = j.total;
				k->vmem_detail = (char *)detail_text(cx, &j.u, k->inner_vmem);
				keep_halving(cx, k, &t, c);
			}
			if (!j.over)
				continue;
			buf_addf(&failing, "%s%s", nover++ ? ", " : "", c->name);
			if (!first_chip) {
				first = j;
				first_chip = c;
				first_t = t;
			}
		}
		if (nover)
			report_tpu(cx, k, first_chip, &first, &first_t, ck_strdup(cx, failing.data),
				   nover == nknown);
		buf_release(&failing);
		return;
	}
unknown:
	if (need) {
		struct vars vs = VARS_INIT;

		vars_set(&vs, "need", need, true);
		ck_report(cx, "C009", k->node, k->node, k, &vs);
		vars_release(&vs);
	}
}

static void
capacity_gpu(struct cctx *cx, struct kcall *k)
{
	struct smem_spec s;
	struct smem_usage u;
	struct pt_err err = PT_ERR_INIT;
	struct vars vs = VARS_INIT;
	bool triton = strcmp(k->backend, "triton") == 0;
	unsigned long long best = 0;

	if (!cx->gpu || !k->in_known || !k->out_known)
		return;
	memset(&s, 0, sizeof(s));
	s.triton = triton;
	s.stages = triton ? (k->num_stages > 0 ? k->num_stages : 3)
			  : (k->max_concurrent_steps > 0 ? k->max_concurrent_steps : 1);
	for (size_t i = 0; i < k->nin + k->nout; i++) {
		const struct karg *a = i < k->nin ? &k->in[i] : &k->out[i - k->nin];
		struct shape b;

		if (!a->spec.present || !a->spec.block)
			continue;
		if (!val_shape(a->spec.block, &b) || !a->v || !a->v->dt)
			return;
		if (s.nother >= SMEM_MAX_EXTRA)
			return;
		if (shape_elements(&b) * (unsigned)a->v->dt->bits > best && i < k->nin) {
			if (s.dtype) {
				s.other[s.nother].shape = s.block;
				s.other[s.nother++].dtype = s.dtype;
			}
			best = shape_elements(&b) * (unsigned)a->v->dt->bits;
			s.block = b;
			s.dtype = a->v->dt;
			s.n_in = 1;
		} else {
			s.other[s.nother].shape = b;
			s.other[s.nother++].dtype = a->v->dt;
		}
	}
	if (!s.dtype || smem_compute(&s, &u, &err) < 0)
		return;
	k->vmem_known = true;
	k->vmem_total = u.total;
	if (u.total <= cx->gpu->smem_block_optin)
		return;
	vars_set(&vs, "total", size_text(cx, u.total), true);
	vars_set(&vs, "limit", size_text(cx, cx->gpu->smem_block_optin), true);
	vars_set(&vs, "chip", cx->gpu->name, true);
	vars_set(&vs, "stages", ck_printf(cx, "%d", s.stages), true);
	vars_set(&vs, "stages_what", triton ? "num_stages" : "max_concurrent_steps", true);
	ck_report(cx, triton ? "C004" : "C006", k->node, k->node, k, &vs);
	vars_release(&vs);
}

void
ck_capacity(struct cctx *cx, struct kcall *k)
{
	if (strcmp(k->backend, "mosaic-tpu") == 0)
		capacity_tpu(cx, k);
	else
		capacity_gpu(cx, k);
}
