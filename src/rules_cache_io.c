/* SPDX-License-Identifier: MIT */
/*
 * The rules cache's encoding (pt/rules_cache_io.h): length-prefixed
 * fields, a reader that checks every length against what is left, and the
 * chip and JAX API tables. The ruleset itself is in rules_cache.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt/chips.h"
#include "pt/gpus.h"
#include "pt/jaxapi.h"
#include "pt/rules_cache_io.h"
#include "pt/xalloc.h"

/* --- writing --- */

void
cache_put_u32(struct buf *b, uint32_t v)
{
	buf_add(b, &v, sizeof(v));
}

void
cache_put_u64(struct buf *b, uint64_t v)
{
	buf_add(b, &v, sizeof(v));
}

void
cache_put_str(struct buf *b, const char *s)
{
	if (!s) {
		cache_put_u32(b, CACHE_NONE);
		return;
	}
	cache_put_u32(b, (uint32_t)strlen(s));
	buf_adds(b, s);
}

void
cache_put_strv(struct buf *b, char *const *v)
{
	uint32_t n = 0;

	if (!v) {
		cache_put_u32(b, CACHE_NONE);
		return;
	}
	while (v[n])
		n++;
	cache_put_u32(b, n);
	for (uint32_t i = 0; i < n; i++)
		cache_put_str(b, v[i]);
}

/* --- reading --- */


uint32_t
cache_get_u32(struct cache_rd *r)
{
	uint32_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < sizeof(v)) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, sizeof(v));
	r->p += sizeof(v);
	return v;
}

uint64_t
cache_get_u64(struct cache_rd *r)
{
	uint64_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < sizeof(v)) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, sizeof(v));
	r->p += sizeof(v);
	return v;
}

char *
cache_get_str(struct cache_rd *r)
{
	uint32_t n = cache_get_u32(r);
	char *s;

	if (r->bad || n == CACHE_NONE)
		return NULL;
	if ((size_t)(r->end - r->p) < n) {
		r->bad = true;
		return NULL;
	}
	s = xstrndup(r->p, n);
	r->p += n;
	return s;
}

/* A count of items that each take at least `min` bytes: bounds allocations. */
uint32_t
cache_get_count(struct cache_rd *r, size_t min)
{
	uint32_t n = cache_get_u32(r);

	if (!r->bad && (n == CACHE_NONE || (size_t)(r->end - r->p) / min < n))
		r->bad = true;
	return r->bad ? 0 : n;
}

char **
cache_get_strv(struct cache_rd *r)
{
	uint32_t n = cache_get_u32(r);
	char **v;

	if (r->bad || n == CACHE_NONE)
		return NULL;
	if ((size_t)(r->end - r->p) / 4 < n) {
		r->bad = true;
		return NULL;
	}
	v = xcalloc((size_t)n + 1, sizeof(*v));
	/* a NULL element would end the list early and leak the rest */
	for (uint32_t i = 0; i < n && !r->bad; i++)
		if (!(v[i] = cache_get_str(r)))
			r->bad = true;
	return v;
}

/* A list that must not be NULL in the chip table's invariants. */
static char **
cache_get_strv_nonnull(struct cache_rd *r)
{
	char **v = cache_get_strv(r);

	return v ? v : xcalloc(1, sizeof(*v));
}

static void
put_chip(struct buf *b, const struct chip *c)
{
	cache_put_str(b, c->name);
	cache_put_strv(b, c->aliases);
	cache_put_strv(b, c->device_kinds);
	cache_put_u32(b, (uint32_t)c->generation);
	cache_put_u32(b, (uint32_t)c->cores_per_chip);
	cache_put_u64(b, c->vmem_bytes);
	cache_put_u64(b, c->smem_bytes);
	cache_put_u32(b, (uint32_t)c->sublanes);
	cache_put_u32(b, (uint32_t)c->lanes);
	cache_put_u64(b, c->scoped_default_bytes);
	cache_put_u64(b, c->internal_scratch_bytes);
	for (int i = 0; i < CHIP_NWIDTHS; i++)
		cache_put_u32(b, (uint32_t)c->tiling[i]);
	cache_put_u32(b, (uint32_t)c->tiling_x16_flag);
	cache_put_u32(b, (uint32_t)c->nmatmul);
	for (size_t i = 0; i < c->nmatmul; i++) {
		cache_put_strv(b, c->matmul[i].lhs);
		cache_put_strv(b, c->matmul[i].rhs);
		cache_put_str(b, c->matmul[i].note);
	}
	cache_put_u32(b, (uint32_t)c->ndisputes);
	for (size_t i = 0; i < c->ndisputes; i++) {
		cache_put_str(b, c->disputes[i].field);
		cache_put_u64(b, c->disputes[i].value);
		cache_put_str(b, c->disputes[i].source);
	}
	cache_put_str(b, c->note);
	cache_put_str(b, c->file);
	cache_put_u32(b, (uint32_t)c->line);
}

static struct chip *
get_chip(struct cache_rd *r)
{
	struct chip *c = xcalloc(1, sizeof(*c));

	c->name = cache_get_str(r);
	c->aliases = cache_get_strv_nonnull(r);
	c->device_kinds = cache_get_strv_nonnull(r);
	c->generation = (int)cache_get_u32(r);
	c->cores_per_chip = (int)cache_get_u32(r);
	c->vmem_bytes = cache_get_u64(r);
	c->smem_bytes = cache_get_u64(r);
	c->sublanes = (int)cache_get_u32(r);
	c->lanes = (int)cache_get_u32(r);
	c->scoped_default_bytes = cache_get_u64(r);
	c->internal_scratch_bytes = cache_get_u64(r);
	for (int i = 0; i < CHIP_NWIDTHS; i++)
		c->tiling[i] = (int)cache_get_u32(r);
	c->tiling_x16_flag = (int)cache_get_u32(r);
	c->nmatmul = cache_get_count(r, 12);
	c->matmul = xcalloc(c->nmatmul + 1, sizeof(*c->matmul));
	for (size_t i = 0; i < c->nmatmul && !r->bad; i++) {
		c->matmul[i].lhs = cache_get_strv_nonnull(r);
		c->matmul[i].rhs = cache_get_strv_nonnull(r);
		c->matmul[i].note = cache_get_str(r);
	}
	c->ndisputes = cache_get_count(r, 16);
	c->disputes = xcalloc(c->ndisputes + 1, sizeof(*c->disputes));
	for (size_t i = 0; i < c->ndisputes && !r->bad; i++) {
		c->disputes[i].field = cache_get_str(r);
		c->disputes[i].value = cache_get_u64(r);
		c->disputes[i].source = cache_get_str(r);
	}
	c->note = cache_get_str(r);
	c->file = cache_get_str(r);
	c->line = (int)cache_get_u32(r);
	if (!c->name || !c->file)
		r->bad = true;
	return c;
}

/* A GPU's numbers and strings, in cache order: one list for both directions. */
#define GPU_NUMBERS(g) { &(g)->smem_block, &(g)->smem_block_optin, &(g)->smem_sm, \
			 &(g)->regs_sm, &(g)->regs_block, &(g)->l2_bytes, &(g)->memory_bytes }
#define GPU_INTS(g) { &(g)->sms, &(g)->warp_size, &(g)->max_regs_thread, &(g)->tmem_columns }
#define GPU_STRS(g) { &(g)->name, &(g)->vendor, &(g)->arch, &(g)->compute_capability, \
		      &(g)->mma, &(g)->note, &(g)->file }
#define GPU_STRVS(g) { &(g)->aliases, &(g)->device_kinds, &(g)->backends }

static void
put_gpu(struct buf *b, struct gpu *g)
{
	unsigned long long *nums[] = GPU_NUMBERS(g);
	int *ints[] = GPU_INTS(g);
	char **strs[] = GPU_STRS(g);
	char ***strvs[] = GPU_STRVS(g);

	for (size_t i = 0; i < ARRAY_SIZE(nums); i++)
		cache_put_u64(b, *nums[i]);
	for (size_t i = 0; i < ARRAY_SIZE(ints); i++)
		cache_put_u32(b, (uint32_t)*ints[i]);
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		cache_put_str(b, *strs[i]);
	for (size_t i = 0; i < ARRAY_SIZE(strvs); i++)
		cache_put_strv(b, *strvs[i]);
	cache_put_u32(b, (uint32_t)g->line);
}

static struct gpu *
get_gpu(struct cache_rd *r)
{
	struct gpu *g = xcalloc(1, sizeof(*g));
	unsigned long long *nums[] = GPU_NUMBERS(g);
	int *ints[] = GPU_INTS(g);
	char **strs[] = GPU_STRS(g);
	char ***strvs[] = GPU_STRVS(g);

	for (size_t i = 0; i < ARRAY_SIZE(nums); i++)
		*nums[i] = cache_get_u64(r);
	for (size_t i = 0; i < ARRAY_SIZE(ints); i++)
		*ints[i] = (int)cache_get_u32(r);
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		*strs[i] = cache_get_str(r);
	for (size_t i = 0; i < ARRAY_SIZE(strvs); i++)
		*strvs[i] = cache_get_strv_nonnull(r);
	g->line = (int)cache_get_u32(r);
	if (!g->name || !g->vendor || !g->arch || !g->file)
		r->bad = true;
	return g;
}

void
cache_put_chips(struct buf *b, const struct chiptab *t)
{
	if (!t) {
		cache_put_u32(b, CACHE_NONE);
		return;
	}
	cache_put_u32(b, (uint32_t)t->nchips);
	for (size_t i = 0; i < t->nchips; i++)
		put_chip(b, t->chips[i]);
	cache_put_u32(b, (uint32_t)t->ndtypes);
	for (size_t i = 0; i < t->ndtypes; i++) {
		const struct dtype *dt = t->dtypes[i];

		cache_put_str(b, dt->name);
		cache_put_strv(b, dt->aliases);
		cache_put_u32(b, (uint32_t)dt->bits);
		cache_put_str(b, dt->unsupported);
		cache_put_str(b, dt->note);
		cache_put_str(b, dt->file);
		cache_put_u32(b, (uint32_t)dt->line);
	}
	cache_put_u32(b, (uint32_t)t->ngpus);
	for (size_t i = 0; i < t->ngpus; i++)
		put_gpu(b, t->gpus[i]);
}

struct chiptab *
cache_get_chips(struct cache_rd *r)
{
	uint32_t n = cache_get_u32(r);
	struct chiptab *t;

	if (r->bad || n == CACHE_NONE)
		return NULL;
	t = xcalloc(1, sizeof(*t));
	if ((size_t)(r->end - r->p) / 64 < n) {
		r->bad = true;
		return t;
	}
	t->chips = xcalloc((size_t)n + 1, sizeof(*t->chips));
	t->alloc_chips = n;
	for (; t->nchips < n && !r->bad; t->nchips++)
		t->chips[t->nchips] = get_chip(r);
	n = cache_get_count(r, 24);
	t->dtypes = xcalloc((size_t)n + 1, sizeof(*t->dtypes));
	t->alloc_dtypes = n;
	for (; t->ndtypes < n && !r->bad; t->ndtypes++) {
		struct dtype *dt = t->dtypes[t->ndtypes] = xcalloc(1, sizeof(*dt));

		dt->name = cache_get_str(r);
		dt->aliases = cache_get_strv_nonnull(r);
		dt->bits = (int)cache_get_u32(r);
		dt->unsupported = cache_get_str(r);
		dt->note = cache_get_str(r);
		dt->file = cache_get_str(r);
		dt->line = (int)cache_get_u32(r);
		if (!dt->name)
			r->bad = true;
	}
	n = cache_get_count(r, 64);
	t->gpus = xcalloc((size_t)n + 1, sizeof(*t->gpus));
	t->alloc_gpus = n;
	for (; t->ngpus < n && !r->bad; t->ngpus++)
		t->gpus[t->ngpus] = get_gpu(r);
	return t;
}

/* --- the JAX API table --- */

static void
put_range(struct buf *b, const struct jaxrange *g)
{
	cache_put_str(b, g->set ? g->text : NULL);
}

/* The range is parsed again from its text: one parser, and a lying cache cannot set bounds. */
static void
get_range(struct cache_rd *r, struct jaxrange *g)
{
	char *text = cache_get_str(r);

	if (text && jaxrange_parse(text, g) < 0)
		r->bad = true;
	free(text);
}

void
cache_put_api(struct buf *b, const struct jaxapi *t)
{
	if (!t) {
		cache_put_u32(b, CACHE_NONE);
		return;
	}
	cache_put_u32(b, (uint32_t)t->nnames);
	for (size_t i = 0; i < t->nnames; i++) {
		const struct api_name *n = t->names[i];

		cache_put_str(b, n->name);
		cache_put_str(b, n->render);
		put_range(b, &n->since);
		put_range(b, &n->removed);
		cache_put_str(b, n->deprecated);
		cache_put_str(b, n->replaced_by);
		cache_put_str(b, n->source);
		cache_put_str(b, n->note);
		cache_put_str(b, n->file);
		cache_put_u32(b, (uint32_t)n->line);
		cache_put_u32(b, (uint32_t)n->col);
	}
	cache_put_u32(b, (uint32_t)t->ngaps);
	for (size_t i = 0; i < t->ngaps; i++) {
		const struct api_gap *g = t->gaps[i];

		cache_put_str(b, g->id);
		cache_put_str(b, g->what);
		put_range(b, &g->closed_in);
		cache_put_str(b, g->source);
		cache_put_str(b, g->file);
		cache_put_u32(b, (uint32_t)g->line);
		cache_put_u32(b, (uint32_t)g->nwhen);
		for (size_t k = 0; k < g->nwhen; k++) {
			cache_put_str(b, g->when_names[k]);
			cache_put_strv(b, g->when_values[k]);
		}
	}
}

static struct api_name *
get_api_name(struct cache_rd *r)
{
	struct api_name *n = xcalloc(1, sizeof(*n));

	n->name = cache_get_str(r);
	n->render = cache_get_str(r);
	get_range(r, &n->since);
	get_range(r, &n->removed);
	n->deprecated = cache_get_str(r);
	n->replaced_by = cache_get_str(r);
	n->source = cache_get_str(r);
	n->note = cache_get_str(r);
	n->file = cache_get_str(r);
	n->line = (int)cache_get_u32(r);
	n->col = (int)cache_get_u32(r);
	if (!n->name || !n->source || !n->file)
		r->bad = true;
	return n;
}

static struct api_gap *
get_api_gap(struct cache_rd *r)
{
	struct api_gap *g = xcalloc(1, sizeof(*g));

	g->id = cache_get_str(r);
	g->what = cache_get_str(r);
	get_range(r, &g->closed_in);
	g->source = cache_get_str(r);
	g->file = cache_get_str(r);
	g->line = (int)cache_get_u32(r);
	g->nwhen = cache_get_count(r, 8);
	g->when_names = xcalloc(g->nwhen + 1, sizeof(*g->when_names));
	g->when_values = xcalloc(g->nwhen + 1, sizeof(*g->when_values));
	for (size_t k = 0; k < g->nwhen && !r->bad; k++) {
		g->when_names[k] = cache_get_str(r);
		g->when_values[k] = cache_get_strv_nonnull(r);
		if (!g->when_names[k])
			r->bad = true;
	}
	if (!g->id || !g->what || !g->source || !g->closed_in.set)
		r->bad = true;
	return g;
}

struct jaxapi *
cache_get_api(struct cache_rd *r)
{
	uint32_t n = cache_get_u32(r);
	struct jaxapi *t;

	if (r->bad || n == CACHE_NONE)
		return NULL;
	t = xcalloc(1, sizeof(*t));
	if ((size_t)(r->end - r->p) / 36 < n) {
		r->bad = true;
		return t;
	}
	t->names = xcalloc((size_t)n + 1, sizeof(*t->names));
	t->alloc_names = n;
	for (; t->nnames < n && !r->bad; t->nnames++)
		t->names[t->nnames] = get_api_name(r);
	n = cache_get_count(r, 28);
	t->gaps = xcalloc((size_t)n + 1, sizeof(*t->gaps));
	t->alloc_gaps = n;
	for (; t->ngaps < n && !r->bad; t->ngaps++)
		t->gaps[t->ngaps] = get_api_gap(r);
	return t;
}
