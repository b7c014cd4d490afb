/* SPDX-License-Identifier: MIT */
/* Unit tests of the JAX API table: versions, spans, rendering, gaps, checks. */
#include <stdlib.h>
#include <string.h>

#include "pt/jaxapi.h"
#include "pt/rules.h"
#include "test.h"

static const char table[] =
	"jax_releases:\n"
	"  releases: [0.4.35, 0.5.2, 0.5.3, 0.6.0, 0.10.0, 0.10.1, 0.11.0]\n"
	"  source: s\n"
	"jax_api:\n"
	"  - name: pl.semaphore_signal\n"
	"    since: 0.10.0\n"
	"    since_at: 'jax-v0.10.0:jax/experimental/pallas/__init__.py:68'\n"
	"  - name: pl.semaphore_signal.device_id\n"
	"    render: device_id\n"
	"    since: 0.4.35\n"
	"    since_at: 'jax-v0.4.35:p.py:1'\n"
	"  - name: pltpu.semaphore_signal\n"
	"    since: 0.4.35\n"
	"    since_at: 'jax-v0.4.35:jax/experimental/pallas/tpu.py:49'\n"
	"    deprecated: 0.10.0\n"
	"    deprecated_at: 'jax-v0.10.0:jax/experimental/pallas/tpu.py:108'\n"
	"    removed: 0.11.0\n"
	"    removed_at: 'jax-v0.11.0:jax/experimental/pallas/tpu.py:122 a stub'\n"
	"    replaced_by: pl.semaphore_signal\n"
	"  - name: InterpretParams.detect_races\n"
	"    render: detect_races\n"
	"    since: 0.5.2..0.6.0\n"
	"    since_at: 'jax-v0.5.3:p.py:1'\n"
	"  - name: jax_pallas_poison_buffers\n"
	"    since: 0.11.0\n"
	"    since_at: 'jax-v0.11.0:jax/_src/config.py:2340'\n"
	"    instead: 'poison by hand with ${api:pl.ds}'\n"
	"  - name: pl.ds\n"
	"    since: 0.4.35\n"
	"    since_at: 'jax-v0.4.35:p.py:1'\n"
	"  - name: pl.gone\n"
	"    since: 0.4.35\n"
	"    since_at: 'jax-v0.4.35:p.py:1'\n"
	"    removed: 0.6.0\n"
	"    removed_at: 'jax-v0.5.3:p.py:9 the last release with it'\n"
	"  - name: pl.Spec\n"
	"    since: 0.5.3\n"
	"    since_at: 'jax-v0.5.3:p.py:1'\n"
	"  - name: pl.Spec_old_order\n"
	"    render: pl.Spec\n"
	"    since: 0.4.35\n"
	"    since_at: 'jax-v0.4.35:p.py:1'\n"
	"    removed: 0.5.3\n"
	"    removed_at: 'jax-v0.5.2:p.py:1'\n"
	"    replaced_by: pl.Spec\n"
	"    call: 'pl.Spec(index_map=$2, block_shape=$1, $k)'\n"
	"  - name: pl.Spec.mode\n"
	"    render: mode\n"
	"    since: 0.6.0\n"
	"    since_at: 'jax-v0.6.0:p.py:1'\n"
	"  - name: pltpu.Params\n"
	"    since: 0.6.0\n"
	"    since_at: 'jax-v0.6.0:p.py:1'\n"
	"  - name: params.dict\n"
	"    render: dict(mosaic=...)\n"
	"    since: 0.4.35\n"
	"    since_at: 'jax-v0.4.35:p.py:1'\n"
	"    replaced_by: pltpu.Params\n"
	"    call: 'dict(mosaic=dict($*))'\n"
	"  - name: pltpu.Params.limit\n"
	"    render: limit\n"
	"    since: 0.6.0\n"
	"    since_at: 'jax-v0.6.0:p.py:1'\n"
	"  - name: params.dict.old_limit\n"
	"    render: old_limit\n"
	"    since: 0.4.35\n"
	"    since_at: 'jax-v0.4.35:p.py:1'\n"
	"    replaced_by: pltpu.Params.limit\n"
	"jax_gaps:\n"
	"  - id: gap.u2f\n"
	"    what: 'unsigned to float lowers'\n"
	"    closed_in: 0.10.0\n"
	"    closed_at: 'jax-v0.10.0:jax/_src/pallas/mosaic/lowering.py:2470'\n"
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

/* Render tmpl for version (as a snippet, or as prose); *notes gets the notes joined with " | " (free it). */
static char *
render_as(const struct ruleset *rs, const char *version, const char *tmpl, bool prose,
	  char **notes, bool *guessed)
{
	struct api_render ar;
	struct buf b = BUF_INIT, n = BUF_INIT;

	api_render_init(&ar, rs->api, version);
	if (prose)
		api_render_prose_into(&ar, tmpl, &b);
	else
		api_render_text(&ar, tmpl, &b);
	for (size_t i = 0; i < ar.nnotes; i++)
		buf_addf(&n, "%s%s", i ? " | " : "", ar.notes[i]);
	*notes = buf_detach(&n, NULL);
	if (guessed)
		*guessed = ar.guessed;
	api_render_release(&ar);
	return buf_detach(&b, NULL);
}

static char *
render(const struct ruleset *rs, const char *version, const char *tmpl, char **notes,
       bool *guessed)
{
	return render_as(rs, version, tmpl, false, notes, guessed);
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
check_prose(const struct ruleset *rs, const char *version, const char *text, const char *want)
{
	char *notes, *got = render_as(rs, version, text, true, &notes, NULL);

	CHECK_STREQ(got, want);
	free(got);
	free(notes);
}

/*
 * Rendering on a throwaway and adopting what it noted must leave ar as
 * rendering on ar itself does: the same notes, once each, in order, and
 * the same flags.
 */
static void
check_adopt(const struct ruleset *rs)
{
	static const char *const tmpls[] = {
		"${api:InterpretParams.detect_races}=True",
		"${api:pl.ds}(0, 8)",
		"${api:InterpretParams.detect_races}=False  # ${api:pl.semaphore_signal}",
	};
	const char *versions[] = { "0.5.3", NULL };

	for (size_t v = 0; v < 2; v++) {
		struct api_render direct, adopted;
		struct buf a = BUF_INIT, b = BUF_INIT;

		api_render_init(&direct, rs->api, versions[v]);
		api_render_init(&adopted, rs->api, versions[v]);
		for (size_t i = 0; i < 3; i++) {
			struct api_render probe;

			api_render_text(&direct, tmpls[i], &a);
			api_render_init(&probe, adopted.table, adopted.version);
			api_render_text(&probe, tmpls[i], &b);
			api_render_adopt(&adopted, &probe);
			api_render_release(&probe);
		}
		CHECK_STREQ(a.data, b.data);
		CHECK_INTEQ(adopted.nnotes, direct.nnotes);
		for (size_t i = 0; i < direct.nnotes && i < adopted.nnotes; i++)
			CHECK_STREQ(adopted.notes[i], direct.notes[i]);
		CHECK(adopted.nnotes == 0 || adopted.notes[adopted.nnotes] == NULL);
		CHECK(adopted.guessed == direct.guessed && adopted.versioned == direct.versioned);
		/* 0.5.3 notes detect_races once, twice rendered; no version guesses */
		CHECK(v == 0 ? direct.nnotes == 1 : direct.guessed);
		api_render_release(&direct);
		api_render_release(&adopted);
		buf_release(&a);
		buf_release(&b);
	}
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

	/* no version: the newest release of the list, never a name it lacks */
	got = render(rs, NULL, sig, &notes, &guessed);
	CHECK_STREQ(got, "pl.semaphore_signal(b, device_id=${peer})");
	CHECK(guessed);
	free(got);
	free(notes);
	got = render(rs, "not a version", "${api:pl.ds}", &notes, &guessed);
	CHECK_STREQ(got, "pl.ds");
	CHECK(!guessed);          /* every listed release has pl.ds */
	free(got);
	free(notes);

	/* a span: before it no, inside it not known, after it yes */
	check_render(rs, "0.4.35", "${api:InterpretParams.detect_races}=True",
		     "not available in JAX 0.4.35: detect_races (JAX >= 0.6.0); upgrade JAX to 0.6.0 "
		     "or later", "");
	check_render(rs, "0.5.3", "${api:InterpretParams.detect_races}=True", "detect_races=True",
		     "not known whether JAX 0.5.3 has detect_races (it arrived between 0.5.2 and 0.6.0)");
	check_render(rs, "0.6.0", "${api:InterpretParams.detect_races}=True", "detect_races=True", "");
	/* a name twice is one reason; the name's `instead` follows, spelled for the release */
	check_render(rs, "0.4.35", "${api:jax_pallas_poison_buffers} ${api:jax_pallas_poison_buffers}",
		     "not available in JAX 0.4.35: jax_pallas_poison_buffers (JAX >= 0.11.0); upgrade "
		     "JAX to 0.11.0 or later, or instead: poison by hand with pl.ds", "");
	/* removed with nothing newer: no upgrade helps */
	check_render(rs, "0.6.0", "${api:pl.gone}(x)", "not available in JAX 0.6.0: pl.gone (removed "
		     "in JAX 0.6.0)", "");
	check_render(rs, "0.5.3", "${api:pl.gone}(x)", "pl.gone(x)", "");
	/* a comment is prose: a name it lacks is marked, the code stays */
	check_render(rs, "0.4.35", "${api:pl.ds}(0, 8)  # or ${api:jax_pallas_poison_buffers}",
		     "pl.ds(0, 8)  # or jax_pallas_poison_buffers (JAX >= 0.11.0)", "");
	check_prose(rs, "0.4.35", "set ${api:jax_pallas_poison_buffers} or ${api:pl.gone}",
		    "set jax_pallas_poison_buffers (JAX >= 0.11.0) or pl.gone");
	check_prose(rs, "0.10.0", "once ${api:pl.gone} was here", "once pl.gone (removed in JAX 0.6.0) was here");

	/* what is not an API placeholder is copied as it is */
	check_render(rs, "0.4.35", "${api:no.such} ${x} ${api:pl.ds", "no.such ${x} ${api:pl.ds", "");
	check_adopt(rs);
	ruleset_free(rs);
	diag_release(&d);
}

/* A spelling's call form and the keywords of a call, for each release. */
static void
test_calls(void)
{
	struct diag d = DIAG_INIT;
	struct ruleset *rs = load(table, &d);

	CHECK_INTEQ(d.nerrors, 0);
	/* the old order is written by keyword, which every release reads */
	check_render(rs, "0.4.35", "${api:pl.Spec}((8, 128), lambda i: (i, 0))",
		     "pl.Spec(index_map=lambda i: (i, 0), block_shape=(8, 128))", "");
	check_render(rs, "0.5.3", "${api:pl.Spec}((8, 128), lambda i: (i, 0))",
		     "pl.Spec((8, 128), lambda i: (i, 0))", "");
	/* an argument that is not there leaves its keyword out */
	check_render(rs, "0.4.35", "${api:pl.Spec}(${block})", "pl.Spec(block_shape=${block})", "");
	/* a keyword of the call gets its spelling for the release, or makes the code unavailable */
	check_render(rs, "0.4.35", "${api:pl.Spec}((8, 128), f, mode=2)",
		     "not available in JAX 0.4.35: mode (JAX >= 0.6.0); upgrade JAX to 0.6.0 or later", "");
	check_render(rs, "0.6.0", "${api:pl.Spec}((8, 128), f, mode=2)", "pl.Spec((8, 128), f, mode=2)", "");
	/* a dict form before the class, with the keyword it had then */
	check_render(rs, "0.5.3", "p=${api:pltpu.Params}(limit=${n})", "p=dict(mosaic=dict(old_limit=${n}))", "");
	check_render(rs, "0.6.0", "p=${api:pltpu.Params}(limit=${n})", "p=pltpu.Params(limit=${n})", "");
	check_render(rs, "0.5.3", "${api:pltpu.Params}()", "dict(mosaic=dict())", "");
	/* nested calls, strings with commas and brackets stay as they are */
	check_render(rs, "0.5.3", "${api:pl.Spec}((a, [b, c]), g(\"x, y\"), mode=${api:pl.ds}(0, 1))",
		     "not available in JAX 0.5.3: mode (JAX >= 0.6.0); upgrade JAX to 0.6.0 or later", "");
	check_render(rs, "0.6.0", "${api:pl.Spec}((a, [b, c]), g(\"x, y\"), mode=${api:pl.ds}(0, 1))",
		     "pl.Spec((a, [b, c]), g(\"x, y\"), mode=pl.ds(0, 1))", "");
	/* prose: a call of a missing API is marked once, after the call */
	check_prose(rs, "0.4.35", "with ${api:pltpu.Params}(limit=1)", "with dict(mosaic=dict(old_limit=1))");
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
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, since: 0.6.0, since_at: 'jax-v0.6.0:a:1', "
			      "removed: 0.5.0, removed_at: 'jax-v0.5.0:a:1' }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, sinse: 0.6.0, source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_gaps:\n  - { id: g.x, what: w, when: {a: b}, source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_gaps:\n  - { id: g.x, what: w, closed_in: 0.1.0, closed_at: "
			      "'jax-v0.1.0:a:1', when: {}, source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api: { name: a.b }\n"), 1);
	CHECK_INTEQ(errors_of(table), 0);
	/* the provenance rule: a release comes with the tag, path and line it was read at */
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, since: 0.6.0, source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, since: 0.6.0, since_at: 'jax/x.py:3' }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, since: 0.6.0, since_at: 'jax-v0.6.0:x.py' }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, since: 0.6.0, since_at: 'jax-v0.6.1:x.py:3' }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, since: 0.6.0, since_at: 'jax-v0.6.0:x.py:3' }\n"), 0);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, since_at: 'jax-v0.6.0:x.py:3' }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, deprecated: 0.7.0, source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_gaps:\n  - { id: g.x, what: w, closed_in: 0.9.2, when: {a: b}, source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_api:\n  - { name: a.b, since: 0.9.0, since_at: 'jax-v0.9.0.1:x.py:3' }\n"), 0);
	/* with a release list: releases in it, removed_at at the removal or the release before */
	CHECK_INTEQ(errors_of("jax_releases: { releases: [0.5.0, 0.6.0, 0.7.0], source: s }\n"
			      "jax_api:\n  - { name: a.b, since: 0.6.1, since_at: 'jax-v0.6.1:x.py:3' }\n"), 1);
	CHECK_INTEQ(errors_of("jax_releases: { releases: [0.5.0, 0.6.0, 0.7.0], source: s }\n"
			      "jax_api:\n  - { name: a.b, removed: 0.7.0, removed_at: 'jax-v0.6.0:x.py:3', source: s }\n"), 0);
	CHECK_INTEQ(errors_of("jax_releases: { releases: [0.5.0, 0.6.0, 0.7.0], source: s }\n"
			      "jax_api:\n  - { name: a.b, removed: 0.7.0, removed_at: 'jax-v0.5.0:x.py:3', source: s }\n"), 1);
	CHECK_INTEQ(errors_of("jax_releases: { releases: [0.6.0, 0.5.0], source: s }\n"), 1);
}

int
main(void)
{
	test_versions();
	test_ranges();
	test_render();
	test_calls();
	test_gaps();
	test_checks();
	return TEST_DONE();
}
