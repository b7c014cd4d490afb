/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the Python tokenizer and parser and the source checker
 * (pt/pyast.h, pt/check.h), with the shipped rules loaded once. Each input
 * is a kernel file. It is parsed, checked whole, and checked again with a
 * chip, a JAX version and bindings chosen from the input's hash (so the
 * chip-dependent paths run too). Invariants checked besides memory safety:
 *   - the check never fails on a source: problems are data, never an error;
 *   - every finding points inside the source (1 <= line <= lines + 1) and
 *     has a message;
 *   - the text output holds no control byte but newline and tab, whatever
 *     bytes the source had; the JSON output holds none but newline.
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "pt/check.h"
#include "pt/check_print.h"
#include "pt/checktab.h"
#include "pt/json.h"
#include "pt/pyast.h"

static struct ruleset *rs;

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	rs = fuzz_shipped_rules("fuzz_check");
	return 0;
}

static void
no_controls(const char *out, size_t len, const char *allowed, const char *what)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)out[i];

		if ((c < 0x20 || (c == 0x7f && !strchr(allowed, 'D'))) && (!c || !strchr(allowed, c)))
			FUZZ_FAIL("%s holds control byte 0x%02x at offset %zu", what, c, i);
	}
}

static void
printed(const struct check_result *r)
{
	struct check_print_opts po = { false, true, NULL, NULL };
	char *out = NULL, *err = NULL;
	size_t len = 0, elen = 0;
	FILE *fp = open_memstream(&out, &len), *ep = open_memstream(&err, &elen);
	struct json *j;

	if (!fp || !ep)
		abort();
	check_print_text(fp, ep, r, &po);
	fclose(fp);
	fclose(ep);
	no_controls(out, len, "\n\t", "the text output");
	no_controls(err, elen, "\n\t", "the problems");
	free(out);
	free(err);
	out = NULL;
	len = 0;
	if (!(fp = open_memstream(&out, &len)))
		abort();
	j = check_json(r, &po);
	json_print(j, fp);
	json_free(j);
	fclose(fp);
	no_controls(out, len, "\nD", "the JSON output");
	free(out);
	check_print_github(fuzz_devnull(), r, NULL);
}

static void
one(const struct check_opts *o, const uint8_t *data, size_t size, size_t lines)
{
	struct check_result r = CHECK_RESULT_INIT;
	struct pt_err err = PT_ERR_INIT;

	if (check_source(o, "fuzz.py", (const char *)data, size, &r, &err) < 0)
		FUZZ_FAIL("check_source failed on a source: %s", err.msg);
	for (size_t i = 0; i < r.n; i++) {
		const struct check_finding *f = &r.f[i];

		if (f->line < 1 || (size_t)f->line > lines + 1 || f->col < 1)
			FUZZ_FAIL("finding %s at %d:%d outside the source (%zu lines)", f->def->code,
				  f->line, f->col, lines);
		if (!f->message || !*f->message)
			FUZZ_FAIL("finding %s has no message", f->def->code);
	}
	printed(&r);
	check_result_release(&r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const chips[] = { NULL, "v5e", "v4", "7x", "8t", "h100", "mi300x" };
	static const char *const jax[] = { NULL, "0.4.35", "0.6.2", "0.11.0" };
	uint64_t seed = fuzz_hash(data, size) | 1;
	struct check_binding bind[2] = { { "x", "1024,512:bfloat16", true }, { "bk", "1000", false } };
	struct check_opts o = { rs, NULL, NULL, NULL, 0 };
	struct py_module *m = py_parse((const char *)data, size);
	size_t lines = m->lines;

	if (!m->root)
		FUZZ_FAIL("the parser returned no tree");
	py_module_free(m);
	one(&o, data, size, lines);
	o.chip = chips[fuzz_rand(&seed) % (sizeof(chips) / sizeof(chips[0]))];
	o.jax_version = jax[fuzz_rand(&seed) % (sizeof(jax) / sizeof(jax[0]))];
	o.bind = bind;
	o.nbind = fuzz_rand(&seed) % 3;
	one(&o, data, size, lines);
	return 0;
}
