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
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt/buf.h"
#include "pt/checktab.h"
#include "pt/chips.h"
#include "pt/jaxapi.h"
#include "pt/linematch.h"
#include "pt/litset.h"
#include "pt/match.h"
#include "pt/rules_cache.h"
#include "pt/rules_cache_io.h"
#include "pt/util.h"
#include "pt/xalloc.h"

#include "source_hash.h"

#define CACHE_MAX (64u << 20)

/* --- the ruleset --- */

/*
 * Each record's fields in cache order (pt/rules_cache_io.h); enums, counts
 * and nested records follow them, written and read by hand.
 */
static const struct cache_field pattern_fields[] = {
	CF_NEED(struct pattern, src), CF_INT(struct pattern, line), CF_INT(struct pattern, col),
	CF_STRV(struct pattern, lits), CF_STRV(struct pattern, ahead), CF_STRV(struct pattern, also),
};
static const struct cache_field rule_fields[] = {
	CF_NEED(struct rule, id), CF_STR(struct rule, subkind), CF_INT(struct rule, weight),
	CF_STRV(struct rule, literals), CF_NEED(struct rule, message), CF_STR(struct rule, explain),
	CF_STRV(struct rule, links), CF_NEED(struct rule, file), CF_INT(struct rule, line),
	CF_STR(struct rule, origin), CF_STRV(struct rule, requires), CF_STRV(struct rule, excludes),
	CF_STRV(struct rule, refine),
};
static const struct cache_field rung_fields[] = {
	CF_NEED(struct rung, id), CF_STR(struct rung, family), CF_NEED(struct rung, action),
	CF_STR(struct rung, change), CF_STR(struct rung, fallback), CF_NEED(struct rung, expect),
	CF_STRV(struct rung, requires), CF_STRV(struct rung, unless), CF_STRV(struct rung, subkinds),
	CF_STRV(struct rung, flags), CF_STRV(struct rung, backends), CF_STR(struct rung, hypothesis),
	CF_STR(struct rung, file), CF_INT(struct rung, line), CF_INT(struct rung, col),
};
/* Contexts without their examples: `rules test` reads the files. */
static const struct cache_field context_fields[] = {
	CF_NEED(struct context_def, id), CF_NEED(struct context_def, summary),
	CF_STR(struct context_def, missing), CF_INT(struct context_def, threshold),
	CF_STRV(struct context_def, requires), CF_STRV(struct context_def, excludes),
	CF_STRV(struct context_def, implied_by), CF_STRV(struct context_def, sets),
	CF_NEED(struct context_def, file), CF_INT(struct context_def, line),
};
static const struct cache_field policy_fields[] = {
	CF_STR(struct confidence_policy, kernel_context),
	CF_INT(struct confidence_policy, without_context_max),
	CF_INT(struct confidence_policy, fallback_max),
};
_Static_assert(OUTCOME_COUNT == 2, "class_fields lists one rules_out, moves_to, keeps per outcome");
static const struct cache_field class_fields[] = {
	CF_STR(struct class_def, title), CF_STR(struct class_def, summary),
	CF_STR(struct class_def, interpret), CF_STR(struct class_def, interpret_note),
	CF_STR(struct class_def, gpu_interpret_note), CF_STR(struct class_def, explain),
	CF_STRV(struct class_def, next_steps),
	CF_STRV(struct class_def, rules_out[OUTCOME_REPRODUCES]),
	CF_STRV(struct class_def, rules_out[OUTCOME_NO_REPRO]),
	CF_STRV(struct class_def, moves_to[OUTCOME_REPRODUCES]),
	CF_STRV(struct class_def, moves_to[OUTCOME_NO_REPRO]),
	CF_STR(struct class_def, keeps[OUTCOME_REPRODUCES]),
	CF_STR(struct class_def, keeps[OUTCOME_NO_REPRO]),
	CF_STRV(struct class_def, undecided), CF_STRV(struct class_def, explanations),
	CF_STRV(struct class_def, more_info), CF_STRV(struct class_def, fingerprint),
	CF_STRV(struct class_def, next_steps_run),
};
static const struct cache_field flag_fields[] = {
	CF_STR(struct flag_def, id), CF_STR(struct flag_def, snippet), CF_STR(struct flag_def, why),
	CF_STR(struct flag_def, file), CF_INT(struct flag_def, line), CF_INT(struct flag_def, col),
};
static const struct cache_field code_fields[] = {
	CF_STR(struct code_def, code), CF_STR(struct code_def, name),
	CF_STR(struct code_def, summary), CF_STR(struct code_def, link),
};
static const struct cache_field fact_fields[] = {
	CF_NEED(struct fact_def, id), CF_NEED(struct fact_def, sets), CF_STR(struct fact_def, file),
	CF_STRV(struct fact_def, examples),
};
static const struct cache_field run_text_fields[] = {
	CF_LIST(struct run_text, when), CF_NEED(struct run_text, text),
	CF_STR(struct run_text, rules_out), CF_STR(struct run_text, reason),
	CF_NEED(struct run_text, file), CF_INT(struct run_text, line),
};
static const struct cache_field run_pass_fields[] = {
	CF_STRV(struct run_pass, rules), CF_STR(struct run_pass, max_abs),
	CF_STR(struct run_pass, max_rel), CF_STR(struct run_pass, file),
};
static const struct cache_record pattern_rec = CACHE_RECORD(struct pattern, pattern_fields);
static const struct cache_record rule_rec = CACHE_RECORD(struct rule, rule_fields);
static const struct cache_record rung_rec = CACHE_RECORD(struct rung, rung_fields);
static const struct cache_record context_rec = CACHE_RECORD(struct context_def, context_fields);
static const struct cache_record policy_rec = CACHE_RECORD(struct confidence_policy, policy_fields);
static const struct cache_record class_rec = CACHE_RECORD(struct class_def, class_fields);
static const struct cache_record flag_rec = CACHE_RECORD(struct flag_def, flag_fields);
static const struct cache_record code_rec = CACHE_RECORD(struct code_def, code_fields);
static const struct cache_record fact_rec = CACHE_RECORD(struct fact_def, fact_fields);
static const struct cache_record run_text_rec = CACHE_RECORD(struct run_text, run_text_fields);
static const struct cache_record run_pass_rec = CACHE_RECORD(struct run_pass, run_pass_fields);

static void
put_pattern(struct buf *b, const struct pattern *p)
{
	cache_put_record(b, &pattern_rec, p);
	cache_put_u32(b, p->role);
}

static struct pattern *
get_pattern(struct cache_rd *r)
{
	struct pattern *p = cache_get_new(r, &pattern_rec);

	p->role = (enum pat_role)cache_get_u32(r);
	if (p->role > PAT_CAPTURE)
		r->bad = true;
	return p;
}

static void
put_rule(struct buf *b, const struct rule *ru)
{
	cache_put_record(b, &rule_rec, ru);
	cache_put_u32(b, ru->cls);
	cache_put_u32(b, ru->stage);
	cache_put_u32(b, ru->overrides);
	cache_put_u32(b, ru->tier);
	cache_put_u32(b, (uint32_t)ru->npats);
	for (size_t i = 0; i < ru->npats; i++)
		put_pattern(b, ru->pats[i]);
}

static struct rule *
get_rule(struct cache_rd *r, size_t index)
{
	struct rule *ru = cache_get_new(r, &rule_rec);

	ru->index = index;
	ru->cls = (enum pt_class)cache_get_u32(r);
	ru->stage = (enum stage)cache_get_u32(r);
	ru->overrides = cache_get_u32(r) != 0;
	ru->tier = (enum rule_tier)cache_get_u32(r);
	ru->npats = cache_get_count(r, 20);
	ru->pats = xcalloc(ru->npats + 1, sizeof(*ru->pats));
	for (size_t i = 0; i < ru->npats && !r->bad; i++) {
		struct pattern *p = ru->pats[i] = get_pattern(r);

		p->rule = ru;
		ru->nany += p->role == PAT_ANY;
		ru->nall += p->role == PAT_ALL;
		ru->nnone += p->role == PAT_NONE;
	}
	if (ru->cls >= CLASS_COUNT || ru->tier > TIER_OBSERVED)
		r->bad = true;
	return ru;
}

static void
put_contexts(struct buf *b, const struct ruleset *rs)
{
	cache_put_u32(b, (uint32_t)rs->ncontexts);
	for (size_t i = 0; i < rs->ncontexts; i++) {
		const struct context_def *cx = &rs->contexts[i];

		cache_put_record(b, &context_rec, cx);
		cache_put_u32(b, (uint32_t)cx->npats);
		for (size_t k = 0; k < cx->npats; k++) {
			cache_put_u32(b, (uint32_t)cx->weights[k]);
			put_pattern(b, cx->pats[k]);
		}
	}
	cache_put_record(b, &policy_rec, &rs->policy);
}

static void
get_context(struct cache_rd *r, struct context_def *cx, size_t index)
{
	cache_get_record(r, &context_rec, cx);
	cx->index = index;
	cx->npats = cache_get_count(r, 24);
	cx->pats = xcalloc(cx->npats + 1, sizeof(*cx->pats));
	cx->weights = xcalloc(cx->npats + 1, sizeof(*cx->weights));
	for (size_t k = 0; k < cx->npats && !r->bad; k++) {
		cx->weights[k] = (int)cache_get_u32(r);
		cx->pats[k] = get_pattern(r);
		if (cx->weights[k] < 1 || cx->weights[k] > 100)
			r->bad = true;
	}
	if (cx->threshold < 1 || cx->threshold > 100)
		r->bad = true;
}

static void
get_contexts(struct cache_rd *r, struct ruleset *rs)
{
	rs->ncontexts = rs->alloc_contexts = cache_get_count(r, 32);
	rs->contexts = xcalloc(rs->ncontexts + 1, sizeof(*rs->contexts));
	for (size_t i = 0; i < rs->ncontexts && !r->bad; i++)
		get_context(r, &rs->contexts[i], i);
	cache_get_record(r, &policy_rec, &rs->policy);
}

static void
put_sections(struct buf *b, const struct ruleset *rs)
{
	for (int c = 0; c < CLASS_COUNT; c++) {
		const struct ladder *l = &rs->ladders[c];

		cache_put_u32(b, rs->have_class[c]);
		cache_put_record(b, &class_rec, &rs->classes[c]);
		cache_put_u32(b, (uint32_t)l->nrungs);
		for (size_t i = 0; i < l->nrungs; i++)
			cache_put_record(b, &rung_rec, &l->rungs[i]);
	}
	cache_put_u32(b, (uint32_t)rs->nflags);
	for (size_t i = 0; i < rs->nflags; i++)
		cache_put_record(b, &flag_rec, &rs->flags[i]);
	cache_put_u32(b, (uint32_t)rs->ncodes);
	for (size_t i = 0; i < rs->ncodes; i++) {
		cache_put_record(b, &code_rec, &rs->codes[i]);
		cache_put_u32(b, rs->codes[i].cls);
	}
	cache_put_u32(b, (uint32_t)rs->nfacts);
	for (size_t i = 0; i < rs->nfacts; i++) {
		cache_put_record(b, &fact_rec, &rs->facts[i]);
		put_pattern(b, rs->facts[i].pat);
	}
	put_contexts(b, rs);
	cache_put_u32(b, (uint32_t)rs->nrun_texts);
	for (size_t i = 0; i < rs->nrun_texts; i++)
		cache_put_record(b, &run_text_rec, &rs->run_texts[i]);
	cache_put_record(b, &run_pass_rec, &rs->run_pass);
	cache_put_u32(b, (uint32_t)rs->nfiles);	/* rs->files is counted, not NULL-terminated */
	for (size_t i = 0; i < rs->nfiles; i++)
		cache_put_str(b, rs->files[i]);
	cache_put_strv(b, rs->more_info);
}

static void
get_sections(struct cache_rd *r, struct ruleset *rs)
{
	for (int c = 0; c < CLASS_COUNT && !r->bad; c++) {
		struct ladder *l = &rs->ladders[c];

		rs->have_class[c] = cache_get_u32(r) != 0;
		cache_get_record(r, &class_rec, &rs->classes[c]);
		l->nrungs = cache_get_count(r, 36);
		l->rungs = xcalloc(l->nrungs + 1, sizeof(*l->rungs));
		for (size_t i = 0; i < l->nrungs && !r->bad; i++) {
			cache_get_record(r, &rung_rec, &l->rungs[i]);
			l->rungs[i].index = i;
		}
	}
	rs->nflags = rs->alloc_flags = cache_get_count(r, 12);
	rs->flags = xcalloc(rs->nflags + 1, sizeof(*rs->flags));
	for (size_t i = 0; i < rs->nflags && !r->bad; i++)
		cache_get_record(r, &flag_rec, &rs->flags[i]);
	rs->ncodes = rs->alloc_codes = cache_get_count(r, 20);
	rs->codes = xcalloc(rs->ncodes + 1, sizeof(*rs->codes));
	for (size_t i = 0; i < rs->ncodes && !r->bad; i++) {
		cache_get_record(r, &code_rec, &rs->codes[i]);
		rs->codes[i].cls = (enum pt_class)cache_get_u32(r);
	}
	rs->nfacts = rs->alloc_facts = cache_get_count(r, 32);
	rs->facts = xcalloc(rs->nfacts + 1, sizeof(*rs->facts));
	for (size_t i = 0; i < rs->nfacts && !r->bad; i++) {
		cache_get_record(r, &fact_rec, &rs->facts[i]);
		rs->facts[i].pat = get_pattern(r);
	}
	get_contexts(r, rs);
	rs->nrun_texts = rs->alloc_run_texts = cache_get_count(r, 24);
	rs->run_texts = xcalloc(rs->nrun_texts + 1, sizeof(*rs->run_texts));
	for (size_t i = 0; i < rs->nrun_texts && !r->bad; i++)
		cache_get_record(r, &run_text_rec, &rs->run_texts[i]);
	cache_get_record(r, &run_pass_rec, &rs->run_pass);
	CACHE_GET_TABLE(r, 4, rs->files, rs->nfiles, rs->alloc_files, cache_get_str(r));
	rs->more_info = cache_get_strv(r);
}

/* --- the compiled patterns --- */

/* A blob's length, written once the bytes after blob_start() are there. */
static size_t
blob_start(struct buf *b)
{
	size_t at = b->len;

	cache_put_u32(b, 0);
	return at;
}

static void
blob_end(struct buf *b, size_t at)
{
	uint32_t len = (uint32_t)(b->len - at - 4);

	memcpy(b->data + at, &len, sizeof(len));
}

/* Compiled code, in ruleset->patterns order: decoding it is about twenty
 * times faster than compiling every pattern again. */
static void
put_code(struct buf *b, const struct ruleset *rs)
{
	struct match **ms = xcalloc(rs->npatterns + 1, sizeof(*ms));
	size_t at;

	for (size_t i = 0; i < rs->npatterns; i++)
		ms[i] = rs->patterns[i]->m;
	cache_put_u32(b, (uint32_t)rs->npatterns);
	at = blob_start(b);
	match_serialize(ms, rs->npatterns, b);
	blob_end(b, at);
	free(ms);
}

struct code_blob {
	uint32_t n, len;
	const char *data;
};

/* A length, then that many bytes, left where they are. */
static void
get_blob(struct cache_rd *r, struct code_blob *c)
{
	c->len = cache_get_u32(r);
	if (r->bad || (size_t)(r->end - r->p) < c->len) {
		r->bad = true;
		return;
	}
	c->data = r->p;
	r->p += c->len;
}

static void
get_code(struct cache_rd *r, struct code_blob *c)
{
	c->n = cache_get_u32(r);
	get_blob(r, c);
}

/*
 * The first prefilter, built: a 2 KB run would spend 40 % of its time
 * building it. Its bytes start at a multiple of 4 in the file (after a
 * count of zero bytes), so that a load can use its tables where they lie.
 */
static void
put_prefilter(struct buf *b, const struct ruleset *rs)
{
	static const char zeros[4];
	uint32_t pad = (uint32_t)((4 - b->len % 4) % 4);
	size_t at;

	cache_put_u32(b, pad);
	buf_add(b, zeros, pad);
	at = blob_start(b);

	if (rs->prefilter)
		litset_save(rs->prefilter, b);
	blob_end(b, at);
}

static void
get_prefilter(struct cache_rd *r, struct code_blob *c)
{
	uint32_t pad = cache_get_u32(r);

	if (pad > 3 || (size_t)(r->end - r->p) < pad) {
		r->bad = true;
		return;
	}
	for (uint32_t i = 0; i < pad; i++)
		if (*r->p++)
			r->bad = true;
	get_blob(r, c);
}

/*
 * After ruleset_finish(), which drops any prefilter: the saved one, if
 * any, its tables left in the cache file's bytes, which rs keeps.
 */
static int
attach_prefilter(struct ruleset *rs, const struct code_blob *c)
{
	if (c->len == 0)
		return 0;
	rs->prefilter = litset_load_in_place(c->data, c->len, (unsigned)linematch_id_count(rs));
	return rs->prefilter ? 0 : -1;
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
 * FNV-1a over 8-byte words in four lanes, one word in four each, folded
 * into one sum at the end, then the words and bytes left. A change to any
 * one word changes its lane (each step is a bijection of it) and so the
 * sum (so is each fold). One lane was a chain of multiplications, each
 * waiting for the last: 0.59 M of a 2 KB run's 6.5 M instructions.
 */
uint64_t
rules_cache_checksum(const void *data, size_t n)
{
	const uint64_t prime = 0x100000001b3ull;
	uint64_t a = UTIL_FNV1A_INIT, b = a + 1, c = a + 2, d = a + 3, w, x, y, z;
	const char *s = data;
	size_t i = 0;

	for (; i + 32 <= n; i += 32) {
		memcpy(&w, s + i, 8);
		memcpy(&x, s + i + 8, 8);
		memcpy(&y, s + i + 16, 8);
		memcpy(&z, s + i + 24, 8);
		a = (a ^ w) * prime;
		b = (b ^ x) * prime;
		c = (c ^ y) * prime;
		d = (d ^ z) * prime;
	}
	a = (((a ^ b) * prime ^ c) * prime ^ d) * prime;
	return util_fnv1a_words(a, s + i, n - i);
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

/*
 * The file's bytes, mapped privately when it can be: a page the kernel has
 * cached is then used where it is, where reading it would copy it into a
 * fresh page (a fault each, and a fault costs 4 us on some hosts: a third
 * of a 2 KB run went to the cache file's pages). A mapping sees what is
 * later written to the file in place, so only a file that no one but this
 * user can write is mapped; this tool replaces it by rename(), never in
 * place. Any other is read into memory. Into rs->cache_bytes, which
 * ruleset_free() releases either way. Returns 0, or -1.
 */
static int
cache_bytes(const char *path, struct ruleset *rs)
{
	struct buf data = BUF_INIT;
	struct stat st;
	void *p;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 16 ||
	    (unsigned long long)st.st_size > CACHE_MAX) {
		close(fd);
		return -1;
	}
	/* writable, privately: a string of a cached set is as any other to whoever holds it */
	p = st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) ? MAP_FAILED
		: mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p != MAP_FAILED) {
		rs->cache_bytes = p;
		rs->cache_len = (size_t)st.st_size;
		rs->cache_mapped = true;
		return 0;
	}
	if (util_read_file(path, &data, CACHE_MAX, NULL) < 0) {
		buf_release(&data);
		return -1;
	}
	rs->cache_bytes = buf_detach(&data, &rs->cache_len);
	return 0;
}

struct ruleset *
rules_cache_load(const char *key)
{
	struct diag d = DIAG_INIT;
	struct ruleset *rs;
	char *dir = NULL, *path;
	struct cache_rd r;
	const char *bytes, *stored;
	struct code_blob code = { 0, 0, NULL }, prefilter = { 0, 0, NULL };

	if (!(path = cache_path(key, &dir)))
		return NULL;
	/* rs owns the bytes from the start: its strings and prefilter will point into them */
	rs = ruleset_new();
	rs->from_cache = true;
	if (cache_bytes(path, rs) < 0 || rs->cache_len < 16 ||
	    memcmp(rs->cache_bytes, RULES_CACHE_MAGIC, 8) != 0)
		goto miss;
	bytes = rs->cache_bytes;
	r.p = bytes + 8;
	r.end = bytes + rs->cache_len - 8;
	{
		uint64_t want;

		memcpy(&want, r.end, 8);
		if (rules_cache_checksum(r.p, (size_t)(r.end - r.p)) != want)
			goto miss;
	}
	r.bad = false;
	r.arena = NULL;
	if (!(stored = cache_get_str(&r)) || strcmp(stored, key) != 0 ||
	    xalloc_lend(rs->cache_bytes, rs->cache_len) < 0)
		goto miss;
	/* room for every record and list (only the pages used are touched); the heap when full */
	r.arena = rs->cache_arena = xarena_new(2 * rs->cache_len);
	CACHE_GET_TABLE(&r, 64, rs->rules, rs->nrules, rs->alloc_rules, get_rule(&r, rs->nrules));
	get_sections(&r, rs);
	rs->chips = cache_get_chips(&r);
	rs->api = cache_get_api(&r);
	rs->checks = cache_get_checks(&r);
	get_code(&r, &code);
	get_prefilter(&r, &prefilter);
	if (r.bad || r.p != r.end || ruleset_finish(rs, &d) < 0 || attach_code(rs, &code) < 0 ||
	    attach_prefilter(rs, &prefilter) < 0)
		goto miss;
	goto out;
miss:
	ruleset_free(rs);
	rs = NULL;
out:
	diag_release(&d);
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
	cache_put_checks(&b, rs->checks);
	put_code(&b, rs);
	put_prefilter(&b, rs);
	cache_put_u64(&b, rules_cache_checksum(b.data + 8, b.len - 8));
	if (util_mkdirs(dir, NULL) == 0 && util_write_atomic(path, b.data, b.len, NULL) == 0)
		ret = 0;
	buf_release(&b);
	free(path);
	free(dir);
	return ret;
}
