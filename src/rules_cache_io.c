/* SPDX-License-Identifier: MIT */
/*
 * The rules cache's encoding (pt/rules_cache_io.h): length-prefixed
 * fields, a reader that checks every length against what is left, records
 * written and read by one table of their fields, and the chip and JAX API
 * tables. The ruleset itself is in rules_cache.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt/chips.h"
#include "pt/gpus.h"
#include "pt/jaxapi.h"
#include "pt/rules_cache_io.h"
#include "pt/xalloc.h"
#include "pt/ytree.h"

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
	buf_add(b, s, strlen(s) + 1);	/* with its NUL: read where it lies */
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

/* n bytes into out (which the caller zeroed), unless fewer are left: then the file is bad. */
static void
get_raw(struct cache_rd *r, void *out, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return;
	}
	memcpy(out, r->p, n);
	r->p += n;
}

uint32_t
cache_get_u32(struct cache_rd *r)
{
	uint32_t v = 0;

	get_raw(r, &v, sizeof(v));
	return v;
}

uint64_t
cache_get_u64(struct cache_rd *r)
{
	uint64_t v = 0;

	get_raw(r, &v, sizeof(v));
	return v;
}

char *
cache_get_str(struct cache_rd *r)
{
	uint32_t n = cache_get_u32(r);
	char *s;

	if (r->bad || n == CACHE_NONE)
		return NULL;
	if ((size_t)(r->end - r->p) <= n || r->p[n] != '\0') {
		r->bad = true;
		return NULL;
	}
	s = (char *)r->p;
	r->p += n + 1;
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
	v = xarena_zalloc(r->arena, ((size_t)n + 1) * sizeof(*v));
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
}

/* --- records --- */

void
cache_put_record(struct buf *b, const struct cache_record *rec, const void *p)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		const void *at = (const char *)p + rec->fields[i].off;

		switch (rec->fields[i].kind) {
		case CACHE_INT:
			cache_put_u32(b, (uint32_t)*(const int *)at);
			break;
		case CACHE_U64:
			cache_put_u64(b, *(const unsigned long long *)at);
			break;
		case CACHE_STR:
		case CACHE_NEED:
			cache_put_str(b, *(char *const *)at);
			break;
		case CACHE_STRV:
		case CACHE_LIST:
			cache_put_strv(b, *(char **const *)at);
			break;
		case CACHE_RANGE:
			put_range(b, at);
			break;
		}
	}
}

void
cache_get_record(struct cache_rd *r, const struct cache_record *rec, void *p)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		void *at = (char *)p + rec->fields[i].off;

		switch (rec->fields[i].kind) {
		case CACHE_INT:
			*(int *)at = (int)cache_get_u32(r);
			break;
		case CACHE_U64:
			*(unsigned long long *)at = cache_get_u64(r);
			break;
		case CACHE_STR:
			*(char **)at = cache_get_str(r);
			break;
		case CACHE_NEED:
			if (!(*(char **)at = cache_get_str(r)))
				r->bad = true;
			break;
		case CACHE_STRV:
			*(char ***)at = cache_get_strv(r);
			break;
		case CACHE_LIST:
			*(char ***)at = cache_get_strv_nonnull(r);
			break;
		case CACHE_RANGE:
			get_range(r, at);
			break;
		}
	}
}

void *
cache_get_new(struct cache_rd *r, const struct cache_record *rec)
{
	void *p = xarena_zalloc(r->arena, rec->size);

	cache_get_record(r, rec, p);
	return p;
}

/*
 * An optional table (the chip or the API table) starts with its first
 * count, or with CACHE_NONE in its place when the ruleset has none: false
 * for none (or a bad file); otherwise the count is left to be read.
 */
static bool
get_present(struct cache_rd *r)
{
	const char *at = r->p;
	uint32_t n = cache_get_u32(r);

	if (r->bad || n == CACHE_NONE)
		return false;
	r->p = at;
	return true;
}

/* --- the chip table --- */

static const struct cache_field chip_fields[] = {
	CF_NEED(struct chip, name), CF_LIST(struct chip, aliases),
	CF_LIST(struct chip, device_kinds), CF_INT(struct chip, generation),
	CF_INT(struct chip, cores_per_chip), CF_U64(struct chip, vmem_bytes),
	CF_U64(struct chip, smem_bytes), CF_INT(struct chip, sublanes), CF_INT(struct chip, lanes),
	CF_U64(struct chip, scoped_default_bytes), CF_U64(struct chip, internal_scratch_bytes),
	CF_INT(struct chip, tiling[0]), CF_INT(struct chip, tiling[1]),
	CF_INT(struct chip, tiling[2]), CF_INT(struct chip, tiling[3]),
	CF_INT(struct chip, tiling_x16_flag), CF_STR(struct chip, note), CF_NEED(struct chip, file),
	CF_INT(struct chip, line),
};
_Static_assert(CHIP_NWIDTHS == 4, "chip_fields lists one tile per width");
static const struct cache_field matmul_fields[] = {
	CF_LIST(struct chip_matmul, lhs), CF_LIST(struct chip_matmul, rhs),
	CF_STR(struct chip_matmul, note),
};
static const struct cache_field dispute_fields[] = {
	CF_STR(struct chip_dispute, field), CF_U64(struct chip_dispute, value),
	CF_STR(struct chip_dispute, source),
};
static const struct cache_field dtype_fields[] = {
	CF_NEED(struct dtype, name), CF_LIST(struct dtype, aliases), CF_INT(struct dtype, bits),
	CF_STR(struct dtype, unsupported), CF_STR(struct dtype, note), CF_STR(struct dtype, file),
	CF_INT(struct dtype, line),
};
static const struct cache_field gpu_fields[] = {
	CF_U64(struct gpu, smem_block), CF_U64(struct gpu, smem_block_optin),
	CF_U64(struct gpu, smem_sm), CF_U64(struct gpu, regs_sm), CF_U64(struct gpu, regs_block),
	CF_U64(struct gpu, l2_bytes), CF_U64(struct gpu, memory_bytes), CF_INT(struct gpu, sms),
	CF_INT(struct gpu, warp_size), CF_INT(struct gpu, max_regs_thread),
	CF_INT(struct gpu, tmem_columns), CF_NEED(struct gpu, name), CF_NEED(struct gpu, vendor),
	CF_NEED(struct gpu, arch), CF_STR(struct gpu, compute_capability), CF_STR(struct gpu, mma),
	CF_STR(struct gpu, note), CF_NEED(struct gpu, file), CF_LIST(struct gpu, aliases),
	CF_LIST(struct gpu, device_kinds), CF_LIST(struct gpu, backends), CF_INT(struct gpu, line),
};
static const struct cache_record chip_rec = CACHE_RECORD(struct chip, chip_fields);
static const struct cache_record matmul_rec = CACHE_RECORD(struct chip_matmul, matmul_fields);
static const struct cache_record dispute_rec = CACHE_RECORD(struct chip_dispute, dispute_fields);
static const struct cache_record dtype_rec = CACHE_RECORD(struct dtype, dtype_fields);
static const struct cache_record gpu_rec = CACHE_RECORD(struct gpu, gpu_fields);

static void
put_chip(struct buf *b, const struct chip *c)
{
	cache_put_record(b, &chip_rec, c);
	cache_put_u32(b, (uint32_t)c->nmatmul);
	for (size_t i = 0; i < c->nmatmul; i++)
		cache_put_record(b, &matmul_rec, &c->matmul[i]);
	cache_put_u32(b, (uint32_t)c->ndisputes);
	for (size_t i = 0; i < c->ndisputes; i++)
		cache_put_record(b, &dispute_rec, &c->disputes[i]);
}

static struct chip *
get_chip(struct cache_rd *r)
{
	struct chip *c = cache_get_new(r, &chip_rec);

	c->nmatmul = cache_get_count(r, 12);
	c->matmul = xcalloc(c->nmatmul + 1, sizeof(*c->matmul));
	for (size_t i = 0; i < c->nmatmul && !r->bad; i++)
		cache_get_record(r, &matmul_rec, &c->matmul[i]);
	c->ndisputes = cache_get_count(r, 16);
	c->disputes = xcalloc(c->ndisputes + 1, sizeof(*c->disputes));
	for (size_t i = 0; i < c->ndisputes && !r->bad; i++)
		cache_get_record(r, &dispute_rec, &c->disputes[i]);
	return c;
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
	for (size_t i = 0; i < t->ndtypes; i++)
		cache_put_record(b, &dtype_rec, t->dtypes[i]);
	cache_put_u32(b, (uint32_t)t->ngpus);
	for (size_t i = 0; i < t->ngpus; i++)
		cache_put_record(b, &gpu_rec, t->gpus[i]);
}

struct chiptab *
cache_get_chips(struct cache_rd *r)
{
	struct chiptab *t;

	if (!get_present(r))
		return NULL;
	t = xcalloc(1, sizeof(*t));
	CACHE_GET_TABLE(r, 64, t->chips, t->nchips, t->alloc_chips, get_chip(r));
	CACHE_GET_TABLE(r, 24, t->dtypes, t->ndtypes, t->alloc_dtypes, cache_get_new(r, &dtype_rec));
	CACHE_GET_TABLE(r, 64, t->gpus, t->ngpus, t->alloc_gpus, cache_get_new(r, &gpu_rec));
	return t;
}

/* --- the JAX API table --- */

static const struct cache_field api_name_fields[] = {
	CF_NEED(struct api_name, name), CF_STR(struct api_name, render),
	CF_RANGE(struct api_name, since), CF_RANGE(struct api_name, removed),
	CF_STR(struct api_name, deprecated), CF_STR(struct api_name, replaced_by),
	CF_STR(struct api_name, since_at), CF_STR(struct api_name, deprecated_at),
	CF_STR(struct api_name, removed_at), CF_STR(struct api_name, call),
	CF_STR(struct api_name, instead), CF_STR(struct api_name, undecided),
	CF_STR(struct api_name, source), CF_STR(struct api_name, note),
	CF_NEED(struct api_name, file), CF_INT(struct api_name, line), CF_INT(struct api_name, col),
};
static const struct cache_field api_gap_fields[] = {
	CF_NEED(struct api_gap, id), CF_NEED(struct api_gap, what),
	CF_RANGE(struct api_gap, closed_in), CF_STR(struct api_gap, closed_at),
	CF_STR(struct api_gap, undecided), CF_NEED(struct api_gap, source),
	CF_STR(struct api_gap, file), CF_INT(struct api_gap, line),
};
static const struct cache_record api_name_rec = CACHE_RECORD(struct api_name, api_name_fields);
static const struct cache_record api_gap_rec = CACHE_RECORD(struct api_gap, api_gap_fields);

/* The `when` pairs are two parallel lists, so they are written outside the table. */
static void
put_api_gap(struct buf *b, const struct api_gap *g)
{
	cache_put_record(b, &api_gap_rec, g);
	cache_put_u32(b, (uint32_t)g->nwhen);
	for (size_t k = 0; k < g->nwhen; k++) {
		cache_put_str(b, g->when_names[k]);
		cache_put_strv(b, g->when_values[k]);
	}
}

static struct api_gap *
get_api_gap(struct cache_rd *r)
{
	struct api_gap *g = cache_get_new(r, &api_gap_rec);

	g->nwhen = cache_get_count(r, 8);
	g->when_names = xcalloc(g->nwhen + 1, sizeof(*g->when_names));
	g->when_values = xcalloc(g->nwhen + 1, sizeof(*g->when_values));
	for (size_t k = 0; k < g->nwhen && !r->bad; k++) {
		g->when_names[k] = cache_get_str(r);
		g->when_values[k] = cache_get_strv_nonnull(r);
		if (!g->when_names[k])
			r->bad = true;
	}
	if (!g->closed_in.set)
		r->bad = true;
	return g;
}

/* The release list as text, parsed again on the way in: one parser for both. */
static void
put_releases(struct buf *b, const struct jaxapi *t)
{
	char **v = xcalloc(t->nreleases + 1, sizeof(*v));

	for (size_t i = 0; i < t->nreleases; i++) {
		char s[24];

		jaxver_format(&t->releases[i], s, sizeof(s));
		v[i] = xstrdup(s);
	}
	cache_put_strv(b, v);
	strv_free(v);
	cache_put_str(b, t->releases_source);
	cache_put_str(b, t->releases_file);
	cache_put_u32(b, (uint32_t)t->releases_line);
}

static void
get_releases(struct cache_rd *r, struct jaxapi *t)
{
	char **v = cache_get_strv(r);
	size_t n = 0;

	while (v && v[n])
		n++;
	t->releases = n ? xcalloc(n, sizeof(*t->releases)) : NULL;
	for (size_t i = 0; i < n; i++)
		if (jaxver_parse(v[i], &t->releases[i]) < 0)
			r->bad = true;
	t->nreleases = n;
	strv_free(v);
	t->releases_source = cache_get_str(r);
	t->releases_file = cache_get_str(r);
	t->releases_line = (int)cache_get_u32(r);
}

void
cache_put_api(struct buf *b, const struct jaxapi *t)
{
	if (!t) {
		cache_put_u32(b, CACHE_NONE);
		return;
	}
	cache_put_u32(b, (uint32_t)t->nnames);
	for (size_t i = 0; i < t->nnames; i++)
		cache_put_record(b, &api_name_rec, t->names[i]);
	cache_put_u32(b, (uint32_t)t->ngaps);
	for (size_t i = 0; i < t->ngaps; i++)
		put_api_gap(b, t->gaps[i]);
	put_releases(b, t);
}

struct jaxapi *
cache_get_api(struct cache_rd *r)
{
	struct jaxapi *t;

	if (!get_present(r))
		return NULL;
	t = xcalloc(1, sizeof(*t));
	CACHE_GET_TABLE(r, 36, t->names, t->nnames, t->alloc_names, cache_get_new(r, &api_name_rec));
	CACHE_GET_TABLE(r, 28, t->gaps, t->ngaps, t->alloc_gaps, get_api_gap(r));
	get_releases(r, t);
	return t;
}
