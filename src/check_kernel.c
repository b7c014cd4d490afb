/* SPDX-License-Identifier: MIT */
/*
 * A pallas_call as the checker sees it (pt/check_impl.h): the grid, the
 * block specs, the operands and outputs, the scratch and the compiler
 * params read from the call's arguments (directly or through a GridSpec);
 * then the kernel walked with its refs bound in Pallas's order (scalar
 * prefetch, inputs, outputs, scratch), and the analyses run on what the
 * walk recorded. emit_pipeline inside a kernel is a nested call of the
 * same kind, walked in the outer kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "pt/check_impl.h"
#include "pt/chips.h"
#include "pt/gpus.h"
#include "pt/xalloc.h"

void
ck_kernel_event(struct interp *in, struct kev *e)
{
	struct kcall *k = in->k;

	if (!k)
		return;
	e->cond_eq0 = in->cond_eq0;
	e->cond_depth = in->cond_depth;
	e->cond_unknown = in->cond_unknown;
	e->in_loop = in->loop_depth > 0;
	if (e->kind == KEV_WAIT || e->kind == KEV_WAIT_SEND || e->kind == KEV_WAIT_RECV) {
		if (!e->dma || !e->dma->known)
			k->unknown_wait = true;
	}
	if (e->kind == KEV_START && (!e->dma || !e->dma->known))
		k->unknown_start = true;
	if (k->nev == k->alloc_ev) {
		size_t alloc = k->alloc_ev ? 2 * k->alloc_ev : 32;
		struct kev *ev = py_arena_alloc(in->cx->a, alloc * sizeof(*ev));

		if (k->nev)
			ck_copy(ev, k->ev, k->nev, sizeof(*ev));
		k->ev = ev;
		k->alloc_ev = alloc;
	}
	k->ev[k->nev++] = *e;
}

static void
mark_kernel(struct cctx *cx, const struct py_node *fn)
{
	for (size_t i = 0; i < cx->nkernels; i++)
		if (cx->kernels[i] == fn)
			return;
	xgrow((void **)&cx->kernels, &cx->alloc_kernels, cx->nkernels + 1, sizeof(*cx->kernels));
	cx->kernels[cx->nkernels++] = fn;
}

struct val *
ck_pallas_call_made(struct interp *in, struct val *obj)
{
	struct cctx *cx = in->cx;
	struct val *kfn = val_arg(obj, 0, "kernel");

	for (size_t i = 0; kfn && i < (kfn->kind == VAL_ALT ? kfn->n : 1); i++) {
		struct val *f = kfn->kind == VAL_ALT ? kfn->elts[i] : kfn;

		if (f->kind == VAL_FUNC)
			mark_kernel(cx, f->fn);
	}
	if (in->from_call_site)
		obj->flags |= VF_FROM_DOT;      /* reused: made where arguments were known */
	/* one made inside a kernel body is never run (a kernel that makes itself would loop) */
	if (in->k)
		return obj;
	xgrow((void **)&cx->pending, &cx->alloc_pending, cx->npending + 1, sizeof(*cx->pending));
	cx->pending[cx->npending++] = obj;
	return obj;
}

/* ------------------------------------------------------------ reading the call */

/*
 * Flatten a tuple/list of values (one level of nesting) into out; returns
 * the count, or -1. Lists that differ between two paths (scratch only when
 * the kv axis is blocked) give the longest: a kernel takes the superset.
 */
static long
flatten(struct val *v, struct val ***out, struct cctx *cx)
{
	size_t n = 0;
	struct val **items;

	if (!v)
		return 0;
	if (v->kind == VAL_ALT) {
		struct val *best = NULL;

		for (size_t i = 0; i < v->n; i++)
			if (v->elts[i]->kind == VAL_TUPLE && (!best || v->elts[i]->n > best->n))
				best = v->elts[i];
		if (!best)
			return -1;
		v = best;
	}
	if (v->kind == VAL_TUPLE && (v->flags & VF_SOME))
		return -1;
	if (v->kind != VAL_TUPLE) {
		items = py_arena_alloc(cx->a, sizeof(*items));
		items[0] = v;
		*out = items;
		return 1;
	}
	for (size_t i = 0; i < v->n; i++)
		n += v->elts[i]->kind == VAL_TUPLE ? v->elts[i]->n : 1;
	items = py_arena_alloc(cx->a, (n + 1) * sizeof(*items));
	n = 0;
	for (size_t i = 0; i < v->n; i++) {
		if (v->elts[i]->kind == VAL_TUPLE)
			for (size_t k = 0; k < v->elts[i]->n; k++)
				items[n++] = v->elts[i]->elts[k];
		else
			items[n++] = v->elts[i];
	}
	*out = items;
	return (long)n;
}

static bool
is_obj(const struct val *v, const char *name)
{
	return v && (v->kind == VAL_OBJ || v->kind == VAL_API) && v->s && strcmp(v->s, name) == 0;
}

static bool
is_memory(const struct val *v, const char *what)
{
	char buf[64];

	if (!v || (v->kind != VAL_API && v->kind != VAL_OBJ) || !v->s)
		return false;
	/* pl.ANY, pltpu.ANY, pltpu.MemorySpace.ANY / HBM / SMEM, pltpu.SMEM (as a space) */
	snprintf(buf, sizeof(buf), ".%s", what);
	return strlen(v->s) >= strlen(buf) && strcmp(v->s + strlen(v->s) - strlen(buf), buf) == 0;
}

static void
read_spec(struct cctx *cx, struct val *v, struct kspec *s)
{
	struct val *mem, *mode;

	memset(s, 0, sizeof(*s));
	s->buffers = 2;
	if (!v || v->kind == VAL_NONE)
		return;
	s->node = v->node;
	if (!is_obj(v, "pl.BlockSpec") && !is_obj(v, "plgpu.BlockSpec")) {
		/* a bare memory space (pl.BlockSpec(memory_space=pltpu.ANY) spelled as pltpu.ANY) */
		if (is_memory(v, "ANY") || is_memory(v, "HBM")) {
			s->present = true;
			s->any = true;
		}
		return;
	}
	s->present = true;
	s->block = val_arg(v, 0, "block_shape");
	s->index_map = val_arg(v, 1, "index_map");
	/* before mid-2024 the order was BlockSpec(index_map, block_shape) */
	if (s->block && s->block->kind == VAL_FUNC && s->index_map &&
	    s->index_map->kind == VAL_TUPLE) {
		struct val *t = s->block;

		s->block = s->index_map;
		s->index_map = t;
	}
	if (s->block && s->block->kind == VAL_NONE)
		s->block = NULL;
	mem = val_arg(v, 99, "memory_space");
	if (mem && (is_memory(mem, "ANY") || is_memory(mem, "HBM")))
		s->any = true;
	if (mem && (is_memory(mem, "SMEM")))
		s->smem = true;
	if (mem && (is_memory(mem, "SEMAPHORE")))
		s->sem = true;
	mode = val_arg(v, 99, "pipeline_mode");
	if (is_obj(mode, "pl.Buffered")) {
		struct val *n = val_arg(mode, 0, "buffer_count");

		if (n && n->kind == VAL_INT && n->i >= 1 && n->i <= 16)
			s->buffers = (int)n->i;
	}
	(void)cx;
}

static void
read_grid(struct kcall *k, struct val *g)
{
	k->grid = g;
	if (!g || g->kind == VAL_NONE) {
		k->grid_rank = 0;
		return;
	}
	if (g->kind == VAL_INT) {
		k->grid_rank = 1;
		k->grid_dims[0] = g->i > 0 ? g->i : 0;
		return;
	}
	if (g->kind != VAL_TUPLE || g->n > 8) {
		k->grid_rank = -1;
		return;
	}
	k->grid_rank = (int)g->n;
	for (size_t i = 0; i < g->n; i++)
		k->grid_dims[i] = g->elts[i]->kind == VAL_INT && g->elts[i]->i > 0 ? g->elts[i]->i : 0;
}

static void
read_scratch(struct cctx *cx, struct kcall *k, struct val *v)
{
	struct val **items;
	long n = flatten(v, &items, cx);

	k->scratch_known = v == NULL || n >= 0;
	if (!v || n <= 0)
		return;
	k->scratch = py_arena_alloc(cx->a, (size_t)n * sizeof(*k->scratch));
	for (long i = 0; i < n; i++) {
		struct kscratch *s = &k->scratch[k->nscratch++];
		struct val *e = items[i];
		const char *name = e->s ? e->s : "";

		s->node = e->node;
		if (e->kind == VAL_UNKNOWN || (e->kind != VAL_OBJ && e->kind != VAL_API)) {
			s->kind = "unknown";
			k->scratch_known = false;
			continue;
		}
		if (strcmp(name, "pltpu.VMEM") == 0 || strcmp(name, "plgpu.SMEM") == 0 ||
		    strcmp(name, "pltpu.SMEM") == 0) {
			struct val *dt = val_arg(e, 1, "dtype");

			s->kind = strcmp(name, "pltpu.VMEM") == 0 ? "vmem" :
				  strcmp(name, "pltpu.SMEM") == 0 ? "smem" : "gpu-smem";
			s->shape_val = val_arg(e, 0, "shape");
			s->has_shape = val_shape(s->shape_val, &s->shape);
			s->shape.squeezed = 0;
			s->dt = dt && dt->kind == VAL_DTYPE ? dt->dt : NULL;
		} else if (strstr(name, "SemaphoreType.DMA")) {
			s->kind = "dma";
		} else if (strstr(name, "SemaphoreType")) {
			s->kind = "regular";
		} else if (strcmp(name, "plgpu.Barrier") == 0) {
			s->kind = "barrier";
		} else {
			s->kind = "unknown";
		}
		if (e->kind == VAL_OBJ && (strcmp(s->kind, "dma") == 0 || strcmp(s->kind, "regular") == 0)) {
			s->shape_val = val_arg(e, 0, "shape");
			s->has_shape = val_shape(s->shape_val, &s->shape);
		}
	}
}

static const char *
backend_of_params(const struct val *p)
{
	struct val *x;

	if (!p)
		return NULL;
	if (is_obj(p, "pltpu.CompilerParams"))
		return "mosaic-tpu";
	if (is_obj(p, "pltriton.CompilerParams"))
		return "triton";
	if (is_obj(p, "plgpu.CompilerParams"))
		return "mosaic-gpu";
	if (p->kind == VAL_DICT) {
		if (val_kwarg(p, "mosaic", &x) || val_kwarg(p, "mosaic_tpu", &x))
			return "mosaic-tpu";
		if (val_kwarg(p, "triton", &x))
			return "triton";
		if (val_kwarg(p, "mosaic_gpu", &x))
			return "mosaic-gpu";
	}
	return NULL;
}

/* The compiler params' own keywords, whether given as an object or dict(mosaic=dict(...)). */
static struct val *
params_inner(struct val *p)
{
	struct val *x;

	if (p && p->kind == VAL_DICT && p->nkw == 1 && p->kwv[0]->kind == VAL_DICT &&
	    (val_kwarg(p, "mosaic", &x) || val_kwarg(p, "triton", &x) || val_kwarg(p, "mosaic_gpu", &x) ||
	     val_kwarg(p, "mosaic_tpu", &x)))
		return x;
	return p;
}

static void
read_params(struct cctx *cx, struct kcall *k, struct val *p)
{
	struct val *inner = params_inner(p), *x;

	k->params = p;
	k->params_node = p ? p->node : NULL;
	if (!inner)
		return;
	if (val_kwarg(inner, "dimension_semantics", &x) && x->kind == VAL_TUPLE) {
		k->semantics = x;
		k->semantics_known = true;
		for (size_t i = 0; i < x->n && i < 8; i++) {
			const struct val *e = x->elts[i];

			if (e->kind != VAL_STR) {
				k->semantics_known = false;
				continue;
			}
			if (strcmp(e->s, "arbitrary") == 0 || strcmp(e->s, "sequential") == 0)
				k->arbitrary_axes |= 1u << i;
		}
	}
	if (val_kwarg(inner, "vmem_limit_bytes", &x) && x->kind == VAL_INT && x->i > 0) {
		k->vmem_limit = (unsigned long long)x->i;
		k->vmem_limit_node = x->node;
	}
	if (val_kwarg(inner, "collective_id", &x) && x->kind != VAL_NONE)
		k->collective_id = true;
	if (val_kwarg(inner, "num_stages", &x) && x->kind == VAL_INT)
		k->num_stages = (int)x->i;
	if (val_kwarg(inner, "num_warps", &x) && x->kind == VAL_INT)
		k->num_warps = (int)x->i;
	if (val_kwarg(inner, "max_concurrent_steps", &x) && x->kind == VAL_INT)
		k->max_concurrent_steps = (int)x->i;
	(void)cx;
}

static const char *
default_backend(struct cctx *cx)
{
	if (cx->file_backend)
		return cx->file_backend;
	if (cx->gpu)
		return gpu_runs(cx->gpu, "mosaic-gpu") && !gpu_runs(cx->gpu, "triton") ? "mosaic-gpu"
											: "triton";
	return "mosaic-tpu";
}

/* Was input_output_aliases given a non-empty value at the call? */
static bool
aliases_given(const struct py_node *call)
{
	for (size_t i = 0; call && call->kind == PY_CALL && i < call->more.n; i++) {
		const struct py_node *k = call->more.v[i];

		if (k->s && strcmp(k->s, "input_output_aliases") == 0)
			return !(k->x->kind == PY_DICT && k->x->items.n == 0);
	}
	return false;
}

static const char *
operand_name(struct cctx *cx, const struct py_node *call_site, size_t i)
{
	char buf[64];

	if (!call_site || call_site->kind != PY_CALL || i >= call_site->items.n)
		return NULL;
	py_render(call_site->items.v[i], buf, sizeof(buf));
	return ck_strdup(cx, buf);
}

static void
read_operands(struct cctx *cx, struct kcall *k, struct val *obj, struct val **args, long nargs,
	      const struct py_node *site)
{
	struct val *gs = val_arg(obj, 99, "grid_spec");
	struct val *in_specs, *out_specs, *out_shape = val_arg(obj, 1, "out_shape");
	struct val **specs = NULL, **outs = NULL, **ospecs = NULL;
	long nspecs, nouts, nospecs;
	struct val *np;

	if (is_obj(obj, "pl.kernel") || is_obj(obj, "plgpu.kernel")) {
		/* no block specs: every operand and output is whole, in HBM/GMEM */
		read_grid(k, val_arg(obj, 99, "grid"));
		read_scratch(cx, k, val_arg(obj, 99, "scratch_shapes"));
		in_specs = out_specs = NULL;
	} else if (gs && (is_obj(gs, "pl.GridSpec") || is_obj(gs, "pltpu.PrefetchScalarGridSpec"))) {
		read_grid(k, val_arg(gs, 1, "grid"));
		in_specs = val_arg(gs, 2, "in_specs");
		out_specs = val_arg(gs, 3, "out_specs");
		read_scratch(cx, k, val_arg(gs, 4, "scratch_shapes"));
		np = val_arg(gs, 0, "num_scalar_prefetch");
		if (np && np->kind == VAL_INT && np->i >= 0 && np->i < 16)
			k->nprefetch = (int)np->i;
		if (is_obj(gs, "pl.GridSpec")) {
			read_grid(k, val_arg(gs, 0, "grid"));
			in_specs = val_arg(gs, 1, "in_specs");
			out_specs = val_arg(gs, 2, "out_specs");
			read_scratch(cx, k, val_arg(gs, 3, "scratch_shapes"));
			k->nprefetch = 0;
		}
	} else if (gs && gs->kind != VAL_NONE) {
		k->grid_rank = -1;
		in_specs = out_specs = NULL;
		k->scratch_known = false;
		k->in_known = k->out_known = false;
		return;
	} else {
		read_grid(k, val_arg(obj, 99, "grid"));
		in_specs = val_arg(obj, 99, "in_specs");
		out_specs = val_arg(obj, 99, "out_specs");
		read_scratch(cx, k, val_arg(obj, 99, "scratch_shapes"));
	}
	/* inputs: the operands after the scalar-prefetch ones, with their specs */
	nspecs = in_specs ? flatten(in_specs, &specs, cx) : 0;
	k->in_known = (!in_specs || in_specs->kind == VAL_TUPLE || in_specs->kind == VAL_OBJ ||
		       in_specs->kind == VAL_NONE) && (args || in_specs) && nspecs >= 0;
	if (args) {
		long n = nargs - k->nprefetch;

		k->nin = n > 0 ? (size_t)n : 0;
	} else {
		k->nin = nspecs > 0 ? (size_t)nspecs : 0;
	}
	k->in = py_arena_alloc(cx->a, (k->nin + 1) * sizeof(*k->in));
	{
		size_t n = 0;

		for (size_t i = 0; i < k->nin; i++) {
			struct karg *a = &k->in[n];

			a->v = args ? args[k->nprefetch + i] : val_unknown(cx, ck_printf(cx, "operand %zu", i),
									    obj->node);
			/* None is an empty pytree: no spec, and the kernel gets None for it */
			if (a->v->kind == VAL_NONE) {
				memset(&a->spec, 0, sizeof(a->spec));
				n++;
				continue;
			}
			a->name = operand_name(cx, site, k->nprefetch + i);
			read_spec(cx, in_specs && (long)i < nspecs ? specs[i] : NULL, &a->spec);
			n++;
		}
		k->nin = n;
	}
	/* outputs: out_shape, with out_specs */
	nouts = out_shape ? flatten(out_shape, &outs, cx) : 0;
	nospecs = out_specs ? flatten(out_specs, &ospecs, cx) : 0;
	k->out_known = out_shape && out_shape->kind != VAL_UNKNOWN && nouts >= 0;
	k->nout = nouts > 0 ? (size_t)nouts : 0;
	if (nospecs < 0)
		k->out_known = false;
	k->out = py_arena_alloc(cx->a, (k->nout + 1) * sizeof(*k->out));
	{
		size_t n = 0;

		for (size_t i = 0; i < k->nout; i++) {
			k->out[n].v = outs[i];
			if (outs[i]->kind == VAL_NONE) {
				memset(&k->out[n].spec, 0, sizeof(k->out[n].spec));
				n++;
				continue;
			}
			read_spec(cx, out_specs && (long)i < nospecs ? ospecs[i] : NULL, &k->out[n].spec);
			n++;
		}
		k->nout = n;
	}
	/* pl.kernel's operands stay in HBM (GMEM): no blocks, nothing pipelined into VMEM */
	if (is_obj(obj, "pl.kernel") || is_obj(obj, "plgpu.kernel"))
		for (size_t i = 0; i < k->nin + k->nout; i++) {
			struct karg *a = i < k->nin ? &k->in[i] : &k->out[i - k->nin];

			if (a->v->kind != VAL_NONE) {
				a->spec.present = true;
				a->spec.any = true;
			}
		}
}

/* ------------------------------------------------------------ the kernel's refs */

static struct val *
make_ref(struct cctx *cx, struct kcall *k, const char *name, enum ref_role role,
	 const struct karg *a, int spec)
{
	struct val *r = val_new(cx, VAL_REF, NULL);
	struct kref *kr = py_arena_alloc(cx->a, sizeof(*kr));
	struct shape block;

	kr->name = name;
	kr->role = role;
	kr->spec = spec;
	kr->bit = k->nrefs < CK_MAX_REFS ? (int)k->nrefs : -1;
	kr->mem = BLOCK_MEM_VMEM;
	if (a) {
		const struct val *v = a->v;

		kr->dt = v && (v->kind == VAL_ARRAY || v->kind == VAL_REF) ? v->dt : NULL;
		if (a->spec.present && a->spec.block && val_shape(a->spec.block, &block)) {
			kr->shape = block;
			kr->has_shape = true;
		} else if ((!a->spec.present || a->spec.any || !a->spec.block) && v &&
			   (v->kind == VAL_ARRAY || v->kind == VAL_REF) && v->has_shape) {
			kr->shape = v->shape;
			kr->has_shape = true;
		}
		kr->any = a->spec.any;
		if (a->spec.any)
			kr->mem = BLOCK_MEM_ANY;
		else if (a->spec.smem)
			kr->mem = BLOCK_MEM_SMEM;
	}
	r->ref = kr;
	r->dt = kr->dt;
	r->has_shape = kr->has_shape;
	r->shape = kr->shape;
	if (k->nrefs == k->alloc_refs) {
		size_t alloc = k->alloc_refs ? 2 * k->alloc_refs : 16;
		struct kref **refs = py_arena_alloc(cx->a, alloc * sizeof(*refs));

		if (k->nrefs)
			ck_copy(refs, k->refs, k->nrefs, sizeof(*refs));
		k->refs = refs;
		k->alloc_refs = alloc;
	}
	k->refs[k->nrefs++] = kr;
	return r;
}

/* The kernel's positional parameter names, after partial's keywords took theirs. */
static const char *
param_name(struct cctx *cx, const struct val *fn, size_t pos)
{
	size_t k = 0;

	if (fn && fn->kind == VAL_ALT && fn->n)
		fn = fn->elts[0];
	if (!fn || fn->kind != VAL_FUNC)
		return ck_printf(cx, "ref %zu", pos);
	for (size_t i = 0; i < fn->fn->more.n; i++) {
		const struct py_node *p = fn->fn->more.v[i];
		bool bound = false;

		for (size_t j = 0; j < fn->nkw; j++)
			bound |= fn->kwn[j] && strcmp(fn->kwn[j], p->s) == 0;
		if (bound || p->op == 'k' || p->op == 'd')
			continue;
		if (p->op == '*')
			return ck_printf(cx, "%s[%zu]", p->s, pos - k);
		if (k++ == pos)
			return p->s;
	}
	return ck_printf(cx, "ref %zu", pos);
}

static void
scratch_ref(struct cctx *cx, struct kcall *k, const struct kscratch *s, const char *name,
	    struct val **out)
{
	struct karg a;
	struct val *arr = val_new(cx, VAL_ARRAY, s->node);

	memset(&a, 0, sizeof(a));
	arr->has_shape = s->has_shape;
	arr->shape = s->shape;
	arr->dt = s->dt;
	a.v = arr;
	*out = make_ref(cx, k, name, strcmp(s->kind, "vmem") == 0 || strcmp(s->kind, "smem") == 0 ||
			strcmp(s->kind, "gpu-smem") == 0 ? ROLE_SCRATCH :
			strcmp(s->kind, "unknown") == 0 ? ROLE_OTHER : ROLE_SEM, &a,
			(int)(s - k->scratch));
	if (strcmp(s->kind, "smem") == 0)
		(*out)->ref->mem = BLOCK_MEM_SMEM;
}

struct val *
ck_index_map_result(struct cctx *cx, const struct kcall *k, const struct kspec *s)
{
	struct interp sub;
	struct val **args;
	size_t n;

	if (!s->index_map || s->index_map->kind != VAL_FUNC || k->grid_rank < 0)
		return NULL;
	memset(&sub, 0, sizeof(sub));
	sub.cx = cx;
	sub.scope = cx->module;
	n = (size_t)k->grid_rank + (size_t)k->nprefetch;
	args = py_arena_alloc(cx->a, (n + 1) * sizeof(*args));
	for (int i = 0; i < k->grid_rank; i++) {
		args[i] = val_traced(cx, NULL, s->index_map->fn);
		args[i]->pid_axis = i;
		args[i]->pid_mask = 1u << i;
	}
	for (int i = 0; i < k->nprefetch; i++)
		args[k->grid_rank + i] = val_traced(cx, NULL, s->index_map->fn);
	return ck_call_user(&sub, s->index_map, args, n, NULL, NULL, 0, s->index_map->fn);
}

/* The grid axes an index map's result does not depend on: the output is revisited along them. */
static void
index_map_axes(struct cctx *cx, struct kcall *k, struct kspec *s, struct kref *r)
{
	struct val *res = ck_index_map_result(cx, k, s);
	unsigned used = 0;

	if (!res)
		return;
	if (res->kind == VAL_TUPLE) {
		for (size_t i = 0; i < res->n; i++) {
			if (res->elts[i]->kind == VAL_TRACED)
				used |= res->elts[i]->pid_mask;
			else if (res->elts[i]->kind != VAL_INT)
				return;
		}
	} else if (res->kind == VAL_TRACED) {
		used = res->pid_mask;
	} else if (res->kind != VAL_INT) {
		return;
	}
	r->red_axes = ((1u << k->grid_rank) - 1) & ~used;
	r->red_known = true;
}

static void
walk_kernel(struct interp *in, struct kcall *k)
{
	struct cctx *cx = in->cx;
	struct interp kin = *in;
	size_t n = (size_t)k->nprefetch + k->nin + k->nout + k->nscratch, pos = 0;
	struct val **refs = py_arena_alloc(cx->a, (n + 1) * sizeof(*refs));

	for (int i = 0; i < k->nprefetch; i++, pos++) {
		struct karg a;

		memset(&a, 0, sizeof(a));
		a.v = val_unknown(cx, NULL, k->node);
		refs[pos] = make_ref(cx, k, param_name(cx, k->kernel_fn, pos), ROLE_PREFETCH, &a, i);
		refs[pos]->ref->mem = BLOCK_MEM_SMEM;
	}
	for (size_t i = 0; i < k->nin; i++, pos++)
		refs[pos] = k->in[i].v->kind == VAL_NONE ? k->in[i].v :
			    make_ref(cx, k, param_name(cx, k->kernel_fn, pos), ROLE_INPUT, &k->in[i], (int)i);
	for (size_t i = 0; i < k->nout; i++, pos++) {
		if (k->out[i].v->kind == VAL_NONE) {
			refs[pos] = k->out[i].v;
			continue;
		}
		refs[pos] = make_ref(cx, k, param_name(cx, k->kernel_fn, pos), ROLE_OUTPUT, &k->out[i],
				     (int)i);
		refs[pos]->ref->aliased = k->aliases;
		index_map_axes(cx, k, &k->out[i].spec, refs[pos]->ref);
	}
	for (size_t i = 0; i < k->nscratch; i++, pos++)
		scratch_ref(cx, k, &k->scratch[i], param_name(cx, k->kernel_fn, pos), &refs[pos]);
	if (!k->kernel_fn || (k->kernel_fn->kind != VAL_FUNC && k->kernel_fn->kind != VAL_ALT))
		return;
	kin.k = k;
	kin.cond_eq0 = 0;
	kin.cond_depth = 0;
	kin.cond_unknown = false;
	kin.loop_depth = 0;
	kin.ret = NULL;
	kin.returned = false;
	/* a kernel chosen on a path the checker cannot decide: every choice is walked */
	ck_call(&kin, k->kernel_fn, refs, pos, NULL, NULL, 0, k->node);
}

static void
analyse(struct cctx *cx, struct kcall *k)
{
	ck_layout(cx, k);
	if (!k->is_pipeline) {
		ck_capacity(cx, k);
		ck_sync(cx, k);
		ck_numerics(cx, k);
	}
	xgrow((void **)&cx->calls, &cx->alloc_calls, cx->ncalls + 1, sizeof(*cx->calls));
	cx->calls[cx->ncalls++] = k;
}

/* What calling the pallas_call returns: its outputs. */
static struct val *
outputs(struct cctx *cx, struct kcall *k, const struct py_node *node)
{
	struct val *t;

	if (!k->out_known || k->nout == 0)
		return val_unknown(cx, NULL, node);
	if (k->nout == 1 && k->out[0].v->kind == VAL_ARRAY)
		return k->out[0].v;
	t = val_tuple(cx, k->nout, node);
	for (size_t i = 0; i < k->nout; i++)
		t->elts[i] = k->out[i].v;
	return t;
}

struct val *
ck_pallas_call_run(struct interp *in, struct val *obj, struct val **args, size_t nargs,
		   const struct py_node *node)
{
	struct cctx *cx = in->cx;
	struct kcall *k = py_arena_alloc(cx->a, sizeof(*k));
	struct val *kfn = val_arg(obj, 0, "kernel"), *backend, *interp, *aliases;

	if (in->k)
		return val_unknown(cx, NULL, node);
	obj->flags |= VF_CALLED;
	k->node = obj->node;
	k->kernel_fn = kfn;
	for (size_t i = 0; kfn && i < (kfn->kind == VAL_ALT ? kfn->n : 1); i++) {
		struct val *f = kfn->kind == VAL_ALT ? kfn->elts[i] : kfn;

		if (f->kind != VAL_FUNC)
			continue;
		if (!k->kernel) {
			k->kernel = f->fn;
			k->kernel_scope = f->closure;
		}
		mark_kernel(cx, f->fn);
	}
	k->grid_rank = 0;
	read_params(cx, k, val_arg(obj, 99, "compiler_params"));
	k->backend = backend_of_params(k->params);
	interp = val_arg(obj, 99, "interpret");
	k->interpret = interp && ((interp->kind == VAL_BOOL && interp->i) ||
				  (interp->kind == VAL_OBJ && interp->s && strstr(interp->s, "InterpretParams")));
	backend = val_arg(obj, 99, "backend");
	if (!k->backend && backend && backend->kind == VAL_STR)
		k->backend = strcmp(backend->s, "triton") == 0 ? "triton" :
			     strcmp(backend->s, "mosaic_gpu") == 0 ? "mosaic-gpu" : "mosaic-tpu";
	if (!k->backend) {
		k->backend = default_backend(cx);
		k->backend_assumed = !cx->file_backend && !cx->chip && !cx->gpu;
	}
	aliases = val_arg(obj, 99, "input_output_aliases");
	k->aliases = aliases_given(obj->node) ||
		     (aliases && aliases->kind != VAL_NONE &&
		      !(aliases->kind == VAL_DICT && !aliases->i && !aliases->nkw));
	k->from_call_site = args != NULL && (in->from_call_site || (obj->flags & VF_FROM_DOT));
	read_operands(cx, k, obj, args, args ? (long)nargs : 0, args ? node : NULL);
	walk_kernel(in, k);
	analyse(cx, k);
	return outputs(cx, k, node);
}

struct val *
ck_pipeline_run(struct interp *in, struct val *obj, struct val **args, size_t nargs,
		struct val **kwv, size_t nkw, const struct py_node *node)
{
	struct cctx *cx = in->cx;
	struct kcall *k = py_arena_alloc(cx->a, sizeof(*k));
	struct val *body = val_arg(obj, 0, "body");
	struct val *in_specs = val_arg(obj, 99, "in_specs"), *out_specs = val_arg(obj, 99, "out_specs");
	struct val **specs = NULL, **ospecs = NULL;
	long nspecs = in_specs ? flatten(in_specs, &specs, cx) : 0;
	long nospecs = out_specs ? flatten(out_specs, &ospecs, cx) : 0;
	struct interp kin = *in;
	struct val **refs;
	size_t pos = 0;

	if (!in->k)
		return val_unknown(cx, NULL, node);
	k->node = obj->node;
	k->is_pipeline = true;
	k->outer = in->k;
	k->backend = in->k->backend;
	read_grid(k, val_arg(obj, 99, "grid"));
	k->nin = nspecs > 0 ? (size_t)nspecs : 0;
	k->nout = nospecs > 0 ? (size_t)nospecs : 0;
	if (k->nin + k->nout > nargs) {
		k->nin = nargs < k->nin ? nargs : k->nin;
		k->nout = nargs - k->nin < k->nout ? nargs - k->nin : k->nout;
	}
	k->in = py_arena_alloc(cx->a, (k->nin + 1) * sizeof(*k->in));
	k->out = py_arena_alloc(cx->a, (k->nout + 1) * sizeof(*k->out));
	k->in_known = k->out_known = true;
	refs = py_arena_alloc(cx->a, (k->nin + k->nout + 1) * sizeof(*refs));
	for (size_t i = 0; i < k->nin + k->nout; i++) {
		struct karg *a = i < k->nin ? &k->in[i] : &k->out[i - k->nin];

		a->v = args[i];
		a->name = args[i]->ref ? args[i]->ref->name : NULL;
		read_spec(cx, i < k->nin ? specs[i] : ospecs[i - k->nin], &a->spec);
		refs[pos] = make_ref(cx, k, param_name(cx, body, pos), ROLE_OTHER, a, (int)i);
		pos++;
	}
	analyse(cx, k);
	/* the pipeline's double-buffered blocks live in the outer kernel's VMEM */
	for (size_t i = 0; i < pos; i++) {
		struct kref *r = refs[i]->ref;
		struct karg *a = i < k->nin ? &k->in[i] : &k->out[i - k->nin];

		if (!r->has_shape || !r->dt || !a->spec.present || !a->spec.block) {
			in->k->inner_vmem_unknown = true;
			continue;
		}
		in->k->inner_vmem += 2ull * shape_elements(&r->shape) * (unsigned)r->dt->bits / 8;
	}
	if (body && body->kind == VAL_FUNC)
		ck_call_user(&kin, body, refs, pos, NULL, NULL, 0, node);
	/*
	 * Callbacks the pipeline calls (prefetch=, postyeet=, ...) run in the
	 * kernel too: their copies and waits count. Their arguments (buffered
	 * refs, a scheduler) are not known.
	 */
	for (size_t i = 0; i < obj->nkw + nkw; i++) {
		struct val *cb = i < obj->nkw ? obj->kwv[i] : kwv[i - obj->nkw];
		struct val **unk;
		size_t n;

		if (!cb || cb->kind != VAL_FUNC || cb == body || cb->fn->kind != PY_DEF)
			continue;
		n = cb->fn->more.n;
		unk = py_arena_alloc(cx->a, (n + 1) * sizeof(*unk));
		for (size_t j = 0; j < n; j++)
			unk[j] = val_unknown(cx, NULL, node);
		ck_call_user(&kin, cb, unk, n, NULL, NULL, 0, node);
	}
	return val_new(cx, VAL_NONE, node);
}

void
ck_finish_pending(struct cctx *cx)
{
	struct interp in;

	/* a pallas_call made but never called in the file: its operands are unknown */
	for (size_t i = 0; i < cx->npending; i++) {
		struct val *obj = cx->pending[i];

		if (obj->flags & VF_CALLED)
			continue;
		memset(&in, 0, sizeof(in));
		in.cx = cx;
		in.scope = cx->module;
		ck_pallas_call_run(&in, obj, NULL, 0, obj->node);
	}
}
