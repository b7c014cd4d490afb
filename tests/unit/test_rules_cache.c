/* SPDX-License-Identifier: MIT */
/*
 * The rules cache gives back what it was given: the shipped rules plus a
 * pack are saved and loaded again, and every field of every rule, pattern,
 * context, class, rung, flag, code, fact, chip, dtype and JAX API entry is
 * compared. Two guards make a forgotten field fail here rather than ship
 * as a stale cache: the size of every cached struct is pinned (a new
 * field changes it: serialize it in rules_cache*.c, compare it below, then
 * update the size), and every optional field must be set somewhere in the
 * test set, so that a comparison of NULL with NULL cannot hide a field the
 * cache drops. Examples of rules and contexts are deliberately not cached
 * (`rules test` reads the files); those of facts are.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <glob.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt/buf.h"
#include "pt/chips.h"
#include "pt/classify.h"
#include "pt/gpus.h"
#include "pt/checktab.h"
#include "pt/jaxapi.h"
#include "pt/litset.h"
#include "pt/match.h"
#include "pt/rules.h"
#include "pt/rules_cache.h"
#include "pt/util.h"
#include "pt/xalloc.h"
#include "test.h"

/* A pack: gives the set rules with an origin, one overriding a shipped rule. */
static const char *pack =
	"rules:\n"
	"  - id: team.cache-round-trip\n"
	"    class: numerics\n"
	"    stage: runtime\n"
	"    weight: 40\n"
	"    match: { any: ['round (?P<what>trip) failed'] }\n"
	"    message: 'the ${what} failed'\n"
	"    examples: { match: ['round trip failed'] }\n"
	"  - id: capacity.vmem-stack-oom\n"
	"    overrides: true\n"
	"    class: capacity\n"
	"    stage: compile\n"
	"    weight: 60\n"
	"    match: { any: ['team wording of a stack OOM'] }\n"
	"    message: 'team wording'\n"
	"    examples: { match: ['team wording of a stack OOM'] }\n";

static void
fail(const char *where, const char *field)
{
	test_failed++;
	fprintf(stderr, "%s: field '%s' differs after a round trip\n", where, field);
}

static void
same_str(const char *where, const char *field, const char *a, const char *b)
{
	if ((!a && !b) || (a && b && strcmp(a, b) == 0))
		test_passed++;
	else
		fail(where, field);
}

static void
same_int(const char *where, const char *field, long long a, long long b)
{
	if (a == b)
		test_passed++;
	else
		fail(where, field);
}

static void
same_strv(const char *where, const char *field, char *const *a, char *const *b)
{
	size_t i = 0;

	if (!a || !b) {
		same_int(where, field, a == NULL, b == NULL);
		return;
	}
	for (; a[i] && b[i]; i++)
		if (strcmp(a[i], b[i]) != 0)
			break;
	same_int(where, field, a[i] == NULL && b[i] == NULL, 1);
}

static void
same_ints(const char *where, const char *field, const int *a, const int *b)
{
	size_t i = 0;

	if (!a || !b) {
		same_int(where, field, a == NULL, b == NULL);
		return;
	}
	for (; a[i] >= 0 && a[i] == b[i]; i++)
		;
	same_int(where, field, a[i], b[i]);
}

#define S(f) same_str(w, #f, x->f, y->f)
#define I(f) same_int(w, #f, (long long)x->f, (long long)y->f)
#define V(f) same_strv(w, #f, x->f, y->f)

static void
same_pattern(const char *w, const struct pattern *x, const struct pattern *y)
{
	S(src);
	I(role);
	V(lits);
	V(ahead);
	V(also);
	S(tail);
	V(scan_lits);
	I(line);
	I(col);
	I(index);
	same_str(w, "rule", x->rule ? x->rule->id : NULL, y->rule ? y->rule->id : NULL);
	same_int(w, "m", y->m != NULL, 1);
	if (x->m && y->m) {
		same_int(w, "m names", (long long)match_name_count(x->m),
			 (long long)match_name_count(y->m));
		for (size_t i = 0; i < match_name_count(x->m); i++)
			same_str(w, "m name", match_name(x->m, i), match_name(y->m, i));
	}
}

static void
same_rule(const struct rule *x, const struct rule *y)
{
	const char *w = x->id;

	S(id);
	I(cls);
	S(subkind);
	I(stage);
	I(weight);
	I(npats);
	I(nany);
	I(nall);
	I(nnone);
	V(literals);
	S(message);
	S(explain);
	V(links);
	I(overrides);
	S(file);
	I(line);
	S(origin);
	I(index);
	I(tier);
	V(requires);
	V(excludes);
	V(refine);
	same_ints(w, "req_ctx", x->req_ctx, y->req_ctx);
	same_ints(w, "exc_ctx", x->exc_ctx, y->exc_ctx);
	for (size_t i = 0; i < x->npats && i < y->npats; i++)
		same_pattern(w, x->pats[i], y->pats[i]);
}

static void
same_context(const struct context_def *x, const struct context_def *y)
{
	const char *w = x->id;

	S(id);
	S(summary);
	S(missing);
	I(threshold);
	I(npats);
	for (size_t i = 0; i < x->npats && i < y->npats; i++) {
		same_int(w, "weights", x->weights[i], y->weights[i]);
		same_pattern(w, x->pats[i], y->pats[i]);
	}
	V(requires);
	V(excludes);
	V(implied_by);
	V(sets);
	same_ints(w, "req_ctx", x->req_ctx, y->req_ctx);
	same_ints(w, "exc_ctx", x->exc_ctx, y->exc_ctx);
	same_ints(w, "imp_ctx", x->imp_ctx, y->imp_ctx);
	S(file);
	I(line);
	I(index);
}

static void
same_rung(const char *w, const struct rung *x, const struct rung *y)
{
	S(id);
	S(family);
	S(action);
	S(change);
	S(fallback);
	S(expect);
	V(requires);
	V(unless);
	V(subkinds);
	V(flags);
	V(backends);
	S(hypothesis);
	I(index);
	S(file);
	I(line);
	I(col);
}

static void
same_classes(const struct ruleset *a, const struct ruleset *b)
{
	for (int c = 0; c < CLASS_COUNT; c++) {
		const struct class_def *x = &a->classes[c], *y = &b->classes[c];
		const char *w = class_name((enum pt_class)c);

		same_int(w, "have_class", a->have_class[c], b->have_class[c]);
		I(cls);
		S(title);
		S(summary);
		S(interpret);
		S(interpret_note);
		S(gpu_interpret_note);
		S(explain);
		V(next_steps);
		for (int o = 0; o < OUTCOME_COUNT; o++) {
			V(rules_out[o]);
			V(moves_to[o]);
			S(keeps[o]);
		}
		V(undecided);
		V(explanations);
		V(more_info);
		V(fingerprint);
		V(next_steps_run);
		same_int(w, "ladder cls", a->ladders[c].cls, b->ladders[c].cls);
		same_int(w, "nrungs", (long long)a->ladders[c].nrungs, (long long)b->ladders[c].nrungs);
		for (size_t i = 0; i < a->ladders[c].nrungs && i < b->ladders[c].nrungs; i++)
			same_rung(a->ladders[c].rungs[i].id, &a->ladders[c].rungs[i],
				  &b->ladders[c].rungs[i]);
	}
}

static void
same_tables(const struct ruleset *a, const struct ruleset *b)
{
	same_int("ruleset", "nflags", (long long)a->nflags, (long long)b->nflags);
	for (size_t i = 0; i < a->nflags && i < b->nflags; i++) {
		const struct flag_def *x = &a->flags[i], *y = &b->flags[i];
		const char *w = x->id;

		S(id);
		S(snippet);
		S(why);
		S(file);
		I(line);
		I(col);
	}
	same_int("ruleset", "ncodes", (long long)a->ncodes, (long long)b->ncodes);
	for (size_t i = 0; i < a->ncodes && i < b->ncodes; i++) {
		const struct code_def *x = &a->codes[i], *y = &b->codes[i];
		const char *w = x->code;

		S(code);
		S(name);
		S(summary);
		S(link);
		I(cls);
	}
	same_int("ruleset", "nfacts", (long long)a->nfacts, (long long)b->nfacts);
	for (size_t i = 0; i < a->nfacts && i < b->nfacts; i++) {
		const struct fact_def *x = &a->facts[i], *y = &b->facts[i];
		const char *w = x->id;

		S(id);
		S(sets);
		S(file);
		V(examples);
		same_pattern(w, x->pat, y->pat);
	}
	{
		const struct confidence_policy *x = &a->policy, *y = &b->policy;
		const char *w = "policy";

		S(kernel_context);
		I(kernel_ctx);
		I(without_context_max);
		I(fallback_max);
	}
	same_int("ruleset", "nrun_texts", (long long)a->nrun_texts, (long long)b->nrun_texts);
	for (size_t i = 0; i < a->nrun_texts && i < b->nrun_texts; i++) {
		const struct run_text *x = &a->run_texts[i], *y = &b->run_texts[i];
		const char *w = "run_text";

		V(when);
		S(text);
		S(rules_out);
		S(reason);
		S(file);
		I(line);
	}
	{
		const struct run_pass *x = &a->run_pass, *y = &b->run_pass;
		const char *w = "run_pass";

		V(rules);
		S(max_abs);
		S(max_rel);
		S(file);
	}
	same_int("ruleset", "nfiles", (long long)a->nfiles, (long long)b->nfiles);
	for (size_t i = 0; i < a->nfiles && i < b->nfiles; i++)
		same_str("ruleset", "files", a->files[i], b->files[i]);
	same_strv("ruleset", "more_info", a->more_info, b->more_info);
	same_int("ruleset", "nalways", (long long)a->nalways, (long long)b->nalways);
	for (size_t i = 0; i < a->nalways && i < b->nalways; i++)
		same_int("ruleset", "always", (long long)a->always[i], (long long)b->always[i]);
	same_strv("ruleset", "env_fields", (char *const *)a->env_fields,
		  (char *const *)b->env_fields);
}

static void
same_chip(const struct chip *x, const struct chip *y)
{
	const char *w = x->name;

	S(name);
	V(aliases);
	V(device_kinds);
	I(generation);
	I(cores_per_chip);
	I(vmem_bytes);
	I(smem_bytes);
	I(sublanes);
	I(lanes);
	I(scoped_default_bytes);
	I(internal_scratch_bytes);
	for (int i = 0; i < CHIP_NWIDTHS; i++)
		same_int(w, "tiling", x->tiling[i], y->tiling[i]);
	I(tiling_x16_flag);
	I(nmatmul);
	for (size_t i = 0; i < x->nmatmul && i < y->nmatmul; i++) {
		same_strv(w, "matmul.lhs", x->matmul[i].lhs, y->matmul[i].lhs);
		same_strv(w, "matmul.rhs", x->matmul[i].rhs, y->matmul[i].rhs);
		same_str(w, "matmul.note", x->matmul[i].note, y->matmul[i].note);
	}
	I(ndisputes);
	for (size_t i = 0; i < x->ndisputes && i < y->ndisputes; i++) {
		same_str(w, "disputes.field", x->disputes[i].field, y->disputes[i].field);
		same_int(w, "disputes.value", (long long)x->disputes[i].value,
			 (long long)y->disputes[i].value);
		same_str(w, "disputes.source", x->disputes[i].source, y->disputes[i].source);
	}
	S(note);
	S(file);
	I(line);
}

static void
same_gpu(const struct gpu *x, const struct gpu *y)
{
	const char *w = x->name;

	S(name);
	V(aliases);
	V(device_kinds);
	S(vendor);
	S(arch);
	S(compute_capability);
	I(sms);
	I(warp_size);
	I(smem_block);
	I(smem_block_optin);
	I(smem_sm);
	I(regs_sm);
	I(regs_block);
	I(max_regs_thread);
	I(tmem_columns);
	I(l2_bytes);
	I(memory_bytes);
	S(mma);
	V(backends);
	S(note);
	S(file);
	I(line);
}

static void
same_chiptab(const struct chiptab *a, const struct chiptab *b)
{
	same_int("chips", "present", a != NULL, b != NULL);
	if (!a || !b)
		return;
	same_int("chips", "nchips", (long long)a->nchips, (long long)b->nchips);
	for (size_t i = 0; i < a->nchips && i < b->nchips; i++)
		same_chip(a->chips[i], b->chips[i]);
	same_int("chips", "ndtypes", (long long)a->ndtypes, (long long)b->ndtypes);
	for (size_t i = 0; i < a->ndtypes && i < b->ndtypes; i++) {
		const struct dtype *x = a->dtypes[i], *y = b->dtypes[i];
		const char *w = x->name;

		S(name);
		V(aliases);
		I(bits);
		S(unsupported);
		S(note);
		S(file);
		I(line);
	}
	same_int("chips", "ngpus", (long long)a->ngpus, (long long)b->ngpus);
	for (size_t i = 0; i < a->ngpus && i < b->ngpus; i++)
		same_gpu(a->gpus[i], b->gpus[i]);
}

static void
same_range(const char *w, const char *field, const struct jaxrange *x, const struct jaxrange *y)
{
	same_int(w, field, x->set, y->set);
	same_int(w, field, x->has_lo, y->has_lo);
	same_str(w, field, x->text, y->text);
	for (int k = 0; k < 3; k++) {
		same_int(w, field, x->lo.part[k], y->lo.part[k]);
		same_int(w, field, x->hi.part[k], y->hi.part[k]);
	}
	same_int(w, field, x->lo.stage, y->lo.stage);
	same_int(w, field, x->hi.stage, y->hi.stage);
}

static void
same_api(const struct jaxapi *a, const struct jaxapi *b)
{
	same_int("api", "present", a != NULL, b != NULL);
	if (!a || !b)
		return;
	same_int("api", "nnames", (long long)a->nnames, (long long)b->nnames);
	for (size_t i = 0; i < a->nnames && i < b->nnames; i++) {
		const struct api_name *x = a->names[i], *y = b->names[i];
		const char *w = x->name;

		S(name);
		S(render);
		same_range(w, "since", &x->since, &y->since);
		same_range(w, "removed", &x->removed, &y->removed);
		S(deprecated);
		S(replaced_by);
		S(since_at);
		S(deprecated_at);
		S(removed_at);
		S(call);
		S(instead);
		S(undecided);
		S(source);
		S(note);
		S(file);
		I(line);
		I(col);
		I(order);
		same_str(w, "by_name", a->by_name[i]->name, b->by_name[i]->name);
	}
	same_int("api", "nreleases", (long long)a->nreleases, (long long)b->nreleases);
	for (size_t i = 0; i < a->nreleases && i < b->nreleases; i++)
		same_int("api", "release", jaxver_cmp(&a->releases[i], &b->releases[i]), 0);
	same_str("api", "releases_source", a->releases_source, b->releases_source);
	same_str("api", "releases_file", a->releases_file, b->releases_file);
	same_int("api", "releases_line", a->releases_line, b->releases_line);
	same_int("api", "ngaps", (long long)a->ngaps, (long long)b->ngaps);
	for (size_t i = 0; i < a->ngaps && i < b->ngaps; i++) {
		const struct api_gap *x = a->gaps[i], *y = b->gaps[i];
		const char *w = x->id;

		S(id);
		S(what);
		same_range(w, "closed_in", &x->closed_in, &y->closed_in);
		S(closed_at);
		S(undecided);
		I(nwhen);
		for (size_t k = 0; k < x->nwhen && k < y->nwhen; k++) {
			same_str(w, "when_names", x->when_names[k], y->when_names[k]);
			same_strv(w, "when_values", x->when_values[k], y->when_values[k]);
		}
		S(source);
		S(file);
		I(line);
	}
}

/*
 * The sizes when this test last compared every field (LP64). A different
 * size means a field was added or removed: make rules_cache*.c write and
 * read it, compare it above, then update the number here.
 */
/* The source checker's table (check.yaml): every field of every entry. */
static void
same_checks(const struct checktab *a, const struct checktab *b)
{
	same_int("checks", "present", a != NULL, b != NULL);
	if (!a || !b)
		return;
	same_int("checks", "ndefs", (long long)a->ndefs, (long long)b->ndefs);
	for (size_t i = 0; i < a->ndefs && i < b->ndefs; i++) {
		const struct check_def *x = a->defs[i], *y = b->defs[i];
		const char *w = x->code;

		same_str(w, "code", x->code, y->code);
		same_str(w, "name", x->name, y->name);
		same_int(w, "cls", x->cls, y->cls);
		same_int(w, "severity", x->severity, y->severity);
		same_str(w, "summary", x->summary, y->summary);
		same_str(w, "message", x->message, y->message);
		same_str(w, "fix", x->fix, y->fix);
		same_strv(w, "rung_ids", x->rung_ids, y->rung_ids);
		same_strv(w, "rung_fixes", x->rung_fixes, y->rung_fixes);
		same_str(w, "explain", x->explain, y->explain);
		same_str(w, "file", x->file, y->file);
		same_int(w, "line", x->line, y->line);
		same_int(w, "compiled", x->compiled, y->compiled);
	}
	same_int("checks", "nmods", (long long)a->nmods, (long long)b->nmods);
	for (size_t i = 0; i < a->nmods && i < b->nmods; i++) {
		same_str("module", "module", a->mods[i]->module, b->mods[i]->module);
		same_str("module", "prefix", a->mods[i]->prefix, b->mods[i]->prefix);
	}
	same_int("checks", "nprims", (long long)a->nprims, (long long)b->nprims);
	for (size_t i = 0; i < a->nprims && i < b->nprims; i++) {
		const struct check_prim *x = a->prims[i], *y = b->prims[i];
		const char *w = x->id;

		same_str(w, "id", x->id, y->id);
		same_strv(w, "calls", x->calls, y->calls);
		same_strv(w, "dtypes", x->dtypes, y->dtypes);
		same_strv(w, "backends", x->backends, y->backends);
		same_range(w, "lowered_in", &x->lowered_in, &y->lowered_in);
		same_str(w, "what", x->what, y->what);
		same_str(w, "fix", x->fix, y->fix);
		same_str(w, "source", x->source, y->source);
		same_str(w, "file", x->file, y->file);
		same_int(w, "line", x->line, y->line);
	}
}

/* The first prefilter comes back built, byte for byte the one saved. */
static void
same_prefilter(const struct litset *x, const struct litset *y)
{
	struct buf a = BUF_INIT, b = BUF_INIT;

	CHECK(x != NULL && y != NULL);
	if (!x || !y)
		return;
	litset_save(x, &a);
	litset_save(y, &b);
	CHECK(a.len > 0);
	CHECK_INTEQ(a.len, b.len);
	CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
	CHECK_INTEQ(litset_count(y), litset_count(x));
	buf_release(&a);
	buf_release(&b);
}

static void
test_struct_sizes(void)
{
#if UINTPTR_MAX == 0xffffffffffffffffu
#define SIZE(t, n) do { \
	if (sizeof(t) != (n)) \
		fprintf(stderr, "%s is %zu bytes, not %d: a field changed; cache it and " \
			"compare it in %s\n", #t, sizeof(t), (n), __FILE__); \
	CHECK_INTEQ(sizeof(t), (n)); \
} while (0)
	SIZE(struct pattern, 88);
	SIZE(struct rule, 224);
	SIZE(struct context_def, 168);
	SIZE(struct confidence_policy, 24);
	SIZE(struct class_def, 152);
	SIZE(struct flag_def, 40);
	SIZE(struct rung, 120);
	SIZE(struct ladder, 32);
	SIZE(struct code_def, 40);
	SIZE(struct fact_def, 40);
	SIZE(struct run_text, 48);
	SIZE(struct run_pass, 32);
	SIZE(struct ruleset, 1464);
	SIZE(struct check_def, 88);
	SIZE(struct check_module, 16);
	SIZE(struct check_prim, 120);
	SIZE(struct checktab, 72);
	SIZE(struct chip, 152);
	SIZE(struct chip_matmul, 24);
	SIZE(struct chip_dispute, 24);
	SIZE(struct dtype, 56);
	SIZE(struct chiptab, 72);
	SIZE(struct gpu, 160);
	SIZE(struct api_name, 216);
	SIZE(struct api_gap, 128);
	SIZE(struct jaxapi, 96);
	SIZE(struct jaxrange, 48);
#undef SIZE
#endif
}

/* The API table's optional fields are set somewhere in the shipped table. */
static void
test_api_coverage(const struct jaxapi *t)
{
	bool since_at = false, dep_at = false, removed_at = false, call = false, instead = false;
	bool undecided = false, gap_undecided = false;

	for (size_t i = 0; t && i < t->nnames; i++) {
		since_at |= t->names[i]->since_at != NULL;
		dep_at |= t->names[i]->deprecated_at != NULL;
		removed_at |= t->names[i]->removed_at != NULL;
		call |= t->names[i]->call != NULL;
		instead |= t->names[i]->instead != NULL;
		undecided |= t->names[i]->undecided != NULL;
	}
	for (size_t i = 0; t && i < t->ngaps; i++)
		gap_undecided |= t->gaps[i]->undecided != NULL;
	CHECK(since_at && dep_at && removed_at && call && instead && undecided && gap_undecided);
	CHECK(t && t->nreleases > 0);
}

/* Every optional field is set somewhere, so the comparisons above see it. */
static void
test_coverage(const struct ruleset *rs)
{
	struct { const char *what; bool seen; } c[] = {
		{ "rule.subkind", false }, { "rule.explain", false }, { "rule.links", false }, { "rule.literals", false },
		{ "rule.origin", false }, { "rule.requires", false }, { "rule.excludes", false }, { "rule.none", false },
		{ "rule.all", false }, { "rule.overrides", false }, { "rule.fallback", false },
		{ "context.missing", false }, { "context.requires", false }, { "context.excludes", false },
		{ "context.implied_by", false }, { "class.interpret_note", false }, { "class.next_steps", false },
		{ "rung.fallback", false }, { "rung.requires", false }, { "rung.subkinds", false }, { "rung.flags", false },
		{ "code.name", false }, { "code.link", false }, { "fact.examples", false }, { "chip.note", false },
		{ "chip.matmul", false }, { "chip.disputes", false }, { "dtype.unsupported", false }, { "dtype.note", false },
		{ "api.render", false }, { "api.removed", false }, { "api.deprecated", false }, { "api.replaced_by", false },
		{ "api.note", false }, { "gap.when", false }, { "policy.kernel_context", false },
		{ "class.rules_out", false }, { "class.moves_to", false }, { "class.keeps", false },
		{ "class.undecided", false }, { "class.explanations", false }, { "class.more_info", false },
		{ "rung.hypothesis", false }, { "ruleset.more_info", false },
		{ "class.fingerprint", false }, { "rule.capture", false }, { "rule.refine", false },
		{ "context.sets", false }, { "class.gpu_interpret_note", false },
		{ "rung.backends", false }, { "rung.unless", false }, { "rule.observed", false },
	};
	const size_t nc = sizeof(c) / sizeof(c[0]);
	size_t k;

	for (size_t i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];

		k = 0;
		c[k++].seen |= r->subkind != NULL;
		c[k++].seen |= r->explain != NULL;
		c[k++].seen |= r->links != NULL;
		c[k++].seen |= r->literals != NULL;
		c[k++].seen |= r->origin != NULL;
		c[k++].seen |= r->requires != NULL;
		c[k++].seen |= r->excludes != NULL;
		c[k++].seen |= r->nnone > 0;
		c[k++].seen |= r->nall > 0;
		c[k++].seen |= r->overrides;
		c[k++].seen |= r->tier == TIER_FALLBACK;
		c[nc - 1].seen |= r->tier == TIER_OBSERVED;
	}
	for (size_t i = 0; i < rs->ncontexts; i++) {
		k = 11;
		c[k++].seen |= rs->contexts[i].missing != NULL;
		c[k++].seen |= rs->contexts[i].requires != NULL;
		c[k++].seen |= rs->contexts[i].excludes != NULL;
		c[k++].seen |= rs->contexts[i].implied_by != NULL;
		c[nc - 5].seen |= rs->contexts[i].sets != NULL;
	}
	for (int cl = 0; cl < CLASS_COUNT; cl++) {
		c[15].seen |= rs->classes[cl].interpret_note != NULL;
		c[16].seen |= rs->classes[cl].next_steps != NULL;
		c[nc - 4].seen |= rs->classes[cl].gpu_interpret_note != NULL;
		for (size_t i = 0; i < rs->ladders[cl].nrungs; i++) {
			const struct rung *g = &rs->ladders[cl].rungs[i];

			c[17].seen |= g->fallback != NULL;
			c[18].seen |= g->requires != NULL;
			c[19].seen |= g->subkinds != NULL;
			c[20].seen |= g->flags != NULL;
			c[nc - 2].seen |= g->unless != NULL;
			c[nc - 3].seen |= g->backends != NULL;
		}
	}
	for (size_t i = 0; i < rs->ncodes; i++) {
		c[21].seen |= rs->codes[i].name != NULL;
		c[22].seen |= rs->codes[i].link != NULL;
	}
	for (size_t i = 0; i < rs->nfacts; i++)
		c[23].seen |= rs->facts[i].examples != NULL;
	for (size_t i = 0; rs->chips && i < rs->chips->nchips; i++) {
		c[24].seen |= rs->chips->chips[i]->note != NULL;
		c[25].seen |= rs->chips->chips[i]->nmatmul > 0;
		c[26].seen |= rs->chips->chips[i]->ndisputes > 0;
	}
	for (size_t i = 0; rs->chips && i < rs->chips->ndtypes; i++) {
		c[27].seen |= rs->chips->dtypes[i]->unsupported != NULL;
		c[28].seen |= rs->chips->dtypes[i]->note != NULL;
	}
	for (size_t i = 0; rs->api && i < rs->api->nnames; i++) {
		const struct api_name *n = rs->api->names[i];

		c[29].seen |= n->render != NULL;
		c[30].seen |= n->removed.set;
		c[31].seen |= n->deprecated != NULL;
		c[32].seen |= n->replaced_by != NULL;
		c[33].seen |= n->note != NULL;
	}
	for (size_t i = 0; rs->api && i < rs->api->ngaps; i++)
		c[34].seen |= rs->api->gaps[i]->nwhen > 0;
	c[35].seen = rs->policy.kernel_context != NULL;
	for (int cl = 0; cl < CLASS_COUNT; cl++) {
		const struct class_def *cd = &rs->classes[cl];

		for (int o = 0; o < OUTCOME_COUNT; o++) {
			c[36].seen |= cd->rules_out[o] != NULL;
			c[37].seen |= cd->moves_to[o] != NULL;
			c[38].seen |= cd->keeps[o] != NULL;
		}
		c[39].seen |= cd->undecided != NULL;
		c[40].seen |= cd->explanations != NULL;
		c[41].seen |= cd->more_info != NULL;
		for (size_t i = 0; i < rs->ladders[cl].nrungs; i++)
			c[42].seen |= rs->ladders[cl].rungs[i].hypothesis != NULL;
	}
	c[43].seen = rs->more_info != NULL;
	for (int cl = 0; cl < CLASS_COUNT; cl++)
		c[44].seen |= rs->classes[cl].fingerprint != NULL;
	for (size_t i = 0; i < rs->nrules; i++)
		for (size_t j = 0; j < rs->rules[i]->npats; j++)
			c[45].seen |= rs->rules[i]->pats[j]->role == PAT_CAPTURE;
	for (size_t i = 0; i < rs->nrules; i++)
		c[46].seen |= rs->rules[i]->refine != NULL;
	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		if (!c[k].seen)
			fprintf(stderr, "no entry of the test set has %s: the round trip cannot "
				"check it\n", c[k].what);
		CHECK(c[k].seen);
	}
}

static void
remove_tree(const char *tmp)
{
	char *dir = NULL;
	char **names;

	if (asprintf(&dir, "%s/pallas-triage", tmp) < 0)
		return;
	names = util_list_dir(dir, NULL);
	for (char **n = names; n && *n; n++) {
		char *path = NULL;

		if (asprintf(&path, "%s/%s", dir, *n) >= 0)
			unlink(path);
		free(path);
	}
	util_names_free(names);
	rmdir(dir);
	rmdir(tmp);
	free(dir);
}

static void
test_round_trip(void)
{
	char tmp[] = "/tmp/pt-cache-test-XXXXXX";
	const char *dirs[] = { PT_SRCDIR "/rules", NULL };
	struct diag d = DIAG_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct ruleset *a = ruleset_new(), *b;
	char *key;

	CHECK(mkdtemp(tmp) != NULL);
	setenv("XDG_CACHE_HOME", tmp, 1);
	unsetenv("PALLAS_TRIAGE_NO_CACHE");
	CHECK_INTEQ(ruleset_load_dir(a, dirs[0], NULL, &d, &err), 0);
	CHECK_INTEQ(ruleset_load_buf(a, pack, strlen(pack), "pack.yaml", "team", &d), 0);
	CHECK_INTEQ(ruleset_finish(a, &d), 0);
	test_coverage(a);
	test_api_coverage(a->api);
	key = rules_cache_key(dirs);
	a->prefilter = classify_prefilter_new(a);
	CHECK_INTEQ(rules_cache_save(a, key), 0);
	b = rules_cache_load(key);
	CHECK(b != NULL);
	if (b) {
		CHECK(b->from_cache);
		/* the file stays mapped: the prefilter points into it */
		CHECK(b->cache_mapped && b->cache_bytes != NULL && b->cache_len > 0);
		CHECK_INTEQ(b->nrules, a->nrules);
		for (size_t i = 0; i < a->nrules && i < b->nrules; i++)
			same_rule(a->rules[i], b->rules[i]);
		CHECK_INTEQ(b->ncontexts, a->ncontexts);
		for (size_t i = 0; i < a->ncontexts && i < b->ncontexts; i++)
			same_context(&a->contexts[i], &b->contexts[i]);
		CHECK_INTEQ(b->npatterns, a->npatterns);
		for (size_t i = 0; i < a->npatterns && i < b->npatterns; i++)
			same_pattern("patterns", a->patterns[i], b->patterns[i]);
		same_classes(a, b);
		same_tables(a, b);
		same_chiptab(a->chips, b->chips);
		same_api(a->api, b->api);
		same_checks(a->checks, b->checks);
		same_prefilter(a->prefilter, b->prefilter);
	}
	/* a file others could write is read, not mapped, and gives the same set */
	{
		char *pat = xasprintf("%s/pallas-triage/rules-*.bin", tmp);
		glob_t g;
		struct ruleset *c;

		CHECK(glob(pat, 0, NULL, &g) == 0 && g.gl_pathc == 1);
		if (g.gl_pathc == 1) {
			CHECK_INTEQ(chmod(g.gl_pathv[0], 0664), 0);
			c = rules_cache_load(key);
			CHECK(c != NULL);
			if (c) {
				CHECK(!c->cache_mapped && c->cache_bytes != NULL);
				CHECK_INTEQ(c->nrules, a->nrules);
				for (size_t i = 0; i < a->nrules && i < c->nrules; i++)
					same_rule(a->rules[i], c->rules[i]);
				same_api(a->api, c->api);
				same_prefilter(a->prefilter, c->prefilter);
			}
			ruleset_free(c);
		}
		if (g.gl_pathc)
			globfree(&g);
		free(pat);
	}
	/* a key of another build (its source hash is on the first line) is a miss */
	{
		char *other = strdup(key);

		other[strcspn(other, "\n") - 1] ^= 1;
		CHECK(rules_cache_load(other) == NULL);
		free(other);
	}
	ruleset_free(b);
	ruleset_free(a);
	diag_release(&d);
	free(key);
	remove_tree(tmp);
}

int
main(void)
{
	test_struct_sizes();
	test_round_trip();
	return TEST_DONE();
}
