/* SPDX-License-Identifier: MIT */
/* Unit tests of the JAX API table: versions, spans, rendering, gaps, checks. */
#include <stdlib.h>
#include <string.h>

#include "pt/jaxapi.h"
#include "pt/rules.h"
#include "test.h"

static const char table[] =
	"jax_api:\n"
	"  - name: pl.semaphore_signal\n"
	"    since: 0.10.0\n"
	"    source: s\n"
	"  - name: pltpu.semaphore_signal\n"
	"    deprecated: 0.10.0\n"
	"    removed: 0.11.0\n"
	"    replaced_by: pl.semaphore_signal\n"
	"    source: s\n"
	"  - name: InterpretParams.detect_races\n"
	"    render: detect_races\n"
	"    since: 0.5.2..0.6.0\n"
	"    source: s\n"
	"  - name: jax_pallas_poison_buffers\n"
	"    since: 0.11.0\n"
	"    source: s\n"
	"  - name: pl.ds\n"
	"    source: s\n"
	"jax_gaps:\n"
	"  - id: gap.u2f\n"
	"    what: 'unsigned to float lowers'\n"
	"    closed_in: 0.10.0\n"
	"    when: { dtype: [uint32], to_dtype: [float32, bfloat16] }\n"
	"    source: s\n";

static struct ruleset *
load(const char *text, struct diag *d)
{
	struct ruleset *rs = ruleset_new();

	ruleset_load_buf(rs, text, strlen(text), "t.yaml", NULL, d);
	jaxapi_finish(rs->api, d);
	return rs;
}

static void
test_versions(void)
{
	struct jaxver a, b;

	CHECK_INTEQ(jaxver_parse("0.4.35", &a), 0);
	CHECK(a.part[0] == 0 && a.part[1] == 4 && a.part[2] == 35 && a.stage == JAXVER_FINAL);
	CHECK_INTEQ(jaxver_parse("0.5.1.dev20250210", &a), 0);
	CHECK_INTEQ(a.stage, JAXVER_DEV);
	CHECK_INTEQ(jaxver_parse("0.6.2rc1", &a), 0);
	CHECK_INTEQ(a.stage, JAXVER_RC);
	CHECK_INTEQ(jaxver_parse("0.4.26+cuda12.cudnn89", &a), 0);
	CHECK_INTEQ(a.stage, JAXVER_FINAL);
	CHECK_INTEQ(jaxver_parse("0.4.35.post1", &a), 0);
	CHECK_INTEQ(a.stage, JAXVER_POST);
	CHECK_INTEQ(jaxver_parse("0.4", &a), -1);
	CHECK_INTEQ(jaxver_parse("v0.4.35", &a), -1);
	CHECK_INTEQ(jaxver_parse(NULL, &a), -1);

	/* numbers, not strings: 0.10.0 is after 0.9.9 */
	jaxver_parse("0.10.0", &a);
	jaxver_parse("0.9.9", &b);
	CHECK(jaxver_cmp(&a, &b) > 0);
	/* a dev build comes before its release, a post release after it */
	jaxver_parse("0.11.1.dev", &a);
	jaxver_parse("0.11.1", &b);
	CHECK(jaxver_cmp(&a, &b) < 0);
	jaxver_parse("0.11.1.post2", &a);
	CHECK(jaxver_cmp(&a, &b) > 0);
	jaxver_parse("0.11.1+local", &a);
	CHECK_INTEQ(jaxver_cmp(&a, &b), 0);
}

static void
test_ranges(void)
{
	struct jaxrange r;
	char buf[64];

	CHECK_INTEQ(jaxrange_parse("0.10.0", &r), 0);
	CHECK(r.set && r.has_lo && jaxver_cmp(&r.lo, &r.hi) == 0);
	jaxrange_describe(&r, buf, sizeof(buf));
	CHECK_STREQ(buf, "in 0.10.0");
	jaxrange_release(&r);
	CHECK_INTEQ(jaxrange_parse("0.5.2..0.6.0", &r), 0);
	jaxrange_describe(&r, buf, sizeof(buf));
	CHECK_STREQ(buf, "between 0.5.2 and 0.6.0");
	jaxrange_release(&r);
	CHECK_INTEQ(jaxrange_parse("..0.8.2", &r), 0);
	CHECK(!r.has_lo);
	jaxrange_describe(&r, buf, sizeof(buf));
	CHECK_STREQ(buf, "by 0.8.2");
	jaxrange_release(&r);
	CHECK_INTEQ(jaxrange_parse("0.6.0..0.5.2", &r), -1);   /* backwards */
	CHECK_INTEQ(jaxrange_parse("0.10", &r), -1);
	CHECK_INTEQ(jaxrange_parse("0.10.0rc1", &r), -1);      /* table releases are final */
	CHECK_INTEQ(jaxrange_parse("0.5.0..", &r), -1);
	CHECK_INTEQ(jaxrange_parse("", &r), -1);
}

/* Render tmpl for version; *notes gets the notes joined with " | " (free it). */
static char *
render(const struct ruleset *rs, const char *version, const char *tmpl, char **notes,
       bool *guessed)
{
	struct api_render ar;
	struct buf b = BUF_INIT, n = BUF_INIT;

	api_render_init(&ar, rs->api, version);
	api_render_text(&ar, tmpl, &b);
	for (size_t i = 0; i < ar.nnotes; i++)
		buf_addf(&n, "%s%s", i ? " | " : "", ar.notes[i]);
	*notes = buf_detach(&n, NULL);
	if (guessed)
		*guessed = ar.guessed;
	api_render_release(&ar);
	return buf_detach(&b, NULL);
}

static void
check_render(const struct ruleset *rs, const char *version, const char *tmpl, const char *want,
	     const char *want_notes)
{
	char *notes, *got = render(rs, version, tmpl, &notes, NULL);

	CHECK_STREQ(got, want);
	CHECK_STREQ(notes, want_notes);
	free(got);
	free(notes);
}

static void
test_render(void)
{
	struct diag d = DIAG_INIT;
	struct ruleset *rs = load(table, &d);
	const char *sig = "${api:pl.semaphore_signal}(b, device_id=${peer})";
	bool guessed = false;
	char *notes, *got;

	CHECK_INTEQ(d.nerrors, 0);
	check_render(rs, "0.4.35", sig, "pltpu.semaphore_signal(b, device_id=${peer})", "");
	/* 0.10.x has both: the newer spelling wins */
	check_render(rs, "0.10.1", sig, "pl.semaphore_signal(b, device_id=${peer})", "");
	check_render(rs, "0.11.0", sig, "pl.semaphore_signal(b, device_id=${peer})", "");
	/* a dev build of 0.10.0 is older than 0.10.0 */
	check_render(rs, "0.10.0.dev20260101", sig, "pltpu.semaphore_signal(b, device_id=${peer})", "");
	/* an old spelling in a placeholder still renders through the chain */
	check_render(rs, "0.11.0", "${api:pltpu.semaphore_signal}", "pl.semaphore_signal", "");

	got = render(rs, NULL, sig, &notes, &guessed);
	CHECK_STREQ(got, "pl.semaphore_signal(b, device_id=${peer})");
	CHECK(guessed);
	free(got);
	free(notes);
	got = render(rs, "not a version", "${api:pl.ds}", &notes, &guessed);
	CHECK_STREQ(got, "pl.ds");
	CHECK(!guessed);          /* pl.ds does not depend on the version */
	free(got);
	free(notes);

	/* a span: before it no, inside it not known, after it yes */
	check_render(rs, "0.4.35", "${api:InterpretParams.detect_races}=True", "detect_races=True",
		     "needs JAX >= 0.6.0 for detect_races (0.4.35 lacks it)");
	check_render(rs, "0.5.3", "${api:InterpretParams.detect_races}=True", "detect_races=True",
		     "not known whether JAX 0.5.3 has detect_races (it arrived between 0.5.2 and 0.6.0)");
	check_render(rs, "0.6.0", "${api:InterpretParams.detect_races}=True", "detect_races=True", "");
	check_render(rs, "0.4.35", "${api:jax_pallas_poison_buffers} ${api:jax_pallas_poison_buffers}",
		     "jax_pallas_poison_buffers jax_pallas_poison_buffers",
		     "needs JAX >= 0.11.0 for jax_pallas_poison_buffers (0.4.35 lacks it)");

	/* what is not an API placeholder is copied as it is */
	check_render(rs, "0.4.35", "${api:no.such} ${x} ${api:pl.ds", "no.such ${x} ${api:pl.ds", "");
	ruleset_free(rs);
	diag_release(&d);
}

static void
test_gaps(void)
{
	struct diag d = DIAG_INIT;
	struct ruleset *rs = load(table, &d);
	struct vars vs = VARS_INIT;

	vars_set(&vs, "dtype", "uint32", true);
	vars_set(&vs, "to_dtype", "float32", true);
	vars_set(&vs, "jax_version", "0.4.35", true);
	jaxapi_derive(rs->api, &vs);
	CHECK_STREQ(vars_get(&vs, "jax_upgrade_to"), "0.10.0");
	CHECK_STREQ(vars_get(&vs, "jax_upgrade_what"), "unsigned to float lowers");
	CHECK_STREQ(vars_get(&vs, "jax_upgrade_from"), "the log shows JAX 0.4.35");
	vars_release(&vs);

	/* a release that has the lowering failed for another reason: no upgrade */
	vars_set(&vs, "dtype", "uint32", true);
	vars_set(&vs, "to_dtype", "bfloat16", true);
	vars_set(&vs, "jax_version", "0.10.0", true);
	jaxapi_derive(rs->api, &vs);
	CHECK(vars_get(&vs, "jax_upgrade_to") == NULL);
	vars_release(&vs);

	vars_set(&vs, "dtype", "uint32", true);
	vars_set(&vs, "to_dtype", "float32", true);
	jaxapi_derive(rs->api, &vs);
	CHECK_STREQ(vars_get(&vs, "jax_upgrade_from"), "the log does not say which JAX ran");
	vars_release(&vs);

	vars_set(&vs, "dtype", "int32", true);
	vars_set(&vs, "to_dtype", "float32", true);
	jaxapi_derive(rs->api, &vs);
	CHECK(vars_get(&vs, "jax_upgrade_to") == NULL);
	vars_release(&vs);
	jaxapi_derive(NULL, &vs);
	CHECK(vs.n == 0);
	ruleset_free(rs);
	diag_release(&d);
}

static size_t
errors_of(const char *text)
{
	struct diag d = DIAG_INIT;
	struct ruleset *rs = load(text, &d);
	size_t n = d.nerrors;

	ruleset_free(rs);
	diag_release(&d);
	return n;
}

static void
test_checks(void)
{
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, replaced_by: c.d, source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, replaced_by: c.d, source: s }\n"
			      "  - { name: c.d, replaced_by: a.b, source: s }\n"), 2);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, since: 0.5, source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, source: s }\n  - { name: a.b, source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: 'a b', source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, since: 0.6.0, removed: 0.5.0, source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, sinse: 0.6.0, source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_gaps:\n  - { id: g.x, what: w, when: {a: b}, source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_gaps:\n  - { id: g.x, what: w, closed_in: 0.1.0, when: {}, source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api: { name: a.b }\n"), 1);
	CHECK_INTEQ(errors_of(table), 0);
}

int
main(void)
{
	test_versions();
	test_ranges();
	test_render();
	test_gaps();
	test_checks();
	return TEST_DONE();
}
