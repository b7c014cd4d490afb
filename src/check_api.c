/* SPDX-License-Identifier: MIT */
/*
 * What the checker knows of Python, JAX and Pallas (pt/check_impl.h):
 * attributes, subscripts, operators and calls on abstract values. Pallas
 * names are looked up through the JAX API table (rules/jax-api.yaml), so an
 * old spelling (pltpu.TPUCompilerParams, pltpu.semaphore_signal) is the
 * same API as its current one; the handlers below are keyed by the current
 * name. Calls the rules list as not lowering (check_primitives) are
 * reported here, where the operand dtypes are known.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/check_impl.h"
#include "pt/chips.h"
#include "pt/xalloc.h"

struct acall {
	struct val *f;
	const char *name;           /* the current API name */
	struct val **args;
	size_t nargs;
	const char **kwn;
	struct val **kwv;
	size_t nkw;
	const struct py_node *node;
	struct val *self;
};

static struct val *
arg(const struct acall *c, size_t pos, const char *kw)
{
	for (size_t i = 0; kw && i < c->nkw; i++)
		if (c->kwn[i] && strcmp(c->kwn[i], kw) == 0)
			return c->kwv[i];
	return pos < c->nargs ? c->args[pos] : NULL;
}

const struct dtype *
ck_dtype(struct cctx *cx, const char *name)
{
	return cx->rs->chips ? chiptab_find_dtype(cx->rs->chips, name) : NULL;
}

static bool
is_traced(const struct val *v)
{
	return v && v->kind == VAL_TRACED;
}

static bool
is_arraylike(const struct val *v)
{
	return v && (v->kind == VAL_ARRAY || v->kind == VAL_TRACED || v->kind == VAL_REF);
}

static const char *expr_text(struct cctx *cx, const struct py_node *n);

/* A subscript's index as written: x[a, b] gives "a, b". */
static const char *
index_text(struct cctx *cx, const struct py_node *n)
{
	char buf[96];
	size_t len = 0;

	if (!n || n->kind != PY_TUPLE)
		return expr_text(cx, n);
	buf[0] = 0;
	for (size_t i = 0; i < n->items.n && len + 4 < sizeof(buf); i++) {
		char one[64];

		py_render(n->items.v[i], one, sizeof(one));
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? ", " : "", one);
	}
	return ck_strdup(cx, buf);
}

/* The source of a value for messages: its expression as written. */
static const char *
expr_text(struct cctx *cx, const struct py_node *n)
{
	char buf[96];

	if (!n)
		return "?";
	py_render(n, buf, sizeof(buf));
	return ck_strdup(cx, buf);
}

/* ------------------------------------------------------------ names */

/*
 * A name the --jax release surely does not have (it came later, or was
 * removed by then). A release the table can only place in a span says
 * nothing: no finding.
 */
static void
check_api_version(struct cctx *cx, const struct api_name *n, const struct py_node *node)
{
	struct api_render ar;
	struct buf out = BUF_INIT;
	struct vars vs = VARS_INIT;
	char tmpl[256], when[64] = "";
	bool early, gone;

	if (!cx->jv_known || !node)
		return;
	early = n->since.set && n->since.has_lo && jaxver_cmp(&cx->jv, &n->since.lo) < 0;
	gone = n->removed.set && jaxver_cmp(&cx->jv, &n->removed.hi) >= 0;
	if (!early && !gone)
		return;
	api_render_init(&ar, cx->rs->api, cx->o->jax_version);
	snprintf(tmpl, sizeof(tmpl), "${api:%s}", jaxapi_current(cx->rs->api, n)->name);
	api_render_text(&ar, tmpl, &out);
	jaxrange_describe(gone ? &n->removed : &n->since, when, sizeof(when));
	vars_set(&vs, "name", n->name, true);
	vars_set(&vs, "jax", cx->o->jax_version, true);
	vars_set(&vs, "spelling", out.data, true);
	vars_set(&vs, "why", ck_printf(cx, "it was %s %s", gone ? "removed" : "added", when), true);
	if (strcmp(out.data, n->name) != 0)
		ck_report(cx, "U007", node, node, NULL, &vs);
	vars_release(&vs);
	buf_release(&out);
	api_render_release(&ar);
}

const char *
ck_api_current(struct cctx *cx, const char *name)
{
	const struct api_name *n = cx->rs->api ? jaxapi_find(cx->rs->api, name) : NULL;

	if (!n)
		return name;
	return jaxapi_current(cx->rs->api, n)->name;
}

static struct val *
api_named(struct cctx *cx, const char *name, const struct py_node *node)
{
	struct val *v = val_new(cx, VAL_API, node);
	const struct api_name *n = cx->rs->api ? jaxapi_find(cx->rs->api, name) : NULL;

	v->s = name;
	if (n)
		check_api_version(cx, n, node);
	return v;
}

/* Dimension semantics spelled as constants: pltpu.PARALLEL, pltpu.GridDimensionSemantics.ARBITRARY. */
static const char *
semantics_constant(const char *name)
{
	static const char *const kinds[] = { "parallel", "arbitrary", "core_parallel",
					     "subcore_parallel", "sequential" };
	const char *last = strrchr(name, '.');
	char low[32];
	size_t n;

	if (!last || (strncmp(name, "pltpu.", 6) != 0 && strncmp(name, "plgpu.", 6) != 0))
		return NULL;
	last++;
	n = strlen(last);
	if (n >= sizeof(low))
		return NULL;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)(last[i] >= 'A' && last[i] <= 'Z' ? last[i] - 'A' + 'a' : last[i]);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(low, kinds[i]) == 0)
			return kinds[i];
	return NULL;
}

static struct val *
attr_of_api(struct interp *in, struct val *obj, const char *attr, const struct py_node *node)
{
	struct cctx *cx = in->cx;
	const char *name = ck_printf(cx, "%s.%s", obj->s, attr);
	const struct dtype *dt;
	const char *sem;
	const char *pre;

	/* a module reached through its parent (jax.numpy, jax.experimental.pallas) */
	if ((pre = checktab_module_prefix(cx->tab, name)))
		name = pre;
	if ((strncmp(name, "jnp.", 4) == 0 || strncmp(name, "np.", 3) == 0 ||
	     strncmp(name, "jax.numpy.", 10) == 0 || strncmp(name, "numpy.", 6) == 0 ||
	     strncmp(name, "ml_dtypes.", 10) == 0) && (dt = ck_dtype(cx, attr))) {
		struct val *d = val_new(cx, VAL_DTYPE, node);

		d->dt = dt;
		return d;
	}
	if ((sem = semantics_constant(name))) {
		struct val *s = val_new(cx, VAL_STR, node);

		s->s = sem;
		return s;
	}
	return api_named(cx, name, node);
}

static struct val *
method(struct cctx *cx, struct val *self, const char *name, const struct py_node *node)
{
	struct val *m = val_new(cx, VAL_API, node);

	m->s = ck_printf(cx, ".%s", name);
	m->self = self;
	return m;
}

static struct val *
shape_tuple(struct cctx *cx, const struct shape *s, const struct py_node *node)
{
	struct val *t = val_tuple(cx, (size_t)s->rank, node);

	for (int i = 0; i < s->rank; i++)
		t->elts[i] = val_int(cx, s->dims[i], node);
	return t;
}

/* The shape a ref shows the kernel: squeezed dims are gone. */
static void
visible_shape(const struct val *v, struct shape *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < v->shape.rank; i++)
		if (!(v->shape.squeezed & (1u << i)))
			out->dims[out->rank++] = v->shape.dims[i];
}

struct val *
ck_attr(struct interp *in, struct val *obj, const char *attr, const struct py_node *node)
{
	struct cctx *cx = in->cx;
	struct val *kw;

	switch (obj->kind) {
	case VAL_API:
		if (obj->self)
			return val_unknown(cx, NULL, node);
		return attr_of_api(in, obj, attr, node);
	case VAL_ARRAY:
	case VAL_TRACED:
	case VAL_REF:
		if (strcmp(attr, "shape") == 0) {
			struct shape s;

			if (!obj->has_shape)
				return val_unknown(cx, ck_printf(cx, "the shape of %s",
								 expr_text(cx, obj->node)), node);
			visible_shape(obj, &s);
			return shape_tuple(cx, &s, node);
		}
		if (strcmp(attr, "dtype") == 0) {
			struct val *d = val_new(cx, VAL_DTYPE, node);

			if (!obj->dt)
				return val_unknown(cx, ck_printf(cx, "the dtype of %s",
								 expr_text(cx, obj->node)), node);
			d->dt = obj->dt;
			return d;
		}
		if (strcmp(attr, "ndim") == 0 && obj->has_shape) {
			struct shape s;

			visible_shape(obj, &s);
			return val_int(cx, s.rank, node);
		}
		if (strcmp(attr, "size") == 0 && obj->has_shape)
			return val_int(cx, (long long)shape_elements(&obj->shape), node);
		if (strcmp(attr, "at") == 0 && obj->kind == VAL_REF) {
			struct val *at = val_new(cx, VAL_OBJ, node);

			at->s = "at";
			at->self = obj;
			return at;
		}
		if (strcmp(attr, "T") == 0) {
			struct val *args[1] = { obj };

			return ck_call_api(in, method(cx, obj, "T", node), args, 0, NULL, NULL, 0, node);
		}
		return method(cx, obj, attr, node);
	case VAL_DTYPE:
		if (strcmp(attr, "itemsize") == 0 && obj->dt)
			return val_int(cx, obj->dt->bits >= 8 ? obj->dt->bits / 8 : 1, node);
		if (strcmp(attr, "name") == 0 && obj->dt) {
			struct val *s = val_new(cx, VAL_STR, node);

			s->s = obj->dt->name;
			return s;
		}
		return val_unknown(cx, NULL, node);
	case VAL_OBJ:
		if (val_kwarg(obj, attr, &kw))
			return kw;
		if (obj->s && strcmp(obj->s, "dma") == 0)
			return method(cx, obj, attr, node);
		return val_unknown(cx, NULL, node);
	case VAL_INST:
	case VAL_CLASS: {
		struct val *m = scope_get(obj->closure, attr);

		if (!m)
			return val_unknown(cx, ck_printf(cx, "%s.%s", obj->fn->s, attr), node);
		if (m->kind == VAL_FUNC && obj->kind == VAL_INST && m->fn->kind == PY_DEF &&
		    !m->self) {
			struct val *b = val_copy(cx, m);

			b->self = obj;
			if (m->flags & VF_PROPERTY)
				return ck_call_user(in, b, NULL, 0, NULL, NULL, 0, node);
			return b;
		}
		return m;
	}
	case VAL_UNKNOWN:
		if (obj->s && (strcmp(attr, "shape") == 0 || strcmp(attr, "dtype") == 0) &&
		    !strchr(obj->s, ' '))
			return val_unknown(cx, ck_printf(cx, "the %s of %s", attr, obj->s), node);
		return val_unknown(cx, obj->s, node);
	default:
		return val_unknown(cx, NULL, node);
	}
}

/* ------------------------------------------------------------ traced values */

/* A traced result made from operands: what they are made of carries over. */
/* NumPy broadcasting of b into a (a holds the result); false when they do not broadcast. */
static bool
broadcast_into(struct shape *a, const struct shape *b)
{
	struct shape r;

	if (a->ellipsis || b->ellipsis)
		return false;
	r.rank = a->rank > b->rank ? a->rank : b->rank;
	r.ellipsis = false;
	r.squeezed = 0;
	for (int i = 1; i <= r.rank; i++) {
		long long x = i <= a->rank ? a->dims[a->rank - i] : 1;
		long long y = i <= b->rank ? b->dims[b->rank - i] : 1;

		if (x != y && x != 1 && y != 1)
			return false;
		r.dims[r.rank - i] = x == 1 ? y : x;
	}
	*a = r;
	return true;
}

/*
 * What an elementwise operation of ops makes: the flags that follow values
 * through arithmetic, and the broadcast shape of the traced operands (none
 * when one of them has no known shape).
 */
static struct val *
combine(struct cctx *cx, struct val **ops, size_t n, const struct py_node *node)
{
	struct val *r = val_traced(cx, NULL, node);
	const unsigned keep = VF_FROM_DOT | VF_FROM_EXP | VF_RAW_EXP | VF_LOWP_DOT;
	bool shape_ok = true;

	for (size_t i = 0; i < n; i++) {
		const struct val *o = ops[i];

		if (!o)
			continue;
		if (o->kind == VAL_TRACED || o->kind == VAL_REF) {
			r->flags |= o->flags & keep;
			r->refmask |= o->refmask;
			r->pid_mask |= o->pid_mask;
			if (!r->exp_node)
				r->exp_node = o->exp_node;
			if (!r->dot_node)
				r->dot_node = o->dot_node;
			if (!r->dt)
				r->dt = o->dt;
			if (!o->has_shape)
				shape_ok = false;
			else if (!r->has_shape) {
				r->has_shape = true;
				r->shape = o->shape;
				r->shape.squeezed = 0;
			} else if (!broadcast_into(&r->shape, &o->shape)) {
				shape_ok = false;
			}
		} else if (o->kind == VAL_ARRAY && !r->dt) {
			r->dt = o->dt;
		}
	}
	if (!shape_ok)
		r->has_shape = false;
	return r;
}

static bool
any_traced(struct val **ops, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ops[i] && (ops[i]->kind == VAL_TRACED || ops[i]->kind == VAL_REF))
			return true;
	return false;
}

void
ck_traced_bool(struct interp *in, struct val *v, const struct py_node *node, const char *what)
{
	struct vars vs = VARS_INIT;

	/* in a try with handlers the file expects the error (a test that provokes it) */
	if (!in->k || !is_traced(v) || in->try_depth)
		return;
	vars_set(&vs, "what", what, true);
	vars_set(&vs, "expr", expr_text(in->cx, node), true);
	ck_report(in->cx, "U001", node, node, in->k, &vs);
	vars_release(&vs);
}

static void
record_ix(struct interp *in, enum kev_kind kind, const struct py_node *node, struct kref *ref,
	  const char *index, struct val *ix, struct val *v)
{
	struct kev e;

	if (!in->k)
		return;
	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.node = node;
	e.ref = ref;
	e.index = index;
	e.ix = ix;
	e.v = v;
	ck_kernel_event(in, &e);
}

static void
record(struct interp *in, enum kev_kind kind, const struct py_node *node, struct kref *ref,
       const char *index, struct val *v)
{
	record_ix(in, kind, node, ref, index, NULL, v);
}

/* An unscaled accumulation stored back into its state (ref, or NULL for a loop carry). */
static void
record_state(struct interp *in, const struct val *v, struct kref *ref)
{
	struct kev e;

	if (!in->k)
		return;
	memset(&e, 0, sizeof(e));
	e.kind = KEV_ACCUM;
	e.node = v->accum_node;
	e.ref = ref;
	e.v = v->accum_other;
	e.state = v->accum_state;
	ck_kernel_event(in, &e);
}

/* ------------------------------------------------------------ operators */

static long long
ipow(long long b, long long e, bool *ok)
{
	long long r = 1;

	*ok = e >= 0 && e < 64;
	for (long long i = 0; *ok && i < e; i++) {
		if (__builtin_mul_overflow(r, b, &r))
			*ok = false;
	}
	return r;
}

static struct val *
int_op(struct cctx *cx, int op, long long a, long long b, const struct py_node *node)
{
	long long r = 0;
	bool ok = true;

	switch (op) {
	case '+': ok = !__builtin_add_overflow(a, b, &r); break;
	case '-': ok = !__builtin_sub_overflow(a, b, &r); break;
	case '*': ok = !__builtin_mul_overflow(a, b, &r); break;
	case PYOP_FLOORDIV:
	case '%':
		if (b == 0 || (a == INT64_MIN && b == -1))
			return val_unknown(cx, NULL, node);
		r = a / b;
		if ((a % b != 0) && ((a < 0) != (b < 0)))
			r--;
		if (op == '%')
			r = a - r * b;
		break;
	case PYOP_POW: r = ipow(a, b, &ok); break;
	case PYOP_LSHIFT: ok = b >= 0 && b < 62 && a >= 0 && a < (1LL << (62 - b)); r = ok ? a << b : 0; break;
	case PYOP_RSHIFT: ok = b >= 0 && b < 64; r = ok ? a >> b : 0; break;
	case '&': r = a & b; break;
	case '|': r = a | b; break;
	case '^': r = a ^ b; break;
	case '/': {
		struct val *f = val_new(cx, VAL_FLOAT, node);

		if (b == 0)
			return val_unknown(cx, NULL, node);
		f->f = (double)a / (double)b;
		return f;
	}
	default:
		return val_unknown(cx, NULL, node);
	}
	if (!ok)
		return val_unknown(cx, NULL, node);
	return val_int(cx, r, node);
}

static bool
is_num(const struct val *v, double *out)
{
	if (v->kind == VAL_INT || v->kind == VAL_BOOL) {
		*out = (double)v->i;
		return true;
	}
	if (v->kind == VAL_FLOAT) {
		*out = v->f;
		return true;
	}
	return false;
}

static struct val *
tuple_op(struct cctx *cx, int op, struct val *a, struct val *b, const struct py_node *node)
{
	struct val *t;

	if (op == '+' && a->kind == VAL_TUPLE && b->kind == VAL_TUPLE) {
		t = val_tuple(cx, a->n + b->n, node);
		t->flags |= (a->flags | b->flags) & VF_SOME;
		ck_copy(t->elts, a->elts, a->n, sizeof(*t->elts));
		ck_copy(t->elts + a->n, b->elts, b->n, sizeof(*t->elts));
		return t;
	}
	if (op == '*' && (a->kind == VAL_TUPLE) != (b->kind == VAL_TUPLE)) {
		struct val *tu = a->kind == VAL_TUPLE ? a : b, *k = a->kind == VAL_TUPLE ? b : a;

		if (k->kind != VAL_INT || k->i < 0 || k->i > 256 || tu->n * (size_t)k->i > 4096)
			return val_unknown(cx, val_need(k), node);
		t = val_tuple(cx, tu->n * (size_t)k->i, node);
		for (long long r = 0; r < k->i; r++)
			ck_copy(t->elts + (size_t)r * tu->n, tu->elts, tu->n, sizeof(*t->elts));
		return t;
	}
	return NULL;
}

/* A traced arithmetic result: what it is made of, and the online-softmax patterns. */
static struct val *
traced_op(struct interp *in, int op, struct val *a, struct val *b, const struct py_node *node)
{
	struct val *ops[2] = { a, b };
	struct val *r;

	if (op == '@')
		return NULL;
	r = combine(in->cx, ops, 2, node);
	if (op == '-') {
		r->flags |= VF_SUBTRACTED;
		r->flags &= ~VF_RAW_EXP;
	} else if ((op == '*' || op == '/') && ((a->flags | b->flags) & VF_SUBTRACTED)) {
		r->flags |= VF_SUBTRACTED;
	}
	if (op == '&' || op == '|') {
		unsigned ea = is_traced(a) ? a->eq0_mask : 0, eb = is_traced(b) ? b->eq0_mask : 0;

		r->eq0_mask = op == '&' ? (ea | eb) : (ea & eb);
	}
	/*
	 * state + product without rescaling the state: an online-softmax
	 * accumulation, once it is stored back into that state (a ref write
	 * or a loop carry returned); a bias read from a ref added to scores
	 * is not one
	 */
	if (op == '+' && in->k) {
		struct val *st = (a->flags & VF_STATE) ? a : (b->flags & VF_STATE) ? b : NULL;
		struct val *other = st == a ? b : a;

		if (st && other && (other->flags & (VF_FROM_DOT | VF_FROM_EXP)) &&
		    !(other->flags & VF_STATE)) {
			r->flags |= VF_ACCUM | (st->flags & VF_CARRY);
			r->accum_node = node;
			r->accum_state = node && (node->kind == PY_BINOP || node->kind == PY_AUGASSIGN)
					 ? (st == a ? node->x : node->y) : NULL;
			r->accum_other = other;
			r->accum_refs = st->refmask;
		}
	}
	return r;
}

static struct val *dot(struct interp *in, struct val *a, struct val *b, struct val *pref,
		       const struct py_node *node);

/* jnp functions that keep their array operands' broadcast shape (their other arguments are numbers). */
static bool
host_elementwise(const char *name)
{
	static const char *const names[] = {
		"jnp.abs", "jnp.round", "jnp.rint", "jnp.clip", "jnp.floor", "jnp.ceil", "jnp.exp",
		"jnp.log", "jnp.sqrt", "jnp.tanh", "jnp.sign", "jnp.negative", "jnp.maximum",
		"jnp.minimum", "jnp.add", "jnp.subtract", "jnp.multiply", "jnp.divide", NULL,
	};

	for (size_t i = 0; names[i]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

static bool
host_reduction(const char *name)
{
	return strcmp(name, "jnp.max") == 0 || strcmp(name, "jnp.min") == 0 ||
	       strcmp(name, "jnp.amax") == 0 || strcmp(name, "jnp.amin") == 0 ||
	       strcmp(name, "jnp.sum") == 0 || strcmp(name, "jnp.mean") == 0;
}

/* A host reduction of an example array over one axis (or all): its shape, keepdims or not. */
static struct val *
host_reduce(struct cctx *cx, const struct acall *c, const struct py_node *node)
{
	const struct val *x = arg(c, 0, "a"), *axis = arg(c, 1, "axis"), *keep = arg(c, 99, "keepdims");
	bool keepdims = keep && keep->kind == VAL_BOOL && keep->i;
	struct val *r;
	long long ax;

	if (!x || x->kind != VAL_ARRAY || !x->has_shape || x->shape.ellipsis || !x->dt)
		return val_unknown(cx, NULL, node);
	r = val_new(cx, VAL_ARRAY, node);
	r->dt = x->dt;
	r->has_shape = true;
	r->shape.rank = 0;
	if (!axis || axis->kind == VAL_NONE) {
		for (int i = 0; keepdims && i < x->shape.rank; i++)
			r->shape.dims[r->shape.rank++] = 1;
		return r;
	}
	if (axis->kind != VAL_INT)
		return val_unknown(cx, NULL, node);
	ax = axis->i < 0 ? axis->i + x->shape.rank : axis->i;
	if (ax < 0 || ax >= x->shape.rank)
		return val_unknown(cx, NULL, node);
	for (int i = 0; i < x->shape.rank; i++)
		if (i != ax)
			r->shape.dims[r->shape.rank++] = x->shape.dims[i];
		else if (keepdims)
			r->shape.dims[r->shape.rank++] = 1;
	return r;
}

/*
 * Outside a kernel: the example arrays a file builds pass through
 * elementwise host code (scaling, rounding, clipping) before they reach a
 * pallas_call. Their result has the broadcast shape and the first array's
 * dtype (an .astype() after it says the rest); anything but arrays and
 * numbers among ops gives no array.
 */
static struct val *
host_array_op(struct cctx *cx, struct val **ops, size_t n, const struct py_node *node)
{
	struct val *r = NULL;
	double x;

	for (size_t i = 0; i < n; i++) {
		const struct val *o = ops[i];

		if (o && o->kind == VAL_ARRAY && o->has_shape && o->dt) {
			if (!r) {
				r = val_new(cx, VAL_ARRAY, node);
				r->has_shape = true;
				r->shape = o->shape;
				r->dt = o->dt;
			} else if (!broadcast_into(&r->shape, &o->shape)) {
				return NULL;
			}
		} else if (o && !is_num(o, &x)) {
			return NULL;
		}
	}
	return r;
}

struct val *
ck_binop(struct interp *in, int op, struct val *a, struct val *b, const struct py_node *node)
{
	struct cctx *cx = in->cx;
	struct val *t;
	double x, y;

	if (val_is_int(a) && val_is_int(b))
		return int_op(cx, op, a->i, b->i, node);
	if (is_num(a, &x) && is_num(b, &y)) {
		struct val *f = val_new(cx, VAL_FLOAT, node);

		switch (op) {
		case '+': f->f = x + y; break;
		case '-': f->f = x - y; break;
		case '*': f->f = x * y; break;
		case '/': if (y == 0) return val_unknown(cx, NULL, node); f->f = x / y; break;
		default: return val_unknown(cx, NULL, node);
		}
		return f;
	}
	if ((t = tuple_op(cx, op, a, b, node)))
		return t;
	if (op == '+' && a->kind == VAL_STR && b->kind == VAL_STR) {
		t = val_new(cx, VAL_STR, node);
		t->s = ck_printf(cx, "%s%s", a->s, b->s);
		return t;
	}
	if (is_traced(a) || is_traced(b) || a->kind == VAL_REF || b->kind == VAL_REF) {
		if (op == '@')
			return dot(in, a, b, NULL, node);
		if (in->k)
			return traced_op(in, op, a, b, node);
	}
	if (!in->k && op != '@') {
		struct val *ops[2] = { a, b };

		if ((t = host_array_op(cx, ops, 2, node)))
			return t;
	}
	return val_unknown(cx, val_need(a) ? val_need(a) : val_need(b), node);
}

struct val *
ck_compare(struct interp *in, int op, struct val *a, struct val *b, const struct py_node *node)
{
	struct cctx *cx = in->cx;
	struct val *r;
	double x, y;

	/* identity is decided when the kernel is traced, never on device */
	if (op == PYOP_IS || op == PYOP_ISNOT) {
		bool an = a->kind == VAL_NONE, bn = b->kind == VAL_NONE;

		if ((an || bn) && a->kind != VAL_UNKNOWN && b->kind != VAL_UNKNOWN) {
			r = val_new(cx, VAL_BOOL, node);
			r->i = (an && bn) == (op == PYOP_IS);
			return r;
		}
		return val_unknown(cx, NULL, node);
	}
	if ((op == PYOP_IN || op == PYOP_NOTIN) && (is_traced(a) || is_traced(b)))
		return val_unknown(cx, NULL, node);
	if (is_traced(a) || is_traced(b)) {
		struct val *ops[2] = { a, b };
		struct val *p = is_traced(a) ? a : b, *o = p == a ? b : a;

		r = combine(cx, ops, 2, node);
		r->flags = 0;
		r->dt = ck_dtype(cx, "bool");
		if (op == PYOP_EQ && p->pid_axis >= 0 && val_is_int(o) && o->i == 0)
			r->eq0_mask = 1u << p->pid_axis;
		return r;
	}
	if (is_num(a, &x) && is_num(b, &y)) {
		bool t;

		switch (op) {
		case '<': t = x < y; break;
		case '>': t = x > y; break;
		case PYOP_LE: t = x <= y; break;
		case PYOP_GE: t = x >= y; break;
		case PYOP_EQ: t = x == y; break;
		case PYOP_NE: t = x != y; break;
		default: return val_unknown(cx, NULL, node);
		}
		r = val_new(cx, VAL_BOOL, node);
		r->i = t;
		return r;
	}
	if ((op == PYOP_IS || op == PYOP_ISNOT || op == PYOP_EQ || op == PYOP_NE) &&
	    (a->kind == VAL_NONE || b->kind == VAL_NONE) && a->kind != VAL_UNKNOWN &&
	    b->kind != VAL_UNKNOWN) {
		bool same = a->kind == b->kind;

		r = val_new(cx, VAL_BOOL, node);
		r->i = (op == PYOP_IS || op == PYOP_EQ) ? same : !same;
		return r;
	}
	if ((op == PYOP_EQ || op == PYOP_NE) && a->kind == VAL_STR && b->kind == VAL_STR) {
		r = val_new(cx, VAL_BOOL, node);
		r->i = (strcmp(a->s, b->s) == 0) == (op == PYOP_EQ);
		return r;
	}
	return val_unknown(cx, val_need(a) ? val_need(a) : val_need(b), node);
}

/* ------------------------------------------------------------ subscripts */

static struct val *
tuple_index(struct cctx *cx, struct val *t, struct val *idx, const struct py_node *node)
{
	if ((t->flags & VF_SOME) && t->n == 1 && idx->kind != VAL_OBJ)
		return t->elts[0];
	if (t->flags & VF_SOME)
		return val_unknown(cx, NULL, node);
	if (idx->kind == VAL_INT) {
		long long i = idx->i < 0 ? (long long)t->n + idx->i : idx->i;

		if (i >= 0 && (size_t)i < t->n)
			return t->elts[i];
		return val_unknown(cx, NULL, node);
	}
	if (idx->kind == VAL_OBJ && idx->s && strcmp(idx->s, "slice") == 0) {
		long long n = (long long)t->n, lo = 0, hi = n;
		struct val *r;

		if (idx->elts[2]->kind != VAL_NONE)
			return val_unknown(cx, NULL, node);
		if (idx->elts[0]->kind == VAL_INT)
			lo = idx->elts[0]->i < 0 ? n + idx->elts[0]->i : idx->elts[0]->i;
		if (idx->elts[1]->kind == VAL_INT)
			hi = idx->elts[1]->i < 0 ? n + idx->elts[1]->i : idx->elts[1]->i;
		if ((idx->elts[0]->kind != VAL_INT && idx->elts[0]->kind != VAL_NONE) ||
		    (idx->elts[1]->kind != VAL_INT && idx->elts[1]->kind != VAL_NONE))
			return val_unknown(cx, NULL, node);
		lo = lo < 0 ? 0 : lo > n ? n : lo;
		hi = hi < lo ? lo : hi > n ? n : hi;
		r = val_tuple(cx, (size_t)(hi - lo), node);
		for (long long i = lo; i < hi; i++)
			r->elts[i - lo] = t->elts[i];
		return r;
	}
	return val_unknown(cx, val_need(idx), node);
}

/* Does an index select the whole ref ([...], [:, :])? */
static bool
whole_index(const struct val *idx)
{
	if (idx->kind == VAL_OBJ && idx->s && strcmp(idx->s, "Ellipsis") == 0)
		return true;
	if (idx->kind == VAL_OBJ && idx->s && strcmp(idx->s, "slice") == 0)
		return idx->elts[0]->kind == VAL_NONE && idx->elts[1]->kind == VAL_NONE;
	if (idx->kind == VAL_TUPLE) {
		for (size_t i = 0; i < idx->n; i++)
			if (!whole_index(idx->elts[i]))
				return false;
		return idx->n > 0;
	}
	return false;
}

static unsigned
index_pids(const struct val *idx, int depth)
{
	unsigned m = 0;

	if (!idx || depth > 4)
		return 0;
	if (idx->kind == VAL_TRACED)
		return idx->pid_mask;
	for (size_t i = 0; (idx->kind == VAL_TUPLE || idx->kind == VAL_OBJ) && i < idx->n; i++)
		m |= index_pids(idx->elts[i], depth + 1);
	return m;
}

/*
 * The shape x[idx] has, for indexes made of ints, full slices, slices and
 * pl.ds with known bounds, and one Ellipsis. False when it cannot be told.
 */
static bool
indexed_shape(const struct shape *in, const struct val *idx, struct shape *out)
{
	const struct val *one[1];
	const struct val *const *items = one;
	size_t n = 1, pos = 0;
	bool ellipsis = false;

	if (idx->kind == VAL_TUPLE) {
		items = (const struct val *const *)idx->elts;
		n = idx->n;
	} else {
		one[0] = idx;
	}
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		const struct val *e = items[i];
		long long d;

		if (e->kind == VAL_OBJ && e->s && strcmp(e->s, "Ellipsis") == 0) {
			size_t rest = n - i - 1, keep;

			if (ellipsis || (size_t)in->rank < pos + rest)
				return false;
			keep = (size_t)in->rank - pos - rest;
			for (size_t k = 0; k < keep; k++)
				out->dims[out->rank++] = in->dims[pos++];
			ellipsis = true;
			continue;
		}
		if ((int)pos >= in->rank)
			return false;
		d = in->dims[pos++];
		if (e->kind == VAL_INT || e->kind == VAL_TRACED || e->kind == VAL_UNKNOWN) {
			if (e->kind == VAL_UNKNOWN)
				return false;
			continue;       /* an integer index drops the dim */
		}
		if (e->kind == VAL_OBJ && e->s && strcmp(e->s, "slice") == 0) {
			const struct val *lo = e->elts[0], *hi = e->elts[1];

			if (e->elts[2]->kind != VAL_NONE)
				return false;
			if (lo->kind == VAL_NONE && hi->kind == VAL_NONE) {
				out->dims[out->rank++] = d;
			} else if ((lo->kind == VAL_NONE || lo->kind == VAL_INT) && hi->kind == VAL_INT &&
				   hi->i > (lo->kind == VAL_INT ? lo->i : 0)) {
				out->dims[out->rank++] = hi->i - (lo->kind == VAL_INT ? lo->i : 0);
			} else {
				return false;
			}
			continue;
		}
		if (e->kind == VAL_OBJ && e->s && strcmp(e->s, "pl.ds") == 0 && e->elts[1]->kind == VAL_INT &&
		    e->elts[1]->i > 0) {
			out->dims[out->rank++] = e->elts[1]->i;
			continue;
		}
		return false;
	}
	while ((int)pos < in->rank)
		out->dims[out->rank++] = in->dims[pos++];
	return out->rank > 0;
}

/* U004: a load or store through pl.ds of traced size makes a value of a shape known only at run time. */
static void
ds_checked(struct interp *in, const struct val *idx)
{
	size_t n = idx && idx->kind == VAL_TUPLE ? idx->n : 1;

	for (size_t i = 0; idx && in->k && i < n; i++) {
		const struct val *d = idx->kind == VAL_TUPLE ? idx->elts[i] : idx;
		struct vars vs = VARS_INIT;

		if (d->kind != VAL_OBJ || !(d->flags & VF_DS_TRACED) || d->n < 2)
			continue;
		vars_set(&vs, "size", expr_text(in->cx, d->elts[1]->node ? d->elts[1]->node : d->node),
			 true);
		vars_set(&vs, "expr", expr_text(in->cx, d->node), true);
		ck_report(in->cx, "U004", d->node, d->node, in->k, &vs);
		vars_release(&vs);
	}
}

static struct val *
ref_load(struct interp *in, struct val *ref, struct val *idx, const struct py_node *node)
{
	struct cctx *cx = in->cx;
	struct val *r = val_traced(cx, ref->ref ? ref->ref->dt : ref->dt, node);
	const char *itext = node && node->kind == PY_SUBSCRIPT ? index_text(cx, node->y) : "...";

	r->flags = VF_STATE;
	ds_checked(in, idx);
	if (ref->s)
		ds_checked(in, ref->index);
	if (ref->ref && ref->ref->bit >= 0)
		r->refmask = 1ull << ref->ref->bit;
	r->pid_mask = index_pids(idx, 0);
	if (ref->has_shape && !ref->s) {
		struct shape vis;

		visible_shape(ref, &vis);
		if (whole_index(idx)) {
			r->shape = vis;
			r->has_shape = true;
		} else {
			r->has_shape = indexed_shape(&vis, idx, &r->shape);
		}
	}
	if (ref->ref && in->k) {
		record_ix(in, KEV_READ, node, ref->ref, ref->s ? ref->s : itext,
			  ref->s ? ref->index : whole_index(idx) ? NULL : idx, NULL);
		in->k->ev[in->k->nev - 1].whole = whole_index(idx);
	}
	return r;
}

struct val *
ck_subscript(struct interp *in, struct val *obj, struct val *idx, const struct py_node *node)
{
	struct cctx *cx = in->cx;

	switch (obj->kind) {
	case VAL_TUPLE:
		return tuple_index(cx, obj, idx, node);
	case VAL_DICT:
		for (size_t i = 0; idx->kind == VAL_STR && i < obj->nkw; i++)
			if (strcmp(obj->kwn[i], idx->s) == 0)
				return obj->kwv[i];
		return val_unknown(cx, NULL, node);
	case VAL_REF:
		if (obj->ref && obj->ref->role == ROLE_SEM && !obj->s) {
			/* sems[i] is a semaphore, as sems.at[i] is */
			struct val *v = val_copy(cx, obj);

			v->s = node && node->kind == PY_SUBSCRIPT ? index_text(cx, node->y) : "?";
			v->index = idx;
			v->node = node;
			return v;
		}
		return ref_load(in, obj, idx, node);
	case VAL_OBJ:
		if (obj->s && strcmp(obj->s, "at") == 0 && obj->self) {
			/* ref.at[i]: a view of the same ref */
			struct val *v = val_copy(cx, obj->self);

			v->s = node && node->kind == PY_SUBSCRIPT ? index_text(cx, node->y) : "?";
			v->index = idx;
			v->node = node;
			v->has_shape = false;
			return v;
		}
		return val_unknown(cx, NULL, node);
	case VAL_TRACED: {
		struct val *r = val_copy(cx, obj);

		r->node = node;
		r->has_shape = false;
		r->pid_axis = -1;
		return r;
	}
	case VAL_ARRAY: {
		struct val *r = val_copy(cx, obj);

		r->has_shape = false;
		r->node = node;
		return r;
	}
	case VAL_UNKNOWN:
		return val_unknown(cx, obj->s, node);
	default:
		return val_unknown(cx, NULL, node);
	}
}

static bool
is_zero(const struct val *v)
{
	return (v->kind == VAL_INT && v->i == 0) || (v->kind == VAL_FLOAT && v->f == 0) ||
	       (v->flags & VF_ZERO);
}

void
ck_store_subscript(struct interp *in, const struct py_node *target, struct val *obj,
		   struct val *idx, struct val *v, bool aug)
{
	struct kev e;

	if (obj->kind == VAL_DICT && idx->kind == VAL_STR) {
		for (size_t i = 0; i < obj->nkw; i++)
			if (strcmp(obj->kwn[i], idx->s) == 0) {
				obj->kwv[i] = v;
				return;
			}
		return;
	}
	if (obj->kind != VAL_REF || !obj->ref || !in->k)
		return;
	ds_checked(in, idx);
	if (obj->s)
		ds_checked(in, obj->index);
	memset(&e, 0, sizeof(e));
	e.kind = KEV_WRITE;
	e.node = target;
	e.ref = obj->ref;
	e.index = obj->s ? obj->s : index_text(in->cx, target->y);
	e.ix = obj->s ? obj->index : whole_index(idx) ? NULL : idx;
	e.v = v;
	e.aug = aug;
	e.rmw = aug || (obj->ref->bit >= 0 && (v->refmask & (1ull << obj->ref->bit)));
	e.identity = !aug && obj->ref->bit >= 0 && v->kind == VAL_TRACED && (v->flags & VF_STATE) &&
		     v->refmask == (1ull << obj->ref->bit);
	e.zero = !aug && is_zero(v);
	e.scaled = aug ? in->aug_op == '*' : (e.rmw && v->node && v->node->kind == PY_BINOP &&
					       v->node->op == '*');
	(void)idx;
	ck_kernel_event(in, &e);
	if (e.rmw && (v->flags & VF_ACCUM) && obj->ref->bit >= 0 &&
	    (v->accum_refs & (1ull << obj->ref->bit)))
		record_state(in, v, obj->ref);
}

/* ------------------------------------------------------------ array values */

/*
 * Inside a Triton kernel every array is a power of two elements long in
 * each dimension. The finding is where the size was written when it has a
 * name there (block_size = 1000), so one size used by many arrays is one
 * finding; else at the array.
 */
static void
check_triton_size(struct interp *in, const struct val *v, const struct val *shape,
		  const struct py_node *node)
{
	struct vars vs = VARS_INIT;

	if (!in->k || strcmp(in->k->backend, "triton") != 0 || !v->has_shape)
		return;
	for (int i = 0; i < v->shape.rank; i++) {
		long long d = v->shape.dims[i], p = 1;
		const struct val *e = shape && shape->kind == VAL_TUPLE && (size_t)i < shape->n ?
				      shape->elts[i] : shape && shape->kind == VAL_INT ? shape : NULL;
		const struct py_node *at = node;

		if (d <= 0 || (d & (d - 1)) == 0)
			continue;
		while (p < d)
			p <<= 1;
		vars_set(&vs, "expr", expr_text(in->cx, node), true);
		vars_set(&vs, "size", ck_printf(in->cx, "%lld", d), true);
		vars_set(&vs, "pow2", ck_printf(in->cx, "%lld", p), true);
		vars_set(&vs, "used", ck_where(in->cx, node), true);
		if (e && e->kind == VAL_INT && e->origin && e->origin_name) {
			at = e->origin;
			vars_set(&vs, "expr", ck_printf(in->cx, "%s=%lld", e->origin_name, d), true);
		}
		ck_report(in->cx, "L011", at, at, in->k, &vs);
		vars_release(&vs);
		return;
	}
}

static struct val *
array_of(struct interp *in, struct val *shape, const struct dtype *dt, const struct py_node *node)
{
	struct val *v = val_new(in->cx, in->k ? VAL_TRACED : VAL_ARRAY, node);

	v->dt = dt;
	if (shape && val_shape(shape, &v->shape)) {
		v->shape.squeezed = 0;
		v->has_shape = true;
	}
	check_triton_size(in, v, shape, node);
	return v;
}

static const struct dtype *
dtype_of(struct cctx *cx, struct val *d)
{
	if (!d)
		return NULL;
	if (d->kind == VAL_DTYPE)
		return d->dt;
	if (d->kind == VAL_STR)
		return ck_dtype(cx, d->s);
	if (is_arraylike(d))
		return d->dt;
	return NULL;
}

/* A dtype the backend refuses (64-bit) or a 4-bit cast, inside a kernel. */
static void
check_kernel_dtype(struct interp *in, struct val *d, const struct dtype *dt, const struct py_node *node)
{
	struct vars vs = VARS_INIT;

	if (!in->k || !dt)
		return;
	if (dt->unsupported && strcmp(in->k->backend, "mosaic-tpu") == 0) {
		vars_set(&vs, "dtype", dt->name, true);
		vars_set(&vs, "why", dt->unsupported, true);
		ck_report(in->cx, "U006", node, node, in->k, &vs);
	} else if (dt->bits == 4 && strcmp(in->k->backend, "mosaic-tpu") == 0) {
		vars_set(&vs, "dtype", dt->name, true);
		ck_report(in->cx, "U003", node, node, in->k, &vs);
	}
	(void)d;
	vars_release(&vs);
}

static struct val *
h_create(struct interp *in, const struct acall *c)
{
	/* zeros(shape, dtype) / full(shape, fill, dtype) / random.normal(key, shape, dtype) */
	bool random = strncmp(c->name, "jax.random.", 11) == 0;
	bool full = strstr(c->name, ".full") != NULL;
	bool npr = strncmp(c->name, "np.random.", 10) == 0;
	struct val *shape, *dt;
	const struct dtype *t;
	struct val *v;

	if (npr && (strcmp(c->name, "np.random.randn") == 0 || strcmp(c->name, "np.random.rand") == 0)) {
		struct val *tu = val_tuple(in->cx, c->nargs, c->node);

		ck_copy(tu->elts, c->args, c->nargs, sizeof(*tu->elts));
		return array_of(in, tu, ck_dtype(in->cx, "float32"), c->node);
	}
	shape = npr ? arg(c, 99, "size") : arg(c, random ? 1 : 0, "shape");
	dt = arg(c, random ? (strcmp(c->name, "jax.random.randint") == 0 ? 4 : 2) : full ? 2 : 1,
		 "dtype");
	t = dtype_of(in->cx, dt);
	if (!t)
		t = ck_dtype(in->cx, strstr(c->name, "randint") || strstr(c->name, "arange") ? "int32" :
				     strstr(c->name, "bernoulli") ? "bool" : "float32");
	check_kernel_dtype(in, dt, t, c->node);
	v = array_of(in, shape, t, c->node);
	if (strstr(c->name, "zeros"))
		v->flags |= VF_ZERO;
	if (full && in->k && arg(c, 1, "fill_value") && is_zero(arg(c, 1, "fill_value")))
		v->flags |= VF_ZERO;
	return v;
}

static struct val *
h_like(struct interp *in, const struct acall *c)
{
	struct val *x = arg(c, 0, "a"), *v;
	const struct dtype *t = dtype_of(in->cx, arg(c, c->name[strlen(c->name) - 6] == 'l' ? 2 : 1,
						      "dtype"));

	v = val_new(in->cx, in->k ? VAL_TRACED : VAL_ARRAY, c->node);
	if (x && is_arraylike(x)) {
		v->dt = x->dt;
		if (x->has_shape) {
			v->has_shape = true;
			visible_shape(x, &v->shape);
		}
	}
	if (t)
		v->dt = t;
	if (strstr(c->name, "zeros_like"))
		v->flags |= VF_ZERO;
	return v;
}

static struct val *
h_arange(struct interp *in, const struct acall *c)
{
	struct val *a = arg(c, 0, "start"), *b = arg(c, 1, "stop");
	struct val *shape = NULL;

	if (a && val_is_int(a) && !b)
		shape = val_int(in->cx, a->i, c->node);
	else if (a && b && val_is_int(a) && val_is_int(b))
		shape = val_int(in->cx, b->i - a->i, c->node);
	return array_of(in, shape, dtype_of(in->cx, arg(c, 9, "dtype")) ?
			dtype_of(in->cx, arg(c, 9, "dtype")) : ck_dtype(in->cx, "int32"), c->node);
}

static struct val *
h_shape_dtype(struct interp *in, const struct acall *c)
{
	struct val *v = val_new(in->cx, VAL_ARRAY, c->node);
	struct val *dt = arg(c, 1, "dtype");

	v->dt = dtype_of(in->cx, dt);
	if (val_shape(arg(c, 0, "shape"), &v->shape)) {
		v->shape.squeezed = 0;
		v->has_shape = true;
	}
	if (!v->has_shape && arg(c, 0, "shape"))
		v->s = val_need(arg(c, 0, "shape"));
	return v;
}

static struct val *
h_asarray(struct interp *in, const struct acall *c)
{
	struct val *x = arg(c, 0, "a"), *v;
	const struct dtype *t = dtype_of(in->cx, arg(c, 1, "dtype"));

	if (!x)
		return val_unknown(in->cx, NULL, c->node);
	if (!is_arraylike(x)) {
		if (in->k && t) {
			v = val_traced(in->cx, t, c->node);
			check_kernel_dtype(in, NULL, t, c->node);
			return v;
		}
		return val_unknown(in->cx, val_need(x), c->node);
	}
	v = val_copy(in->cx, x);
	v->node = c->node;
	if (t) {
		v->dt = t;
		check_kernel_dtype(in, NULL, t, c->node);
	}
	return v;
}

static struct val *
h_astype(struct interp *in, const struct acall *c)
{
	struct val *x = c->self ? c->self : arg(c, 0, "x");
	struct val *d = c->self ? arg(c, 0, "dtype") : arg(c, 1, "new_dtype");
	const struct dtype *t = dtype_of(in->cx, d);
	struct val *v;

	if (!x || !is_arraylike(x))
		return val_unknown(in->cx, x ? val_need(x) : NULL, c->node);
	v = val_copy(in->cx, x);
	v->node = c->node;
	v->flags &= VF_FROM_DOT | VF_FROM_EXP | VF_RAW_EXP | VF_SUBTRACTED | VF_STATE | VF_ZERO |
		    VF_ACCUM | VF_CARRY | VF_LOWP_DOT;
	if (x->kind == VAL_REF)
		v->kind = VAL_TRACED;
	v->dt = t;
	check_kernel_dtype(in, d, t, c->node);
	return v;
}

/* ------------------------------------------------------------ in-kernel math */

static bool
low_precision(const struct dtype *dt)
{
	return dt && dt->bits < 32;
}

static struct val *
dot(struct interp *in, struct val *a, struct val *b, struct val *pref, const struct py_node *node)
{
	struct val *ops[2] = { a, b };
	struct val *r = combine(in->cx, ops, 2, node);
	const struct dtype *pt = dtype_of(in->cx, pref);

	r->flags = (r->flags & ~VF_RAW_EXP) | VF_FROM_DOT;
	r->has_shape = false;
	if (a->has_shape && b->has_shape && a->shape.rank == 2 && b->shape.rank == 2) {
		r->has_shape = true;
		r->shape.rank = 2;
		r->shape.dims[0] = a->shape.dims[0];
		r->shape.dims[1] = b->shape.dims[1];
	}
	if (pt) {
		r->dt = pt;
	} else if (a->dt && b->dt && low_precision(a->dt) && low_precision(b->dt) && in->k) {
		r->flags |= VF_LOWP_DOT;
		r->dot_node = node;
	}
	return r;
}

static struct val *
h_dot(struct interp *in, const struct acall *c)
{
	struct val *a, *b;

	if (strcmp(c->name, "jnp.einsum") == 0) {
		a = arg(c, 1, NULL);
		b = arg(c, 2, NULL);
	} else {
		a = arg(c, 0, "a");
		b = arg(c, 1, "b");
		if (!a)
			a = arg(c, 0, "lhs");
		if (!b)
			b = arg(c, 1, "rhs");
	}
	if (!a || !b || (!is_arraylike(a) && !is_arraylike(b)))
		return val_unknown(in->cx, NULL, c->node);
	if (strcmp(c->name, "pl.dot") == 0) {
		struct val *f32 = val_new(in->cx, VAL_DTYPE, c->node);

		f32->dt = ck_dtype(in->cx, a->dt && strncmp(a->dt->name, "int", 3) == 0 ? "int32" : "float32");
		return dot(in, a, b, f32, c->node);
	}
	return dot(in, a, b, arg(c, 99, "preferred_element_type"), c->node);
}

static bool
stabilised(const struct val *x)
{
	return (x->flags & (VF_SUBTRACTED | VF_NEGATED)) != 0;
}

static struct val *
h_exp(struct interp *in, const struct acall *c)
{
	struct val *x = arg(c, 0, "x");
	struct val *ops[1] = { x };
	struct val *r;

	if (!x || !is_arraylike(x))
		return val_unknown(in->cx, x ? val_need(x) : NULL, c->node);
	r = combine(in->cx, ops, 1, c->node);
	r->flags |= VF_FROM_EXP;
	r->flags &= ~VF_RAW_EXP;
	if (in->k && !stabilised(x)) {
		r->flags |= VF_RAW_EXP;
		r->exp_node = c->node;
	}
	return r;
}

static struct val *
h_maximum(struct interp *in, const struct acall *c)
{
	struct val *a = arg(c, 0, "x"), *b = arg(c, 1, "y");
	struct val *ops[2] = { a, b };
	struct val *r;

	if (!a || !b)
		return val_unknown(in->cx, NULL, c->node);
	if (!any_traced(ops, 2))
		return val_unknown(in->cx, NULL, c->node);
	r = combine(in->cx, ops, 2, c->node);
	if (in->k && ((a->flags & VF_STATE) || (b->flags & VF_STATE)) &&
	    ((a->flags | b->flags) & (VF_MAX_REDUCE | VF_FROM_DOT))) {
		r->flags |= VF_RUNNING_MAX;
		in->k->running_max = true;
	}
	return r;
}

/* The check_primitives entries that name this call and apply to x's dtype. */
static void
check_primitive(struct interp *in, const char *name, struct val *x, const struct py_node *node)
{
	struct cctx *cx = in->cx;

	if (!in->k || !cx->tab)
		return;
	for (size_t i = 0; i < cx->tab->nprims; i++) {
		const struct check_prim *p = cx->tab->prims[i];
		bool named = false, backend = false, dtype = !p->dtypes;
		struct vars vs = VARS_INIT;
		const char *code = "U005";

		for (char **k = p->calls; *k && !named; k++)
			named = strcmp(*k, name) == 0;
		for (char **b = p->backends; *b && !backend; b++)
			backend = strcmp(*b, in->k->backend) == 0;
		if (p->dtypes) {
			if (!x || !x->dt)
				continue;
			for (char **d = p->dtypes; *d && !dtype; d++)
				dtype = strcmp(*d, x->dt->name) == 0;
			code = "U002";
		}
		if (!named || !backend || !dtype)
			continue;
		if (p->lowered_in.set && cx->jv_known && jaxver_cmp(&cx->jv, &p->lowered_in.hi) >= 0)
			continue;
		vars_set(&vs, "call", name[0] == '.' ? ck_printf(cx, "x%s()", name) : name, true);
		vars_set(&vs, "what", p->what, true);
		vars_set(&vs, "backend", in->k->backend, true);
		vars_set(&vs, "prim_fix", p->fix, true);
		if (x && x->dt)
			vars_set(&vs, "dtype", x->dt->name, true);
		if (p->lowered_in.set) {
			vars_set(&vs, "lowered_in", p->lowered_in.text, true);
			vars_set(&vs, "jax", cx->jv_known ? cx->o->jax_version :
				 "your JAX (give --jax VERSION)", true);
			code = p->dtypes ? "U002" : "U005";
			vars_set(&vs, "until", ck_printf(cx, "; JAX %s lowers it, and %s is older",
							 p->lowered_in.text, cx->jv_known ?
							 cx->o->jax_version : "the release in use may be"), true);
		} else {
			vars_set(&vs, "until", "", true);
		}
		ck_report(cx, code, node, node, in->k, &vs);
		vars_release(&vs);
		return;
	}
}

static struct val *
h_reduce(struct interp *in, const struct acall *c)
{
	struct val *x = c->self ? c->self : arg(c, 0, "a");
	struct val *ops[1] = { x };
	struct val *r;
	bool is_max = strstr(c->name, "max") != NULL;
	bool is_sum = strstr(c->name, "sum") != NULL;

	if (!x || !is_arraylike(x))
		return val_unknown(in->cx, x ? val_need(x) : NULL, c->node);
	r = combine(in->cx, ops, 1, c->node);
	r->has_shape = false;
	if (is_max)
		r->flags |= VF_MAX_REDUCE;
	/* a sum of raw exps: softmax without the max subtracted */
	if (in->k && is_sum && (x->flags & VF_RAW_EXP) && x->exp_node) {
		struct vars vs = VARS_INIT;

		vars_set(&vs, "expr", expr_text(in->cx, x->exp_node), true);
		vars_set(&vs, "sum", expr_text(in->cx, c->node), true);
		ck_report(in->cx, "N004", x->exp_node, x->exp_node, in->k, &vs);
		vars_release(&vs);
	}
	r->flags &= ~VF_RAW_EXP;
	return r;
}

/* A reshape target with one -1: the dim that keeps the element count. */
static bool
infer_shape(const struct val *x, const struct val *shape, struct shape *out)
{
	unsigned long long total, known = 1;
	int hole = -1;

	if (!x->has_shape || shape->kind != VAL_TUPLE || shape->n > SHAPE_MAX_RANK ||
	    !(total = shape_elements(&x->shape)))
		return false;
	memset(out, 0, sizeof(*out));
	out->rank = (int)shape->n;
	for (size_t i = 0; i < shape->n; i++) {
		const struct val *e = shape->elts[i];

		if (e->kind != VAL_INT)
			return false;
		if (e->i == -1 && hole < 0) {
			hole = (int)i;
			continue;
		}
		if (e->i < 1)
			return false;
		out->dims[i] = e->i;
		known *= (unsigned long long)e->i;
	}
	if (hole < 0 || total % known)
		return false;
	out->dims[hole] = (long long)(total / known);
	return true;
}

/* reshape and transpose of a value inside the kernel. */
static bool
is_tpu(const struct kcall *k)
{
	const struct kcall *top = k->outer ? k->outer : k;

	return top->backend && strcmp(top->backend, "mosaic-tpu") == 0;
}

/* Do two shapes differ only by dims of size 1 (an expand_dims or a squeeze, which Mosaic lowers)? */
static bool
same_but_unit_dims(const struct shape *a, const struct shape *b)
{
	int i = 0, j = 0;

	for (;;) {
		while (i < a->rank && a->dims[i] == 1)
			i++;
		while (j < b->rank && b->dims[j] == 1)
			j++;
		if (i == a->rank || j == b->rank)
			return i == a->rank && j == b->rank;
		if (a->dims[i++] != b->dims[j++])
			return false;
	}
}

static struct val *
h_reshape(struct interp *in, const struct acall *c)
{
	struct val *x = c->self ? c->self : arg(c, 0, "a");
	struct val *shape = c->self ? (c->nargs > 1 ? NULL : arg(c, 0, "shape")) : arg(c, 1, "newshape");
	struct val *r;
	struct shape to;

	if (c->self && c->nargs > 1) {
		struct val *t = val_tuple(in->cx, c->nargs, c->node);

		ck_copy(t->elts, c->args, c->nargs, sizeof(*t->elts));
		shape = t;
	}
	if (!x || !is_arraylike(x))
		return val_unknown(in->cx, x ? val_need(x) : NULL, c->node);
	r = val_copy(in->cx, x);
	r->kind = in->k ? VAL_TRACED : x->kind == VAL_REF ? VAL_TRACED : x->kind;
	r->node = c->node;
	r->has_shape = shape && (val_shape(shape, &to) || infer_shape(x, shape, &to));
	if (r->has_shape) {
		to.squeezed = 0;
		r->shape = to;
	}
	if (in->k && is_tpu(in->k) && x->has_shape && r->has_shape && x->shape.rank >= 1 &&
	    to.rank >= 1) {
		/*
		 * Mosaic splits and merges the leading and second-minor dims
		 * (with relayouts), and lane dims in whole 128-lane rows; a
		 * reshape that cuts a lane row (a lane dim that is not a multiple
		 * of 128 before or after), other than by adding or dropping unit
		 * dims, it mostly refuses.
		 */
		long long xl = x->shape.dims[x->shape.rank - 1], tl = to.dims[to.rank - 1];

		if (xl != tl && (xl % 128 || tl % 128) && !same_but_unit_dims(&x->shape, &to)) {
			struct vars vs = VARS_INIT;
			char a[64], b[64];
			struct buf sa = BUF_INIT, sb = BUF_INIT;

			shape_format(&x->shape, &sa);
			shape_format(&to, &sb);
			snprintf(a, sizeof(a), "%s", sa.data);
			snprintf(b, sizeof(b), "%s", sb.data);
			vars_set(&vs, "from", a, true);
			vars_set(&vs, "to", b, true);
			vars_set(&vs, "expr", expr_text(in->cx, c->node), true);
			ck_report(in->cx, "L007", c->node, c->node, in->k, &vs);
			vars_release(&vs);
			buf_release(&sa);
			buf_release(&sb);
		}
	}
	return r;
}

static struct val *
h_transpose(struct interp *in, const struct acall *c)
{
	struct val *x = c->self ? c->self : arg(c, 0, "a");
	struct val *r;

	if (!x || !is_arraylike(x))
		return val_unknown(in->cx, x ? val_need(x) : NULL, c->node);
	r = val_copy(in->cx, x);
	r->kind = x->kind == VAL_ARRAY && !in->k ? VAL_ARRAY : VAL_TRACED;
	r->node = c->node;
	r->flags &= ~VF_STATE;
	if (x->has_shape && x->shape.rank >= 2) {
		long long t = r->shape.dims[r->shape.rank - 1];

		r->shape.dims[r->shape.rank - 1] = r->shape.dims[r->shape.rank - 2];
		r->shape.dims[r->shape.rank - 2] = t;
	}
	if (in->k && is_tpu(in->k) && (!x->has_shape || x->shape.rank >= 2)) {
		struct vars vs = VARS_INIT;

		vars_set(&vs, "expr", expr_text(in->cx, c->node), true);
		ck_report(in->cx, "L008", c->node, c->node, in->k, &vs);
		vars_release(&vs);
	}
	return r;
}

static struct val *
h_elementwise(struct interp *in, const struct acall *c)
{
	struct val **ops = py_arena_alloc(in->cx->a, (c->nargs + c->nkw + 2) * sizeof(*ops));
	size_t n = 0;
	struct val *r;

	if (c->self)
		ops[n++] = c->self;
	for (size_t i = 0; i < c->nargs; i++)
		ops[n++] = c->args[i];
	for (size_t i = 0; i < c->nkw; i++)
		ops[n++] = c->kwv[i];
	if (!any_traced(ops, n))
		return val_unknown(in->cx, NULL, c->node);
	r = combine(in->cx, ops, n, c->node);
	/*
	 * A function the checker does not know may change the shape when it
	 * takes anything but arrays and numbers (a shape, an axis, a count:
	 * broadcast_to, expand_dims, repeat): its result's shape is not known.
	 */
	for (size_t i = 0; i < n && r->has_shape; i++)
		if (ops[i] && !is_traced(ops[i]) && ops[i]->kind != VAL_REF &&
		    ops[i]->kind != VAL_FLOAT && ops[i]->kind != VAL_BOOL && ops[i]->kind != VAL_DTYPE)
			r->has_shape = false;
	if (strcmp(c->name, "jnp.where") == 0 || strcmp(c->name, "lax.select") == 0)
		r->flags &= ~VF_RAW_EXP;
	if (strcmp(c->name, "jnp.logical_and") == 0 || strcmp(c->name, "jnp.logical_or") == 0) {
		unsigned a = n > 0 && is_traced(ops[0]) ? ops[0]->eq0_mask : 0;
		unsigned b = n > 1 && is_traced(ops[1]) ? ops[1]->eq0_mask : 0;

		r->eq0_mask = strcmp(c->name, "jnp.logical_and") == 0 ? (a | b) : (a & b);
	}
	if (strcmp(c->name, "jnp.subtract") == 0 || strcmp(c->name, "lax.sub") == 0)
		r->flags |= VF_SUBTRACTED;
	return r;
}

/* ------------------------------------------------------------ Pallas in kernels */

static struct val *
h_program_id(struct interp *in, const struct acall *c)
{
	struct val *a = arg(c, 0, "axis");
	struct val *r = val_traced(in->cx, ck_dtype(in->cx, "int32"), c->node);

	if (a && a->kind == VAL_INT && a->i >= 0 && a->i < 8) {
		r->pid_axis = (int)a->i;
		r->pid_mask = 1u << a->i;
	}
	return in->k ? r : val_unknown(in->cx, "a program id", c->node);
}

static struct val *
h_num_programs(struct interp *in, const struct acall *c)
{
	struct val *a = arg(c, 0, "axis");

	if (in->k && a && a->kind == VAL_INT && in->k->grid_rank > a->i && a->i >= 0 &&
	    in->k->grid_dims[a->i] > 0)
		return val_int(in->cx, in->k->grid_dims[a->i], c->node);
	return val_unknown(in->cx, "the grid size", c->node);
}

static struct val *
h_ds(struct interp *in, const struct acall *c)
{
	struct val *o = val_new(in->cx, VAL_OBJ, c->node);
	struct val *size = arg(c, 1, "size");

	o->s = "pl.ds";
	o->elts = py_arena_alloc(in->cx->a, 2 * sizeof(*o->elts));
	o->n = 2;
	o->elts[0] = arg(c, 0, "start") ? arg(c, 0, "start") : val_unknown(in->cx, NULL, c->node);
	o->elts[1] = size ? size : val_unknown(in->cx, NULL, c->node);
	if (is_traced(o->elts[0]))
		o->pid_mask = o->elts[0]->pid_mask;
	/* a DMA takes a view of traced size; a load or store does not (ds_checked) */
	if (in->k && size && is_traced(size))
		o->flags |= VF_DS_TRACED;
	return o;
}

static struct val *
h_when(struct interp *in, const struct acall *c)
{
	struct val *o = val_new(in->cx, VAL_OBJ, c->node);

	o->s = "pl.when";
	o->self = arg(c, 0, "condition");
	return o;
}

/* Run f's body (no arguments) under a condition: pl.when(c)(f), lax.cond branches. */
static struct val *
run_under(struct interp *in, struct val *f, struct val *cond, bool negate, struct val **args,
	  size_t nargs, const struct py_node *node)
{
	unsigned eq0 = in->cond_eq0;
	int depth = in->cond_depth;
	bool unknown = in->cond_unknown;
	struct val *r;

	if (!f || f->kind != VAL_FUNC)
		return val_unknown(in->cx, NULL, node);
	if (cond && cond->kind == VAL_BOOL && cond->i == !negate) {
		/* pl.when(True): no condition at all */
		return ck_call_user(in, f, args, nargs, NULL, NULL, 0, node);
	}
	in->cond_depth++;
	if (cond && is_traced(cond) && !negate && cond->eq0_mask) {
		in->cond_eq0 |= cond->eq0_mask;
		/* where a first-step init belongs, for N001 */
		for (int a = 0; in->k && a < 8; a++)
			if ((cond->eq0_mask & (1u << a)) && !in->k->first_step[a])
				in->k->first_step[a] = f->fn;
	} else {
		in->cond_unknown = true;
	}
	r = ck_call_user(in, f, args, nargs, NULL, NULL, 0, node);
	in->cond_eq0 = eq0;
	in->cond_depth = depth;
	in->cond_unknown = unknown;
	return r;
}

static struct val *
carry_state(struct interp *in, struct val *v, const struct py_node *node)
{
	struct val *r;

	if (!v)
		return val_unknown(in->cx, NULL, node);
	if (v->kind == VAL_TUPLE) {
		struct val *t = val_tuple(in->cx, v->n, v->node);

		for (size_t i = 0; i < v->n; i++)
			t->elts[i] = carry_state(in, v->elts[i], node);
		return t;
	}
	if (!is_traced(v) && !is_arraylike(v))
		return v;
	r = val_copy(in->cx, v);
	r->kind = VAL_TRACED;
	r->flags = (v->flags & (VF_FROM_DOT | VF_FROM_EXP)) | VF_STATE | VF_CARRY;
	return r;
}

/* A loop body's new carry that adds to an old carry without rescaling it. */
static void
carried_accums(struct interp *in, struct val *r, int depth)
{
	if (!r || depth > 3)
		return;
	if (r->kind == VAL_TUPLE) {
		for (size_t i = 0; i < r->n; i++)
			carried_accums(in, r->elts[i], depth + 1);
		return;
	}
	if (r->kind == VAL_TRACED && (r->flags & VF_ACCUM) && (r->flags & VF_CARRY))
		record_state(in, r, NULL);
}

static struct val *
h_fori_loop(struct interp *in, const struct acall *c)
{
	struct val *body = arg(c, 2, "body_fun"), *init = arg(c, 3, "init_val");
	struct val *args[2];
	struct val *r;
	bool traced = in->k != NULL;

	if (!body)
		return val_unknown(in->cx, NULL, c->node);
	args[0] = traced ? val_traced(in->cx, ck_dtype(in->cx, "int32"), c->node)
			 : val_unknown(in->cx, "a loop index", c->node);
	args[1] = carry_state(in, init, c->node);
	in->loop_depth++;
	r = ck_call(in, body, args, 2, NULL, NULL, 0, c->node);
	in->loop_depth--;
	carried_accums(in, r, 0);
	return r && r->kind != VAL_NONE ? r : (init ? init : val_unknown(in->cx, NULL, c->node));
}

static struct val *
h_while_loop(struct interp *in, const struct acall *c)
{
	struct val *cond = arg(c, 0, "cond_fun"), *body = arg(c, 1, "body_fun");
	struct val *init = arg(c, 2, "init_val");
	struct val *args[1] = { carry_state(in, init, c->node) };
	struct val *r;

	if (cond)
		ck_call(in, cond, args, 1, NULL, NULL, 0, c->node);
	if (!body)
		return val_unknown(in->cx, NULL, c->node);
	in->loop_depth++;
	r = ck_call(in, body, args, 1, NULL, NULL, 0, c->node);
	in->loop_depth--;
	carried_accums(in, r, 0);
	return r ? r : val_unknown(in->cx, NULL, c->node);
}

static struct val *
h_cond(struct interp *in, const struct acall *c)
{
	struct val *p = arg(c, 0, "pred"), *t = arg(c, 1, "true_fun"), *f = arg(c, 2, "false_fun");
	struct val **ops = c->nargs > 3 ? c->args + 3 : NULL;
	size_t nops = c->nargs > 3 ? c->nargs - 3 : 0;
	struct val *a, *b;

	a = run_under(in, t, p, false, ops, nops, c->node);
	b = run_under(in, f, p, true, ops, nops, c->node);
	return val_join(in->cx, a, b, "a lax.cond result");
}

static struct kdma *
dma_of(struct interp *in, struct val *src, struct val *dst, struct val *sem, struct val *send,
       const struct py_node *node)
{
	struct kdma *d = py_arena_alloc(in->cx->a, sizeof(*d));

	d->node = node;
	d->src = src && src->kind == VAL_REF && src->ref ? src->ref->name : NULL;
	if (dst && dst->kind == VAL_REF && dst->ref) {
		d->dst = dst->ref->name;
		d->dst_index = dst->s;
		d->dst_ix = dst->index;
	}
	if (sem && sem->kind == VAL_REF && sem->ref) {
		d->sem = sem->ref->name;
		d->sem_index = sem->s;
		d->sem_ix = sem->index;
		d->sem_node = sem->node;
	}
	if (send) {
		d->remote = true;
		d->send_sem = send->kind == VAL_REF && send->ref ? send->ref->name : NULL;
	}
	d->known = d->dst && d->sem && (!d->remote || d->send_sem);
	return d;
}

static struct val *
dma_obj(struct interp *in, struct kdma *d, const struct py_node *node)
{
	struct val *o = val_new(in->cx, VAL_OBJ, node);

	o->s = "dma";
	o->dma = d;
	return o;
}

static void
dma_event(struct interp *in, enum kev_kind kind, struct kdma *d, const struct py_node *node)
{
	struct kev e;

	if (!in->k)
		return;
	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.node = node;
	e.dma = d;
	ck_kernel_event(in, &e);
}

static struct val *
h_copy(struct interp *in, const struct acall *c)
{
	bool remote = strstr(c->name, "remote") != NULL;
	bool started = strstr(c->name, "make_") == NULL;
	struct val *src = arg(c, 0, "src_ref"), *dst = arg(c, 1, "dst_ref");
	struct val *sem = remote ? arg(c, 3, "recv_sem") : arg(c, 2, "sem");
	struct val *send = remote ? arg(c, 2, "send_sem") : NULL;
	struct kdma *d;

	if (remote && !send)
		send = val_unknown(in->cx, NULL, c->node);
	d = dma_of(in, src, dst, sem, send, c->node);
	/* the copy reads its source before it is in flight */
	if (in->k && src && src->kind == VAL_REF && src->ref)
		record_ix(in, KEV_READ, c->node, src->ref, src->s ? src->s : "...", src->index, NULL);
	if (started)
		dma_event(in, KEV_START, d, c->node);
	return dma_obj(in, d, c->node);
}

/* plgpu.copy_gmem_to_smem(src, dst, barrier): started, waited through the barrier */
static struct val *
h_gpu_copy(struct interp *in, const struct acall *c)
{
	struct val *dst = arg(c, 1, "dst"), *bar = arg(c, 2, "barrier");
	struct kdma *d = dma_of(in, arg(c, 0, "src"), dst, bar, NULL, c->node);

	if (bar)
		dma_event(in, KEV_START, d, c->node);
	return val_new(in->cx, VAL_NONE, c->node);
}

static struct val *
h_barrier_wait(struct interp *in, const struct acall *c)
{
	struct val *bar = arg(c, 0, "barrier");
	struct kdma *d = dma_of(in, NULL, NULL, bar, NULL, c->node);

	if (!d->sem)
		in->k ? (void)(in->k->unknown_wait = true) : (void)0;
	d->known = d->sem != NULL;
	dma_event(in, KEV_WAIT, d, c->node);
	return val_new(in->cx, VAL_NONE, c->node);
}

static struct val *
h_dma_method(struct interp *in, const struct acall *c)
{
	struct kdma *d = c->self->dma;
	const char *m = c->name + 1;

	if (strcmp(m, "start") == 0)
		dma_event(in, KEV_START, d, c->node);
	else if (strcmp(m, "wait") == 0)
		dma_event(in, KEV_WAIT, d, c->node);
	else if (strcmp(m, "wait_send") == 0)
		dma_event(in, KEV_WAIT_SEND, d, c->node);
	else if (strcmp(m, "wait_recv") == 0)
		dma_event(in, KEV_WAIT_RECV, d, c->node);
	return val_new(in->cx, VAL_NONE, c->node);
}

static struct val *
h_semaphore(struct interp *in, const struct acall *c)
{
	struct val *sem = arg(c, 0, "sem");
	struct kev e;

	if (!in->k)
		return val_new(in->cx, VAL_NONE, c->node);
	memset(&e, 0, sizeof(e));
	e.kind = strstr(c->name, "signal") ? KEV_SIGNAL : KEV_SEMWAIT;
	e.node = c->node;
	e.sem = sem && sem->kind == VAL_REF && sem->ref ? sem->ref->name : NULL;
	e.index = c->nargs && c->node->kind == PY_CALL && c->node->items.n ?
		  expr_text(in->cx, c->node->items.v[0]) : e.sem;
	if (!e.sem && e.kind == KEV_SEMWAIT)
		in->k->unknown_wait = true;
	ck_kernel_event(in, &e);
	return val_new(in->cx, VAL_NONE, c->node);
}

static struct val *
h_barrier_semaphore(struct interp *in, const struct acall *c)
{
	struct val *r = val_new(in->cx, VAL_REF, c->node);
	struct kref *k = py_arena_alloc(in->cx->a, sizeof(*k));

	k->name = "the barrier semaphore";
	k->unnamed = true;
	k->bit = -1;
	k->role = ROLE_SEM;
	r->ref = k;
	if (in->k && !in->k->barrier_used) {
		in->k->barrier_used = true;
		in->k->barrier_node = c->node;
	}
	return r;
}

static struct val *
h_load(struct interp *in, const struct acall *c)
{
	struct val *ref = arg(c, 0, "x_ref_or_view");

	if (!ref)
		ref = arg(c, 0, "x_ref");
	if (!ref || ref->kind != VAL_REF)
		return in->k ? val_traced(in->cx, NULL, c->node) : val_unknown(in->cx, NULL, c->node);
	return ref_load(in, ref, arg(c, 1, "idx") ? arg(c, 1, "idx") : val_unknown(in->cx, NULL, c->node),
			c->node);
}

static struct val *
h_store(struct interp *in, const struct acall *c)
{
	/* pl.store(ref, idx, val); pltriton.store(ref_view, val, mask=...) */
	struct val *ref = arg(c, 0, "x_ref_or_view"),
		   *v = arg(c, strcmp(c->name, "pltriton.store") == 0 ? 1 : 2, "val");
	struct kev e;

	if (!ref)
		ref = arg(c, 0, "x_ref");
	if (!ref || ref->kind != VAL_REF || !ref->ref || !in->k || !v)
		return val_new(in->cx, VAL_NONE, c->node);
	memset(&e, 0, sizeof(e));
	e.kind = KEV_WRITE;
	e.node = c->node;
	e.ref = ref->ref;
	e.index = ref->s ? ref->s : "...";
	e.v = v;
	e.rmw = ref->ref->bit >= 0 && (v->refmask & (1ull << ref->ref->bit));
	e.zero = is_zero(v);
	ck_kernel_event(in, &e);
	return val_new(in->cx, VAL_NONE, c->node);
}

static struct val *
h_sync_copy(struct interp *in, const struct acall *c)
{
	struct val *src = arg(c, 0, "src_ref"), *dst = arg(c, 1, "dst_ref");
	struct kev e;

	if (src && src->kind == VAL_REF && src->ref)
		record(in, KEV_READ, c->node, src->ref, src->s ? src->s : "...", NULL);
	if (!dst || dst->kind != VAL_REF || !dst->ref || !in->k)
		return val_new(in->cx, VAL_NONE, c->node);
	memset(&e, 0, sizeof(e));
	e.kind = KEV_WRITE;
	e.node = c->node;
	e.ref = dst->ref;
	e.index = dst->s ? dst->s : "...";
	e.v = val_traced(in->cx, NULL, c->node);
	ck_kernel_event(in, &e);
	return val_new(in->cx, VAL_NONE, c->node);
}

/* ------------------------------------------------------------ Python builtins */

static struct val *
h_len(struct interp *in, const struct acall *c)
{
	struct val *x = arg(c, 0, NULL);

	if (x && x->kind == VAL_TUPLE && !(x->flags & VF_SOME))
		return val_int(in->cx, (long long)x->n, c->node);
	if (x && is_arraylike(x) && x->has_shape && x->shape.rank)
		return val_int(in->cx, x->shape.dims[0], c->node);
	if (x && x->kind == VAL_STR)
		return val_int(in->cx, (long long)strlen(x->s), c->node);
	return val_unknown(in->cx, x ? val_need(x) : NULL, c->node);
}

static struct val *
h_range(struct interp *in, const struct acall *c)
{
	struct val *a = arg(c, 0, NULL), *b = arg(c, 1, NULL), *s = arg(c, 2, NULL);
	long long lo = 0, hi, step = 1;
	struct val *t;

	for (size_t i = 0; i < c->nargs; i++)
		if (is_traced(c->args[i]))
			ck_traced_bool(in, c->args[i], c->node, "range()");
	if (!a || !val_is_int(a) || (b && !val_is_int(b)) || (s && !val_is_int(s)))
		return val_unknown(in->cx, NULL, c->node);
	if (b) {
		lo = a->i;
		hi = b->i;
	} else {
		hi = a->i;
	}
	if (s)
		step = s->i;
	if (step == 0 || (hi - lo) / step > 64 || (hi - lo) / step < 0)
		return val_unknown(in->cx, "a range", c->node);
	t = val_tuple(in->cx, (size_t)((hi - lo + step - (step > 0 ? 1 : -1)) / step), c->node);
	for (size_t i = 0; i < t->n; i++)
		t->elts[i] = val_int(in->cx, lo + (long long)i * step, c->node);
	return t;
}

static struct val *
h_minmax(struct interp *in, const struct acall *c)
{
	struct val **items = c->args;
	size_t n = c->nargs;
	bool is_min = strstr(c->name, "min") != NULL;
	struct val *best = NULL;

	if (n == 1 && c->args[0]->kind == VAL_TUPLE) {
		items = c->args[0]->elts;
		n = c->args[0]->n;
	}
	for (size_t i = 0; i < n; i++) {
		if (is_traced(items[i]))
			return combine(in->cx, items, n, c->node);
		if (!val_is_int(items[i]))
			return val_unknown(in->cx, val_need(items[i]), c->node);
		if (!best || (is_min ? items[i]->i < best->i : items[i]->i > best->i))
			best = items[i];
	}
	if (!best)
		return val_unknown(in->cx, NULL, c->node);
	{
		struct val *r = val_int(in->cx, best->i, c->node);

		return r;
	}
}

static struct val *
h_int(struct interp *in, const struct acall *c)
{
	struct val *x = arg(c, 0, NULL);

	if (!x)
		return val_int(in->cx, 0, c->node);
	if (is_traced(x)) {
		ck_traced_bool(in, x, c->node, ck_printf(in->cx, "%s()", c->name + 9));
		return x;
	}
	if (val_is_int(x))
		return x;
	if (x->kind == VAL_FLOAT && strcmp(c->name, "builtins.int") == 0)
		return val_int(in->cx, (long long)x->f, c->node);
	if (x->kind == VAL_FLOAT)
		return x;
	return val_unknown(in->cx, val_need(x), c->node);
}

static struct val *
h_math_round(struct interp *in, const struct acall *c)
{
	struct val *x = arg(c, 0, NULL);
	double f;

	if (!x || !is_num(x, &f))
		return val_unknown(in->cx, x ? val_need(x) : NULL, c->node);
	if (strcmp(c->name, "math.ceil") == 0)
		return val_int(in->cx, (long long)(f == (long long)f ? f : f + (f > 0)), c->node);
	return val_int(in->cx, (long long)f - (f < 0 && f != (long long)f), c->node);
}

static struct val *
h_cdiv(struct interp *in, const struct acall *c)
{
	struct val *a = arg(c, 0, "a"), *b = arg(c, 1, "b");

	if (a && b && val_is_int(a) && val_is_int(b) && b->i > 0)
		return val_int(in->cx, (a->i + b->i - 1) / b->i, c->node);
	if (a && b && (is_traced(a) || is_traced(b)) && in->k) {
		struct val *ops[2] = { a, b };

		return combine(in->cx, ops, 2, c->node);
	}
	return val_unknown(in->cx, a && val_need(a) ? val_need(a) : b ? val_need(b) : NULL, c->node);
}

static struct val *
h_prod(struct interp *in, const struct acall *c)
{
	struct val *x = arg(c, 0, NULL);
	long long p = 1;

	if (!x || x->kind != VAL_TUPLE)
		return val_unknown(in->cx, x ? val_need(x) : NULL, c->node);
	for (size_t i = 0; i < x->n; i++) {
		if (!val_is_int(x->elts[i]) || __builtin_mul_overflow(p, x->elts[i]->i, &p))
			return val_unknown(in->cx, val_need(x->elts[i]), c->node);
	}
	return val_int(in->cx, p, c->node);
}

static struct val *
h_sum(struct interp *in, const struct acall *c)
{
	struct val *x = arg(c, 0, NULL);
	long long s = 0;

	if (x && x->kind == VAL_TUPLE) {
		for (size_t i = 0; i < x->n; i++)
			if (!val_is_int(x->elts[i]) || __builtin_add_overflow(s, x->elts[i]->i, &s))
				return val_unknown(in->cx, NULL, c->node);
		return val_int(in->cx, s, c->node);
	}
	return h_reduce(in, c);
}

static struct val *
h_tuple(struct interp *in, const struct acall *c)
{
	struct val *x = arg(c, 0, NULL);

	if (!x)
		return val_tuple(in->cx, 0, c->node);
	if (x->kind == VAL_TUPLE)
		return x;
	return val_unknown(in->cx, val_need(x), c->node);
}

static struct val *
h_zip(struct interp *in, const struct acall *c)
{
	size_t n = SIZE_MAX;
	struct val *t;

	for (size_t i = 0; i < c->nargs; i++) {
		if (c->args[i]->kind != VAL_TUPLE)
			return val_unknown(in->cx, NULL, c->node);
		if (c->args[i]->n < n)
			n = c->args[i]->n;
	}
	if (n == SIZE_MAX)
		n = 0;
	t = val_tuple(in->cx, n, c->node);
	for (size_t k = 0; k < n; k++) {
		t->elts[k] = val_tuple(in->cx, c->nargs, c->node);
		for (size_t i = 0; i < c->nargs; i++)
			t->elts[k]->elts[i] = c->args[i]->elts[k];
	}
	return t;
}

static struct val *
h_enumerate(struct interp *in, const struct acall *c)
{
	struct val *x = arg(c, 0, NULL), *t;

	if (!x || x->kind != VAL_TUPLE)
		return val_unknown(in->cx, NULL, c->node);
	t = val_tuple(in->cx, x->n, c->node);
	for (size_t k = 0; k < x->n; k++) {
		t->elts[k] = val_tuple(in->cx, 2, c->node);
		t->elts[k]->elts[0] = val_int(in->cx, (long long)k, c->node);
		t->elts[k]->elts[1] = x->elts[k];
	}
	return t;
}

static struct val *
h_dict(struct interp *in, const struct acall *c)
{
	struct val *d = val_new(in->cx, VAL_DICT, c->node);

	/* copies, as h_object keeps: the caller's arrays may not outlive the call */
	d->kwn = py_arena_alloc(in->cx->a, (c->nkw + 1) * sizeof(*d->kwn));
	d->kwv = py_arena_alloc(in->cx->a, (c->nkw + 1) * sizeof(*d->kwv));
	ck_copy(d->kwn, c->kwn, c->nkw, sizeof(*d->kwn));
	ck_copy(d->kwv, c->kwv, c->nkw, sizeof(*d->kwv));
	d->nkw = c->nkw;
	d->i = (long long)c->nkw;
	return d;
}

static struct val *
h_dtype(struct interp *in, const struct acall *c)
{
	const struct dtype *t = dtype_of(in->cx, arg(c, 0, "dtype"));
	struct val *d;

	if (!t)
		return val_unknown(in->cx, NULL, c->node);
	d = val_new(in->cx, VAL_DTYPE, c->node);
	d->dt = t;
	return d;
}

static struct val *
h_identity(struct interp *in, const struct acall *c)
{
	struct val *x = c->self ? c->self : arg(c, 0, NULL);

	return x ? x : val_unknown(in->cx, NULL, c->node);
}

static struct val *
h_partial(struct interp *in, const struct acall *c)
{
	struct val *f = arg(c, 0, "func"), *p;

	if (f && f->kind == VAL_ALT) {
		/* partial of one of several functions: one of several partials */
		struct acall one = *c;
		struct val **args = py_arena_alloc(in->cx->a, (c->nargs + 1) * sizeof(*args));
		struct val *alt = val_copy(in->cx, f);

		ck_copy(args, c->args, c->nargs, sizeof(*args));
		one.args = args;
		alt->elts = py_arena_alloc(in->cx->a, f->n * sizeof(*alt->elts));
		for (size_t i = 0; i < f->n; i++) {
			args[0] = f->elts[i];
			alt->elts[i] = h_partial(in, &one);
		}
		return alt;
	}
	if (!f || (f->kind != VAL_FUNC && f->kind != VAL_API))
		return val_unknown(in->cx, f ? val_need(f) : NULL, c->node);
	p = val_copy(in->cx, f);
	p->elts = py_arena_alloc(in->cx->a, (f->n + c->nargs) * sizeof(*p->elts) + 1);
	ck_copy(p->elts, f->elts, f->n, sizeof(*p->elts));
	ck_copy(p->elts + f->n, c->args + 1, c->nargs - 1, sizeof(*p->elts));
	p->n = f->n + c->nargs - 1;
	p->kwn = py_arena_alloc(in->cx->a, (f->nkw + c->nkw + 1) * sizeof(*p->kwn));
	p->kwv = py_arena_alloc(in->cx->a, (f->nkw + c->nkw + 1) * sizeof(*p->kwv));
	ck_copy(p->kwn, f->kwn, f->nkw, sizeof(*p->kwn));
	ck_copy(p->kwv, f->kwv, f->nkw, sizeof(*p->kwv));
	ck_copy(p->kwn + f->nkw, c->kwn, c->nkw, sizeof(*p->kwn));
	ck_copy(p->kwv + f->nkw, c->kwv, c->nkw, sizeof(*p->kwv));
	p->nkw = f->nkw + c->nkw;
	p->node = c->node;
	return p;
}

/* @dataclasses.dataclass (with or without arguments), @property, @staticmethod */
static struct val *
h_decorator(struct interp *in, const struct acall *c)
{
	struct val *x = c->nargs == 1 ? c->args[0] : NULL, *r;

	if (!x)
		return c->f;    /* @dataclass(frozen=True): applied by the next call */
	if (strcmp(c->name, "builtins.property") == 0 || strcmp(c->name, "functools.cached_property") == 0) {
		if (x->kind != VAL_FUNC)
			return x;
		r = val_copy(in->cx, x);
		r->flags |= VF_PROPERTY;
		return r;
	}
	if (x->kind == VAL_CLASS && strstr(c->name, "dataclass")) {
		r = val_copy(in->cx, x);
		r->flags |= VF_DATACLASS;
		return r;
	}
	return x;
}

static struct val *
h_object(struct interp *in, const struct acall *c)
{
	struct val *o = val_new(in->cx, VAL_OBJ, c->node);

	/* the arrays may be a C caller's (a decorator's stack array): the object keeps copies */
	o->s = c->name;
	o->elts = py_arena_alloc(in->cx->a, (c->nargs + 1) * sizeof(*o->elts));
	ck_copy(o->elts, c->args, c->nargs, sizeof(*o->elts));
	o->n = c->nargs;
	o->kwn = py_arena_alloc(in->cx->a, (c->nkw + 1) * sizeof(*o->kwn));
	o->kwv = py_arena_alloc(in->cx->a, (c->nkw + 1) * sizeof(*o->kwv));
	ck_copy(o->kwn, c->kwn, c->nkw, sizeof(*o->kwn));
	ck_copy(o->kwv, c->kwv, c->nkw, sizeof(*o->kwv));
	o->nkw = c->nkw;
	return o;
}

static struct val *
h_pallas_call(struct interp *in, const struct acall *c)
{
	return ck_pallas_call_made(in, h_object(in, c));
}

/* pl.kernel(body, out_shape=...) / plgpu.kernel: a pallas_call without block specs */
static struct val *
h_kernel_api(struct interp *in, const struct acall *c)
{
	struct val *o = h_object(in, c);

	return c->nargs ? ck_pallas_call_made(in, o) : o;
}

/* The refs run_scoped allocates for a scratch type (or a tuple of them). */
static struct val *
scoped_ref(struct interp *in, struct val *t, const struct py_node *node, int depth)
{
	struct val *r;
	struct kref *k;

	if (t->kind == VAL_TUPLE && depth < 3) {
		struct val *tu = val_tuple(in->cx, t->n, node);

		for (size_t i = 0; i < t->n; i++)
			tu->elts[i] = scoped_ref(in, t->elts[i], node, depth + 1);
		return tu;
	}
	if (t->kind == VAL_NONE)
		return t;
	r = val_new(in->cx, VAL_REF, node);
	k = py_arena_alloc(in->cx->a, sizeof(*k));
	k->bit = -1;
	k->name = ck_printf(in->cx, "scoped %s #%u", t->s ? t->s : "ref", ++in->cx->scoped_seq);
	k->unnamed = true;
	k->role = t->s && (strstr(t->s, "Semaphore") || strstr(t->s, "Barrier")) ? ROLE_SEM : ROLE_OTHER;
	r->ref = k;
	return r;
}

static struct val *
h_run_scoped(struct interp *in, const struct acall *c)
{
	struct val *body = arg(c, 0, "f");
	struct val **refs;

	if (!body || !in->k || c->nargs < 1)
		return val_unknown(in->cx, NULL, c->node);
	refs = py_arena_alloc(in->cx->a, (c->nargs + 1) * sizeof(*refs));
	for (size_t i = 1; i < c->nargs; i++)
		refs[i - 1] = scoped_ref(in, c->args[i], c->node, 0);
	return ck_call(in, body, refs, c->nargs - 1, NULL, NULL, 0, c->node);
}

/* The handlers, by current API name; a name ending in '.' matches any member. */
/* jax.vmap(f, in_axes=0): an object that calls f on the operands (arrays, refs) without their mapped axis. */
static struct val *
h_vmap(struct interp *in, const struct acall *c)
{
	struct val *f = arg(c, 0, "fun");

	if (!f || (f->kind != VAL_FUNC && f->kind != VAL_OBJ && f->kind != VAL_API))
		return val_unknown(in->cx, NULL, c->node);
	return h_object(in, c);
}

/* The axis jax.vmap maps operand i along: 0 unless in_axes says otherwise; -1 for None. */
static int
vmap_axis(const struct val *in_axes, size_t i, bool *known)
{
	const struct val *a = in_axes;

	*known = true;
	if (!a)
		return 0;
	if (a->kind == VAL_TUPLE)
		a = i < a->n ? a->elts[i] : NULL;
	if (a && a->kind == VAL_INT && a->i >= 0 && a->i < SHAPE_MAX_RANK)
		return (int)a->i;
	if (a && a->kind == VAL_NONE)
		return -1;
	*known = false;
	return -1;
}

static struct val *
vmap_call(struct interp *in, struct val *v, struct val **args, size_t nargs,
	  const struct py_node *node)
{
	struct cctx *cx = in->cx;
	struct val *f = val_arg(v, 0, "fun"), *in_axes = val_arg(v, 1, "in_axes");
	struct val **sub = py_arena_alloc(cx->a, (nargs + 1) * sizeof(*sub));
	struct val *r;
	long long batch = 0;

	for (size_t i = 0; i < nargs; i++) {
		bool known;
		int ax = vmap_axis(in_axes, i, &known);
		struct val *a = args[i];

		sub[i] = a;
		if (!known) {
			sub[i] = val_unknown(cx, "in_axes", node);
			continue;
		}
		if (ax < 0 || (a->kind != VAL_ARRAY && a->kind != VAL_REF) || !a->has_shape ||
		    a->shape.ellipsis || ax >= a->shape.rank)
			continue;
		sub[i] = val_copy(cx, a);
		batch = a->shape.dims[ax];
		for (int d = ax; d + 1 < a->shape.rank; d++)
			sub[i]->shape.dims[d] = a->shape.dims[d + 1];
		sub[i]->shape.rank--;
		sub[i]->has_shape = sub[i]->shape.rank > 0;
	}
	r = ck_call(in, f, sub, nargs, NULL, NULL, 0, node);
	/* out_axes=0: the batch comes back in front */
	if (r->kind == VAL_ARRAY && r->has_shape && batch > 0 && !val_arg(v, 2, "out_axes") &&
	    r->shape.rank < SHAPE_MAX_RANK) {
		r = val_copy(cx, r);
		for (int d = r->shape.rank; d > 0; d--)
			r->shape.dims[d] = r->shape.dims[d - 1];
		r->shape.dims[0] = batch;
		r->shape.rank++;
	} else if (r->kind == VAL_ARRAY) {
		r = val_unknown(cx, NULL, node);
	}
	return r;
}

static const struct {
	const char *name;
	struct val *(*fn)(struct interp *, const struct acall *);
} handlers[] = {
	{ "pl.pallas_call", h_pallas_call },
	{ "pl.kernel", h_kernel_api },
	{ "plgpu.kernel", h_kernel_api },
	{ "pl.run_scoped", h_run_scoped },
	{ "pltpu.run_scoped", h_run_scoped },
	{ "jax.custom_vjp", h_identity },
	{ "jax.custom_jvp", h_identity },
	{ "pltpu.emit_pipeline", h_object },
	{ "pltpu.InterpretParams", h_object },
	{ "pl.BlockSpec", h_object },
	{ "plgpu.BlockSpec", h_object },
	{ "pl.GridSpec", h_object },
	{ "pltpu.PrefetchScalarGridSpec", h_object },
	{ "pltpu.VMEM", h_object },
	{ "pltpu.SMEM", h_object },
	{ "pltpu.SemaphoreType.DMA", h_object },
	{ "pltpu.SemaphoreType.REGULAR", h_object },
	{ "pltpu.SemaphoreType.BARRIER", h_object },
	{ "plgpu.SMEM", h_object },
	{ "plgpu.Barrier", h_object },
	{ "pltpu.CompilerParams", h_object },
	{ "pltriton.CompilerParams", h_object },
	{ "plgpu.CompilerParams", h_object },
	{ "pl.Buffered", h_object },
	{ "pl.loop", h_object },
	{ "pltpu.loop", h_object },
	{ "pl.Squeezed", h_object },
	{ "pl.Element", h_object },
	{ "pl.Blocked", h_object },
	{ "jax.ShapeDtypeStruct", h_shape_dtype },
	{ "pl.program_id", h_program_id },
	{ "pl.num_programs", h_num_programs },
	{ "pl.ds", h_ds },
	{ "pl.dslice", h_ds },
	{ "pl.when", h_when },
	{ "pl.multiple_of", h_identity },
	{ "pl.load", h_load },
	{ "pl.store", h_store },
	{ "pltriton.load", h_load },
	{ "pltriton.store", h_store },
	{ "pl.dot", h_dot },
	{ "pltpu.make_async_copy", h_copy },
	{ "pltpu.async_copy", h_copy },
	{ "pltpu.make_async_remote_copy", h_copy },
	{ "pltpu.async_remote_copy", h_copy },
	{ "pltpu.sync_copy", h_sync_copy },
	{ "pl.semaphore_signal", h_semaphore },
	{ "pl.semaphore_wait", h_semaphore },
	{ "pltpu.get_barrier_semaphore", h_barrier_semaphore },
	{ "plgpu.copy_gmem_to_smem", h_gpu_copy },
	{ "plgpu.barrier_wait", h_barrier_wait },
	{ "lax.fori_loop", h_fori_loop },
	{ "lax.while_loop", h_while_loop },
	{ "lax.cond", h_cond },
	{ "jnp.dot", h_dot },
	{ "jnp.matmul", h_dot },
	{ "jnp.einsum", h_dot },
	{ "lax.dot_general", h_dot },
	{ "lax.dot", h_dot },
	{ "lax.batch_matmul", h_dot },
	{ "jnp.exp", h_exp },
	{ "jnp.exp2", h_exp },
	{ "lax.exp", h_exp },
	{ "lax.exp2", h_exp },
	{ "jnp.maximum", h_maximum },
	{ "lax.max", h_maximum },
	{ "jnp.sum", h_reduce },
	{ "jnp.max", h_reduce },
	{ "jnp.min", h_reduce },
	{ "jnp.amax", h_reduce },
	{ "jnp.amin", h_reduce },
	{ "jnp.mean", h_reduce },
	{ "jnp.prod", h_reduce },
	{ "lax.reduce_sum", h_reduce },
	{ "lax.reduce_max", h_reduce },
	{ "lax.reduce_min", h_reduce },
	{ ".sum", h_reduce },
	{ ".max", h_reduce },
	{ ".min", h_reduce },
	{ ".mean", h_reduce },
	{ ".prod", h_reduce },
	{ ".astype", h_astype },
	{ "lax.convert_element_type", h_astype },
	{ ".reshape", h_reshape },
	{ "jnp.reshape", h_reshape },
	{ "lax.reshape", h_reshape },
	{ ".T", h_transpose },
	{ ".transpose", h_transpose },
	{ "jnp.transpose", h_transpose },
	{ "lax.transpose", h_transpose },
	{ "jnp.swapaxes", h_transpose },
	{ ".swapaxes", h_transpose },
	{ "jnp.zeros", h_create },
	{ "jnp.ones", h_create },
	{ "jnp.empty", h_create },
	{ "jnp.full", h_create },
	{ "np.zeros", h_create },
	{ "np.ones", h_create },
	{ "np.empty", h_create },
	{ "np.full", h_create },
	{ "jax.random.normal", h_create },
	{ "jax.random.uniform", h_create },
	{ "jax.random.randint", h_create },
	{ "jax.random.bernoulli", h_create },
	{ "jax.random.truncated_normal", h_create },
	{ "np.random.randn", h_create },
	{ "np.random.rand", h_create },
	{ "np.random.normal", h_create },
	{ "np.random.uniform", h_create },
	{ "jnp.zeros_like", h_like },
	{ "jnp.ones_like", h_like },
	{ "jnp.empty_like", h_like },
	{ "jnp.full_like", h_like },
	{ "np.zeros_like", h_like },
	{ "np.ones_like", h_like },
	{ "jnp.arange", h_arange },
	{ "np.arange", h_arange },
	{ "jnp.asarray", h_asarray },
	{ "jnp.array", h_asarray },
	{ "np.asarray", h_asarray },
	{ "np.array", h_asarray },
	{ "jnp.dtype", h_dtype },
	{ "np.dtype", h_dtype },
	{ "pl.cdiv", h_cdiv },
	{ "builtins.len", h_len },
	{ "builtins.range", h_range },
	{ "builtins.min", h_minmax },
	{ "builtins.max", h_minmax },
	{ "builtins.int", h_int },
	{ "builtins.float", h_int },
	{ "builtins.bool", h_int },
	{ "builtins.tuple", h_tuple },
	{ "builtins.list", h_tuple },
	{ "builtins.zip", h_zip },
	{ "builtins.enumerate", h_enumerate },
	{ "builtins.dict", h_dict },
	{ "builtins.sum", h_sum },
	{ "math.prod", h_prod },
	{ "np.prod", h_prod },
	{ "math.ceil", h_math_round },
	{ "math.floor", h_math_round },
	{ "functools.partial", h_partial },
	{ "dataclasses.dataclass", h_decorator },
	{ "builtins.property", h_decorator },
	{ "functools.cached_property", h_decorator },
	{ "builtins.staticmethod", h_decorator },
	{ "builtins.classmethod", h_decorator },
	{ "functools.wraps", h_decorator },
	{ "jax.jit", h_identity },
	{ "jax.vmap", h_vmap },
	{ "jax.named_call", h_identity },
	{ "jax.checkpoint", h_identity },
	{ "jax.remat", h_identity },
	{ "jax.block_until_ready", h_identity },
	{ ".block_until_ready", h_identity },
};

/* A jax.jit(...) partial applied to a function gives the function. */
static bool
is_jit(const char *name)
{
	return strcmp(name, "jax.jit") == 0;
}

struct val *
ck_call_api(struct interp *in, struct val *f, struct val **args, size_t nargs, const char **kwn,
	    struct val **kwv, size_t nkw, const struct py_node *node)
{
	struct cctx *cx = in->cx;
	struct acall c;

	if (f->kind == VAL_OBJ) {
		if (f->s && (strcmp(f->s, "pl.pallas_call") == 0 || strcmp(f->s, "pl.kernel") == 0 ||
			     strcmp(f->s, "plgpu.kernel") == 0)) {
			/* pl.kernel(body, out_shape=...) decorating a body is made, not run */
			if (strcmp(f->s, "pl.pallas_call") != 0 && nargs == 1 && args[0]->kind == VAL_FUNC &&
			    !val_arg(f, 0, "body") && !f->n) {
				struct val *made = val_copy(cx, f);

				/* args may be a caller's stack array (a decorator's): keep a copy */
				made->elts = py_arena_alloc(cx->a, sizeof(*made->elts));
				made->elts[0] = args[0];
				made->n = 1;
				return ck_pallas_call_made(in, made);
			}
			return ck_pallas_call_run(in, f, args, nargs, node);
		}
		if (f->s && strcmp(f->s, "jax.vmap") == 0)
			return vmap_call(in, f, args, nargs, node);
		if (f->s && strcmp(f->s, "pltpu.emit_pipeline") == 0)
			return ck_pipeline_run(in, f, args, nargs, kwv, nkw, node);
		if (f->s && strcmp(f->s, "pl.when") == 0)
			return run_under(in, nargs ? args[0] : NULL, f->self, false, NULL, 0, node);
		if (f->s && strcmp(f->s, "pl.loop") == 0 && nargs && args[0]->kind == VAL_FUNC) {
			/* @pl.loop(lo, hi): the body runs with a traced index */
			struct val *i = in->k ? val_traced(cx, ck_dtype(cx, "int32"), node)
					      : val_unknown(cx, "a loop index", node);

			in->loop_depth++;
			ck_call_user(in, args[0], &i, 1, NULL, NULL, 0, node);
			in->loop_depth--;
			return val_new(cx, VAL_NONE, node);
		}
		return val_unknown(cx, NULL, node);
	}
	memset(&c, 0, sizeof(c));
	c.f = f;
	c.node = node;
	c.self = f->self;
	c.name = f->self ? f->s : ck_api_current(cx, f->s);
	c.args = args;
	c.nargs = nargs;
	c.kwn = kwn;
	c.kwv = kwv;
	c.nkw = nkw;
	/* functools.partial of an API: its arguments first */
	if (f->n || f->nkw) {
		c.args = py_arena_alloc(cx->a, (f->n + nargs + 1) * sizeof(*c.args));
		ck_copy(c.args, f->elts, f->n, sizeof(*c.args));
		ck_copy(c.args + f->n, args, nargs, sizeof(*c.args));
		c.nargs = f->n + nargs;
		c.kwn = py_arena_alloc(cx->a, (f->nkw + nkw + 1) * sizeof(*c.kwn));
		c.kwv = py_arena_alloc(cx->a, (f->nkw + nkw + 1) * sizeof(*c.kwv));
		ck_copy(c.kwn, f->kwn, f->nkw, sizeof(*c.kwn));
		ck_copy(c.kwv, f->kwv, f->nkw, sizeof(*c.kwv));
		ck_copy(c.kwn + f->nkw, kwn, nkw, sizeof(*c.kwn));
		ck_copy(c.kwv + f->nkw, kwv, nkw, sizeof(*c.kwv));
		c.nkw = f->nkw + nkw;
	}
	if (f->self && f->self->kind == VAL_OBJ && f->self->s && strcmp(f->self->s, "dma") == 0)
		return h_dma_method(in, &c);
	if (is_jit(c.name) && c.nargs >= 1 && c.args[0]->kind == VAL_FUNC)
		return c.args[0];
	if (c.nargs || c.self) {
		struct val *x = c.self ? c.self : c.args[0];
		const struct dtype *as = dtype_of(cx, arg(&c, 99, "dtype"));

		/* jnp.sum(x, dtype=jnp.uint32) reduces in the dtype it names */
		if (as && x && as != x->dt && host_reduction(c.name)) {
			struct val *y = val_new(cx, x->kind, node);

			*y = *x;
			y->dt = as;
			x = y;
		}
		check_primitive(in, c.name, x, node);
	}
	/* the kernel's handlers judge traced values; on the host only the shape matters */
	if (!in->k && host_reduction(c.name))
		return host_reduce(cx, &c, node);
	for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
		if (strcmp(handlers[i].name, c.name) == 0)
			return handlers[i].fn(in, &c);
	if (!in->k && host_elementwise(c.name)) {
		struct val *r = host_array_op(cx, c.args, c.nargs, node);

		if (r)
			return r;
	}
	/* any other jnp / lax / nn function on traced values is elementwise enough */
	if (in->k && (strncmp(c.name, "jnp.", 4) == 0 || strncmp(c.name, "lax.", 4) == 0 ||
		      strncmp(c.name, "jax.nn.", 7) == 0 || strncmp(c.name, "pltpu.", 6) == 0 ||
		      strncmp(c.name, "pl.", 3) == 0 || c.name[0] == '.' ||
		      strncmp(c.name, "jax.lax.", 8) == 0))
		return h_elementwise(in, &c);
	return val_unknown(cx, NULL, node);
}
