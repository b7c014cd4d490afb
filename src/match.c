/* SPDX-License-Identifier: MIT */
/*
 * PCRE2 wrapper; see pt/match.h.
 * PCRE2 rules kept here: compiled code is shared and never changed after
 * match_compile(), so any number of threads may match with it at once;
 * everything a match writes (match data, the limits' context, JIT code) is
 * in a struct matcher, one per thread of matching. JIT compilation writes
 * into the code it compiles, so a matcher JIT-compiles its own copy
 * (pcre2_code_copy) and the shared code stays read-only. pcre2_code_free in
 * match_free; match data, context and copies in matcher_free. Logs are
 * bytes, not UTF-8: UTF mode stays off, so invalid UTF-8 can never make a
 * match fail.
 */
#include <stdlib.h>
#include <string.h>
#include <pcre2.h>

#include "pt/buf.h"
#include "pt/match.h"
#include "pt/xalloc.h"

/* Bounds per line: generous for real patterns, fatal for exponential ones. */
#define MATCH_LIMIT_STEPS 1000000u
#define MATCH_LIMIT_DEPTH 10000u
/* JIT after this many uses: compiling costs ~20 us a pattern, which only pays off on big logs. */
#define MATCH_JIT_AFTER 16u

struct match {
	pcre2_code *code;      /* read-only once compiled */
	uint32_t pairs;        /* ovector pairs a match needs: groups + 1 */
	size_t nnames;
	PCRE2_SPTR name_table; /* inside code: an entry is a 2-byte group number and the name */
	uint32_t name_entry;   /* bytes per entry */
};

/* Per pattern id, in one matcher. */
struct match_use {
	unsigned uses;
	bool jit_tried;
	bool partial_tried;    /* jit has been compiled for hard partial matching too */
	pcre2_code *jit;       /* our JIT-compiled copy, or NULL */
	/* A second pattern the caller keeps with the id (matcher_exec_src()):
	 * compiled here on first use, JIT-compiled as the first is. */
	pcre2_code *src_code;
	unsigned src_uses;
	bool src_tried;
};

struct matcher {
	pcre2_match_data *md;
	uint32_t md_pairs;
	pcre2_match_context *mctx;
	struct match_use *use;
	size_t nuse;
};

static void
load_names(struct match *m)
{
	uint32_t count = 0;

	pcre2_pattern_info(m->code, PCRE2_INFO_NAMECOUNT, &count);
	if (!count)
		return;
	pcre2_pattern_info(m->code, PCRE2_INFO_NAMEENTRYSIZE, &m->name_entry);
	pcre2_pattern_info(m->code, PCRE2_INFO_NAMETABLE, &m->name_table);
	m->nnames = count;
}

static PCRE2_SPTR
name_at(const struct match *m, size_t i)
{
	return m->name_table + i * m->name_entry;
}

static struct match *
match_wrap(pcre2_code *code)
{
	struct match *m = xcalloc(1, sizeof(*m));

	m->code = code;
	pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &m->pairs);
	m->pairs++;
	load_names(m);
	return m;
}

struct match *
match_compile(const char *pattern, size_t *erroffset, struct pt_err *err)
{
	pcre2_code *code;
	int errcode;
	PCRE2_SIZE off = 0;

	code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &errcode, &off, NULL);
	if (!code) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(errcode, msg, sizeof(msg));
		if (erroffset)
			*erroffset = off;
		pt_err_set(err, PT_EXIT_DATA, "%s", (const char *)msg);
		return NULL;
	}
	return match_wrap(code);
}

void
match_serialize(struct match *const *ms, size_t n, struct buf *out)
{
	const pcre2_code **codes = xcalloc(n + 1, sizeof(*codes));
	uint8_t *bytes = NULL;
	PCRE2_SIZE size = 0;

	for (size_t i = 0; i < n; i++)
		codes[i] = ms[i]->code;
	if (n && pcre2_serialize_encode(codes, (int32_t)n, &bytes, &size, NULL) < 0)
		pt_die(PT_EXIT_SYSTEM, "out of memory");
	if (size)
		buf_add(out, bytes, size);
	pcre2_serialize_free(bytes);
	free(codes);
}

int
match_deserialize(struct match **ms, size_t n, const void *data, size_t len)
{
	pcre2_code **codes;
	int32_t got;

	if (n == 0)
		return 0;
	/* the header names the PCRE2 build and the count: refuse another's */
	if (len < 16 || pcre2_serialize_get_number_of_codes(data) != (int32_t)n)
		return -1;
	codes = xcalloc(n, sizeof(*codes));
	if ((got = pcre2_serialize_decode(codes, (int32_t)n, data, NULL)) != (int32_t)n) {
		for (int32_t i = 0; i < got; i++)
			pcre2_code_free(codes[i]);
		free(codes);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		ms[i] = match_wrap(codes[i]);
	free(codes);
	return 0;
}

void
match_free(struct match *m)
{
	if (!m)
		return;
	pcre2_code_free(m->code);
	free(m);
}

struct matcher *
matcher_new(size_t npatterns)
{
	struct matcher *mt = xcalloc(1, sizeof(*mt));

	if (!(mt->mctx = pcre2_match_context_create(NULL)))
		pt_die(PT_EXIT_SYSTEM, "out of memory");
	pcre2_set_match_limit(mt->mctx, MATCH_LIMIT_STEPS);
	pcre2_set_depth_limit(mt->mctx, MATCH_LIMIT_DEPTH);
	mt->nuse = npatterns;
	mt->use = xcalloc(npatterns + 1, sizeof(*mt->use));
	return mt;
}

void
matcher_free(struct matcher *mt)
{
	if (!mt)
		return;
	for (size_t i = 0; i < mt->nuse; i++) {
		pcre2_code_free(mt->use[i].jit);
		pcre2_code_free(mt->use[i].src_code);
	}
	free(mt->use);
	pcre2_match_data_free(mt->md);
	pcre2_match_context_free(mt->mctx);
	free(mt);
}

/* The code to run for pattern id: after its MATCH_JIT_AFTER-th use, our JIT-compiled copy. */
static const pcre2_code *
code_for(struct matcher *mt, size_t id, const struct match *m)
{
	struct match_use *u;

	if (id >= mt->nuse)
		return m->code;
	u = &mt->use[id];
	if (++u->uses == MATCH_JIT_AFTER && !u->jit_tried) {
		u->jit_tried = true;
		if (!(u->jit = pcre2_code_copy(m->code)))
			pt_die(PT_EXIT_SYSTEM, "out of memory");
		if (pcre2_jit_compile(u->jit, PCRE2_JIT_COMPLETE) != 0) {
			pcre2_code_free(u->jit);
			u->jit = NULL;
		}
	}
	return u->jit ? u->jit : m->code;
}

static void
need_pairs(struct matcher *mt, const struct match *m)
{
	if (m->pairs > mt->md_pairs) {
		pcre2_match_data_free(mt->md);
		if (!(mt->md = pcre2_match_data_create(m->pairs, NULL)))
			pt_die(PT_EXIT_SYSTEM, "out of memory");
		mt->md_pairs = m->pairs;
	}
}

/*
 * Run code with m's match data; on MATCH_YES the whole match is
 * [*start, *end) (either may be NULL).
 */
static enum match_result
run(struct matcher *mt, const pcre2_code *code, const struct match *m, const char *subject,
    size_t len, size_t *start, size_t *end)
{
	PCRE2_SIZE *ov;
	int rc;

	need_pairs(mt, m);
	rc = pcre2_match(code, (PCRE2_SPTR)subject, len, 0, 0, mt->md, mt->mctx);
	if (rc == PCRE2_ERROR_NOMATCH)
		return MATCH_NO;
	if (rc < 0)
		return MATCH_LIMIT;
	ov = pcre2_get_ovector_pointer(mt->md);
	if (start)
		*start = ov[0];
	if (end)
		*end = ov[1];
	return MATCH_YES;
}

enum match_result
matcher_exec(struct matcher *mt, size_t id, const struct match *m, const char *subject, size_t len,
	     size_t *start, size_t *end)
{
	return run(mt, code_for(mt, id, m), m, subject, len, start, end);
}

/* Id's second pattern, compiled from src on its first use (NULL: it does not compile). */
static const pcre2_code *
src_code_for(struct matcher *mt, size_t id, const char *src)
{
	struct match_use *u = &mt->use[id];
	int errcode;
	PCRE2_SIZE off;

	if (!u->src_tried) {
		u->src_tried = true;
		u->src_code = pcre2_compile((PCRE2_SPTR)src, PCRE2_ZERO_TERMINATED, 0, &errcode, &off,
					    NULL);
	}
	if (u->src_code && ++u->src_uses == MATCH_JIT_AFTER)
		pcre2_jit_compile(u->src_code, PCRE2_JIT_COMPLETE);
	return u->src_code;
}

enum match_result
matcher_exec_src(struct matcher *mt, size_t id, const struct match *m, const char *src,
		 const char *subject, size_t len, size_t *start, size_t *end)
{
	const pcre2_code *code = id < mt->nuse ? src_code_for(mt, id, src) : NULL;

	return code ? run(mt, code, m, subject, len, start, end) : MATCH_LIMIT;
}

/*
 * PCRE2's hard partial matching answers NOMATCH only when no match can
 * start anywhere in the subject, however it went on (pcre2partial(3):
 * reaching its end with a character still to inspect, or before \b, \B,
 * $, \z or \Z, is a partial match). A pattern's JIT copy gets that mode
 * on its first use here; without it PCRE2 interprets.
 */
bool
matcher_may_start(struct matcher *mt, size_t id, const struct match *m, const char *subject,
		  size_t len)
{
	const pcre2_code *code = code_for(mt, id, m);
	struct match_use *u = id < mt->nuse ? &mt->use[id] : NULL;

	if (u && u->jit && !u->partial_tried) {
		u->partial_tried = true;
		pcre2_jit_compile(u->jit, PCRE2_JIT_PARTIAL_HARD);
	}
	need_pairs(mt, m);
	return pcre2_match(code, (PCRE2_SPTR)subject, len, 0, PCRE2_PARTIAL_HARD, mt->md,
			   mt->mctx) != PCRE2_ERROR_NOMATCH;
}

size_t
match_name_count(const struct match *m)
{
	return m->nnames;
}

const char *
match_name(const struct match *m, size_t i)
{
	return i < m->nnames ? (const char *)name_at(m, i) + 2 : NULL;
}

bool
matcher_group(const struct matcher *mt, const struct match *m, size_t i, size_t *start, size_t *end)
{
	PCRE2_SIZE *ov;
	PCRE2_SPTR e;
	uint32_t pairs;
	unsigned g;

	if (i >= m->nnames || !mt->md)
		return false;
	ov = pcre2_get_ovector_pointer(mt->md);
	pairs = pcre2_get_ovector_count(mt->md);
	e = name_at(m, i);
	g = ((unsigned)e[0] << 8) | e[1];
	if (g >= pairs || ov[2 * g] == PCRE2_UNSET)
		return false;
	*start = ov[2 * g];
	*end = ov[2 * g + 1];
	return true;
}
