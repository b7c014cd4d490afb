/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for required-literal extraction: realistic triage patterns,
 * every syntax corner the reader handles, the refusals, and a randomized
 * test that builds random patterns together with strings they match and
 * checks that every such string contains one of the extracted literals.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt/literal.h"
#include "pt/match.h"
#include "test.h"

#define ARRAY_SIZE_(a) (sizeof(a) / sizeof((a)[0]))

/* A literal list joined with '|' (freed), in the order returned. */
static char *
joined(char **list, size_t n)
{
	static char out[4096];
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(list[i]);

		if (len + l + 2 < sizeof(out)) {
			if (i)
				out[len++] = '|';
			memcpy(out + len, list[i], l + 1);
			len += l;
		}
	}
	CHECK(list[n] == NULL);
	literal_list_free(list);
	return out;
}

/* What extract gives for pattern, joined with '|', in the order returned. */
static char *
extracted(int (*extract)(const char *, char ***, size_t *), const char *pattern)
{
	char **list;
	size_t n;

	CHECK_INTEQ(extract(pattern, &list, &n), (long long)n);
	return joined(list, n);
}

/* The literals of pattern. */
static char *
lits(const char *pattern)
{
	return extracted(literal_extract, pattern);
}

static void
test_realistic(void)
{
	CHECK_STREQ(lits("Ran out of memory in memory space vmem\\. Used (?P<used>[\\d.]+[KMG]?) of"),
		    "ran out of memory in memory space vmem. used ");
	/* Past 12 bytes one literal beats several longer ones. */
	CHECK_STREQ(lits("(?i)not implemented: unsupported (reshape|layout)"),
		    "not implemented: unsupported ");
	CHECK_STREQ(lits("(?i)bad (reshape|layout)"), "bad reshape|bad layout");
	CHECK_STREQ(lits("RACE DETECTED"), "race detected");
	CHECK_STREQ(lits("^\\s*RACE DETECTED\\b"), "race detected");
	CHECK_STREQ(lits("RESOURCE_EXHAUSTED: Ran out of memory in memory space (?:vmem|smem|hbm)"),
		    "resource_exhausted: ran out of memory in memory space ");
	CHECK_STREQ(lits("space (?:vmem|smem|hbm)"), "space vmem|space smem|space hbm");
	CHECK_STREQ(lits("Semaphore (?:\\(scratch argument (?P<sem_arg>\\d+)\\) )?has a nonzero "
			 "value upon exit from a Mosaic kernel"),
		    "has a nonzero value upon exit from a mosaic kernel");
	CHECK_STREQ(lits("Semaphore (?P<sem_id>\\S+) has non-zero count for (?P<device>.+?) at "
			 "kernel exit: (?P<count>-?\\d+)"),
		    " has non-zero count for ");
	CHECK_STREQ(lits("\\braces(?:\\.races)?_found\\b"), "races_found");
	CHECK_STREQ(lits("AssertionError|assert"), "assert");
	CHECK_STREQ(lits("Either both or neither `?src_sem`? and `?device_id`? can be set"),
		    "either both or neither ");
	CHECK_STREQ(lits("Cannot `?wait_(?:send|recv)`? on a local copy"), " on a local copy");
	CHECK_STREQ(lits("Cannot (?P<sem_op>\\w+) on a non-\\(\\)-shaped semaphore(?:: (?P<shape>.+))?"),
		    " on a non-()-shaped semaphore");
	CHECK_STREQ(lits("manually assigned collective_id=(?P<collective_id>\\d+) in "
			 "kernel_name='?(?P<kernel>[\\w.-]+)'? conflicts with an existing"),
		    "manually assigned collective_id=");
	CHECK_STREQ(lits("^ERROR [^ ]+::[^ ]+ - "), "error ");
	CHECK_STREQ(lits("CUDA out of memory\\. Tried to allocate [\\d.]+ [GM]iB"),
		    "cuda out of memory. tried to allocate ");
	CHECK_STREQ(lits("Mosaic failed to compile TPU kernel: (?P<msg>.*)"),
		    "mosaic failed to compile tpu kernel: ");
	CHECK_STREQ(lits("exited with code 137"), "exited with code 137");
	CHECK_STREQ(lits("Scoped allocation with size (?P<size>[\\d.]+)M and limit "
			 "(?P<limit>[\\d.]+)M exceeded scoped vmem limit"),
		    "scoped allocation with size ");
}

static void
test_shapes(void)
{
	CHECK_STREQ(lits("a|b"), "a|b");
	CHECK_STREQ(lits("foo|barbaz"), "foo|barbaz");
	CHECK_STREQ(lits("foo\\d+|bar"), "foo|bar");
	CHECK_STREQ(lits("foo|\\d+"), "");            /* one branch has none */
	CHECK_STREQ(lits("abc|"), "");                /* empty branch */
	CHECK_STREQ(lits(""), "");
	CHECK_STREQ(lits(".*"), "");
	CHECK_STREQ(lits("\\d+"), "");
	CHECK_STREQ(lits("[abc]+"), "a|b|c");
	CHECK_STREQ(lits("[abcde]+"), "");
	CHECK_STREQ(lits("(?i)(?:ab|cd)ef|gh(ij|kl)"), "abef|cdef|ghij|ghkl");
	CHECK_STREQ(lits("(?:Error|ERROR) x"), "error x");          /* folded, merged */
	CHECK_STREQ(lits("(?:abc|abcd)"), "abc");                   /* abcd adds nothing */
	CHECK_STREQ(lits("(?:foo|bar)(?:\\d|x)baz"), "baz");
}

static void
test_optional(void)
{
	CHECK_STREQ(lits("abc?def"), "abcdef|abdef");
	CHECK_STREQ(lits("colou?r"), "colour|color");
	CHECK_STREQ(lits("error: x*foo"), "error: ");
	CHECK_STREQ(lits("ab*cdef"), "cdef");
	CHECK_STREQ(lits("ab+cd"), "bcd");                     /* + keeps one copy */
	CHECK_STREQ(lits("(?:abc|de)+fgh"), "abcfgh|defgh");
	CHECK_STREQ(lits("(foo\\d+bar)+baz"), "barbaz");
	CHECK_STREQ(lits("x{3}yz"), "xxxyz");
	CHECK_STREQ(lits("(?:ab){2}c"), "ababc");
	CHECK_STREQ(lits("ab{2,3}c"), "abb");       /* at least two copies */
	CHECK_STREQ(lits("ab{0,3}cdef"), "cdef");
	CHECK_STREQ(lits("ab{2,}cd"), "bbcd");
	/* the run of underscores pytest puts round a failing test's name,
	 * not the common word inside it */
	CHECK_STREQ(lits("^_{3,} (?P<t>\\w*[Tt]est\\w*) _{3,}$"), "___ ");
	CHECK_STREQ(lits("ab{,3}cdef"), "cdef");    /* a quantifier since PCRE2 10.43 */
	CHECK_STREQ(lits("a{ 2 }bcd"), "bcd");      /* spaces: version-dependent */
	CHECK_STREQ(lits("abc{foo}"), "abc{foo}");  /* not a quantifier */
	CHECK_STREQ(lits("x(?:abc)?yz"), "xabcyz|xyz");
	CHECK_STREQ(lits("abc??def"), "abcdef|abdef");
	CHECK_STREQ(lits("abc*+defg"), "defg");
	CHECK_STREQ(lits("foo (?:bar)? baz qux"), "foo bar baz qux|foo  baz qux");
	CHECK_STREQ(lits("ab(?:c)? defghijklmnop"), " defghijklmnop");
	CHECK_STREQ(lits("foo(?:bar){0}baz"), "foo");
	CHECK_STREQ(lits("x\\Qa.b\\E??c"), "xa.bc|xa.c");    /* ?? takes the b only */
}

static void
test_classes(void)
{
	CHECK_STREQ(lits("[Ee]rror: foo"), "error: foo");
	CHECK_STREQ(lits("foo[a-z]barbaz"), "barbaz");
	CHECK_STREQ(lits("foo[^a]barbaz"), "barbaz");
	CHECK_STREQ(lits("[]a]bcd"), "]bcd|abcd");
	CHECK_STREQ(lits("[^]a]bcd"), "bcd");
	CHECK_STREQ(lits("[\\]x]yzw"), "]yzw|xyzw");
	CHECK_STREQ(lits("[[:alpha:]]+xyz]"), "xyz]");
	CHECK_STREQ(lits("[[:alpha:][:digit:]]abcd"), "abcd");
	CHECK_STREQ(lits("[a[]bcde"), "abcde|[bcde");
	CHECK_STREQ(lits("[\\d.]+ms elapsed"), "ms elapsed");
	CHECK_STREQ(lits("[\\w\\]]+]abcd"), "]abcd");
	CHECK_STREQ(lits("[a-]bcd"), "abcd|-bcd");
	CHECK_STREQ(lits("x[\\x41-\\x5a]yz"), "yz");
	CHECK_STREQ(lits("a[\\p{L}]bcde"), "bcde");
	CHECK_STREQ(lits("[abc"), "");               /* unterminated */
}

static void
test_escapes(void)
{
	CHECK_STREQ(lits("a\\(b\\)c\\[d\\]e\\\\f\\.g"), "a(b)c[d]e\\f.g");
	CHECK_STREQ(lits("\\x41BC\\x44"), "abcd");
	CHECK_STREQ(lits("\\x{41}\\x{42}cd"), "abcd");
	CHECK_STREQ(lits("ab\\xe9cdef"), "cdef");     /* > 0x7f: depends on UTF mode */
	CHECK_STREQ(lits("\\d+ms elapsed"), "ms elapsed");
	CHECK_STREQ(lits("abc\\sdefg"), "defg");
	CHECK_STREQ(lits("\\bword\\b"), "word");
	CHECK_STREQ(lits("\\Aabc\\z"), "abc");
	CHECK_STREQ(lits("\\Qa.b*c\\E+d"), "a.b*c");
	CHECK_STREQ(lits("a\\Qb|c)\\Ed"), "ab|c)d");
	CHECK_STREQ(lits("\\Qabcd"), "abcd");          /* \Q to the end */
	CHECK_STREQ(lits("abc\\Q\\E+"), "abc");
	CHECK_STREQ(lits("abc\\E\\Edef"), "abcdef");
	CHECK_STREQ(lits("tab\\there"), "tab\there");
	CHECK_STREQ(lits("(abc)\\1defg"), "defg");
	CHECK_STREQ(lits("(?<n>abc)\\k<n>defg"), "defg");
	CHECK_STREQ(lits("(abc)\\g{1}defg"), "defg");
	CHECK_STREQ(lits("(abc)\\g-1defg"), "defg");
	CHECK_STREQ(lits("a\\Kbcd"), "abcd");
	CHECK_STREQ(lits("\\p{Lu}+ failed"), " failed");
	CHECK_STREQ(lits("\\pL failed"), " failed");
	CHECK_STREQ(lits("\\cA failed"), " failed");
	CHECK_STREQ(lits("\\012 failed"), " failed");
	CHECK_STREQ(lits("abc\\"), "");               /* trailing backslash */
	CHECK_STREQ(lits("abc\\ydef"), "");           /* unknown escape: an error in PCRE2 */
	CHECK_STREQ(lits("caf\xc3\xa9 au lait"), " au lait");
}

static void
test_groups(void)
{
	CHECK_STREQ(lits("(?P<name>foo)bar"), "foobar");
	CHECK_STREQ(lits("(?<name>foo)bar"), "foobar");
	CHECK_STREQ(lits("(?'name'foo)bar"), "foobar");
	CHECK_STREQ(lits("(?>foo)bar"), "foobar");
	CHECK_STREQ(lits("(?|foo)bar"), "foobar");
	CHECK_STREQ(lits("(?i:foo)bar"), "foobar");
	CHECK_STREQ(lits("(?-i)foo(?s)bar"), "foobar");
	CHECK_STREQ(lits("(?^i)foobar"), "foobar");
	CHECK_STREQ(lits("(?=foo)bar"), "bar");
	CHECK_STREQ(lits("(?!foo)bar"), "bar");
	CHECK_STREQ(lits("(?<=abc)def"), "def");
	CHECK_STREQ(lits("(?<!abc)def"), "def");
	CHECK_STREQ(lits("foo(?=bar)baz"), "foobaz");
	CHECK_STREQ(lits("foo(?#comment)bar"), "foobar");
	CHECK_STREQ(lits("^abc$"), "abc");
	CHECK_STREQ(lits("abc(?1)defg"), "defg");
	CHECK_STREQ(lits("abc(?R)?defg"), "defg");
	CHECK_STREQ(lits("(?P<x>abc)(?P=x)defg"), "defg");
	CHECK_STREQ(lits("(?P<x>abc)(?P>x)defg"), "defg");
	CHECK_STREQ(lits("(?P<x>abc)(?&x)defg"), "defg");
	CHECK_STREQ(lits("(*UTF)(*UCP)hello world"), "hello world");
	CHECK_STREQ(lits("((((nested))))x"), "nestedx");
}

static void
test_refused(void)
{
	CHECK_STREQ(lits("(?x) foo bar"), "");        /* extended: spaces ignored */
	CHECK_STREQ(lits("foo(?x: b a r)baz"), "");
	CHECK_STREQ(lits("foo(*ACCEPT)bar"), "");
	CHECK_STREQ(lits("foo(*SKIP)bar"), "");
	CHECK_STREQ(lits("(?(1)abc|def)ghij"), "");
	CHECK_STREQ(lits("(?C1)abcd"), "abcd");       /* callouts are zero-width */
	CHECK_STREQ(lits("(?C\"x\")abcd"), "");
	CHECK_STREQ(lits("a(?#c)?bcd"), "");          /* what would ? repeat? */
	CHECK_STREQ(lits("a(?i)+bcd"), "");
	CHECK_STREQ(lits("abc("), "");
	CHECK_STREQ(lits("abc)"), "");
	CHECK_STREQ(lits("*abc"), "");
	CHECK_STREQ(lits("a**bc"), "");
	CHECK_STREQ(lits("\\N{U+41}bcd"), "");
	{
		/* Deep nesting is refused, not a stack overflow. */
		char deep[400];
		size_t k = 0;

		for (int i = 0; i < 100; i++)
			deep[k++] = '(';
		deep[k++] = 'x';
		for (int i = 0; i < 100; i++)
			deep[k++] = ')';
		deep[k] = '\0';
		CHECK_STREQ(lits(deep), "");
	}
}

/* ---- randomized: patterns built together with strings they match ---- */

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static uint32_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

static size_t
rnd_below(size_t n)
{
	return n ? rnd() % n : 0;
}

enum { N_LEAF, N_SEQ, N_ALT };

struct node {
	int kind;
	const char *pat;        /* N_LEAF: the pattern text */
	const char *sample;     /* N_LEAF: characters to choose one from ("" = empty) */
	bool fixed;             /* N_LEAF: the sample is the whole string */
	const char *open;       /* N_ALT: group opener, e.g. "(?:" */
	int qmin, qmax;         /* repetition; 1,1 = none */
	const char *quant;      /* its text */
	struct node *kid[6];
	int nkid;
};

static const struct {
	const char *pat, *sample;
	bool fixed, noquant;    /* noquant: zero-width, or \Q..\E (a quantifier
				 * would repeat its last character only) */
} leaves[] = {
	{ "a", "a", true, false }, { "b", "b", true, false }, { "c", "c", true, false },
	{ "A", "A", true, false }, { "B", "B", true, false }, { " ", " ", true, false },
	{ "-", "-", true, false }, { "_", "_", true, false }, { ":", ":", true, false },
	{ "x", "x", true, false }, { "#", "#", true, false }, { "}", "}", true, false },
	{ "\\.", ".", true, false }, { "\\(", "(", true, false }, { "\\)", ")", true, false },
	{ "\\[", "[", true, false }, { "\\]", "]", true, false }, { "\\\\", "\\", true, false },
	{ "\\*", "*", true, false }, { "\\+", "+", true, false }, { "\\?", "?", true, false },
	{ "\\{", "{", true, false }, { "\\|", "|", true, false }, { "\\$", "$", true, false },
	{ "[ab]", "ab", false, false }, { "[Aa]", "Aa", false, false },
	{ "[^a]", "bcx -", false, false }, { "[a-c]", "abc", false, false },
	{ "[]a]", "]a", false, false }, { "[\\]x-]", "]x-", false, false },
	{ "\\d", "0123456789", false, false }, { "\\w", "abx_9", false, false },
	{ "\\s", " ", false, false }, { ".", "abcAB -_:x", false, false },
	{ "\\x41", "A", true, false }, { "\\Qa.b\\E", "a.b", true, true },
	{ "\\b", "", true, true }, { "(?=a)", "", true, true }, { "(?i)", "", true, true },
};

static const struct {
	const char *text;
	int min, max;
} quants[] = {
	{ "?", 0, 1 }, { "*", 0, 3 }, { "+", 1, 3 }, { "{2}", 2, 2 }, { "{1,3}", 1, 3 },
	{ "{0,2}", 0, 2 }, { "??", 0, 1 }, { "+?", 1, 3 }, { "*+", 0, 3 }, { "{2,}", 2, 4 },
};

static struct node *gen_alt(int depth, const char *open);

static struct node *
gen_item(int depth)
{
	struct node *n;
	size_t k = rnd_below(10);

	if (k < 7 || depth > 3) {
		size_t l = rnd_below(ARRAY_SIZE_(leaves));

		n = calloc(1, sizeof(*n));
		n->kind = N_LEAF;
		n->pat = leaves[l].pat;
		n->sample = leaves[l].sample;
		n->fixed = leaves[l].fixed;
		n->qmin = n->qmax = 1;
		n->quant = "";
		if (leaves[l].noquant)
			return n;
	} else {
		static const char *const opens[] = { "(?:", "(", "(?P<n>", "(?>", "(?i:" };

		n = gen_alt(depth + 1, opens[rnd_below(ARRAY_SIZE_(opens))]);
	}
	if (rnd_below(2)) {
		size_t q = rnd_below(ARRAY_SIZE_(quants));

		n->quant = quants[q].text;
		n->qmin = quants[q].min;
		n->qmax = quants[q].max;
	}
	return n;
}

static struct node *
gen_alt(int depth, const char *open)
{
	struct node *n = calloc(1, sizeof(*n));
	int nb = rnd_below(3) == 0 ? 1 + (int)rnd_below(3) : 1;

	n->kind = N_ALT;
	n->open = open;
	n->qmin = n->qmax = 1;
	n->quant = "";
	for (int b = 0; b < nb; b++) {
		struct node *s = calloc(1, sizeof(*s));

		s->kind = N_SEQ;
		s->qmin = s->qmax = 1;
		s->quant = "";
		s->nkid = 1 + (int)rnd_below(6);
		for (int i = 0; i < s->nkid; i++)
			s->kid[i] = gen_item(depth);
		n->kid[n->nkid++] = s;
	}
	return n;
}

static void
node_free(struct node *n)
{
	for (int i = 0; i < n->nkid; i++)
		node_free(n->kid[i]);
	free(n);
}

static void
put(char *buf, size_t *len, size_t cap, const char *s)
{
	size_t l = strlen(s);

	if (*len + l < cap) {
		memcpy(buf + *len, s, l + 1);
		*len += l;
	}
}

static void
render(const struct node *n, char *buf, size_t *len, size_t cap)
{
	if (n->kind == N_LEAF) {
		put(buf, len, cap, n->pat);
	} else if (n->kind == N_SEQ) {
		for (int i = 0; i < n->nkid; i++)
			render(n->kid[i], buf, len, cap);
	} else {
		if (n->open)
			put(buf, len, cap, n->open);
		for (int i = 0; i < n->nkid; i++) {
			if (i)
				put(buf, len, cap, "|");
			render(n->kid[i], buf, len, cap);
		}
		if (n->open)
			put(buf, len, cap, ")");
	}
	put(buf, len, cap, n->quant);
}

/* Append one string that n matches (ignoring assertions: a superset). */
static void
sample(const struct node *n, char *buf, size_t *len, size_t cap)
{
	int reps = n->qmin + (int)rnd_below((size_t)(n->qmax - n->qmin + 1));

	for (int r = 0; r < reps; r++) {
		if (n->kind == N_LEAF) {
			if (n->fixed) {
				put(buf, len, cap, n->sample);
			} else {
				char c[2] = { n->sample[rnd_below(strlen(n->sample))], '\0' };

				put(buf, len, cap, c);
			}
		} else if (n->kind == N_SEQ) {
			for (int i = 0; i < n->nkid; i++)
				sample(n->kid[i], buf, len, cap);
		} else {
			sample(n->kid[rnd_below((size_t)n->nkid)], buf, len, cap);
		}
	}
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* Does str hold one of list[0..n)? */
static bool
holds_one(const char *str, char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(str, list[i]))
			return true;
	return false;
}

static void
test_random(void)
{
	int bad = 0, with = 0, with_also = 0, total = 0;

	for (int it = 0; it < 4000; it++) {
		struct node *root = gen_alt(0, NULL);
		char pat[4096], str[4096];
		size_t plen = 0;
		struct literal_reading r;
		char **list;
		size_t n;

		pat[0] = '\0';
		if (rnd_below(4) == 0)
			put(pat, &plen, sizeof(pat), "(?i)");
		render(root, pat, &plen, sizeof(pat));
		literal_read(pat, &r);
		list = r.lits, n = r.nlits;
		total++;
		with += n > 0;
		with_also += r.nalso > 0;
		for (int k = 0; k < 20 && n > 0; k++) {
			size_t slen = 0;

			str[0] = '\0';
			sample(root, str, &slen, sizeof(str));
			for (size_t i = 0; i < slen; i++)
				str[i] = (char)lower((unsigned char)str[i]);
			if (!holds_one(str, list, n) && bad++ < 5)
				fprintf(stderr, "pattern '%s' matches '%s' without literal '%s'%s\n",
					pat, str, list[0], n > 1 ? " (or others)" : "");
			if (r.nalso && !holds_one(str, r.also, r.nalso) && bad++ < 5)
				fprintf(stderr, "pattern '%s' matches '%s' without second literal '%s'%s\n",
					pat, str, r.also[0], r.nalso > 1 ? " (or others)" : "");
		}
		literal_list_free(r.lits);
		literal_list_free(r.ahead);
		literal_list_free(r.also);
		node_free(root);
	}
	CHECK_INTEQ(bad, 0);
	/* Most random patterns have some literal, and some a second one: the
	 * test is not vacuous. */
	CHECK(with > total / 2);
	CHECK(with_also > total / 20);
}

/* The lookahead literals. */
static char *
ahead(const char *pattern)
{
	return extracted(literal_extract_ahead, pattern);
}

/* What a top-level positive lookaround requires, and where it does not count. */
static void
test_ahead(void)
{
	/* the fallback tier's shape: the word is the literal, the error the lookahead's */
	CHECK_STREQ(lits("(?i)^(?=.*?(?:Error|Exception|failed)).*?\\b(?P<w>vmem|smem)\\b"), "vmem|smem");
	CHECK_STREQ(ahead("(?i)^(?=.*?(?:Error|Exception|failed)).*?\\b(?P<w>vmem|smem)\\b"),
		    "error|exception|failed");
	CHECK_STREQ(ahead("abc(?<=xabc)def"), "xabc");
	/* none, or not required of every match */
	CHECK_STREQ(ahead("abc"), "");
	CHECK_STREQ(ahead("abc(?!xyz)"), "");
	CHECK_STREQ(ahead("(?=xyz)abc|def"), "");
	CHECK_STREQ(ahead("(?:(?=xyz)abc)?def"), "");
	CHECK_STREQ(ahead("(?:a|(?=xyz))def"), "");
	CHECK_STREQ(ahead("(?=xyz)?def"), "");
	CHECK_STREQ(ahead("(?=.*)def"), "");
}

/* The second requirement. */
static char *
also(const char *pattern)
{
	return extracted(literal_extract_also, pattern);
}

/* A requirement of another part of the pattern than its literal's, or none. */
static void
test_also(void)
{
	CHECK_STREQ(lits("Check failed: .*\\b(?:bitwidth|bit_width|packing)\\b"), "check failed: ");
	CHECK_STREQ(also("Check failed: .*\\b(?:bitwidth|bit_width|packing)\\b"),
		    "bitwidth|bit_width|packing");
	CHECK_STREQ(also("Allocation \\(size=(?P<used>\\d+)\\) would exceed memory"),
		    "allocation (size=");
	/* none: one run of text, a top-level '|', an optional part, too short */
	CHECK_STREQ(also("out of memory in vmem"), "");
	CHECK_STREQ(also("abc.*defgh|xyz"), "");
	CHECK_STREQ(also("abcdef(?:.*ghij)?"), "");
	CHECK_STREQ(also("abcdef.*gh"), "");
	/* nothing that overlaps the literal: "failed" is in "check failed" */
	CHECK_STREQ(also("check failed.*failed"), "");
}

/* literal_lookahead_tail() as a string, "" for NULL. */
static const char *
tail(const char *pattern)
{
	static char out[1024];
	char *t = literal_lookahead_tail(pattern);

	snprintf(out, sizeof(out), "%s", t ? t : "");
	free(t);
	return out;
}

/* The fallback tier's shape, and what it is not. */
static void
test_tail_shape(void)
{
	CHECK_STREQ(tail("(?i)^(?=.*?(?:Error|failed)).*?\\b(?P<w>vmem|smem)\\b"),
		    "(?i)\\b(?P<w>vmem|smem)\\b");
	CHECK_STREQ(tail("(?i)^(?=.*?[)(]).*?x"), "(?i)x");
	CHECK_STREQ(tail("(?i)^(?=.*?\\)).*?x(?:a|b)"), "(?i)x(?:a|b)");
	CHECK_STREQ(tail("(?i)^(?=.*?(?<=e)rr).*?x"), "(?i)x");
	/* a POSIX item does not close its class, as parse_class() reads it */
	CHECK_STREQ(tail("(?i)^(?=.*?[[:alpha:])]).*?x"), "(?i)x");
	CHECK_STREQ(tail("(?i)^(?=.*?Error).*?[[:digit:]|]x"), "(?i)[[:digit:]|]x");
	/* not that shape */
	CHECK_STREQ(tail("^(?=.*?Error).*?x"), "");
	CHECK_STREQ(tail("(?i)^(?=.*?Error)x"), "");
	CHECK_STREQ(tail("(?i)^(?=.*?Error).*?"), "");
	CHECK_STREQ(tail("(?i)^(?=.*?Error"), "");
	/* the tail's groups would be numbered otherwise, or it needs the rest */
	CHECK_STREQ(tail("(?i)^(?=.*?(Error)).*?x"), "");
	CHECK_STREQ(tail("(?i)^(?=.*?(?P<e>Error)).*?x"), "");
	CHECK_STREQ(tail("(?i)^(?=.*?Error).*?(x)\\1"), "");
	CHECK_STREQ(tail("(?i)^(?=.*?Error).*?(?P<a>x)(?P=a)"), "");
	CHECK_STREQ(tail("(?i)^(?=.*?Error).*?x|y"), "");
	/* text whose parentheses this reading would miscount */
	CHECK_STREQ(tail("(?i)^(?=.*?\\Q)\\E).*?x"), "");
	CHECK_STREQ(tail("(?i)^(?=.*?(?#)).*?x"), "");
	CHECK_STREQ(tail("(?i)^(?=.*?(?x) ) ).*?x"), "");
}

/*
 * Where the pattern matches a subject, its tail matches and ends at the
 * same place; where the tail does not match, neither does the pattern:
 * subjects glued from the patterns' words and near misses.
 */
static void
test_tail_matches(void)
{
	static const char *const pats[] = {
		"(?i)^(?=.*?(?:Error|Exception|failed)).*?\\b(?P<word>shapes?|reshape|block shape|broadcast\\w*)\\b",
		"(?i)^(?=.*?(?:Error|halted)).*?\\b(?P<word>semaphores?|dma[s _]|dma_wait|hangs?)\\b",
		"(?i)^(?=.*?(?:Error|failed)).*?\\b(?P<word>exceeds? .{0,10}\\b(?:memory|limit)|vmem\\b.{0,8}\\bfull)\\b",
	};
	static const char *const words[] = {
		"Error", "error:", "failed", "halted", "shape", "shapes", "reshape", "_shape", "block shape",
		"broadcasting", "semaphore", "dma ", "dmas", "dma_wait", "hang", "hangs", "exceeds",
		"exceed the", "memory", "limit", "vmem", "full", "x", "_", " ", "  ", ".", "(", "\n",
		"SHAPE", "Dma_Wait", "VMEM", "FULL",
	};
	uint64_t state = 0x2545F4914F6CDD1Du;
	struct matcher *mt = matcher_new(3);
	size_t bad = 0, both = 0, cut = 0;

	for (size_t k = 0; k < 3; k++) {
		struct pt_err err = PT_ERR_INIT;
		size_t off;
		struct match *m = match_compile(pats[k], &off, &err);
		char *t = literal_lookahead_tail(pats[k]);

		CHECK(m && t);
		for (int i = 0; m && t && i < 4000; i++) {
			char subj[256];
			size_t n = 0, ps, pe, ts, te;
			enum match_result pr, tr;

			for (size_t w = 2 + (state >> 7) % 18; w > 0 && n < 200; w--) {
				state ^= state << 13, state ^= state >> 7, state ^= state << 17;
				n += (size_t)snprintf(subj + n, sizeof(subj) - n, "%s",
						      words[state % (sizeof(words) / sizeof(words[0]))]);
			}
			pr = matcher_exec(mt, k, m, subj, n, &ps, &pe);
			tr = matcher_exec_src(mt, k, m, t, subj, n, &ts, &te);
			both += pr == MATCH_YES;
			cut += tr == MATCH_NO;
			if (pr == MATCH_YES && (tr != MATCH_YES || te != pe) && bad++ < 5)
				fprintf(stderr, "'%s' matches '%.*s' to %zu, its tail %s\n", pats[k],
					(int)n, subj, pe, tr == MATCH_YES ? "elsewhere" : "not");
		}
		free(t);
		match_free(m);
	}
	CHECK_INTEQ(bad, 0);
	/* not vacuous: both outcomes are common */
	CHECK(both > 500);
	CHECK(cut > 1000);
	matcher_free(mt);
}

/* The spelling a case-sensitive pattern gives its literal, or none. */
static void
test_spelling(void)
{
	static const struct {
		const char *pattern, *lit, *want;
	} cases[] = {
		{ "^FAILED (?P<id>\\S+)", "failed ", "FAILED " },
		{ "Check failed: (?P<x>\\w+)", "check failed: ", "Check failed: " },
		{ "(?P<x>Check failed): ", "check failed: ", NULL }, /* a group's edge inside */
		{ "\\bE2002\\b", "e2002", "E2002" },
		{ "(?i)^FAILED ", "failed ", NULL },           /* caseless */
		{ "^(?mi:FAILED )", "failed ", NULL },
		{ "^(?-i)FAILED ", "failed ", NULL },          /* (read as caseless: no harm) */
		{ "FAILED |failed ", "failed ", NULL },        /* two spellings */
		{ "fail(?:ed)? |FAILED ", "failed ", NULL },
		{ "(?:FAILED )?failed ", "failed ", NULL },    /* two occurrences */
		{ "[Ff]ailed once", "failed once", NULL },     /* a class: not verbatim */
		{ "FAIL(?:ED) ", "failed ", NULL },
		{ "x\\.py\", line", ".py\", line", NULL },   /* starts at an escape */
		{ "Tensor-likes are not (?:close|equal)", "tensor-likes are not ", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = literal_spelling(cases[i].pattern, cases[i].lit);
		size_t n = strlen(cases[i].lit);

		if (!cases[i].want) {
			if (got)
				fprintf(stderr, "%s: spelled %.*s\n", cases[i].pattern, (int)n, got);
			CHECK(got == NULL);
		} else {
			CHECK(got != NULL);
			if (got)
				CHECK(strncmp(got, cases[i].want, n) == 0);
		}
	}
}

int
main(void)
{
	test_ahead();
	test_also();
	test_tail_shape();
	test_tail_matches();
	test_spelling();
	test_realistic();
	test_shapes();
	test_optional();
	test_classes();
	test_escapes();
	test_groups();
	test_refused();
	test_random();
	return TEST_DONE();
}
