/* SPDX-License-Identifier: MIT */
/*
 * The ruleset cache; see pt/rules_cache.h. The format is private to one
 * version of the tool (the version is part of the key): a magic, the key,
 * then the ruleset as length-prefixed fields in a fixed order. The reader
 * checks every length against what is left, so a truncated or corrupt file
 * is only ever a miss.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt/buf.h"
#include "pt/chips.h"
#include "pt/gpus.h"
#include "pt/jaxapi.h"
#include "pt/rules_cache.h"
#include "pt/util.h"
#include "pt/xalloc.h"

/* Bumped whenever the layout changes (0002: the JAX API table, rung and flag
 * places; 0003: contexts, tiers, the confidence policy, next steps; 0004:
 * context values, rung backends, the GPU table). */
#define CACHE_MAGIC "PTRC0004"
#define CACHE_MAX (64u << 20)
#define NONE 0xffffffffu

/* --- writing --- */

static void
put_u32(struct buf *b, uint32_t v)
{
	buf_add(b, &v, sizeof(v));
}

static void
put_u64(struct buf *b, uint64_t v)
{
	buf_add(b, &v, sizeof(v));
}

static void
put_str(struct buf *b, const char *s)
{
	if (!s) {
		put_u32(b, NONE);
		return;
	}
	put_u32(b, (uint32_t)strlen(s));
	buf_adds(b, s);
}

static void
put_strv(struct buf *b, char *const *v)
{
	uint32_t n = 0;

	if (!v) {
		put_u32(b, NONE);
		return;
	}
	while (v[n])
		n++;
	put_u32(b, n);
	for (uint32_t i = 0; i < n; i++)
		put_str(b, v[i]);
}

/* --- reading --- */

struct rd {
	const char *p, *end;
	bool bad;
};

static uint32_t
get_u32(struct rd *r)
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

static uint64_t
get_u64(struct rd *r)
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

static char *
get_str(struct rd *r)
{
	uint32_t n = get_u32(r);
	char *s;

	if (r->bad || n == NONE)
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
static uint32_t
get_count(struct rd *r, size_t min)
{
	uint32_t n = get_u32(r);

	if (!r->bad && (n == NONE || (size_t)(r->end - r->p) / min < n))
		r->bad = true;
	return r->bad ? 0 : n;
}

static char **
get_strv(struct rd *r)
{
	uint32_t n = get_u32(r);
	char **v;

	if (r->bad || n == NONE)
		return NULL;
	if ((size_t)(r->end - r->p) / 4 < n) {
		r->bad = true;
		return NULL;
	}
	v = xcalloc((size_t)n + 1, sizeof(*v));
	/* a NULL element would end the list early and leak the rest */
	for (uint32_t i = 0; i < n && !r->bad; i++)
		if (!(v[i] = get_str(r)))
			r->bad = true;
	return v;
}

/* --- the ruleset --- */

static void
put_pattern(struct buf *b, const struct pattern *p)
{
	put_str(b, p->src);
	put_u32(b, p->role);
	put_u32(b, (uint32_t)p->line);
	put_u32(b, (uint32_t)p->col);
	put_strv(b, p->lits);
}

static struct pattern *
get_pattern(struct rd *r)
{
	struct pattern *p = xcalloc(1, sizeof(*p));

	p->src = get_str(r);
	p->role = (enum pat_role)get_u32(r);
	p->line = (int)get_u32(r);
	p->col = (int)get_u32(r);
	p->lits = get_strv(r);
	if (!p->src || p->role > PAT_NONE)
		r->bad = true;
	return p;
}

static void
put_rule(struct buf *b, const struct rule *ru)
{
	put_str(b, ru->id);
	put_u32(b, ru->cls);
	put_str(b, ru->subkind);
	put_u32(b, ru->stage);
	put_u32(b, (uint32_t)ru->weight);
	put_u32(b, ru->overrides);
	put_strv(b, ru->literals);
	put_str(b, ru->message);
	put_str(b, ru->explain);
	put_strv(b, ru->links);
	put_str(b, ru->file);
	put_u32(b, (uint32_t)ru->line);
	put_str(b, ru->origin);
	put_u32(b, ru->tier);
	put_strv(b, ru->requires);
	put_strv(b, ru->excludes);
	put_u32(b, (uint32_t)ru->npats);
	for (size_t i = 0; i < ru->npats; i++)
		put_pattern(b, ru->pats[i]);
}

static struct rule *
get_rule(struct rd *r)
{
	struct rule *ru = xcalloc(1, sizeof(*ru));

	ru->id = get_str(r);
	ru->cls = (enum pt_class)get_u32(r);
	ru->subkind = get_str(r);
	ru->stage = (enum stage)get_u32(r);
	ru->weight = (int)get_u32(r);
	ru->overrides = get_u32(r) != 0;
	ru->literals = get_strv(r);
	ru->message = get_str(r);
	ru->explain = get_str(r);
	ru->links = get_strv(r);
	ru->file = get_str(r);
	ru->line = (int)get_u32(r);
	ru->origin = get_str(r);
	ru->tier = (enum rule_tier)get_u32(r);
	ru->requires = get_strv(r);
	ru->excludes = get_strv(r);
	ru->npats = get_count(r, 20);
	ru->pats = xcalloc(ru->npats + 1, sizeof(*ru->pats));
	for (size_t i = 0; i < ru->npats && !r->bad; i++) {
		struct pattern *p = ru->pats[i] = get_pattern(r);

		p->rule = ru;
		ru->nany += p->role == PAT_ANY;
		ru->nall += p->role == PAT_ALL;
		ru->nnone += p->role == PAT_NONE;
	}
	if (!ru->id || !ru->message || !ru->file || ru->cls >= CLASS_COUNT || ru->tier > TIER_FALLBACK)
		r->bad = true;
	return ru;
}

static void
put_rung(struct buf *b, const struct rung *g)
{
	put_str(b, g->id);
	put_str(b, g->family);
	put_str(b, g->action);
	put_str(b, g->change);
	put_str(b, g->fallback);
	put_str(b, g->expect);
	put_strv(b, g->requires);
	put_strv(b, g->subkinds);
	put_strv(b, g->flags);
	put_strv(b, g->backends);
	put_str(b, g->file);
	put_u32(b, (uint32_t)g->line);
	put_u32(b, (uint32_t)g->col);
}

static void
get_rung(struct rd *r, struct rung *g, size_t index)
{
	g->index = index;
	g->id = get_str(r);
	g->family = get_str(r);
	g->action = get_str(r);
	g->change = get_str(r);
	g->fallback = get_str(r);
	g->expect = get_str(r);
	g->requires = get_strv(r);
	g->subkinds = get_strv(r);
	g->flags = get_strv(r);
	g->backends = get_strv(r);
	g->file = get_str(r);
	g->line = (int)get_u32(r);
	g->col = (int)get_u32(r);
	if (!g->id || !g->action || !g->expect)
		r->bad = true;
}

/* Contexts without their examples: `rules test` reads the files. */
static void
put_contexts(struct buf *b, const struct ruleset *rs)
{
	put_u32(b, (uint32_t)rs->ncontexts);
	for (size_t i = 0; i < rs->ncontexts; i++) {
		const struct context_def *cx = &rs->contexts[i];

		put_str(b, cx->id);
		put_str(b, cx->summary);
		put_str(b, cx->missing);
		put_u32(b, (uint32_t)cx->threshold);
		put_strv(b, cx->requires);
		put_strv(b, cx->excludes);
		put_strv(b, cx->implied_by);
		put_strv(b, cx->sets);
		put_str(b, cx->file);
		put_u32(b, (uint32_t)cx->line);
		put_u32(b, (uint32_t)cx->npats);
		for (size_t k = 0; k < cx->npats; k++) {
			put_u32(b, (uint32_t)cx->weights[k]);
			put_pattern(b, cx->pats[k]);
		}
	}
	put_str(b, rs->policy.kernel_context);
	put_u32(b, (uint32_t)rs->policy.without_context_max);
	put_u32(b, (uint32_t)rs->policy.fallback_max);
}

static void
get_context(struct rd *r, struct context_def *cx, size_t index)
{
	cx->index = index;
	cx->id = get_str(r);
	cx->summary = get_str(r);
	cx->missing = get_str(r);
	cx->threshold = (int)get_u32(r);
	cx->requires = get_strv(r);
	cx->excludes = get_strv(r);
	cx->implied_by = get_strv(r);
	cx->sets = get_strv(r);
	cx->file = get_str(r);
	cx->line = (int)get_u32(r);
	cx->npats = get_count(r, 24);
	cx->pats = xcalloc(cx->npats + 1, sizeof(*cx->pats));
	cx->weights = xcalloc(cx->npats + 1, sizeof(*cx->weights));
	for (size_t k = 0; k < cx->npats && !r->bad; k++) {
		cx->weights[k] = (int)get_u32(r);
		cx->pats[k] = get_pattern(r);
		if (cx->weights[k] < 1 || cx->weights[k] > 100)
			r->bad = true;
	}
	if (!cx->id || !cx->summary || !cx->file || cx->threshold < 1 || cx->threshold > 100)
		r->bad = true;
}

static void
get_contexts(struct rd *r, struct ruleset *rs)
{
	rs->ncontexts = rs->alloc_contexts = get_count(r, 32);
	rs->contexts = xcalloc(rs->ncontexts + 1, sizeof(*rs->contexts));
	for (size_t i = 0; i < rs->ncontexts && !r->bad; i++)
		get_context(r, &rs->contexts[i], i);
	rs->policy.kernel_context = get_str(r);
	rs->policy.without_context_max = (int)get_u32(r);
	rs->policy.fallback_max = (int)get_u32(r);
}

static void
put_sections(struct buf *b, const struct ruleset *rs)
{
	for (int c = 0; c < CLASS_COUNT; c++) {
		const struct class_def *cd = &rs->classes[c];
		const struct ladder *l = &rs->ladders[c];

		put_u32(b, rs->have_class[c]);
		put_str(b, cd->title);
		put_str(b, cd->summary);
		put_str(b, cd->interpret);
		put_str(b, cd->interpret_note);
		put_str(b, cd->gpu_interpret_note);
		put_str(b, cd->explain);
		put_strv(b, cd->next_steps);
		put_u32(b, (uint32_t)l->nrungs);
		for (size_t i = 0; i < l->nrungs; i++)
			put_rung(b, &l->rungs[i]);
	}
	put_u32(b, (uint32_t)rs->nflags);
	for (size_t i = 0; i < rs->nflags; i++) {
		put_str(b, rs->flags[i].id);
		put_str(b, rs->flags[i].snippet);
		put_str(b, rs->flags[i].why);
		put_str(b, rs->flags[i].file);
		put_u32(b, (uint32_t)rs->flags[i].line);
		put_u32(b, (uint32_t)rs->flags[i].col);
	}
	put_u32(b, (uint32_t)rs->ncodes);
	for (size_t i = 0; i < rs->ncodes; i++) {
		put_str(b, rs->codes[i].code);
		put_str(b, rs->codes[i].name);
		put_str(b, rs->codes[i].summary);
		put_str(b, rs->codes[i].link);
		put_u32(b, rs->codes[i].cls);
	}
	put_u32(b, (uint32_t)rs->nfacts);
	for (size_t i = 0; i < rs->nfacts; i++) {
		put_str(b, rs->facts[i].id);
		put_str(b, rs->facts[i].sets);
		put_str(b, rs->facts[i].file);
		put_strv(b, rs->facts[i].examples);
		put_pattern(b, rs->facts[i].pat);
	}
	put_contexts(b, rs);
	put_u32(b, (uint32_t)rs->nfiles);	/* rs->files is counted, not NULL-terminated */
	for (size_t i = 0; i < rs->nfiles; i++)
		put_str(b, rs->files[i]);
}

static void
get_sections(struct rd *r, struct ruleset *rs)
{
	for (int c = 0; c < CLASS_COUNT && !r->bad; c++) {
		struct class_def *cd = &rs->classes[c];
		struct ladder *l = &rs->ladders[c];

		rs->have_class[c] = get_u32(r) != 0;
		cd->title = get_str(r);
		cd->summary = get_str(r);
		cd->interpret = get_str(r);
		cd->interpret_note = get_str(r);
		cd->gpu_interpret_note = get_str(r);
		cd->explain = get_str(r);
		cd->next_steps = get_strv(r);
		l->nrungs = get_count(r, 36);
		l->rungs = xcalloc(l->nrungs + 1, sizeof(*l->rungs));
		for (size_t i = 0; i < l->nrungs && !r->bad; i++)
			get_rung(r, &l->rungs[i], i);
	}
	rs->nflags = rs->alloc_flags = get_count(r, 12);
	rs->flags = xcalloc(rs->nflags + 1, sizeof(*rs->flags));
	for (size_t i = 0; i < rs->nflags && !r->bad; i++) {
		rs->flags[i].id = get_str(r);
		rs->flags[i].snippet = get_str(r);
		rs->flags[i].why = get_str(r);
		rs->flags[i].file = get_str(r);
		rs->flags[i].line = (int)get_u32(r);
		rs->flags[i].col = (int)get_u32(r);
	}
	rs->ncodes = rs->alloc_codes = get_count(r, 20);
	rs->codes = xcalloc(rs->ncodes + 1, sizeof(*rs->codes));
	for (size_t i = 0; i < rs->ncodes && !r->bad; i++) {
		rs->codes[i].code = get_str(r);
		rs->codes[i].name = get_str(r);
		rs->codes[i].summary = get_str(r);
		rs->codes[i].link = get_str(r);
		rs->codes[i].cls = (enum pt_class)get_u32(r);
	}
	rs->nfacts = rs->alloc_facts = get_count(r, 32);
	rs->facts = xcalloc(rs->nfacts + 1, sizeof(*rs->facts));
	for (size_t i = 0; i < rs->nfacts && !r->bad; i++) {
		rs->facts[i].id = get_str(r);
		rs->facts[i].sets = get_str(r);
		rs->facts[i].file = get_str(r);
		rs->facts[i].examples = get_strv(r);
		rs->facts[i].pat = get_pattern(r);
		if (!rs->facts[i].id || !rs->facts[i].sets)
			r->bad = true;
	}
	get_contexts(r, rs);
	rs->alloc_files = get_count(r, 4);
	rs->files = xcalloc(rs->alloc_files + 1, sizeof(*rs->files));
	for (; rs->nfiles < rs->alloc_files && !r->bad; rs->nfiles++)
		rs->files[rs->nfiles] = get_str(r);
}

/* A list that must not be NULL in the chip table's invariants. */
static char **
get_strv_nonnull(struct rd *r)
{
	char **v = get_strv(r);

	return v ? v : xcalloc(1, sizeof(*v));
}

static void
put_chip(struct buf *b, const struct chip *c)
{
	put_str(b, c->name);
	put_strv(b, c->aliases);
	put_strv(b, c->device_kinds);
	put_u32(b, (uint32_t)c->generation);
	put_u32(b, (uint32_t)c->cores_per_chip);
	put_u64(b, c->vmem_bytes);
	put_u64(b, c->smem_bytes);
	put_u32(b, (uint32_t)c->sublanes);
	put_u32(b, (uint32_t)c->lanes);
	put_u64(b, c->scoped_default_bytes);
	put_u64(b, c->internal_scratch_bytes);
	for (int i = 0; i < CHIP_NWIDTHS; i++)
		put_u32(b, (uint32_t)c->tiling[i]);
	put_u32(b, (uint32_t)c->tiling_x16_flag);
	put_u32(b, (uint32_t)c->nmatmul);
	for (size_t i = 0; i < c->nmatmul; i++) {
		put_strv(b, c->matmul[i].lhs);
		put_strv(b, c->matmul[i].rhs);
		put_str(b, c->matmul[i].note);
	}
	put_u32(b, (uint32_t)c->ndisputes);
	for (size_t i = 0; i < c->ndisputes; i++) {
		put_str(b, c->disputes[i].field);
		put_u64(b, c->disputes[i].value);
		put_str(b, c->disputes[i].source);
	}
	put_str(b, c->note);
	put_str(b, c->file);
	put_u32(b, (uint32_t)c->line);
}

static struct chip *
get_chip(struct rd *r)
{
	struct chip *c = xcalloc(1, sizeof(*c));

	c->name = get_str(r);
	c->aliases = get_strv_nonnull(r);
	c->device_kinds = get_strv_nonnull(r);
	c->generation = (int)get_u32(r);
	c->cores_per_chip = (int)get_u32(r);
	c->vmem_bytes = get_u64(r);
	c->smem_bytes = get_u64(r);
	c->sublanes = (int)get_u32(r);
	c->lanes = (int)get_u32(r);
	c->scoped_default_bytes = get_u64(r);
	c->internal_scratch_bytes = get_u64(r);
	for (int i = 0; i < CHIP_NWIDTHS; i++)
		c->tiling[i] = (int)get_u32(r);
	c->tiling_x16_flag = (int)get_u32(r);
	c->nmatmul = get_count(r, 12);
	c->matmul = xcalloc(c->nmatmul + 1, sizeof(*c->matmul));
	for (size_t i = 0; i < c->nmatmul && !r->bad; i++) {
		c->matmul[i].lhs = get_strv_nonnull(r);
		c->matmul[i].rhs = get_strv_nonnull(r);
		c->matmul[i].note = get_str(r);
	}
	c->ndisputes = get_count(r, 16);
	c->disputes = xcalloc(c->ndisputes + 1, sizeof(*c->disputes));
	for (size_t i = 0; i < c->ndisputes && !r->bad; i++) {
		c->disputes[i].field = get_str(r);
		c->disputes[i].value = get_u64(r);
		c->disputes[i].source = get_str(r);
	}
	c->note = get_str(r);
	c->file = get_str(r);
	c->line = (int)get_u32(r);
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
		put_u64(b, *nums[i]);
	for (size_t i = 0; i < ARRAY_SIZE(ints); i++)
		put_u32(b, (uint32_t)*ints[i]);
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		put_str(b, *strs[i]);
	for (size_t i = 0; i < ARRAY_SIZE(strvs); i++)
		put_strv(b, *strvs[i]);
	put_u32(b, (uint32_t)g->line);
}

static struct gpu *
get_gpu(struct rd *r)
{
	struct gpu *g = xcalloc(1, sizeof(*g));
	unsigned long long *nums[] = GPU_NUMBERS(g);
	int *ints[] = GPU_INTS(g);
	char **strs[] = GPU_STRS(g);
	char ***strvs[] = GPU_STRVS(g);

	for (size_t i = 0; i < ARRAY_SIZE(nums); i++)
		*nums[i] = get_u64(r);
	for (size_t i = 0; i < ARRAY_SIZE(ints); i++)
		*ints[i] = (int)get_u32(r);
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		*strs[i] = get_str(r);
	for (size_t i = 0; i < ARRAY_SIZE(strvs); i++)
		*strvs[i] = get_strv_nonnull(r);
	g->line = (int)get_u32(r);
	if (!g->name || !g->vendor || !g->arch || !g->file)
		r->bad = true;
	return g;
}

static void
put_chips(struct buf *b, const struct chiptab *t)
{
	if (!t) {
		put_u32(b, NONE);
		return;
	}
	put_u32(b, (uint32_t)t->nchips);
	for (size_t i = 0; i < t->nchips; i++)
		put_chip(b, t->chips[i]);
	put_u32(b, (uint32_t)t->ndtypes);
	for (size_t i = 0; i < t->ndtypes; i++) {
		const struct dtype *dt = t->dtypes[i];

		put_str(b, dt->name);
		put_strv(b, dt->aliases);
		put_u32(b, (uint32_t)dt->bits);
		put_str(b, dt->unsupported);
		put_str(b, dt->note);
		put_str(b, dt->file);
		put_u32(b, (uint32_t)dt->line);
	}
	put_u32(b, (uint32_t)t->ngpus);
	for (size_t i = 0; i < t->ngpus; i++)
		put_gpu(b, t->gpus[i]);
}

static struct chiptab *
get_chips(struct rd *r)
{
	uint32_t n = get_u32(r);
	struct chiptab *t;

	if (r->bad || n == NONE)
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
	n = get_count(r, 24);
	t->dtypes = xcalloc((size_t)n + 1, sizeof(*t->dtypes));
	t->alloc_dtypes = n;
	for (; t->ndtypes < n && !r->bad; t->ndtypes++) {
		struct dtype *dt = t->dtypes[t->ndtypes] = xcalloc(1, sizeof(*dt));

		dt->name = get_str(r);
		dt->aliases = get_strv_nonnull(r);
		dt->bits = (int)get_u32(r);
		dt->unsupported = get_str(r);
		dt->note = get_str(r);
		dt->file = get_str(r);
		dt->line = (int)get_u32(r);
		if (!dt->name)
			r->bad = true;
	}
	n = get_count(r, 64);
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
	put_str(b, g->set ? g->text : NULL);
}

/* The range is parsed again from its text: one parser, and a lying cache cannot set bounds. */
static void
get_range(struct rd *r, struct jaxrange *g)
{
	char *text = get_str(r);

	if (text && jaxrange_parse(text, g) < 0)
		r->bad = true;
	free(text);
}

static void
put_api(struct buf *b, const struct jaxapi *t)
{
	if (!t) {
		put_u32(b, NONE);
		return;
	}
	put_u32(b, (uint32_t)t->nnames);
	for (size_t i = 0; i < t->nnames; i++) {
		const struct api_name *n = t->names[i];

		put_str(b, n->name);
		put_str(b, n->render);
		put_range(b, &n->since);
		put_range(b, &n->removed);
		put_str(b, n->deprecated);
		put_str(b, n->replaced_by);
		put_str(b, n->source);
		put_str(b, n->note);
		put_str(b, n->file);
		put_u32(b, (uint32_t)n->line);
		put_u32(b, (uint32_t)n->col);
	}
	put_u32(b, (uint32_t)t->ngaps);
	for (size_t i = 0; i < t->ngaps; i++) {
		const struct api_gap *g = t->gaps[i];

		put_str(b, g->id);
		put_str(b, g->what);
		put_range(b, &g->closed_in);
		put_str(b, g->source);
		put_str(b, g->file);
		put_u32(b, (uint32_t)g->line);
		put_u32(b, (uint32_t)g->nwhen);
		for (size_t k = 0; k < g->nwhen; k++) {
			put_str(b, g->when_names[k]);
			put_strv(b, g->when_values[k]);
		}
	}
}

static struct api_name *
get_api_name(struct rd *r)
{
	struct api_name *n = xcalloc(1, sizeof(*n));

	n->name = get_str(r);
	n->render = get_str(r);
	get_range(r, &n->since);
	get_range(r, &n->removed);
	n->deprecated = get_str(r);
	n->replaced_by = get_str(r);
	n->source = get_str(r);
	n->note = get_str(r);
	n->file = get_str(r);
	n->line = (int)get_u32(r);
	n->col = (int)get_u32(r);
	if (!n->name || !n->source || !n->file)
		r->bad = true;
	return n;
}

static struct api_gap *
get_api_gap(struct rd *r)
{
	struct api_gap *g = xcalloc(1, sizeof(*g));

	g->id = get_str(r);
	g->what = get_str(r);
	get_range(r, &g->closed_in);
	g->source = get_str(r);
	g->file = get_str(r);
	g->line = (int)get_u32(r);
	g->nwhen = get_count(r, 8);
	g->when_names = xcalloc(g->nwhen + 1, sizeof(*g->when_names));
	g->when_values = xcalloc(g->nwhen + 1, sizeof(*g->when_values));
	for (size_t k = 0; k < g->nwhen && !r->bad; k++) {
		g->when_names[k] = get_str(r);
		g->when_values[k] = get_strv_nonnull(r);
		if (!g->when_names[k])
			r->bad = true;
	}
	if (!g->id || !g->what || !g->source || !g->closed_in.set)
		r->bad = true;
	return g;
}

static struct jaxapi *
get_api(struct rd *r)
{
	uint32_t n = get_u32(r);
	struct jaxapi *t;

	if (r->bad || n == NONE)
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
	n = get_count(r, 28);
	t->gaps = xcalloc((size_t)n + 1, sizeof(*t->gaps));
	t->alloc_gaps = n;
	for (; t->ngaps < n && !r->bad; t->ngaps++)
		t->gaps[t->ngaps] = get_api_gap(r);
	return t;
}

/* --- key, file, load, save --- */

/* A checksum over the body, so that a flipped byte is a miss rather than a
 * ruleset with a nonsense weight or tile size. */
static uint64_t
body_hash(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
	return h;
}

static bool
is_yaml(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 5 && strcmp(name + len - 5, ".yaml") == 0;
}

static void
key_dir(struct buf *key, const char *dir)
{
	char **names = util_list_dir(dir, is_yaml);

	buf_addf(key, "dir %s\n", dir);
	if (!names)
		buf_adds(key, "missing\n");
	util_stat_key(key, dir, names);
	util_names_free(names);
}

char *
rules_cache_key(const char *const *dirs)
{
	struct buf key = BUF_INIT;

	buf_addf(&key, "pallas-triage %s %s\n", PT_VERSION, CACHE_MAGIC);
	for (; *dirs; dirs++)
		key_dir(&key, *dirs);
	return buf_detach(&key, NULL);
}

static bool
cache_disabled(void)
{
	const char *v = getenv("PALLAS_TRIAGE_NO_CACHE");

	return v && *v && strcmp(v, "0") != 0;
}

/* One file per set of directories (the key's "dir" lines), so a stale cache is replaced. */
static char *
cache_path(const char *key, char **dir_out)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	uint64_t h = 0xcbf29ce484222325ull;
	char *dir;

	for (const char *line = key; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strncmp(line, "dir ", 4) == 0)
			for (const char *q = line + 4; *q && *q != '\n'; q++)
				h = (h ^ (unsigned char)*q) * 0x100000001b3ull;
	if (xdg && *xdg == '/')
		dir = xasprintf("%s/pallas-triage", xdg);
	else if (home && *home == '/')
		dir = xasprintf("%s/.cache/pallas-triage", home);
	else
		return NULL;
	*dir_out = dir;
	return xasprintf("%s/rules-%016llx.bin", dir, (unsigned long long)h);
}

struct ruleset *
rules_cache_load(const char *key)
{
	struct buf data = BUF_INIT;
	struct diag d = DIAG_INIT;
	struct ruleset *rs = NULL;
	char *dir = NULL, *path;
	struct rd r;
	char *stored = NULL;
	uint32_t n;

	if (cache_disabled() || !(path = cache_path(key, &dir)))
		return NULL;
	if (util_read_file(path, &data, CACHE_MAX, NULL) < 0 || data.len < 16 ||
	    memcmp(data.data, CACHE_MAGIC, 8) != 0)
		goto miss;
	r.p = data.data + 8;
	r.end = data.data + data.len - 8;
	{
		uint64_t want;

		memcpy(&want, r.end, 8);
		if (body_hash(r.p, (size_t)(r.end - r.p)) != want)
			goto miss;
	}
	r.bad = false;
	if (!(stored = get_str(&r)) || strcmp(stored, key) != 0)
		goto miss;
	rs = ruleset_new();
	rs->from_cache = true;
	n = get_count(&r, 64);
	rs->rules = xcalloc((size_t)n + 1, sizeof(*rs->rules));
	rs->alloc_rules = n;
	for (; rs->nrules < n && !r.bad; rs->nrules++) {
		rs->rules[rs->nrules] = get_rule(&r);
		rs->rules[rs->nrules]->index = rs->nrules;
	}
	get_sections(&r, rs);
	rs->chips = get_chips(&r);
	rs->api = get_api(&r);
	if (r.bad || r.p != r.end || ruleset_finish(rs, &d) < 0)
		goto miss;
	goto out;
miss:
	ruleset_free(rs);
	rs = NULL;
out:
	diag_release(&d);
	free(stored);
	buf_release(&data);
	free(path);
	free(dir);
	return rs;
}

int
rules_cache_save(const struct ruleset *rs, const char *key)
{
	struct buf b = BUF_INIT;
	char *dir = NULL, *path;
	int ret = -1;

	if (cache_disabled() || !(path = cache_path(key, &dir)))
		return -1;
	buf_add(&b, CACHE_MAGIC, 8);
	put_str(&b, key);
	put_u32(&b, (uint32_t)rs->nrules);
	for (size_t i = 0; i < rs->nrules; i++)
		put_rule(&b, rs->rules[i]);
	put_sections(&b, rs);
	put_chips(&b, rs->chips);
	put_api(&b, rs->api);
	put_u64(&b, body_hash(b.data + 8, b.len - 8));
	if (util_mkdirs(dir, NULL) == 0 && util_write_atomic(path, b.data, b.len, NULL) == 0)
		ret = 0;
	buf_release(&b);
	free(path);
	free(dir);
	return ret;
}
