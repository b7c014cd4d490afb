/* SPDX-License-Identifier: MIT */
/*
 * The checker's abstract values and scopes (pt/check_impl.h): constructors,
 * shapes from tuples, the name an unknown value needs, printing a value as
 * a message shows it, and joining two values where control flow meets.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/check_impl.h"
#include "pt/chips.h"

struct val *
val_new(struct cctx *cx, enum val_kind k, const struct py_node *node)
{
	struct val *v = py_arena_alloc(cx->a, sizeof(*v));

	v->kind = k;
	v->node = node;
	v->pid_axis = -1;
	return v;
}

struct val *
val_unknown(struct cctx *cx, const char *need, const struct py_node *node)
{
	struct val *v = val_new(cx, VAL_UNKNOWN, node);

	v->s = need;
	return v;
}

struct val *
val_int(struct cctx *cx, long long i, const struct py_node *node)
{
	struct val *v = val_new(cx, VAL_INT, node);

	v->i = i;
	return v;
}

struct val *
val_copy(struct cctx *cx, const struct val *v)
{
	struct val *c = py_arena_alloc(cx->a, sizeof(*c));

	*c = *v;
	return c;
}

struct val *
val_tuple(struct cctx *cx, size_t n, const struct py_node *node)
{
	struct val *v = val_new(cx, VAL_TUPLE, node);

	v->elts = py_arena_alloc(cx->a, (n ? n : 1) * sizeof(*v->elts));
	v->n = n;
	return v;
}

struct val *
val_traced(struct cctx *cx, const struct dtype *dt, const struct py_node *node)
{
	struct val *v = val_new(cx, VAL_TRACED, node);

	v->dt = dt;
	return v;
}

bool
val_is_int(const struct val *v)
{
	return v && (v->kind == VAL_INT || v->kind == VAL_BOOL);
}

bool
val_shape(const struct val *v, struct shape *out)
{
	memset(out, 0, sizeof(*out));
	if (!v)
		return false;
	if (v->kind == VAL_INT) {
		if (v->i < 1 || v->i > SHAPE_MAX_DIM)
			return false;
		out->rank = 1;
		out->dims[0] = v->i;
		return true;
	}
	if (v->kind != VAL_TUPLE || v->n > SHAPE_MAX_RANK)
		return false;
	out->rank = (int)v->n;
	for (size_t i = 0; i < v->n; i++) {
		const struct val *e = v->elts[i];

		if (e->kind == VAL_NONE || (e->kind == VAL_OBJ && e->s &&
					    strcmp(e->s, "pl.Squeezed") == 0)) {
			out->dims[i] = 1;
			out->squeezed |= 1u << i;
		} else if (e->kind == VAL_INT && e->i >= 1 && e->i <= SHAPE_MAX_DIM) {
			out->dims[i] = e->i;
		} else {
			return false;
		}
	}
	return true;
}

const char *
val_need(const struct val *v)
{
	if (!v)
		return NULL;
	if (v->kind == VAL_UNKNOWN)
		return v->s;
	if (v->kind == VAL_TUPLE)
		for (size_t i = 0; i < v->n; i++) {
			const char *n = val_need(v->elts[i]);

			if (n)
				return n;
		}
	return NULL;
}

static void
add(char *out, size_t cap, size_t *len, const char *s)
{
	while (*s && *len + 1 < cap)
		out[(*len)++] = *s++;
	out[*len] = 0;
}

static void
format_into(const struct val *v, char *out, size_t cap, size_t *len, int depth)
{
	char num[64];

	if (depth > 6) {
		add(out, cap, len, "...");
		return;
	}
	switch (v->kind) {
	case VAL_INT:
		snprintf(num, sizeof(num), "%lld", v->i);
		add(out, cap, len, num);
		break;
	case VAL_BOOL:
		add(out, cap, len, v->i ? "True" : "False");
		break;
	case VAL_FLOAT:
		snprintf(num, sizeof(num), "%g", v->f);
		add(out, cap, len, num);
		break;
	case VAL_NONE:
		add(out, cap, len, "None");
		break;
	case VAL_STR:
		add(out, cap, len, "'");
		add(out, cap, len, v->s);
		add(out, cap, len, "'");
		break;
	case VAL_DTYPE:
		add(out, cap, len, v->dt ? v->dt->name : v->s ? v->s : "?");
		break;
	case VAL_TUPLE:
		add(out, cap, len, "(");
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				add(out, cap, len, ", ");
			format_into(v->elts[i], out, cap, len, depth + 1);
		}
		add(out, cap, len, v->n == 1 ? ",)" : ")");
		break;
	case VAL_UNKNOWN:
		add(out, cap, len, v->s ? v->s : "?");
		break;
	default:
		if (v->node) {
			char r[96];

			py_render(v->node, r, sizeof(r));
			add(out, cap, len, r);
		} else {
			add(out, cap, len, "?");
		}
		break;
	}
}

void
val_format(const struct val *v, char *out, size_t cap)
{
	size_t len = 0;

	if (!cap)
		return;
	out[0] = 0;
	if (v)
		format_into(v, out, cap, &len, 0);
}

const char *
val_kwarg(const struct val *v, const char *name, struct val **out)
{
	*out = NULL;
	for (size_t i = 0; v && i < v->nkw; i++)
		if (v->kwn[i] && strcmp(v->kwn[i], name) == 0) {
			*out = v->kwv[i];
			return name;
		}
	return NULL;
}

struct val *
val_arg(const struct val *v, size_t pos, const char *name)
{
	struct val *kw;

	if (name && val_kwarg(v, name, &kw))
		return kw;
	if (v && pos < v->n)
		return v->elts[pos];
	return NULL;
}

static bool
same_value(const struct val *a, const struct val *b, int depth)
{
	if (a == b)
		return true;
	if (a->kind != b->kind || depth > 6)
		return false;
	switch (a->kind) {
	case VAL_INT:
	case VAL_BOOL:
		return a->i == b->i;
	case VAL_FLOAT:
		return a->f == b->f;
	case VAL_NONE:
		return true;
	case VAL_STR:
		return strcmp(a->s, b->s) == 0;
	case VAL_DTYPE:
		return a->dt == b->dt && (a->dt || (a->s && b->s && strcmp(a->s, b->s) == 0));
	case VAL_TUPLE:
		if (a->n != b->n)
			return false;
		for (size_t i = 0; i < a->n; i++)
			if (!same_value(a->elts[i], b->elts[i], depth + 1))
				return false;
		return true;
	case VAL_FUNC:
		return a->fn == b->fn;
	case VAL_API:
		return a->s && b->s && strcmp(a->s, b->s) == 0 && !a->n && !b->n && !a->nkw && !b->nkw;
	default:
		return false;
	}
}

bool
val_same_index(const struct val *a, const struct val *b)
{
	if (!a || !b)
		return false;
	if (a == b)
		return true;
	if (a->kind != b->kind)
		return false;
	if (a->kind == VAL_INT || a->kind == VAL_BOOL)
		return a->i == b->i;
	if (a->kind == VAL_TUPLE || (a->kind == VAL_OBJ && a->s && b->s && strcmp(a->s, b->s) == 0)) {
		if (a->n != b->n || (a->kind == VAL_OBJ && a->n == 0))
			return a->kind == VAL_OBJ && a->n == 0 && b->n == 0;
		for (size_t i = 0; i < a->n; i++)
			if (!val_same_index(a->elts[i], b->elts[i]))
				return false;
		return true;
	}
	return false;
}

/* One of a's alternatives or b's (each an ALT or one value); NULL past eight of them. */
static struct val *
alt_of(struct cctx *cx, struct val *a, struct val *b)
{
	size_t na = a->kind == VAL_ALT ? a->n : 1, nb = b->kind == VAL_ALT ? b->n : 1;
	struct val *t;

	if (na + nb > 8)
		return NULL;
	t = val_new(cx, VAL_ALT, a->node);
	t->elts = py_arena_alloc(cx->a, (na + nb) * sizeof(*t->elts));
	for (size_t i = 0; i < na; i++)
		t->elts[t->n++] = a->kind == VAL_ALT ? a->elts[i] : a;
	for (size_t i = 0; i < nb; i++)
		t->elts[t->n++] = b->kind == VAL_ALT ? b->elts[i] : b;
	return t;
}

struct val *
val_join(struct cctx *cx, struct val *a, struct val *b, const char *name)
{
	struct val *t;

	if (!a)
		return b;
	if (!b)
		return a;
	if (same_value(a, b, 0))
		return a;
	/* two traced values: the kernel's analyses want what either may be */
	if (a->kind == VAL_TRACED && b->kind == VAL_TRACED) {
		t = val_copy(cx, a);
		t->flags |= b->flags;
		t->refmask |= b->refmask;
		t->pid_mask |= b->pid_mask;
		t->pid_axis = a->pid_axis == b->pid_axis ? a->pid_axis : -1;
		t->eq0_mask = a->eq0_mask & b->eq0_mask;
		if (!t->dt)
			t->dt = b->dt;
		return t;
	}
	if (a->kind == VAL_TRACED || b->kind == VAL_TRACED) {
		t = val_copy(cx, a->kind == VAL_TRACED ? a : b);
		return t;
	}
	/* tuples of one length: element by element (a spec list that differs in one entry) */
	if (a->kind == VAL_TUPLE && b->kind == VAL_TUPLE && a->n == b->n &&
	    (a->flags & VF_SOME) == (b->flags & VF_SOME)) {
		t = val_tuple(cx, a->n, a->node);
		t->flags = a->flags & VF_SOME;
		for (size_t i = 0; i < a->n; i++)
			t->elts[i] = val_join(cx, a->elts[i], b->elts[i], name);
		return t;
	}
	/* lists of different lengths (scratch only on one path): one of them */
	if ((a->kind == VAL_TUPLE || a->kind == VAL_ALT) && (b->kind == VAL_TUPLE || b->kind == VAL_ALT) &&
	    !((a->flags | b->flags) & VF_SOME) && (t = alt_of(cx, a, b)))
		return t;
	/* an optional object (None until a loop sets it): the object */
	if ((a->kind == VAL_NONE) != (b->kind == VAL_NONE)) {
		struct val *o = a->kind == VAL_NONE ? b : a;

		if (o->kind == VAL_OBJ || o->kind == VAL_INST || o->kind == VAL_FUNC)
			return o;
	}
	/* a function chosen on a path the checker cannot decide: both are walked when called */
	if ((a->kind == VAL_FUNC || a->kind == VAL_ALT) && (b->kind == VAL_FUNC || b->kind == VAL_ALT) &&
	    (t = alt_of(cx, a, b)))
		return t;
	return val_unknown(cx, ck_printf(cx, "%s (set differently on two paths)", name), a->node);
}

char *
ck_strdup(struct cctx *cx, const char *s)
{
	return py_arena_strndup(cx->a, s, strlen(s));
}

char *
ck_printf(struct cctx *cx, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return ck_strdup(cx, buf);
}

struct scope *
scope_new(struct cctx *cx, struct scope *parent)
{
	struct scope *s = py_arena_alloc(cx->a, sizeof(*s));

	s->parent = parent;
	return s;
}

unsigned
scope_hash(const char *name)
{
	unsigned h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

/* Bind a name the scope does not have yet. */
void
scope_append(struct cctx *cx, struct scope *s, const char *name, unsigned hash, struct val *v)
{
	if (s->n == s->alloc) {
		size_t alloc = s->alloc ? s->alloc * 2 : 8;
		const char **names = py_arena_alloc(cx->a, alloc * sizeof(*names));
		struct val **vals = py_arena_alloc(cx->a, alloc * sizeof(*vals));
		unsigned *hashes = py_arena_alloc(cx->a, alloc * sizeof(*hashes));

		ck_copy(names, s->names, s->n, sizeof(*names));
		ck_copy(vals, s->vals, s->n, sizeof(*vals));
		ck_copy(hashes, s->hashes, s->n, sizeof(*hashes));
		s->names = names;
		s->vals = vals;
		s->hashes = hashes;
		s->alloc = alloc;
	}
	s->names[s->n] = name;
	s->hashes[s->n] = hash;
	s->vals[s->n++] = v;
}

void
scope_set(struct cctx *cx, struct scope *s, const char *name, struct val *v)
{
	unsigned h = scope_hash(name);

	for (size_t i = 0; i < s->n; i++)
		if (s->hashes[i] == h && strcmp(s->names[i], name) == 0) {
			s->vals[i] = v;
			return;
		}
	scope_append(cx, s, name, h, v);
}

struct val *
scope_get(const struct scope *s, const char *name)
{
	unsigned h = scope_hash(name);

	for (; s; s = s->parent)
		for (size_t i = s->n; i-- > 0;)
			if (s->hashes[i] == h && strcmp(s->names[i], name) == 0)
				return s->vals[i];
	return NULL;
}
