/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: log ingestion and the classifier, with the shipped rules
 * (loaded once). Each input is a log. It is classified twice: in one piece
 * (classify_text) and fed in pieces of random sizes (seeded by the input, so
 * a crash reproduces), which exercises the window that joins wrapped lines.
 * Invariants checked besides memory safety:
 *   - the verdict does not depend on how the log was split, escape
 *     sequences cut between two pieces included (finding 5 in
 *     docs/reliability.md);
 *   - the text diagnosis without colour holds no control byte but newline
 *     and tab: nothing from the log reaches the terminal unescaped;
 *   - the JSON diagnosis holds no raw control byte but newline (DEL is
 *     allowed: JSON need not escape it).
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "pt/classify.h"
#include "pt/diagnosis.h"
#include "pt/json.h"

static struct ruleset *rs;

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	rs = fuzz_shipped_rules("fuzz_classify");
	return 0;
}

static int
str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void
same_verdict(const struct verdict *a, const struct verdict *b)
{
	if (a->cls != b->cls || a->runner_up != b->runner_up || a->top_rule != b->top_rule)
		FUZZ_FAIL("class differs with chunking: %s vs %s", class_name(a->cls),
			  class_name(b->cls));
	if (a->confidence != b->confidence)
		FUZZ_FAIL("confidence differs with chunking: %g vs %g", a->confidence, b->confidence);
	if (a->nlines != b->nlines || a->nbytes != b->nbytes || a->long_lines != b->long_lines)
		FUZZ_FAIL("line counts differ with chunking: %zu vs %zu lines", a->nlines, b->nlines);
	if (a->key_lineno != b->key_lineno || !str_eq(a->key_line, b->key_line))
		FUZZ_FAIL("key line differs with chunking: %zu vs %zu", a->key_lineno, b->key_lineno);
	if (!str_eq(a->fingerprint, b->fingerprint) || !str_eq(a->message, b->message))
		FUZZ_FAIL("fingerprint or message differs with chunking");
	if (a->nev != b->nev || a->nfired != b->nfired)
		FUZZ_FAIL("evidence differs with chunking: %zu vs %zu lines", a->nev, b->nev);
	for (size_t i = 0; i < a->nev; i++)
		if (a->ev[i].line != b->ev[i].line || !str_eq(a->ev[i].text, b->ev[i].text))
			FUZZ_FAIL("evidence line %zu differs with chunking", i);
}

/* del: is DEL (0x7f) forbidden too? JSON allows it raw (RFC 8259), text does not */
static void
no_controls(const char *out, size_t len, const char *allowed, bool del, const char *what)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)out[i];

		if ((c < 0x20 || (del && c == 0x7f)) && (!c || !strchr(allowed, c)))
			FUZZ_FAIL("%s holds control byte 0x%02x at offset %zu", what, c, i);
	}
}

static void
print_checked(const struct verdict *v)
{
	struct diagnosis_opts o = { false, true, "fuzz.log" };
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	struct json *j;

	if (!fp)
		abort();
	diagnosis_print(fp, rs, v, &o);
	fclose(fp);
	no_controls(out, len, "\n\t", true, "the text diagnosis");
	free(out);

	out = NULL;
	len = 0;
	if (!(fp = open_memstream(&out, &len)))
		abort();
	j = diagnosis_json(rs, v, "fuzz.log");
	json_print(j, fp);
	json_free(j);
	fclose(fp);
	no_controls(out, len, "\n", false, "the JSON diagnosis");
	free(out);

	o.color = true;
	diagnosis_print(fuzz_devnull(), rs, v, &o);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct verdict whole, pieces;
	struct classifier *c = classifier_new(rs);
	uint64_t seed = fuzz_hash(data, size) | 1;
	size_t off = 0;

	memset(&whole, 0, sizeof(whole));
	memset(&pieces, 0, sizeof(pieces));
	classify_text(rs, (const char *)data, size, &whole);
	while (off < size) {
		uint64_t r = fuzz_rand(&seed);
		/* mostly tiny pieces (a byte splits every line), sometimes large ones */
		size_t n = (r & 3) ? 1 + (size_t)(r >> 8) % 16 : 1 + (size_t)(r >> 8) % (size + 1);

		if (n > size - off)
			n = size - off;
		classifier_feed(c, (const char *)data + off, n);
		off += n;
	}
	classifier_finish(c, &pieces);
	same_verdict(&whole, &pieces);
	print_checked(&whole);
	verdict_release(&pieces);
	verdict_release(&whole);
	classifier_free(c);
	return 0;
}
