/* SPDX-License-Identifier: MIT */
/*
 * The checker's abstract interpreter (pt/check_impl.h): statements and
 * expressions of the tree, user functions called with their arguments, and
 * the run of a whole module. It computes what the file fixes and nothing
 * more: a branch whose condition is not known runs both ways and the values
 * are joined; a loop body runs once (a loop over a short literal tuple runs
 * once per element); a call into another module gives an unknown value.
 * Work is bounded: CK_MAX_STEPS per file, CK_MAX_CALL_DEPTH nested calls,
 * CK_MAX_EVAL_DEPTH nested expressions, so any tree, however deep or
 * recursive, ends.
 */
#include <stdlib.h>
#include <string.h>

#include "pt/check_impl.h"
#include "pt/xalloc.h"

static bool
out_of_steps(struct interp *in)
{
	return ++in->cx->steps > CK_MAX_STEPS;
}

/* Splice starred arguments: *t with a known tuple becomes its elements. */
static size_t
eval_args(struct interp *in, const struct py_list *items, struct val ***out)
{
	size_t n = 0, cap = items->n + 4;
	struct val **args = py_arena_alloc(in->cx->a, cap * sizeof(*args));

	for (size_t i = 0; i < items->n; i++) {
		const struct py_node *a = items->v[i];
		struct val *v;

		if (a->kind == PY_STARRED) {
			v = ck_eval(in, a->x);
			if (v->kind == VAL_TUPLE) {
				if (n + v->n >= cap) {
					struct val **bigger;

					cap = 2 * (n + v->n) + 4;
					bigger = py_arena_alloc(in->cx->a, cap * sizeof(*args));
					ck_copy(bigger, args, n, sizeof(*args));
					args = bigger;
				}
				for (size_t k = 0; k < v->n; k++)
					args[n++] = v->elts[k];
				continue;
			}
			/* an unknown number of arguments: what follows cannot be placed */
			v = val_unknown(in->cx, NULL, a);
			v->flags |= 0;
			args[n++] = v;
			break;
		}
		if (n >= cap) {
			struct val **bigger;

			cap *= 2;
			bigger = py_arena_alloc(in->cx->a, cap * sizeof(*args));
			ck_copy(bigger, args, n, sizeof(*args));
			args = bigger;
		}
		args[n++] = ck_eval(in, a);
	}
	*out = args;
	return n;
}

static size_t
eval_kwargs(struct interp *in, const struct py_list *kws, const char ***names, struct val ***vals)
{
	size_t n = 0, cap = kws->n + 8;
	const char **kn = py_arena_alloc(in->cx->a, cap * sizeof(*kn));
	struct val **kv = py_arena_alloc(in->cx->a, cap * sizeof(*kv));

	for (size_t i = 0; i < kws->n; i++) {
		const struct py_node *k = kws->v[i];
		struct val *v = ck_eval(in, k->x);

		if (!k->s) {
			/* **d: a known dict's entries */
			for (size_t j = 0; v->kind == VAL_DICT && j < v->nkw; j++) {
				if (n >= cap) {
					const char **kn2;
					struct val **kv2;

					cap *= 2;
					kn2 = py_arena_alloc(in->cx->a, cap * sizeof(*kn));
					kv2 = py_arena_alloc(in->cx->a, cap * sizeof(*kv));
					ck_copy(kn2, kn, n, sizeof(*kn));
					ck_copy(kv2, kv, n, sizeof(*kv));
					kn = kn2;
					kv = kv2;
				}
				kn[n] = v->kwn[j];
				kv[n++] = v->kwv[j];
			}
			continue;
		}
		if (n >= cap)
			continue;
		kn[n] = k->s;
		kv[n++] = v;
	}
	*names = kn;
	*vals = kv;
	return n;
}

static struct val *
eval_tuple(struct interp *in, const struct py_node *n)
{
	struct val **items;
	size_t k = eval_args(in, &n->items, &items);
	struct val *t = val_tuple(in->cx, k, n);

	ck_copy(t->elts, items, k, sizeof(*items));
	return t;
}

static struct val *
eval_dict(struct interp *in, const struct py_node *n)
{
	struct val *d = val_new(in->cx, VAL_DICT, n);

	d->i = (long long)n->items.n;   /* every entry, string keys or not (kwn/kwv hold those) */
	d->kwn = py_arena_alloc(in->cx->a, (n->items.n + 1) * sizeof(*d->kwn));
	d->kwv = py_arena_alloc(in->cx->a, (n->items.n + 1) * sizeof(*d->kwv));
	for (size_t i = 0; i < n->items.n; i++) {
		struct val *k = n->items.v[i] ? ck_eval(in, n->items.v[i]) : NULL;
		struct val *v = ck_eval(in, n->more.v[i]);

		if (k && k->kind == VAL_STR) {
			d->kwn[d->nkw] = k->s;
			d->kwv[d->nkw++] = v;
		}
	}
	return d;
}

static bool
truth(const struct val *v, bool *known)
{
	*known = true;
	switch (v->kind) {
	case VAL_BOOL:
	case VAL_INT:
		return v->i != 0;
	case VAL_NONE:
		return false;
	case VAL_TUPLE:
		return v->n != 0;
	case VAL_STR:
		return v->s[0] != 0;
	case VAL_FUNC:
	case VAL_DTYPE:
		return true;
	default:
		*known = false;
		return false;
	}
}

static struct val *
eval_boolop(struct interp *in, const struct py_node *n)
{
	struct val *last = NULL;
	bool unknown = false;

	for (size_t i = 0; i < n->items.n; i++) {
		struct val *v = ck_eval(in, n->items.v[i]);
		bool known, t;

		if (v->kind == VAL_TRACED) {
			ck_traced_bool(in, v, n, n->op == 'a' ? "'and'" : "'or'");
			return v;
		}
		t = truth(v, &known);
		last = v;
		if (!known) {
			unknown = true;
			continue;
		}
		if (!unknown && ((n->op == 'a' && !t) || (n->op == 'o' && t)))
			return v;
	}
	if (unknown)
		return val_unknown(in->cx, NULL, n);
	return last ? last : val_new(in->cx, VAL_NONE, n);
}

static struct val *
eval_unary(struct interp *in, const struct py_node *n)
{
	struct val *v = ck_eval(in, n->x), *r;
	bool known;

	if (n->op == 'n') {
		bool t;

		if (v->kind == VAL_TRACED) {
			ck_traced_bool(in, v, n, "'not'");
			return v;
		}
		t = truth(v, &known);
		if (!known)
			return val_unknown(in->cx, val_need(v), n);
		r = val_new(in->cx, VAL_BOOL, n);
		r->i = !t;
		return r;
	}
	if (v->kind == VAL_INT && n->op != '~') {
		r = val_copy(in->cx, v);
		r->i = n->op == '-' ? -v->i : v->i;
		r->node = n;
		r->origin = n->op == '-' && v->origin ? n : v->origin;
		return r;
	}
	if (v->kind == VAL_INT) {
		r = val_int(in->cx, ~v->i, n);
		return r;
	}
	if (v->kind == VAL_FLOAT) {
		r = val_copy(in->cx, v);
		r->f = n->op == '-' ? -v->f : v->f;
		return r;
	}
	if (v->kind == VAL_TRACED) {
		r = val_copy(in->cx, v);
		r->node = n;
		r->flags &= ~(VF_STATE | VF_SUBTRACTED | VF_ZERO);
		if (n->op == '-')
			r->flags |= VF_NEGATED;
		if (n->op == '~')
			r->eq0_mask = 0;
		r->pid_axis = -1;
		return r;
	}
	return val_unknown(in->cx, val_need(v), n);
}

static struct val *
eval_compare(struct interp *in, const struct py_node *n)
{
	struct val *a = ck_eval(in, n->x), *b = ck_eval(in, n->y);

	return ck_compare(in, n->op, a, b, n);
}

static void bind_targets_unknown(struct interp *in, const struct py_node *t, const char *why);

/* A comprehension over a known tuple (or a short range) is a tuple; others are unknown. */
static struct val *
eval_comp(struct interp *in, const struct py_node *n)
{
	const struct py_node *f = n->items.n ? n->items.v[0] : NULL;
	struct scope *saved = in->scope;
	struct val *iter, *res;

	if (!f)
		return val_unknown(in->cx, NULL, n);
	iter = ck_eval(in, f->y);
	in->scope = scope_new(in->cx, saved);
	if (n->items.n == 1 && !f->more.n && n->op != '{' && iter->kind == VAL_TUPLE &&
	    iter->n <= 64) {
		res = val_tuple(in->cx, iter->n, n);
		for (size_t i = 0; i < iter->n; i++) {
			ck_assign(in, f->x, iter->elts[i]);
			res->elts[i] = ck_eval(in, n->x);
		}
		in->scope = saved;
		return res;
	}
	/*
	 * Once, for what the element expression does (reads, traced tests):
	 * the list is one element standing for however many there are, so
	 * copies made in a comprehension are still the ones a loop starts.
	 */
	for (size_t i = 0; i < n->items.n; i++) {
		const struct py_node *c = n->items.v[i];

		if (i)
			ck_eval(in, c->y);
		bind_targets_unknown(in, c->x, "a comprehension variable");
		for (size_t k = 0; k < c->more.n; k++)
			ck_eval(in, c->more.v[k]);
	}
	res = val_tuple(in->cx, 1, n);
	res->elts[0] = ck_eval(in, n->x);
	res->flags |= VF_SOME;
	if (n->y)
		ck_eval(in, n->y);
	in->scope = saved;
	return n->op == '(' || n->op == '[' ? res : val_unknown(in->cx, NULL, n);
}

static struct val *
eval_subscript(struct interp *in, const struct py_node *n)
{
	struct val *obj = ck_eval(in, n->x);
	struct val *idx = ck_eval(in, n->y);

	return ck_subscript(in, obj, idx, n);
}

static struct val *
eval_slice(struct interp *in, const struct py_node *n)
{
	struct val *s = val_new(in->cx, VAL_OBJ, n);

	s->s = "slice";
	s->elts = py_arena_alloc(in->cx->a, 3 * sizeof(*s->elts));
	s->n = 3;
	s->elts[0] = n->x ? ck_eval(in, n->x) : val_new(in->cx, VAL_NONE, n);
	s->elts[1] = n->y ? ck_eval(in, n->y) : val_new(in->cx, VAL_NONE, n);
	s->elts[2] = n->z ? ck_eval(in, n->z) : val_new(in->cx, VAL_NONE, n);
	return s;
}

static struct val *
eval_call(struct interp *in, const struct py_node *n)
{
	struct val *f = ck_eval(in, n->x);
	struct val **args;
	const char **kwn;
	struct val **kwv;
	size_t nargs = eval_args(in, &n->items, &args);
	size_t nkw = eval_kwargs(in, &n->more, &kwn, &kwv);

	/* x.wait() on something the walk cannot see: any copy may be waited there */
	if (in->k && n->x->kind == PY_ATTR && f->kind == VAL_UNKNOWN) {
		if (strncmp(n->x->s, "wait", 4) == 0)
			in->k->unknown_wait = true;
		else if (strcmp(n->x->s, "start") == 0)
			in->k->unknown_start = true;
	}

	return ck_call(in, f, args, nargs, kwn, kwv, nkw, n);
}

static struct val *
eval_name(struct interp *in, const struct py_node *n)
{
	struct val *v = scope_get(in->scope, n->s);

	if (v)
		return v;
	/* not bound in the file: a builtin, or something it cannot see */
	v = val_new(in->cx, VAL_API, n);
	v->s = ck_printf(in->cx, "builtins.%s", n->s);
	return v;
}

static struct val *
eval_inner(struct interp *in, const struct py_node *n)
{
	struct val *v, *a, *b;
	bool known, t;

	switch (n->kind) {
	case PY_NAME:
		return eval_name(in, n);
	case PY_INT:
		if (n->big)
			return val_unknown(in->cx, NULL, n);
		v = val_int(in->cx, n->ival, n);
		v->origin = n;
		return v;
	case PY_FLOAT:
		v = val_new(in->cx, VAL_FLOAT, n);
		v->f = n->fval;
		return v;
	case PY_STR:
		v = val_new(in->cx, VAL_STR, n);
		v->s = n->s;
		return v;
	case PY_CONST:
		if (strcmp(n->s, "None") == 0)
			return val_new(in->cx, VAL_NONE, n);
		v = val_new(in->cx, VAL_BOOL, n);
		v->i = strcmp(n->s, "True") == 0;
		return v;
	case PY_ELLIPSIS:
		v = val_new(in->cx, VAL_OBJ, n);
		v->s = "Ellipsis";
		return v;
	case PY_ATTR:
		return ck_attr(in, ck_eval(in, n->x), n->s, n);
	case PY_CALL:
		return eval_call(in, n);
	case PY_SUBSCRIPT:
		return eval_subscript(in, n);
	case PY_SLICE:
		return eval_slice(in, n);
	case PY_TUPLE:
	case PY_LIST:
	case PY_SET:
		return eval_tuple(in, n);
	case PY_DICT:
		return eval_dict(in, n);
	case PY_BINOP:
		a = ck_eval(in, n->x);
		b = ck_eval(in, n->y);
		return ck_binop(in, n->op, a, b, n);
	case PY_UNARY:
		return eval_unary(in, n);
	case PY_BOOLOP:
		return eval_boolop(in, n);
	case PY_COMPARE:
		return eval_compare(in, n);
	case PY_IFEXP:
		v = ck_eval(in, n->x);
		if (v->kind == VAL_TRACED) {
			ck_traced_bool(in, v, n, "a conditional expression");
			return val_join(in->cx, ck_eval(in, n->y), ck_eval(in, n->z), "it");
		}
		t = truth(v, &known);
		if (known)
			return ck_eval(in, t ? n->y : n->z);
		return val_join(in->cx, ck_eval(in, n->y), ck_eval(in, n->z), "a conditional value");
	case PY_LAMBDA:
		v = val_new(in->cx, VAL_FUNC, n);
		v->fn = n;
		v->closure = in->scope;
		return v;
	case PY_STARRED:
		return ck_eval(in, n->x);
	case PY_COMP:
		return eval_comp(in, n);
	case PY_NAMED:
		v = ck_eval(in, n->y);
		ck_assign(in, n->x, v);
		return v;
	case PY_YIELD:
		if (n->x)
			ck_eval(in, n->x);
		return val_unknown(in->cx, NULL, n);
	default:
		return val_unknown(in->cx, NULL, n);
	}
}

struct val *
ck_eval(struct interp *in, const struct py_node *n)
{
	struct val *v;

	if (!n)
		return val_new(in->cx, VAL_NONE, NULL);
	if (out_of_steps(in) || in->eval_depth >= CK_MAX_EVAL_DEPTH)
		return val_unknown(in->cx, NULL, n);
	in->eval_depth++;
	v = eval_inner(in, n);
	in->eval_depth--;
	return v;
}

/* ------------------------------------------------------------ assignment */

static void
bind_targets_unknown(struct interp *in, const struct py_node *t, const char *why)
{
	if (!t)
		return;
	if (t->kind == PY_NAME) {
		scope_set(in->cx, in->scope, t->s, val_unknown(in->cx, ck_printf(in->cx, "%s (%s)",
									  t->s, why), t));
	} else if (t->kind == PY_TUPLE || t->kind == PY_LIST) {
		for (size_t i = 0; i < t->items.n; i++)
			bind_targets_unknown(in, t->items.v[i], why);
	} else if (t->kind == PY_STARRED) {
		bind_targets_unknown(in, t->x, why);
	}
}

static void
assign_name(struct interp *in, const struct py_node *target, struct val *v)
{
	if (v->kind == VAL_REF && v->ref && v->ref->unnamed && !v->s) {
		v->ref->name = target->s;
		v->ref->unnamed = false;
	}
	if (v->kind == VAL_INT && v->origin && !v->origin_name) {
		v = val_copy(in->cx, v);
		v->origin_name = target->s;
	}
	scope_set(in->cx, in->scope, target->s, v);
}

static void
assign_tuple(struct interp *in, const struct py_node *target, struct val *v)
{
	size_t nt = target->items.n, star = nt;

	for (size_t i = 0; i < nt; i++)
		if (target->items.v[i]->kind == PY_STARRED)
			star = i;
	if (v->kind != VAL_TUPLE || (star == nt && v->n != nt) || (star < nt && v->n + 1 < nt)) {
		const char *need = val_need(v);

		for (size_t i = 0; i < nt; i++) {
			const struct py_node *t = target->items.v[i];

			if (v->kind == VAL_TRACED)
				ck_assign(in, t, val_copy(in->cx, v));
			else
				bind_targets_unknown(in, t, need ? need : "unpacked from an unknown value");
		}
		return;
	}
	for (size_t i = 0, k = 0; i < nt; i++) {
		const struct py_node *t = target->items.v[i];

		if (i == star) {
			size_t rest = v->n - (nt - 1);
			struct val *sub = val_tuple(in->cx, rest, t);

			for (size_t j = 0; j < rest; j++)
				sub->elts[j] = v->elts[k++];
			ck_assign(in, t->x, sub);
		} else {
			ck_assign(in, t, v->elts[k++]);
		}
	}
}

void
ck_assign(struct interp *in, const struct py_node *target, struct val *v)
{
	switch (target->kind) {
	case PY_NAME:
		assign_name(in, target, v);
		break;
	case PY_TUPLE:
	case PY_LIST:
		assign_tuple(in, target, v);
		break;
	case PY_STARRED:
		ck_assign(in, target->x, v);
		break;
	case PY_SUBSCRIPT: {
		struct val *obj = ck_eval(in, target->x), *idx = ck_eval(in, target->y);

		ck_store_subscript(in, target, obj, idx, v, false);
		break;
	}
	case PY_ATTR: {
		struct val *obj = ck_eval(in, target->x);

		if (obj->kind == VAL_INST || obj->kind == VAL_CLASS)
			scope_set(in->cx, obj->closure, target->s, v);
		break;
	}
	default:
		break;
	}
}

/* ------------------------------------------------------------ user functions */

static bool
entered(const struct cctx *cx, const struct py_node *fn)
{
	for (size_t i = 0; i < cx->nentered; i++)
		if (cx->entered[i] == fn)
			return true;
	return false;
}

static void
mark_entered(struct cctx *cx, const struct py_node *fn)
{
	if (entered(cx, fn))
		return;
	xgrow((void **)&cx->entered, &cx->alloc_entered, cx->nentered + 1, sizeof(*cx->entered));
	cx->entered[cx->nentered++] = fn;
}

/* --set and --shape give values to parameters the file leaves open. */
static struct val *
bound_from_options(struct interp *in, const char *name, const struct py_node *at)
{
	const struct check_opts *o = in->cx->o;

	for (size_t i = 0; i < o->nbind; i++) {
		const struct check_binding *b = &o->bind[i];

		if (strcmp(b->name, name) != 0)
			continue;
		if (b->shape) {
			struct val *v = val_new(in->cx, VAL_ARRAY, at);
			char dims[256];
			const char *colon = strrchr(b->value, ':');
			size_t n = colon ? (size_t)(colon - b->value) : strlen(b->value);
			struct pt_err err = PT_ERR_INIT;

			if (n >= sizeof(dims))
				n = sizeof(dims) - 1;
			memcpy(dims, b->value, n);
			dims[n] = 0;
			if (shape_parse(&v->shape, dims, false, &err) == 0)
				v->has_shape = true;
			v->dt = ck_dtype(in->cx, colon ? colon + 1 : "float32");
			return v;
		} else {
			char *end;
			long long x = strtoll(b->value, &end, 0);

			if (*end == 0 && end != b->value)
				return val_int(in->cx, x, at);
			if (ck_dtype(in->cx, b->value)) {
				struct val *d = val_new(in->cx, VAL_DTYPE, at);

				d->dt = ck_dtype(in->cx, b->value);
				return d;
			}
			{
				struct val *s = val_new(in->cx, VAL_STR, at);

				s->s = b->value;
				return s;
			}
		}
	}
	return NULL;
}

static struct val *
param_default(struct interp *in, struct val *f, const struct py_node *prm)
{
	struct interp sub = *in;
	struct val *v;

	if (!prm->x) {
		v = bound_from_options(in, prm->s, prm);
		return v ? v : val_unknown(in->cx, prm->s, prm);
	}
	sub.scope = f->closure ? f->closure : in->cx->module;
	sub.k = NULL;
	v = ck_eval(&sub, prm->x);
	if (v->kind == VAL_INT && v->origin && !v->origin_name) {
		v = val_copy(in->cx, v);
		v->origin_name = prm->s;
	}
	if (v->kind == VAL_NONE || v->kind == VAL_UNKNOWN) {
		struct val *o = bound_from_options(in, prm->s, prm);

		if (o)
			return o;
	}
	return v;
}

static struct val *
take_keyword(const char **kwn, struct val **kwv, size_t nkw, bool *used, const char *name)
{
	for (size_t i = nkw; i-- > 0;)
		if (!used[i] && kwn[i] && strcmp(kwn[i], name) == 0) {
			used[i] = true;
			return kwv[i];
		}
	return NULL;
}

/* Bind f's parameters in scope s from positional and keyword arguments. */
static void
bind_params(struct interp *in, struct val *f, struct scope *s, struct val **args, size_t nargs,
	    const char **kwn, struct val **kwv, size_t nkw)
{
	const struct py_list *params = &f->fn->more;
	bool *used = py_arena_alloc(in->cx->a, (nkw + 1) * sizeof(bool));
	size_t pos = 0;

	for (size_t i = 0; i < params->n; i++) {
		const struct py_node *prm = params->v[i];
		struct val *v = NULL;

		if (prm->op == '*') {
			size_t rest = nargs > pos ? nargs - pos : 0;
			struct val *t = val_tuple(in->cx, rest, prm);

			for (size_t k = 0; k < rest; k++)
				t->elts[k] = args[pos++];
			v = t;
		} else if (prm->op == 'd') {
			struct val *d = val_new(in->cx, VAL_DICT, prm);

			d->kwn = py_arena_alloc(in->cx->a, (nkw + 1) * sizeof(*d->kwn));
			d->kwv = py_arena_alloc(in->cx->a, (nkw + 1) * sizeof(*d->kwv));
			for (size_t k = 0; k < nkw; k++)
				if (!used[k] && kwn[k]) {
					d->kwn[d->nkw] = kwn[k];
					d->kwv[d->nkw++] = kwv[k];
				}
			v = d;
		} else {
			if (prm->op != 'k' && pos < nargs)
				v = args[pos++];
			else if (prm->op != 'p')
				v = take_keyword(kwn, kwv, nkw, used, prm->s);
			if (!v)
				v = param_default(in, f, prm);
			else if (v->kind == VAL_INT && v->origin && !v->origin_name) {
				v = val_copy(in->cx, v);
				v->origin_name = prm->s;
			}
		}
		scope_set(in->cx, s, prm->s, v);
	}
}

struct val *
ck_call_user(struct interp *in, struct val *f, struct val **args, size_t nargs, const char **kwn,
	     struct val **kwv, size_t nkw, const struct py_node *node)
{
	struct interp sub;
	struct val **all = args;
	const char **akn = kwn;
	struct val **akv = kwv;
	size_t nall = nargs, nakw = nkw;

	if (in->call_depth >= CK_MAX_CALL_DEPTH || out_of_steps(in))
		return val_unknown(in->cx, NULL, node);
	/*
	 * A function recurses one level (a wrapper that calls itself with a
	 * reshaped argument), no deeper: two recursive calls per body would
	 * double the work per level.
	 */
	{
		int on_chain = 0;

		for (const struct interp *c = in; c; c = c->caller)
			if (c->fn == f->fn && ++on_chain >= 2)
				return val_unknown(in->cx, NULL, node);
	}
	/* a bound method's receiver, then functools.partial's arguments, come first */
	if (f->self) {
		struct val **with = py_arena_alloc(in->cx->a, (nargs + 2) * sizeof(*with));

		with[0] = f->self;
		ck_copy(with + 1, args, nargs, sizeof(*with));
		args = with;
		nargs++;
		all = args;
		nall = nargs;
	}
	if (f->n) {
		all = py_arena_alloc(in->cx->a, (f->n + nargs + 1) * sizeof(*all));
		ck_copy(all, f->elts, f->n, sizeof(*all));
		ck_copy(all + f->n, args, nargs, sizeof(*all));
		nall = f->n + nargs;
	}
	if (f->nkw) {
		akn = py_arena_alloc(in->cx->a, (f->nkw + nkw + 1) * sizeof(*akn));
		akv = py_arena_alloc(in->cx->a, (f->nkw + nkw + 1) * sizeof(*akv));
		ck_copy(akn, f->kwn, f->nkw, sizeof(*akn));
		ck_copy(akv, f->kwv, f->nkw, sizeof(*akv));
		ck_copy(akn + f->nkw, kwn, nkw, sizeof(*akn));
		ck_copy(akv + f->nkw, kwv, nkw, sizeof(*akv));
		nakw = f->nkw + nkw;
	}
	sub = *in;
	sub.scope = scope_new(in->cx, f->closure ? f->closure : in->cx->module);
	sub.call_depth = in->call_depth + 1;
	sub.caller = in;
	sub.fn = f->fn;
	sub.ret = NULL;
	sub.returned = false;
	sub.loop_depth = 0;
	if (nall || nakw)
		sub.from_call_site = true;
	mark_entered(in->cx, f->fn);
	bind_params(&sub, f, sub.scope, all, nall, akn, akv, nakw);
	if (f->fn->kind == PY_LAMBDA)
		return ck_eval(&sub, f->fn->x);
	ck_exec_block(&sub, &f->fn->items);
	return sub.ret ? sub.ret : val_new(in->cx, VAL_NONE, node);
}

static struct val *instantiate(struct interp *in, struct val *c, struct val **args, size_t nargs,
				const char **kwn, struct val **kwv, size_t nkw,
				const struct py_node *node);

struct val *
ck_call(struct interp *in, struct val *f, struct val **args, size_t nargs, const char **kwn,
	struct val **kwv, size_t nkw, const struct py_node *node)
{
	switch (f->kind) {
	case VAL_FUNC:
		return ck_call_user(in, f, args, nargs, kwn, kwv, nkw, node);
	case VAL_API:
	case VAL_OBJ:
		return ck_call_api(in, f, args, nargs, kwn, kwv, nkw, node);
	case VAL_CLASS:
		return instantiate(in, f, args, nargs, kwn, kwv, nkw, node);
	case VAL_ALT: {
		struct val *r = NULL;

		for (size_t i = 0; i < f->n; i++)
			r = val_join(in->cx, r, ck_call(in, f->elts[i], args, nargs, kwn, kwv, nkw, node),
				     "a result");
		return r ? r : val_unknown(in->cx, NULL, node);
	}
	default:
		return val_unknown(in->cx, val_need(f), node);
	}
}

/* ------------------------------------------------------------ statements */

static const char *
canon_module(struct cctx *cx, const char *path)
{
	char buf[512];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return path;
	memcpy(buf, path, len + 1);
	/* the longest known module that starts the path gives its prefix */
	for (;;) {
		const char *pre = checktab_module_prefix(cx->tab, buf);

		if (pre) {
			if (buf[len] == 0)
				return pre;
			return ck_printf(cx, "%s%s", pre, path + strlen(buf));
		}
		{
			char *dot = strrchr(buf, '.');

			if (!dot)
				return path;
			*dot = 0;
		}
	}
}

static struct val *
api_val(struct cctx *cx, const char *name, const struct py_node *node)
{
	struct val *v = val_new(cx, VAL_API, node);

	v->s = name;
	return v;
}

static void
exec_import(struct interp *in, const struct py_node *s)
{
	for (size_t i = 0; i < s->more.n; i++) {
		const struct py_node *a = s->more.v[i];

		if (a->s2) {
			scope_set(in->cx, in->scope, a->s2, api_val(in->cx, canon_module(in->cx, a->s), a));
		} else {
			char first[256];
			size_t n = strcspn(a->s, ".");

			if (n >= sizeof(first))
				continue;
			const char *name;

			memcpy(first, a->s, n);
			first[n] = 0;
			name = ck_strdup(in->cx, first);
			scope_set(in->cx, in->scope, name, api_val(in->cx, canon_module(in->cx, name), a));
		}
	}
}

static void
exec_from(struct interp *in, const struct py_node *s)
{
	const char *mod = s->op ? "<local>" : s->s ? s->s : "<local>";

	for (size_t i = 0; i < s->more.n; i++) {
		const struct py_node *a = s->more.v[i];
		const char *full;

		if (strcmp(a->s, "*") == 0)
			continue;
		full = canon_module(in->cx, ck_printf(in->cx, "%s.%s", mod, a->s));
		scope_set(in->cx, in->scope, a->s2 ? a->s2 : a->s, api_val(in->cx, full, a));
	}
}

static void
exec_def(struct interp *in, const struct py_node *s)
{
	struct val *f = val_new(in->cx, VAL_FUNC, s);

	f->fn = s;
	f->closure = in->scope;
	/* a def is run standalone later (its parameters unknown) unless something calls it */
	xgrow((void **)&in->cx->defs, &in->cx->alloc_defs, in->cx->ndefs + 1,
	      sizeof(*in->cx->defs));
	in->cx->defs[in->cx->ndefs++] = f;
	/*
	 * Decorators apply bottom-up. One the checker cannot follow (a test
	 * framework's, another module's) is taken to return the function it
	 * wraps: most do (a wrapper with the same arguments).
	 */
	for (size_t i = s->extra.n; i-- > 0;) {
		struct val *deco = ck_eval(in, s->extra.v[i]);
		struct val *args[1] = { f };
		struct val *r = ck_call(in, deco, args, 1, NULL, NULL, 0, s->extra.v[i]);

		if (r->kind != VAL_UNKNOWN || deco->kind == VAL_FUNC)
			f = r;
	}
	scope_set(in->cx, in->scope, s->s, f);
}

/* A NamedTuple base makes a class's annotated fields its constructor, as @dataclass does. */
static bool
named_tuple_base(const struct py_node *s)
{
	char d[128];

	for (size_t i = 0; i < s->more.n; i++)
		if (s->more.v[i]->kind != PY_KEYWORD && py_dotted(s->more.v[i], d, sizeof(d)) &&
		    (strcmp(d, "NamedTuple") == 0 || strcmp(d, "typing.NamedTuple") == 0))
			return true;
	return false;
}

static void
exec_class(struct interp *in, const struct py_node *s)
{
	struct scope *saved = in->scope;
	struct val *c = val_new(in->cx, VAL_CLASS, s);
	struct scope *parent = saved;

	/*
	 * A base class of the file: its scope is looked in after this one's
	 * (single inheritance, the first such base), then the enclosing one's.
	 */
	for (size_t i = 0; i < s->more.n; i++) {
		struct val *b;

		if (s->more.v[i]->kind == PY_KEYWORD)
			continue;
		b = ck_eval(in, s->more.v[i]);
		if (b->kind == VAL_CLASS && b->closure) {
			parent = b->closure;
			break;
		}
	}
	c->fn = s;
	c->closure = scope_new(in->cx, parent);
	c->closure->cls = c;
	in->scope = c->closure;
	ck_exec_block(in, &s->items);
	in->scope = saved;
	if (named_tuple_base(s))
		c->flags |= VF_DATACLASS;
	for (size_t i = s->extra.n; i-- > 0;) {
		struct val *deco = ck_eval(in, s->extra.v[i]);
		struct val *args[1] = { c };
		struct val *r = ck_call(in, deco, args, 1, NULL, NULL, 0, s->extra.v[i]);

		/* a decorator the checker cannot follow returns the class (jtu.with_config) */
		if (r->kind != VAL_UNKNOWN || deco->kind == VAL_FUNC)
			c = r;
	}
	scope_set(in->cx, in->scope, s->s, c);
}

/* Calling a class: an instance, set up by its __init__ or its dataclass fields. */
static struct val *
instantiate(struct interp *in, struct val *c, struct val **args, size_t nargs, const char **kwn,
	    struct val **kwv, size_t nkw, const struct py_node *node)
{
	struct val *obj = val_new(in->cx, VAL_INST, node);
	struct val *init = scope_get(c->closure, "__init__");
	size_t pos = 0;

	obj->fn = c->fn;
	obj->closure = scope_new(in->cx, c->closure);
	if (init && init->kind == VAL_FUNC) {
		struct val *bound = val_copy(in->cx, init);

		bound->self = obj;
		ck_call_user(in, bound, args, nargs, kwn, kwv, nkw, node);
		return obj;
	}
	if (!(c->flags & VF_DATACLASS))
		return obj;
	for (size_t i = 0; i < c->fn->items.n; i++) {
		const struct py_node *f = c->fn->items.v[i];
		struct val *v = NULL;

		if (f->kind != PY_ANNASSIGN || f->x->kind != PY_NAME)
			continue;
		if (pos < nargs)
			v = args[pos++];
		for (size_t k = 0; !v && k < nkw; k++)
			if (kwn[k] && strcmp(kwn[k], f->x->s) == 0)
				v = kwv[k];
		if (!v)
			v = scope_get(c->closure, f->x->s);
		if (!v)
			v = val_unknown(in->cx, f->x->s, f);
		scope_set(in->cx, obj->closure, f->x->s, v);
	}
	return obj;
}

/*
 * Bindings of a scope, to restore or join after a branch. A scope only
 * grows at its end and keeps each name where it was first bound, so two
 * snapshots taken after one restore share the names before it, in order:
 * the join pairs them by position and searches only for the rest.
 */
struct snapshot {
	const char **names;
	struct val **vals;
	unsigned *hashes;
	size_t n;
};

static void
snap_take(struct interp *in, struct snapshot *sn)
{
	struct scope *s = in->scope;

	sn->n = s->n;
	sn->names = py_arena_alloc(in->cx->a, (s->n + 1) * sizeof(*sn->names));
	sn->vals = py_arena_alloc(in->cx->a, (s->n + 1) * sizeof(*sn->vals));
	sn->hashes = py_arena_alloc(in->cx->a, (s->n + 1) * sizeof(*sn->hashes));
	ck_copy(sn->names, s->names, s->n, sizeof(*sn->names));
	ck_copy(sn->vals, s->vals, s->n, sizeof(*sn->vals));
	ck_copy(sn->hashes, s->hashes, s->n, sizeof(*sn->hashes));
}

static void
snap_restore(struct interp *in, const struct snapshot *sn)
{
	struct scope *s = in->scope;

	s->n = 0;
	for (size_t i = 0; i < sn->n; i++)
		scope_append(in->cx, s, sn->names[i], sn->hashes[i], sn->vals[i]);
}

/* The index of the name at a's index i in b, or -1. */
static long
snap_find(const struct snapshot *a, size_t i, const struct snapshot *b)
{
	if (i < b->n && b->hashes[i] == a->hashes[i] &&
	    (b->names[i] == a->names[i] || strcmp(b->names[i], a->names[i]) == 0))
		return (long)i;
	for (size_t k = 0; k < b->n; k++)
		if (b->hashes[k] == a->hashes[i] && strcmp(b->names[k], a->names[i]) == 0)
			return (long)k;
	return -1;
}

/* After two paths: each name gets the join of what the two left (a name only one set keeps it). */
static void
snap_join(struct interp *in, const struct snapshot *a, const struct snapshot *b)
{
	struct scope *s = in->scope;

	s->n = 0;
	for (size_t i = 0; i < a->n; i++) {
		long k = snap_find(a, i, b);

		scope_append(in->cx, s, a->names[i], a->hashes[i],
			     k >= 0 ? val_join(in->cx, a->vals[i], b->vals[k], a->names[i]) : a->vals[i]);
	}
	for (size_t i = 0; i < b->n; i++)
		if (snap_find(b, i, a) < 0)
			scope_append(in->cx, s, b->names[i], b->hashes[i], b->vals[i]);
}

/* Run body with an extra condition around it (traced tests only: pl.when, if on a traced value). */
static void
exec_under(struct interp *in, const struct py_list *body, struct val *cond, bool negate)
{
	unsigned eq0 = in->cond_eq0;
	int depth = in->cond_depth;
	bool unknown = in->cond_unknown;

	in->cond_depth++;
	if (cond && cond->kind == VAL_TRACED && !negate && cond->eq0_mask)
		in->cond_eq0 |= cond->eq0_mask;
	else
		in->cond_unknown = true;
	ck_exec_block(in, body);
	in->cond_eq0 = eq0;
	in->cond_depth = depth;
	in->cond_unknown = unknown;
}

static void
exec_if(struct interp *in, const struct py_node *s)
{
	struct val *c = ck_eval(in, s->x);
	struct snapshot before, after_then;
	bool known, t, ret_then;

	if (c->kind == VAL_TRACED) {
		ck_traced_bool(in, c, s->x, "an if statement");
		snap_take(in, &before);
		exec_under(in, &s->items, c, false);
		ret_then = in->returned;
		in->returned = false;
		snap_take(in, &after_then);
		snap_restore(in, &before);
		exec_under(in, &s->more, c, true);
		in->returned = in->returned && ret_then;
		snap_take(in, &before);
		snap_join(in, &after_then, &before);
		return;
	}
	t = truth(c, &known);
	if (known) {
		ck_exec_block(in, t ? &s->items : &s->more);
		return;
	}
	snap_take(in, &before);
	ck_exec_block(in, &s->items);
	ret_then = in->returned;
	in->returned = false;
	snap_take(in, &after_then);
	snap_restore(in, &before);
	ck_exec_block(in, &s->more);
	if (ret_then && !in->returned) {
		/* only the else path goes on */
		return;
	}
	if (in->returned && !ret_then) {
		in->returned = false;
		snap_restore(in, &after_then);
		return;
	}
	snap_take(in, &before);
	snap_join(in, &after_then, &before);
}

/*
 * A loop body run once for a loop that may run zero times or many: the
 * target (if any) bound to value, or to unknown, then what the body set is
 * joined with what was.
 */
static void
loop_body(struct interp *in, const struct py_node *target, struct val *value,
	  const struct py_list *body)
{
	struct snapshot before, after;

	snap_take(in, &before);
	if (target && value)
		ck_assign(in, target, value);
	else if (target)
		bind_targets_unknown(in, target, "a loop variable");
	ck_exec_block(in, body);
	in->returned = false;
	snap_take(in, &after);
	snap_join(in, &before, &after);
}

static void
exec_for(struct interp *in, const struct py_node *s)
{
	struct val *iter = ck_eval(in, s->y);

	in->loop_depth++;
	if (iter->kind == VAL_TUPLE && (iter->flags & VF_SOME) && iter->n) {
		/* one element for many: the body runs once with it */
		loop_body(in, s->x, iter->elts[0], &s->items);
		in->loop_depth--;
		ck_exec_block(in, &s->more);
		return;
	}
	if (iter->kind == VAL_TUPLE && iter->n && iter->n <= CK_MAX_UNROLL) {
		for (size_t i = 0; i < iter->n && !in->returned; i++) {
			ck_assign(in, s->x, iter->elts[i]);
			ck_exec_block(in, &s->items);
		}
		in->loop_depth--;
		ck_exec_block(in, &s->more);
		return;
	}
	if (iter->kind == VAL_TRACED)
		ck_traced_bool(in, iter, s->y, "a Python for loop");
	loop_body(in, s->x, NULL, &s->items);
	in->loop_depth--;
	ck_exec_block(in, &s->more);
}

static void
exec_while(struct interp *in, const struct py_node *s)
{
	struct val *c = ck_eval(in, s->x);

	if (c->kind == VAL_TRACED)
		ck_traced_bool(in, c, s->x, "a while loop");
	in->loop_depth++;
	loop_body(in, NULL, NULL, &s->items);
	in->loop_depth--;
	ck_exec_block(in, &s->more);
}

static void
exec_stmt(struct interp *in, const struct py_node *s)
{
	struct val *v;

	switch (s->kind) {
	case PY_EXPR:
		ck_eval(in, s->x);
		break;
	case PY_ASSIGN:
		v = ck_eval(in, s->x);
		for (size_t i = 0; i < s->items.n; i++)
			ck_assign(in, s->items.v[i], v);
		break;
	case PY_AUGASSIGN:
		if (s->x->kind == PY_SUBSCRIPT) {
			struct val *obj = ck_eval(in, s->x->x), *idx = ck_eval(in, s->x->y);
			struct val *old = ck_subscript(in, obj, idx, s->x);

			v = ck_binop(in, s->op, old, ck_eval(in, s->y), s);
			in->aug_op = s->op;
			ck_store_subscript(in, s->x, obj, idx, v, true);
			in->aug_op = 0;
		} else if (s->x->kind == PY_NAME || s->x->kind == PY_ATTR) {
			v = ck_binop(in, s->op, ck_eval(in, s->x), ck_eval(in, s->y), s);
			if (v->kind == VAL_INT)
				v->origin = NULL;
			ck_assign(in, s->x, v);
		} else {
			ck_eval(in, s->y);
		}
		break;
	case PY_ANNASSIGN:
		if (s->z)
			ck_assign(in, s->x, ck_eval(in, s->z));
		break;
	case PY_DEF:
		exec_def(in, s);
		break;
	case PY_CLASS:
		exec_class(in, s);
		break;
	case PY_IF:
		exec_if(in, s);
		break;
	case PY_FOR:
		exec_for(in, s);
		break;
	case PY_WHILE:
		exec_while(in, s);
		break;
	case PY_WITH:
		for (size_t i = 0; i < s->more.n; i++) {
			v = ck_eval(in, s->more.v[i]->x);
			if (s->more.v[i]->y)
				bind_targets_unknown(in, s->more.v[i]->y, "a with target");
		}
		ck_exec_block(in, &s->items);
		break;
	case PY_TRY:
		in->try_depth += s->more.n > 0;
		ck_exec_block(in, &s->items);
		in->try_depth -= s->more.n > 0;
		in->returned = false;
		for (size_t i = 0; i < s->more.n; i++) {
			ck_exec_block(in, &s->more.v[i]->items);
			in->returned = false;
		}
		ck_exec_block(in, &s->extra);
		break;
	case PY_RETURN:
		v = s->x ? ck_eval(in, s->x) : val_new(in->cx, VAL_NONE, s);
		if (!in->ret || in->ret->kind == VAL_UNKNOWN || in->ret->kind == VAL_NONE)
			in->ret = v;
		in->returned = true;
		break;
	case PY_IMPORT:
		exec_import(in, s);
		break;
	case PY_FROM:
		exec_from(in, s);
		break;
	case PY_ASSERT:
		v = ck_eval(in, s->x);
		if (v->kind == VAL_TRACED)
			ck_traced_bool(in, v, s->x, "an assert");
		break;
	case PY_RAISE:
		in->returned = true;
		break;
	case PY_DEL:
	case PY_PASS:
	case PY_BREAK:
	case PY_CONTINUE:
	case PY_GLOBAL:
	case PY_SKIPPED:
	default:
		break;
	}
}

void
ck_exec_block(struct interp *in, const struct py_list *body)
{
	for (size_t i = 0; i < body->n && !in->returned; i++) {
		if (out_of_steps(in))
			return;
		exec_stmt(in, body->v[i]);
	}
}

/* ------------------------------------------------------------ the module */

static bool
is_kernel_fn(const struct cctx *cx, const struct py_node *fn)
{
	for (size_t i = 0; i < cx->nkernels; i++)
		if (cx->kernels[i] == fn)
			return true;
	return false;
}

/*
 * A method run by itself gets an instance of its class for self (its
 * __init__ not run: its arguments are not known), so that self.attr finds
 * the class's attributes and methods (a test class's self.pallas_call).
 */
static struct val *
method_of_instance(struct cctx *cx, struct val *f)
{
	struct val *obj, *b;

	if (!f->closure || !f->closure->cls || f->self || f->fn->kind != PY_DEF || !f->fn->more.n ||
	    f->fn->more.v[0]->op != 0)
		return f;
	obj = val_new(cx, VAL_INST, f->fn);
	obj->fn = f->closure->cls->fn;
	obj->closure = scope_new(cx, f->closure);
	b = val_copy(cx, f);
	b->self = obj;
	return b;
}

void
ck_run_module(struct cctx *cx)
{
	struct interp in;

	memset(&in, 0, sizeof(in));
	in.cx = cx;
	in.scope = cx->module;
	ck_exec_block(&in, &cx->m->root->items);
	/*
	 * Functions nothing in the file called run once by themselves, their
	 * parameters from defaults, --set and --shape, or unknown; functions
	 * defined while doing so join the queue.
	 */
	for (size_t i = 0; i < cx->ndefs && cx->steps <= CK_MAX_STEPS; i++) {
		struct val *f = cx->defs[i];

		if (f->kind != VAL_FUNC || entered(cx, f->fn) || is_kernel_fn(cx, f->fn))
			continue;
		memset(&in, 0, sizeof(in));
		in.cx = cx;
		in.scope = cx->module;
		ck_call_user(&in, method_of_instance(cx, f), NULL, 0, NULL, NULL, 0, f->fn);
	}
	ck_finish_pending(cx);
}
