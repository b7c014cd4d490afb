/* SPDX-License-Identifier: MIT */
/*
 * PCRE2 wrapper; see pt/match.h.
 * PCRE2 rules kept here: one match-data block per struct match (matching is
 * single-threaded per classifier; scan workers own separate rulesets);
 * pcre2_code_free/pcre2_match_data_free/pcre2_match_context_free in
 * match_free. Logs are bytes, not UTF-8: UTF mode stays off, so invalid
 * UTF-8 can never make a match fail.
 */
#include <stdlib.h>
#include <string.h>
#include <pcre2.h>

#include "pt/match.h"
#include "pt/xalloc.h"

/* Bounds per line: generous for real patterns, fatal for exponential ones. */
#define MATCH_LIMIT_STEPS 1000000u
#define MATCH_LIMIT_DEPTH 10000u
/* JIT after this many uses: compiling costs ~20 us a pattern, which only pays off on big logs. */
#define MATCH_JIT_AFTER 16u

struct match {
	pcre2_code *code;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	unsigned uses;
	bool jit_tried, jit_ok;
	size_t nnames;
	char **names;          /* group names, by group order */
	unsigned *name_group;  /* group number of names[i] */
};

static void
load_names(struct match *m)
{
	uint32_t count = 0, entry = 0;
	PCRE2_SPTR table;

	pcre2_pattern_info(m->code, PCRE2_INFO_NAMECOUNT, &count);
	if (!count)
		return;
	pcre2_pattern_info(m->code, PCRE2_INFO_NAMEENTRYSIZE, &entry);
	pcre2_pattern_info(m->code, PCRE2_INFO_NAMETABLE, &table);
	m->names = xcalloc(count, sizeof(*m->names));
	m->name_group = xcalloc(count, sizeof(*m->name_group));
	for (uint32_t i = 0; i < count; i++) {
		PCRE2_SPTR e = table + (size_t)i * entry;

		m->name_group[i] = ((unsigned)e[0] << 8) | e[1];
		m->names[i] = xstrdup((const char *)e + 2);
	}
	m->nnames = count;
}

struct match *
match_compile(const char *pattern, size_t *erroffset, struct pt_err *err)
{
	struct match *m;
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
	m = xcalloc(1, sizeof(*m));
	m->code = code;
	if (!(m->md = pcre2_match_data_create_from_pattern(code, NULL)) ||
	    !(m->mctx = pcre2_match_context_create(NULL)))
		pt_die(PT_EXIT_SYSTEM, "out of memory");
	pcre2_set_match_limit(m->mctx, MATCH_LIMIT_STEPS);
	pcre2_set_depth_limit(m->mctx, MATCH_LIMIT_DEPTH);
	load_names(m);
	return m;
}

void
match_free(struct match *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nnames; i++)
		free(m->names[i]);
	free(m->names);
	free(m->name_group);
	pcre2_match_data_free(m->md);
	pcre2_match_context_free(m->mctx);
	pcre2_code_free(m->code);
	free(m);
}

enum match_result
match_exec(struct match *m, const char *subject, size_t len, size_t *start, size_t *end)
{
	PCRE2_SIZE *ov;
	int rc;

	if (++m->uses == MATCH_JIT_AFTER && !m->jit_tried) {
		m->jit_tried = true;
		m->jit_ok = pcre2_jit_compile(m->code, PCRE2_JIT_COMPLETE) == 0;
	}
	rc = pcre2_match(m->code, (PCRE2_SPTR)subject, len, 0, 0, m->md, m->mctx);
	if (rc == PCRE2_ERROR_NOMATCH)
		return MATCH_NO;
	if (rc < 0)
		return MATCH_LIMIT;
	ov = pcre2_get_ovector_pointer(m->md);
	if (start)
		*start = ov[0];
	if (end)
		*end = ov[1];
	return MATCH_YES;
}

size_t
match_name_count(const struct match *m)
{
	return m->nnames;
}

const char *
match_name(const struct match *m, size_t i)
{
	return i < m->nnames ? m->names[i] : NULL;
}

bool
match_group(const struct match *m, size_t i, size_t *start, size_t *end)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
	uint32_t pairs = pcre2_get_ovector_count(m->md);
	unsigned g;

	if (i >= m->nnames)
		return false;
	g = m->name_group[i];
	if (g >= pairs || ov[2 * g] == PCRE2_UNSET)
		return false;
	*start = ov[2 * g];
	*end = ov[2 * g + 1];
	return true;
}
