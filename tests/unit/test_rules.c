/* SPDX-License-Identifier: MIT */
/* Rule loading: schema errors are all reported, packs override only when they say so. */
#include <stdlib.h>
#include <string.h>

#include "pt/match.h"
#include "pt/rules.h"
#include "test.h"

static const char *good =
	"rules:\n"
	"  - id: layout.one\n"
	"    class: layout\n"
	"    stage: compile\n"
	"    weight: 50\n"
	"    match: { any: ['unsupported shape cast'] }\n"
	"    message: m\n"
	"    examples: { match: ['unsupported shape cast'] }\n";

static size_t
load(struct ruleset *rs, const char *text, const char *origin, struct diag *d)
{
	size_t before = d->nerrors;

	ruleset_load_buf(rs, text, strlen(text), "t.yaml", origin, d);
	return d->nerrors - before;
}

static bool
diag_has(const struct diag *d, const char *needle)
{
	for (size_t i = 0; i < d->n; i++)
		if (strstr(d->lines[i], needle))
			return true;
	return false;
}

static void
test_errors_all_reported(void)
{
	struct ruleset *rs = ruleset_new();
	struct diag d = DIAG_INIT;
	const char *bad =
		"rules:\n"
		"  - id: layout.a\n"
		"    class: nope\n"
		"    stage: compile\n"
		"    weight: 0\n"
		"    match: { any: ['(x'] }\n"
		"    message: m\n"
		"    colour: red\n"
		"    examples: { match: ['x'] }\n";

	CHECK_INTEQ(load(rs, bad, NULL, &d), 4);
	CHECK(diag_has(&d, "t.yaml:3:12: error: unknown class 'nope'"));
	CHECK(diag_has(&d, "t.yaml:5:13: error: 'weight' in a rule must be between 1 and 100"));
	CHECK(diag_has(&d, "t.yaml:6:20: error: bad regex at offset 2"));
	CHECK(diag_has(&d, "t.yaml:8:5: error: unknown key 'colour'"));
	CHECK_INTEQ(rs->nrules, 0);
	diag_release(&d);
	ruleset_free(rs);
}

static void
test_limits(void)
{
	struct ruleset *rs = ruleset_new();
	struct diag d = DIAG_INIT;
	char *deep = malloc(1000);
	size_t n = 0;

	for (int i = 0; i < 100; i++)
		deep[n++] = '[';
	deep[n] = '\0';
	CHECK(load(rs, deep, NULL, &d) >= 1);
	CHECK(diag_has(&d, "nesting deeper than"));
	CHECK(load(rs, "a: &x 1\nb: *x\n", NULL, &d) >= 1);
	CHECK(diag_has(&d, "aliases are not allowed"));
	CHECK(load(rs, "rules: 5\n", NULL, &d) == 1);
	CHECK(diag_has(&d, "section 'rules' must be a list"));
	free(deep);
	diag_release(&d);
	ruleset_free(rs);
}

static void
test_pack_override(void)
{
	struct ruleset *rs = ruleset_new();
	struct diag d = DIAG_INIT;
	char *over = malloc(strlen(good) + 64);

	CHECK_INTEQ(load(rs, good, NULL, &d), 0);
	CHECK_INTEQ(load(rs, good, "team-pack", &d), 1);
	CHECK(diag_has(&d, "must say 'overrides: true'"));
	snprintf(over, strlen(good) + 64, "%s    overrides: true\n", good);
	CHECK_INTEQ(load(rs, over, "team-pack", &d), 0);
	CHECK_INTEQ(rs->nrules, 1);
	CHECK_STREQ(ruleset_find_rule(rs, "layout.one")->origin, "team-pack");
	free(over);
	diag_release(&d);
	ruleset_free(rs);
}

static void
test_match(void)
{
	struct pt_err err = PT_ERR_INIT;
	size_t off = 0, s = 0, e = 0;
	struct match *m = match_compile("Used (?P<used>[\\d.]+M) of (?P<limit>[\\d.]+M)", &off, &err);
	struct matcher *a = matcher_new(1), *b = matcher_new(1);

	CHECK(m != NULL);
	CHECK_INTEQ(matcher_exec(a, 0, m, "x Used 3.5M of 2M", 17, &s, &e), MATCH_YES);
	CHECK_INTEQ(s, 2);
	CHECK_INTEQ(match_name_count(m), 2);
	CHECK(matcher_group(a, m, 1, &s, &e) && s == 7 && e == 11);
	CHECK_STREQ(match_name(m, 1), "used");
	/* the match data is the matcher's: b's match leaves a's groups alone */
	CHECK_INTEQ(matcher_exec(b, 0, m, "Used 1M of 2M", 13, NULL, NULL), MATCH_YES);
	CHECK(matcher_group(a, m, 1, &s, &e) && s == 7 && e == 11);
	CHECK(matcher_group(b, m, 1, &s, &e) && s == 5 && e == 7);
	CHECK_INTEQ(matcher_exec(a, 0, m, "nothing", 7, NULL, NULL), MATCH_NO);
	/* bytes, not UTF-8: invalid sequences and NULs are ordinary characters */
	CHECK_INTEQ(matcher_exec(a, 0, m, "\xff\x00 Used 1M of 2M", 17, NULL, NULL), MATCH_YES);
	/* past the JIT threshold (a's own copy of the code) the answers stay the same */
	for (int i = 0; i < 40; i++) {
		CHECK_INTEQ(matcher_exec(a, 0, m, "x Used 3.5M of 2M", 17, &s, &e), MATCH_YES);
		CHECK(matcher_group(a, m, 1, &s, &e) && s == 7 && e == 11);
		CHECK_INTEQ(matcher_exec(a, 0, m, "Used 3.5M of 2G", 15, NULL, NULL), MATCH_NO);
	}
	matcher_free(a);
	matcher_free(b);
	match_free(m);
	CHECK(match_compile("(unclosed", &off, &err) == NULL);
	CHECK_INTEQ(off, 9);
	CHECK(strstr(err.msg, "missing closing parenthesis") != NULL);
}

int
main(void)
{
	test_errors_all_reported();
	test_limits();
	test_pack_override();
	test_match();
	return TEST_DONE();
}
