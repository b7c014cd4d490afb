/* SPDX-License-Identifier: MIT */
/*
 * The ruleset cache; see pt/rules_cache.h. The format is private to one
 * build of the tool: a magic, the key, then the ruleset as length-prefixed
 * fields in a fixed order (pt/rules_cache_io.h), then a checksum. The
 * reader checks every length against what is left, so a truncated or
 * corrupt file is only ever a miss.
 *
 * The key holds PT_SOURCE_HASH, a hash of every source file and header the
 * binary was built from (the Makefile computes it into source_hash.h), not
 * a version number bumped by hand: a struct that gains a field, a
 * serializer that writes it, a change to literal extraction that the
 * cached literals depend on, all change the key, and the first run after
 * the rebuild reads the YAML again (about 20 ms) and rewrites the cache.
 * tests/unit/test_rules_cache.c checks that a save and a load give back
 * every field.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt/buf.h"
#include "pt/chips.h"
#include "pt/jaxapi.h"
#include "pt/match.h"
#include "pt/rules_cache.h"
#include "pt/rules_cache_io.h"
#include "pt/util.h"
#include "pt/xalloc.h"

#include "source_hash.h"

#define CACHE_MAX (64u << 20)

/* --- the ruleset --- */

static void
put_pattern(struct buf *b, const struct pattern *p)
{
	cache_put_str(b, p->src);
	cache_put_u32(b, p->role);
	cache_put_u32(b, (uint32_t)p->line);
	cache_put_u32(b, (uint32_t)p->col);
	cache_put_strv(b, p->lits);
}

static struct pattern *
get_pattern(struct cache_rd *r)
{
	struct pattern *p = xcalloc(1, sizeof(*p));

	p->src = cache_get_str(r);
	p->role = (enum pat_role)cache_get_u32(r);
	p->line = (int)cache_get_u32(r);
	p->col = (int)cache_get_u32(r);
	p->lits = cache_get_strv(r);
	if (!p->src || p->role > PAT_NONE)
		r->bad = true;
	return p;
}

static void
put_rule(struct buf *b, const struct rule *ru)
{
	cache_put_str(b, ru->id);
	cache_put_u32(b, ru->cls);
	cache_put_str(b, ru->subkind);
	cache_put_u32(b, ru->stage);
	cache_put_u32(b, (uint32_t)ru->weight);
	cache_put_u32(b, ru->overrides);
	cache_put_strv(b, ru->literals);
	cache_put_str(b, ru->message);
	cache_put_str(b, ru->explain);
	cache_put_strv(b, ru->links);
	cache_put_str(b, ru->file);
	cache_put_u32(b, (uint32_t)ru->line);
	cache_put_str(b, ru->origin);
	cache_put_u32(b, ru->tier);
	cache_put_strv(b, ru->requires);
	cache_put_strv(b, ru->excludes);
	cache_put_u32(b, (uint32_t)ru->npats);
	for (size_t i = 0; i < ru->npats; i++)
		put_pattern(b, ru->pats[i]);
}

static struct rule *
get_rule(struct cache_rd *r)
{
	struct rule *ru = xcalloc(1, sizeof(*ru));

	ru->id = cache_get_str(r);
	ru->cls = (enum pt_class)cache_get_u32(r);
	ru->subkind = cache_get_str(r);
	ru->stage = (enum stage)cache_get_u32(r);
	ru->weight = (int)cache_get_u32(r);
	ru->overrides = cache_get_u32(r) != 0;
	ru->literals = cache_get_strv(r);
	ru->message = cache_get_str(r);
	ru->explain = cache_get_str(r);
	ru->links = cache_get_strv(r);
	ru->file = cache_get_str(r);
	ru->line = (int)cache_get_u32(r);
	ru->origin = cache_get_str(r);
	ru->tier = (enum rule_tier)cache_get_u32(r);
	ru->requires = cache_get_strv(r);
	ru->excludes = cache_get_strv(r);
	ru->npats = cache_get_count(r, 20);
	ru->pats = xcalloc(ru->npats + 1, sizeof(*ru->pats));
	for (size_t i = 0; i < ru->npats && !r->bad; i++) {
		struct pattern *p = ru->pats[i] = get_pattern(r);

		p->rule = ru;
		ru->nany += p->role == PAT_ANY;
		ru->nall += p->role == PAT_ALL;
		ru->nnone += p->role == PAT_NONE;
	}
	if (!ru->id || !ru->message || !ru->file || ru->cls >= CLASS_COUNT || ru->tier > TIER_OBSERVED)
		r->bad = true;
	return ru;
}

static void
put_rung(struct buf *b, const struct rung *g)
{
	cache_put_str(b, g->id);
	cache_put_str(b, g->family);
	cache_put_str(b, g->action);
	cache_put_str(b, g->change);
	cache_put_str(b, g->fallback);
	cache_put_str(b, g->expect);
	cache_put_strv(b, g->requires);
	cache_put_strv(b, g->unless);
	cache_put_strv(b, g->subkinds);
	cache_put_strv(b, g->flags);
	cache_put_strv(b, g->backends);
	cache_put_str(b, g->file);
	cache_put_u32(b, (uint32_t)g->line);
	cache_put_u32(b, (uint32_t)g->col);
}

static void
get_rung(struct cache_rd *r, struct rung *g, size_t index)
{
	g->index = index;
	g->id = cache_get_str(r);
	g->family = cache_get_str(r);
	g->action = cache_get_str(r);
	g->change = cache_get_str(r);
	g->fallback = cache_get_str(r);
	g->expect = cache_get_str(r);
	g->requires = cache_get_strv(r);
	g->unless = cache_get_strv(r);
	g->subkinds = cache_get_strv(r);
	g->flags = cache_get_strv(r);
	g->backends = cache_get_strv(r);
	g->file = cache_get_str(r);
	g->line = (int)cache_get_u32(r);
	g->col = (int)cache_get_u32(r);
	if (!g->id || !g->action || !g->expect)
		r->bad = true;
}

/* Contexts without their examples: `rules test` reads the files. */
static void
put_contexts(struct buf *b, const struct ruleset *rs)
{
	cache_put_u32(b, (uint32_t)rs->ncontexts);
	for (size_t i = 0; i < rs->ncontexts; i++) {
		const struct context_def *cx = &rs->contexts[i];

		cache_put_str(b, cx->id);
		cache_put_str(b, cx->summary);
		cache_put_str(b, cx->missing);
		cache_put_u32(b, (uint32_t)cx->threshold);
		cache_put_strv(b, cx->requires);
		cache_put_strv(b, cx->excludes);
		cache_put_strv(b, cx->implied_by);
		cache_put_strv(b, cx->sets);
		cache_put_str(b, cx->file);
		cache_put_u32(b, (uint32_t)cx->line);
		cache_put_u32(b, (uint32_t)cx->npats);
		for (size_t k = 0; k < cx->npats; k++) {
			cache_put_u32(b, (uint32_t)cx->weights[k]);
			put_pattern(b, cx->pats[k]);
		}
	}
	cache_put_str(b, rs->policy.kernel_context);
	cache_put_u32(b, (uint32_t)rs->policy.without_context_max);
	cache_put_u32(b, (uint32_t)rs->policy.fallback_max);
}

static void
get_context(struct cache_rd *r, struct context_def *cx, size_t index)
{
	cx->index = index;
	cx->id = cache_get_str(r);
	cx->summary = cache_get_str(r);
	cx->missing = cache_get_str(r);
	cx->threshold = (int)cache_get_u32(r);
	cx->requires = cache_get_strv(r);
	cx->excludes = cache_get_strv(r);
	cx->implied_by = cache_get_strv(r);
	cx->sets = cache_get_strv(r);
	cx->file = cache_get_str(r);
	cx->line = (int)cache_get_u32(r);
	cx->npats = cache_get_count(r, 24);
	cx->pats = xcalloc(cx->npats + 1, sizeof(*cx->pats));
	cx->weights = xcalloc(cx->npats + 1, sizeof(*cx->weights));
	for (size_t k = 0; k < cx->npats && !r->bad; k++) {
		cx->weights[k] = (int)cache_get_u32(r);
		cx->pats[k] = get_pattern(r);
		if (cx->weights[k] < 1 || cx->weights[k] > 100)
			r->bad = true;
	}
	if (!cx->id || !cx->summary || !cx->file || cx->threshold < 1 || cx->threshold > 100)
		r->bad = true;
}

static void
get_contexts(struct cache_rd *r, struct ruleset *rs)
{
	rs->ncontexts = rs->alloc_contexts = cache_get_count(r, 32);
	rs->contexts = xcalloc(rs->ncontexts + 1, sizeof(*rs->contexts));
	for (size_t i = 0; i < rs->ncontexts && !r->bad; i++)
		get_context(r, &rs->contexts[i], i);
	rs->policy.kernel_context = cache_get_str(r);
	rs->policy.without_context_max = (int)cache_get_u32(r);
	rs->policy.fallback_max = (int)cache_get_u32(r);
}

static void
put_sections(struct buf *b, const struct ruleset *rs)
{
	for (int c = 0; c < CLASS_COUNT; c++) {
		const struct class_def *cd = &rs->classes[c];
		const struct ladder *l = &rs->ladders[c];

		cache_put_u32(b, rs->have_class[c]);
		cache_put_str(b, cd->title);
		cache_put_str(b, cd->summary);
		cache_put_str(b, cd->interpret);
		cache_put_str(b, cd->interpret_note);
		cache_put_str(b, cd->gpu_interpret_note);
		cache_put_str(b, cd->explain);
		cache_put_strv(b, cd->next_steps);
		cache_put_u32(b, (uint32_t)l->nrungs);
		for (size_t i = 0; i < l->nrungs; i++)
			put_rung(b, &l->rungs[i]);
	}
	cache_put_u32(b, (uint32_t)rs->nflags);
	for (size_t i = 0; i < rs->nflags; i++) {
		cache_put_str(b, rs->flags[i].id);
		cache_put_str(b, rs->flags[i].snippet);
		cache_put_str(b, rs->flags[i].why);
		cache_put_str(b, rs->flags[i].file);
		cache_put_u32(b, (uint32_t)rs->flags[i].line);
		cache_put_u32(b, (uint32_t)rs->flags[i].col);
	}
	cache_put_u32(b, (uint32_t)rs->ncodes);
	for (size_t i = 0; i < rs->ncodes; i++) {
		cache_put_str(b, rs->codes[i].code);
		cache_put_str(b, rs->codes[i].name);
		cache_put_str(b, rs->codes[i].summary);
		cache_put_str(b, rs->codes[i].link);
		cache_put_u32(b, rs->codes[i].cls);
	}
	cache_put_u32(b, (uint32_t)rs->nfacts);
	for (size_t i = 0; i < rs->nfacts; i++) {
		cache_put_str(b, rs->facts[i].id);
		cache_put_str(b, rs->facts[i].sets);
		cache_put_str(b, rs->facts[i].file);
		cache_put_strv(b, rs->facts[i].examples);
		put_pattern(b, rs->facts[i].pat);
	}
	put_contexts(b, rs);
	cache_put_u32(b, (uint32_t)rs->nfiles);	/* rs->files is counted, not NULL-terminated */
	for (size_t i = 0; i < rs->nfiles; i++)
		cache_put_str(b, rs->files[i]);
}

static void
get_sections(struct cache_rd *r, struct ruleset *rs)
{
	for (int c = 0; c < CLASS_COUNT && !r->bad; c++) {
		struct class_def *cd = &rs->classes[c];
		struct ladder *l = &rs->ladders[c];

		rs->have_class[c] = cache_get_u32(r) != 0;
		cd->title = cache_get_str(r);
		cd->summary = cache_get_str(r);
		cd->interpret = cache_get_str(r);
		cd->interpret_note = cache_get_str(r);
		cd->gpu_interpret_note = cache_get_str(r);
		cd->explain = cache_get_str(r);
		cd->next_steps = cache_get_strv(r);
		l->nrungs = cache_get_count(r, 36);
		l->rungs = xcalloc(l->nrungs + 1, sizeof(*l->rungs));
		for (size_t i = 0; i < l->nrungs && !r->bad; i++)
			get_rung(r, &l->rungs[i], i);
	}
	rs->nflags = rs->alloc_flags = cache_get_count(r, 12);
	rs->flags = xcalloc(rs->nflags + 1, sizeof(*rs->flags));
	for (size_t i = 0; i < rs->nflags && !r->bad; i++) {
		rs->flags[i].id = cache_get_str(r);
		rs->flags[i].snippet = cache_get_str(r);
		rs->flags[i].why = cache_get_str(r);
		rs->flags[i].file = cache_get_str(r);
		rs->flags[i].line = (int)cache_get_u32(r);
		rs->flags[i].col = (int)cache_get_u32(r);
	}
	rs->ncodes = rs->alloc_codes = cache_get_count(r, 20);
	rs->codes = xcalloc(rs->ncodes + 1, sizeof(*rs->codes));
	for (size_t i = 0; i < rs->ncodes && !r->bad; i++) {
		rs->codes[i].code = cache_get_str(r);
		rs->codes[i].name = cache_get_str(r);
		rs->codes[i].summary = cache_get_str(r);
		rs->codes[i].link = cache_get_str(r);
		rs->codes[i].cls = (enum pt_class)cache_get_u32(r);
	}
	rs->nfacts = rs->alloc_facts = cache_get_count(r, 32);
	rs->facts = xcalloc(rs->nfacts + 1, sizeof(*rs->facts));
	for (size_t i = 0; i < rs->nfacts && !r->bad; i++) {
		rs->facts[i].id = cache_get_str(r);
		rs->facts[i].sets = cache_get_str(r);
		rs->facts[i].file = cache_get_str(r);
		rs->facts[i].examples = cache_get_strv(r);
		rs->facts[i].pat = get_pattern(r);
		if (!rs->facts[i].id || !rs->facts[i].sets)
			r->bad = true;
	}
	get_contexts(r, rs);
	rs->alloc_files = cache_get_count(r, 4);
	rs->files = xcalloc(rs->alloc_files + 1, sizeof(*rs->files));
	for (; rs->nfiles < rs->alloc_files && !r->bad; rs->nfiles++)
		rs->files[rs->nfiles] = cache_get_str(r);
}

/* --- the compiled patterns --- */

/* Compiled code, in ruleset->patterns order: decoding it is about twenty
 * times faster than compiling every pattern again. */
static void
put_code(struct buf *b, const struct ruleset *rs)
{
	struct match **ms = xcalloc(rs->npatterns + 1, sizeof(*ms));
	size_t at;
	uint32_t len;

	for (size_t i = 0; i < rs->npatterns; i++)
		ms[i] = rs->patterns[i]->m;
	cache_put_u32(b, (uint32_t)rs->npatterns);
	at = b->len;
	cache_put_u32(b, 0);
	match_serialize(ms, rs->npatterns, b);
	len = (uint32_t)(b->len - at - 4);
	memcpy(b->data + at, &len, sizeof(len));
	free(ms);
}

struct code_blob {
	uint32_t n, len;
	const char *data;
};

static void
get_code(struct cache_rd *r, struct code_blob *c)
{
	c->n = cache_get_u32(r);
	c->len = cache_get_u32(r);
	if (r->bad || (size_t)(r->end - r->p) < c->len) {
		r->bad = true;
		return;
	}
	c->data = r->p;
	r->p += c->len;
}

/* After ruleset_finish(): every pattern gets its compiled code. */
static int
attach_code(struct ruleset *rs, const struct code_blob *c)
{
	struct match **ms;

	if (c->n != rs->npatterns)
		return -1;
	ms = xcalloc(rs->npatterns + 1, sizeof(*ms));
	if (match_deserialize(ms, rs->npatterns, c->data, c->len) < 0) {
		free(ms);
		return -1;
	}
	for (size_t i = 0; i < rs->npatterns; i++)
		rs->patterns[i]->m = ms[i];
	free(ms);
	return 0;
}

/* --- key, file, load, save --- */

/*
 * FNV-1a over 8-byte words, then over the bytes left: a change to any one
 * word always changes the sum (each step is a bijection of it), and at a
 * word a step it reads the 300 KB of a cache about eight times faster than
 * byte-wise FNV-1a, which cost a tenth of a millisecond of the 2 KB run.
 */
uint64_t
rules_cache_checksum(const void *data, size_t n)
{
	const char *p = data;
	uint64_t h = UTIL_FNV1A_INIT, w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	return util_fnv1a(h, p + i, n - i);
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

	buf_addf(&key, "pallas-triage %s %s\n", PT_VERSION, PT_SOURCE_HASH);
	for (; *dirs; dirs++)
		key_dir(&key, *dirs);
	return buf_detach(&key, NULL);
}

/* One file per set of directories (the key's "dir" lines), so a stale cache is replaced. */
static char *
cache_path(const char *key, char **dir_out)
{
	uint64_t h = UTIL_FNV1A_INIT;
	char *dir;

	for (const char *line = key; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strncmp(line, "dir ", 4) == 0)
			h = util_fnv1a(h, line + 4, strcspn(line + 4, "\n"));
	if (!(dir = util_xdg_dir("XDG_CACHE_HOME", ".cache", NULL)))
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
	struct cache_rd r;
	char *stored = NULL;
	struct code_blob code = { 0, 0, NULL };
	uint32_t n;

	if (!(path = cache_path(key, &dir)))
		return NULL;
	if (util_read_file(path, &data, CACHE_MAX, NULL) < 0 || data.len < 16 ||
	    memcmp(data.data, RULES_CACHE_MAGIC, 8) != 0)
		goto miss;
	r.p = data.data + 8;
	r.end = data.data + data.len - 8;
	{
		uint64_t want;

		memcpy(&want, r.end, 8);
		if (rules_cache_checksum(r.p, (size_t)(r.end - r.p)) != want)
			goto miss;
	}
	r.bad = false;
	if (!(stored = cache_get_str(&r)) || strcmp(stored, key) != 0)
		goto miss;
	rs = ruleset_new();
	rs->from_cache = true;
	n = cache_get_count(&r, 64);
	rs->rules = xcalloc((size_t)n + 1, sizeof(*rs->rules));
	rs->alloc_rules = n;
	for (; rs->nrules < n && !r.bad; rs->nrules++) {
		rs->rules[rs->nrules] = get_rule(&r);
		rs->rules[rs->nrules]->index = rs->nrules;
	}
	get_sections(&r, rs);
	rs->chips = cache_get_chips(&r);
	rs->api = cache_get_api(&r);
	get_code(&r, &code);
	if (r.bad || r.p != r.end || ruleset_finish(rs, &d) < 0 || attach_code(rs, &code) < 0)
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

	if (!(path = cache_path(key, &dir)))
		return -1;
	buf_add(&b, RULES_CACHE_MAGIC, 8);
	cache_put_str(&b, key);
	cache_put_u32(&b, (uint32_t)rs->nrules);
	for (size_t i = 0; i < rs->nrules; i++)
		put_rule(&b, rs->rules[i]);
	put_sections(&b, rs);
	cache_put_chips(&b, rs->chips);
	cache_put_api(&b, rs->api);
	put_code(&b, rs);
	cache_put_u64(&b, rules_cache_checksum(b.data + 8, b.len - 8));
	if (util_mkdirs(dir, NULL) == 0 && util_write_atomic(path, b.data, b.len, NULL) == 0)
		ret = 0;
	buf_release(&b);
	free(path);
	free(dir);
	return ret;
}
