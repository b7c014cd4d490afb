/* SPDX-License-Identifier: MIT */
/*
 * Every text of the shipped rules that names a JAX API (every snippet, and
 * the prose of rules, classes, rungs and flags), rendered for each of a list
 * of releases, names only what that release has: each word the rendering
 * writes that the API table spells some way is checked against the table's
 * releases for it. A name the release lacks may appear only where the text
 * says so: followed by " (JAX >= X)" or " (removed in JAX X)". Unknown
 * versions are spelled for the newest release, so nothing only the
 * development tree has is offered. The renders are the ones triage,
 * explain, the walk and the report print (ladder.c, jaxapi_render.c).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/jaxapi.h"
#include "pt/ladder.h"
#include "pt/rules.h"
#include "pt/vars.h"
#include "test.h"

static const char *const releases[] = {
	"0.4.30", "0.4.31", "0.4.35", "0.5.0", "0.5.1", "0.6.0", "0.6.1", "0.6.2", "0.7.0",
	"0.7.2", "0.8.0", "0.9.0", "0.10.2", "0.11.0", NULL,
};

static const char *const prefixes[] = { "pl.", "pltpu.", "plgpu.", "pltriton.", "jax_pallas_" };

static size_t words_checked;

static bool
word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

static const char *
spelling(const struct api_name *n)
{
	return n->render ? n->render : n->name;
}

/*
 * A spelling that cannot be an English word (it has a '.' or a '_'): such a
 * word is checked wherever it stands; a plain one ("mask", "grid") only
 * where it is a keyword, written "mask=".
 */
static bool
distinctive(const char *s)
{
	return strpbrk(s, "._") != NULL;
}

static bool
marked(const char *after)
{
	return strncmp(after, " (JAX >= ", 9) == 0 || strncmp(after, " (removed in JAX ", 17) == 0;
}

/* One word of a rendered text at release v. */
static void
check_word(const struct jaxapi *t, const struct jaxver *v, const char *vtext, const char *w,
	   size_t len, const char *after, const char *what)
{
	bool spelled = false, present = false, is_kw = *after == '=' && after[1] != '=';
	char *word = strndup(w, len);

	for (size_t i = 0; i < t->nnames; i++) {
		const struct api_name *n = t->names[i];

		if (strcmp(spelling(n), word) != 0 || (!distinctive(word) && !is_kw))
			continue;
		spelled = true;
		present |= jaxapi_presence(n, v) == API_PRESENT;
	}
	for (size_t i = 0; !spelled && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(word, prefixes[i], strlen(prefixes[i])) == 0) {
			fprintf(stderr, "%s at %s: '%s' is a Pallas name the table does not have\n",
				what, vtext, word);
			CHECK(false);
		}
	if (spelled) {
		words_checked++;
		if (!present && !marked(after))
			fprintf(stderr, "%s at %s: '%s' is written where JAX %s lacks it\n", what,
				vtext, word, vtext);
		CHECK(present || marked(after));
	}
	free(word);
}

static void
check_text(const struct jaxapi *t, const struct jaxver *v, const char *vtext, const char *text,
	   const char *what)
{
	const char *p = text;

	if (!text)
		return;
	if (strstr(text, "${api:")) {
		fprintf(stderr, "%s at %s: a placeholder is left: %s\n", what, vtext, text);
		CHECK(false);
	}
	while (*p) {
		const char *e;

		/* a ${value} is filled in from the log later: no API name */
		if (p[0] == '$' && p[1] == '{' && (e = strchr(p, '}'))) {
			p = e + 1;
			continue;
		}
		if (!word_char(*p) || (p > text && word_char(p[-1]))) {
			p++;
			continue;
		}
		for (e = p; word_char(*e); e++)
			;
		while (e > p && e[-1] == '.')
			e--;
		if (e > p)
			check_word(t, v, vtext, p, (size_t)(e - p), e, what);
		p = e > p ? e : p + 1;
	}
}

/* Render a prose text and check it; the render lives until ar is released. */
static void
check_prose(struct api_render *ar, const struct jaxver *v, const char *vtext, const char *text,
	    const char *what)
{
	check_text(ar->table, v, vtext, api_render_prose(ar, text), what);
}

static void
check_snippet(struct api_render *ar, const struct jaxver *v, const char *vtext, const char *tmpl,
	      const char *what)
{
	struct buf b = BUF_INIT;

	if (!tmpl)
		return;
	api_render_text(ar, tmpl, &b);
	check_text(ar->table, v, vtext, b.data, what);
	buf_release(&b);
}

/* Everything of rs that names an API, rendered for version (NULL: unknown). */
static void
check_release(const struct ruleset *rs, const char *version)
{
	const struct jaxver *newest = jaxapi_newest(rs->api);
	struct api_render ar;
	struct jaxver v;
	char vtext[24];

	api_render_init(&ar, rs->api, version);
	if (version) {
		CHECK_INTEQ(jaxver_parse(version, &v), 0);
		snprintf(vtext, sizeof(vtext), "%s", version);
	} else {
		v = *newest;
		snprintf(vtext, sizeof(vtext), "(none)");
	}
	for (int c = 0; c < CLASS_COUNT; c++) {
		const struct class_def *cd = &rs->classes[c];

		check_prose(&ar, &v, vtext, cd->summary, class_name((enum pt_class)c));
		check_prose(&ar, &v, vtext, cd->explain, class_name((enum pt_class)c));
		check_prose(&ar, &v, vtext, cd->interpret_note, class_name((enum pt_class)c));
		check_prose(&ar, &v, vtext, cd->gpu_interpret_note, class_name((enum pt_class)c));
		for (char **s = cd->next_steps; s && *s; s++)
			check_prose(&ar, &v, vtext, *s, class_name((enum pt_class)c));
		for (size_t i = 0; i < rs->ladders[c].nrungs; i++) {
			const struct rung *r = &rs->ladders[c].rungs[i];

			check_snippet(&ar, &v, vtext, r->change, r->id);
			check_snippet(&ar, &v, vtext, r->fallback, r->id);
			check_prose(&ar, &v, vtext, r->action, r->id);
			check_prose(&ar, &v, vtext, r->expect, r->id);
		}
	}
	for (size_t i = 0; i < rs->nflags; i++) {
		check_snippet(&ar, &v, vtext, rs->flags[i].snippet, rs->flags[i].id);
		check_prose(&ar, &v, vtext, rs->flags[i].why, rs->flags[i].id);
	}
	for (size_t i = 0; i < rs->nrules; i++) {
		check_prose(&ar, &v, vtext, rs->rules[i]->message, rs->rules[i]->id);
		check_prose(&ar, &v, vtext, rs->rules[i]->explain, rs->rules[i]->id);
	}
	api_render_release(&ar);
}

/* The change a user gets, as triage prints it: with the log's values, or the fallback. */
static void
check_ladders_with_values(const struct ruleset *rs, const char *version)
{
	struct vars vs = VARS_INIT;
	struct jaxver v;

	CHECK_INTEQ(jaxver_parse(version, &v), 0);
	vars_set(&vs, "jax_version", version, true);
	for (int c = 0; c < CLASS_COUNT; c++)
		for (size_t i = 0; i < rs->ladders[c].nrungs; i++) {
			char *s = ladder_change_text(rs, &rs->ladders[c].rungs[i], &vs, NULL);

			check_text(rs->api, &v, version, s, rs->ladders[c].rungs[i].id);
			free(s);
		}
	vars_release(&vs);
}

/* The table itself: every shipped name has its first release, read where it says. */
static void
check_table(const struct jaxapi *t)
{
	for (size_t i = 0; i < t->nnames; i++) {
		const struct api_name *n = t->names[i];

		if (!n->since.set || !n->since.has_lo || jaxver_cmp(&n->since.lo, &n->since.hi) != 0)
			fprintf(stderr, "'%s' has no exact first release\n", n->name);
		CHECK(n->since.set && n->since.has_lo && jaxver_cmp(&n->since.lo, &n->since.hi) == 0);
		CHECK(n->since_at != NULL);
		CHECK(!n->removed.set || n->removed_at != NULL);
		CHECK(!n->deprecated || n->deprecated_at != NULL);
	}
	for (size_t i = 0; i < t->ngaps; i++) {
		CHECK(t->gaps[i]->closed_in.has_lo);
		CHECK(t->gaps[i]->closed_at != NULL);
	}
}

/* The examples of the issue, spelled at the releases it names. */
static void
check_known(const struct ruleset *rs)
{
	struct {
		const char *version, *tmpl, *want;
	} cases[] = {
		{ "0.4.31", "${api:pltpu.CompilerParams}(vmem_limit_bytes=N)",
		  "dict(mosaic=dict(vmem_limit_bytes=N))" },
		{ "0.4.35", "${api:pltpu.CompilerParams}(vmem_limit_bytes=N)",
		  "pltpu.TPUCompilerParams(vmem_limit_bytes=N)" },
		{ "0.6.2", "${api:pltpu.CompilerParams}(vmem_limit_bytes=N)",
		  "pltpu.CompilerParams(vmem_limit_bytes=N)" },
		{ "0.7.2", "${api:pltpu.CompilerParams}(vmem_limit_bytes=N)",
		  "pltpu.CompilerParams(vmem_limit_bytes=N)" },
		{ "0.4.30", "${api:pl.BlockSpec}((8, 128), f)", "pl.BlockSpec(index_map=f, block_shape=(8, 128))" },
		{ "0.4.31", "${api:pl.BlockSpec}((8, 128), f)", "pl.BlockSpec((8, 128), f)" },
		{ "0.10.2", "${api:jax_pallas_poison_buffers}", "jax_pallas_poison_buffers" },
		{ "0.5.3", "${api:pl.semaphore_signal}(s)", "pltpu.semaphore_signal(s)" },
		{ "0.6.0", "${api:pl.semaphore_signal}(s)", "pl.semaphore_signal(s)" },
		{ "0.10.2", "${api:plgpu.mma}(acc, a, b)",
		  "not available in JAX 0.10.2: plgpu.mma (JAX >= 0.11.0); upgrade JAX to 0.11.0 or later" },
		{ "0.11.0", "acc = ${api:plgpu.mma}(acc, a, b)", "acc = plgpu.mma(acc, a, b)" },
		{ "0.6.0", "${api:jax.shard_map}(f, mesh=m, in_specs=P(), out_specs=P(), check_vma=False)",
		  "jax.experimental.shard_map.shard_map(f, mesh=m, in_specs=P(), out_specs=P(), check_rep=False)" },
		{ "0.6.1", "${api:jax.shard_map}(f, mesh=m, in_specs=P(), out_specs=P(), check_vma=False)",
		  "jax.shard_map(f, mesh=m, in_specs=P(), out_specs=P(), check_vma=False)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct api_render ar;
		struct buf b = BUF_INIT;

		api_render_init(&ar, rs->api, cases[i].version);
		api_render_text(&ar, cases[i].tmpl, &b);
		CHECK_STREQ(b.data, cases[i].want);
		buf_release(&b);
		api_render_release(&ar);
	}
}

int
main(void)
{
	struct ruleset *rs = ruleset_new();
	struct diag d = DIAG_INIT;
	struct pt_err err = PT_ERR_INIT;

	setenv("PALLAS_TRIAGE_NO_CACHE", "1", 1);
	CHECK_INTEQ(ruleset_load_dir(rs, PT_SRCDIR "/rules", NULL, &d, &err), 0);
	CHECK_INTEQ(ruleset_finish(rs, &d), 0);
	CHECK(rs->api != NULL && jaxapi_newest(rs->api) != NULL);
	if (!rs->api || !jaxapi_newest(rs->api))
		return TEST_DONE();
	check_table(rs->api);
	for (const char *const *r = releases; *r; r++) {
		check_release(rs, *r);
		check_ladders_with_values(rs, *r);
	}
	/* every release of the table's own list, and none at all */
	for (size_t i = 0; i < rs->api->nreleases; i++) {
		char v[24];

		jaxver_format(&rs->api->releases[i], v, sizeof(v));
		check_release(rs, v);
	}
	check_release(rs, NULL);
	check_known(rs);
	/* the sweep looked at names, not at nothing */
	CHECK(words_checked > 10000);
	ruleset_free(rs);
	diag_release(&d);
	return TEST_DONE();
}
