/* SPDX-License-Identifier: MIT */
/*
 * Required-literal extraction; see pt/literal.h. A small recursive-descent
 * reader of PCRE2 syntax that computes, for every node, what it knows about
 * the text the node can match:
 *
 *   exact  the node always matches one of these strings (a superset is fine);
 *   pre    (non-exact nodes) every match starts with one of these strings;
 *   suf    (non-exact nodes) every match ends with one of these strings;
 *   req    every match contains one of these strings.
 *
 * A missing set (NULL) means "nothing known", which is always safe. A
 * sequence glues adjacent exact nodes into runs (cross products, so
 * "space (?:vmem|smem)" gives "space vmem" and "space smem"), and every run
 * that a non-exact node interrupts is a candidate for req. Alternation takes
 * unions. Whatever is unclear degrades to "nothing known" or, for syntax the
 * reader refuses, to no literal for the whole pattern.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pt/literal.h"
#include "pt/xalloc.h"

/*
 * Caps keep cross products from exploding: `[ab][cd][ef]...` would otherwise
 * double the set per atom. Breaking a run at a cap is always safe.
 */
#define CROSS_MAX 16        /* strings in an exact/pre/suf set */
#define UNION_MAX 64        /* strings in a req set */
#define LIT_MAX 256         /* bytes in one literal */
#define DEPTH_MAX 64        /* group nesting */
#define SCORE_CAP 12        /* beyond this, a literal is selective enough */
#define CANDS_MAX 8         /* top-level requirements kept for the second one */

/*
 * Most sets hold one or two strings: those live in the set itself, so that
 * a pattern's reading (a set per character, cross products per run) does
 * not cost an allocation per push. Extraction runs for every pattern at
 * every uncached load, and under ASan each block is kept in quarantine.
 */
#define SSET_INLINE 2

struct sset {
	size_t n, cap;
	char **v;           /* n strings, lower case, NUL-terminated; inl or the heap */
	char *inl[SSET_INLINE];
};

struct info {
	struct sset *exact;  /* when set, pre and suf are NULL */
	struct sset *pre;
	struct sset *suf;
	struct sset *req;
	bool noquant;        /* zero-width item that must not be quantified */
};

struct lp {
	const char *p;
	int depth;
	bool inq;            /* inside \Q...\E */
	bool bail;           /* refused syntax: no literal for the pattern */
	bool top_alt;        /* a '|' at the top level */
	struct sset *ahead;  /* the best requirement of a top-level (?=...) or (?<=...) */
	struct sset *cands[CANDS_MAX]; /* the top-level sequence's requirements, for also */
	size_t ncands;
};

static int
fold(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static struct sset *
sset_new(void)
{
	struct sset *s = xmalloc(sizeof(*s));

	s->n = 0;
	s->cap = SSET_INLINE;
	s->v = s->inl;
	return s;
}

static void
sset_free(struct sset *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	if (s->v != s->inl)
		free(s->v);
	free(s);
}

static bool
sset_has(const struct sset *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return true;
	return false;
}

/* Takes ownership of str. */
static void
sset_push(struct sset *s, char *str)
{
	if (sset_has(s, str)) {
		free(str);
		return;
	}
	if (s->n == s->cap) {
		char **v = xmalloc(2 * s->cap * sizeof(*v));

		memcpy(v, s->v, s->n * sizeof(*v));
		if (s->v != s->inl)
			free(s->v);
		s->v = v;
		s->cap *= 2;
	}
	s->v[s->n++] = str;
}

static struct sset *
sset_str(const char *str)
{
	struct sset *s = sset_new();

	sset_push(s, xstrdup(str));
	return s;
}

static struct sset *
sset_dup(const struct sset *a)
{
	struct sset *s;

	if (!a)
		return NULL;
	s = sset_new();
	for (size_t i = 0; i < a->n; i++)
		sset_push(s, xstrdup(a->v[i]));
	return s;
}

/* Returns a new set, or NULL when the result would pass a cap. */
static struct sset *
sset_cross(const struct sset *a, const struct sset *b)
{
	struct sset *s;

	if (a->n * b->n > CROSS_MAX)
		return NULL;
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++)
			if (strlen(a->v[i]) + strlen(b->v[j]) > LIT_MAX)
				return NULL;
	s = sset_new();
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++) {
			size_t la = strlen(a->v[i]), lb = strlen(b->v[j]);
			char *str = xmalloc(la + lb + 1);

			memcpy(str, a->v[i], la);
			memcpy(str + la, b->v[j], lb + 1);
			sset_push(s, str);
		}
	return s;
}

/* Returns a new set, or NULL when either side is unknown or max is passed. */
static struct sset *
sset_union(const struct sset *a, const struct sset *b, size_t max)
{
	struct sset *s;

	if (!a || !b)
		return NULL;
	s = sset_dup(a);
	for (size_t i = 0; i < b->n; i++)
		sset_push(s, xstrdup(b->v[i]));
	if (s->n > max) {
		sset_free(s);
		return NULL;
	}
	return s;
}

static size_t
sset_minlen(const struct sset *s)
{
	size_t m = (size_t)-1;

	for (size_t i = 0; i < s->n; i++) {
		size_t l = strlen(s->v[i]);

		if (l < m)
			m = l;
	}
	return s->n ? m : 0;
}

static void
info_release(struct info *in)
{
	sset_free(in->exact);
	sset_free(in->pre);
	sset_free(in->suf);
	sset_free(in->req);
	memset(in, 0, sizeof(*in));
}

static const struct sset *
info_pre(const struct info *in)
{
	return in->exact ? in->exact : in->pre;
}

static const struct sset *
info_suf(const struct info *in)
{
	return in->exact ? in->exact : in->suf;
}

/* A node that matches only the empty string (an assertion, a comment). */
static void
info_empty(struct info *in)
{
	memset(in, 0, sizeof(*in));
	in->exact = sset_str("");
}

static void
info_char(struct info *in, int c)
{
	char s[2] = { (char)fold(c), '\0' };

	memset(in, 0, sizeof(*in));
	in->exact = sset_str(s);
}

/* Is a better than b as a requirement? NULL and sets with "" never are. */
static bool
req_better(const struct sset *a, const struct sset *b)
{
	size_t ma, mb, ca, cb;

	if (!a || a->n == 0 || (ma = sset_minlen(a)) == 0)
		return false;
	if (!b)
		return true;
	mb = sset_minlen(b);
	ca = ma < SCORE_CAP ? ma : SCORE_CAP;
	cb = mb < SCORE_CAP ? mb : SCORE_CAP;
	if (ca != cb)
		return ca > cb;
	if (a->n != b->n)
		return a->n < b->n;
	return ma > mb;
}

/* ---- the reader ------------------------------------------------------- */

static void parse_alt(struct lp *lp, struct info *out);

/* Refuse the pattern. lp->p points at an empty string so that nothing
 * reads past a failed scan. */
static void
lp_bail(struct lp *lp)
{
	lp->bail = true;
	lp->p = "";
}

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool
is_alnum(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
is_hex(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int
hexval(int c)
{
	return is_digit(c) ? c - '0' : fold(c) - 'a' + 10;
}

/* Skip from p (just after an opening delimiter) past `close`; NULL if absent. */
static const char *
skip_past(const char *p, char close)
{
	const char *q = strchr(p, close);

	return q ? q + 1 : NULL;
}

/* Bytes in the UTF-8 sequence starting at p (1 for a stray byte). */
static size_t
utf8_len(const unsigned char *p)
{
	size_t n = 1;

	if (p[0] >= 0xC0)
		while (n < 4 && (p[n] & 0xC0) == 0x80)
			n++;
	return n;
}

/*
 * A strict quantifier `{n}`, `{n,}` or `{n,m}`: PCRE2 reads these as
 * quantifiers in every version. Sets *min, *max (-1 = unbounded) and returns
 * the length, or 0.
 */
static size_t
quant_strict(const char *p, long *min, long *max)
{
	const char *q = p + 1;
	long a = 0, b;

	if (*p != '{' || !is_digit(*q))
		return 0;
	while (is_digit(*q) && a < 100000)
		a = a * 10 + (*q++ - '0');
	if (*q == '}') {
		*min = *max = a;
		return (size_t)(q + 1 - p);
	}
	if (*q++ != ',')
		return 0;
	if (*q == '}') {
		*min = a;
		*max = -1;
		return (size_t)(q + 1 - p);
	}
	if (!is_digit(*q))
		return 0;
	b = 0;
	while (is_digit(*q) && b < 100000)
		b = b * 10 + (*q++ - '0');
	if (*q != '}')
		return 0;
	*min = a;
	*max = b;
	return (size_t)(q + 1 - p);
}

/*
 * Anything else of the shape `{ digits, spaces, commas }` may be a
 * quantifier in some PCRE2 version ({,m} and spaces came in 10.43) and a
 * literal in another. Reading it as `{0,}` is safe under both readings.
 */
static size_t
quant_loose(const char *p)
{
	const char *q = p + 1;
	bool digit = false;

	if (*p != '{')
		return 0;
	while (is_digit(*q) || *q == ',' || *q == ' ') {
		digit |= is_digit(*q);
		q++;
	}
	return *q == '}' && digit ? (size_t)(q + 1 - p) : 0;
}

static bool
at_quant(const char *p)
{
	long a, b;

	return *p == '?' || *p == '*' || *p == '+' || quant_strict(p, &a, &b) || quant_loose(p);
}

/* \E and \Q\E are no-ops that may sit between an item and its quantifier. */
static void
skip_noops(struct lp *lp)
{
	for (;;) {
		if (lp->p[0] == '\\' && lp->p[1] == 'E')
			lp->p += 2;
		else if (lp->p[0] == '\\' && lp->p[1] == 'Q' && lp->p[2] == '\\' && lp->p[3] == 'E')
			lp->p += 4;
		else
			return;
	}
}

/* Raise a set to the n-th power (exact repetition), or NULL past a cap. */
static struct sset *
sset_pow(const struct sset *a, long n)
{
	struct sset *s = sset_str(""), *t;

	for (long i = 0; i < n; i++) {
		t = sset_cross(s, a);
		sset_free(s);
		if (!t)
			return NULL;
		s = t;
	}
	return s;
}

static void
apply_quant(struct lp *lp, struct info *in)
{
	long min, max;
	size_t k;

	skip_noops(lp);
	if (!at_quant(lp->p))
		return;
	if (in->noquant) {
		lp_bail(lp);
		return;
	}
	if (*lp->p == '?') {
		min = 0, max = 1, k = 1;
	} else if (*lp->p == '*') {
		min = 0, max = -1, k = 1;
	} else if (*lp->p == '+') {
		min = 1, max = -1, k = 1;
	} else if ((k = quant_strict(lp->p, &min, &max)) == 0) {
		k = quant_loose(lp->p);
		min = 0, max = -1;
	}
	lp->p += k;
	if (*lp->p == '?' || *lp->p == '+')
		lp->p++;
	if (at_quant(lp->p)) {
		lp_bail(lp);
		return;
	}

	if (min == 1 && max == 1)
		return;
	if (min >= 1) {
		/* At least min copies: the first min of them start the match
		 * and the last min end it (`_{3,} ` requires "___ ", where one
		 * copy would leave "_ " and lose to a common word nearby);
		 * exactly min copies are the whole match. Past the cap, one copy
		 * still starts and ends it. */
		if (in->exact) {
			struct sset *p = min <= 8 ? sset_pow(in->exact, min) : NULL;

			if (p) {
				sset_free(in->exact);
				in->exact = p;
				if (min == max)
					return;
			}
			in->pre = in->exact;
			in->suf = sset_dup(in->exact);
			in->exact = NULL;
		}
		return;
	}
	if (max == 1 && in->exact) {
		struct sset *e = in->exact;

		in->exact = NULL;
		info_release(in);
		sset_push(e, xstrdup(""));
		in->exact = e;
		return;
	}
	info_release(in);
}

/* After "\": one escape outside a class. */
static void
parse_escape(struct lp *lp, struct info *in)
{
	const unsigned char *p = (const unsigned char *)lp->p + 1;
	int c = *p;

	memset(in, 0, sizeof(*in));
	if (c == '\0') {
		lp_bail(lp);
		return;
	}
	if (c >= 0x80) {
		lp->p = (const char *)p + utf8_len(p);
		return;
	}
	if (!is_alnum(c)) {
		lp->p = (const char *)p + 1;
		info_char(in, c);
		return;
	}
	lp->p = (const char *)p + 1;
	switch (c) {
	case 'd': case 'D': case 'w': case 'W': case 's': case 'S':
	case 'h': case 'H': case 'v': case 'V': case 'R': case 'X': case 'C':
		return;
	case 'N':
		if (p[1] == '{')
			lp_bail(lp);
		return;
	case 'b': case 'B': case 'A': case 'z': case 'Z': case 'G': case 'K':
		info_empty(in);
		in->noquant = true;
		return;
	case 'n': info_char(in, '\n'); return;
	case 't': info_char(in, '\t'); return;
	case 'r': info_char(in, '\r'); return;
	case 'f': info_char(in, '\f'); return;
	case 'e': info_char(in, 0x1b); return;
	case 'a': info_char(in, 0x07); return;
	case 'p': case 'P':
		if (p[1] == '{') {
			if (!(lp->p = skip_past((const char *)p + 2, '}')))
				lp_bail(lp);
		} else if (p[1] == '\0') {
			lp_bail(lp);
		} else {
			lp->p++;
		}
		return;
	case 'x': {
		long v = 0;

		if (p[1] == '{') {
			const char *q = (const char *)p + 2;

			while (is_hex(*q) && v < 0x110000)
				v = v * 16 + hexval(*q++);
			if (*q != '}') {
				lp_bail(lp);
				return;
			}
			lp->p = q + 1;
		} else {
			const char *q = (const char *)p + 1;

			for (int i = 0; i < 2 && is_hex(*q); i++)
				v = v * 16 + hexval(*q++);
			lp->p = q;
		}
		/* Above 0x7f the byte sequence depends on UTF mode: unknown. */
		if (v > 0 && v < 0x80)
			info_char(in, (int)v);
		return;
	}
	case 'c':
		if (p[1] == '\0')
			lp_bail(lp);
		else
			lp->p++;
		return;
	case 'o':
		if (p[1] != '{' || !(lp->p = skip_past((const char *)p + 2, '}')))
			lp_bail(lp);
		return;
	case 'g':
		if (p[1] == '{')
			lp->p = skip_past((const char *)p + 2, '}');
		else if (p[1] == '<')
			lp->p = skip_past((const char *)p + 2, '>');
		else if (p[1] == '\'')
			lp->p = skip_past((const char *)p + 2, '\'');
		else {
			const char *q = (const char *)p + 1;

			if (*q == '+' || *q == '-')
				q++;
			if (!is_digit(*q)) {
				lp_bail(lp);
				return;
			}
			while (is_digit(*q))
				q++;
			lp->p = q;
		}
		if (!lp->p)
			lp_bail(lp);
		return;
	case 'k':
		if (p[1] == '{')
			lp->p = skip_past((const char *)p + 2, '}');
		else if (p[1] == '<')
			lp->p = skip_past((const char *)p + 2, '>');
		else if (p[1] == '\'')
			lp->p = skip_past((const char *)p + 2, '\'');
		else
			lp->p = NULL;
		if (!lp->p)
			lp_bail(lp);
		return;
	default:
		if (is_digit(c)) {
			/* Back reference or octal: some character(s), unknown. */
			while (is_digit(*lp->p))
				lp->p++;
			return;
		}
		/* \u \U \l \L and friends are errors in PCRE2. */
		lp_bail(lp);
		return;
	}
}

/*
 * PCRE2's check_posix_syntax(): after "[:" (or "[." "[="), is there a
 * terminator? Returns a pointer past ":]" or NULL.
 */
static const char *
posix_end(const char *p, char term)
{
	for (p += 2; *p; p++) {
		if (*p == '\\' && (p[1] == ']' || p[1] == '\\'))
			p++;
		else if ((*p == '[' && p[1] == term) || *p == ']')
			return NULL;
		else if (*p == term && p[1] == ']')
			return p + 2;
	}
	return NULL;
}

/*
 * After "[": a character class. It matches one character; when that is
 * one of at most 4 plain ASCII characters (after folding) it is exact.
 */
static void
parse_class(struct lp *lp, struct info *in)
{
	const char *p = lp->p + 1;
	bool neg = false, complex = false;
	char members[128];
	size_t nm = 0;

	memset(in, 0, sizeof(*in));
	if (*p == '^') {
		neg = true;
		p++;
	}
	if (*p == ']') {
		members[nm++] = ']';
		p++;
	}
	for (;;) {
		int c = (unsigned char)*p;

		if (c == '\0') {
			lp_bail(lp);
			return;
		}
		if (c == ']') {
			p++;
			break;
		}
		if (c == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *e = posix_end(p, p[1]);

			if (e) {
				if (p[1] != ':') {
					lp_bail(lp);
					return;
				}
				complex = true;
				p = e;
				continue;
			}
		}
		if (c == '\\') {
			int e = (unsigned char)p[1];

			if (e == '\0' || e == 'Q' || e == 'N' || e >= 0x80) {
				lp_bail(lp);
				return;
			}
			p += 2;
			if (!is_alnum(e)) {
				c = e;
			} else if (e == 'E') {
				continue;
			} else if (e == 'n' || e == 't' || e == 'r' || e == 'f' || e == 'e'
				   || e == 'a' || e == 'b') {
				complex = true;
				continue;
			} else if (e == 'p' || e == 'P' || e == 'x' || e == 'o') {
				complex = true;
				if (*p == '{') {
					if (!(p = skip_past(p + 1, '}'))) {
						lp_bail(lp);
						return;
					}
				} else if (e == 'p' || e == 'P') {
					if (*p == '\0') {
						lp_bail(lp);
						return;
					}
					p++;
				} else if (e == 'x') {
					for (int i = 0; i < 2 && is_hex(*p); i++)
						p++;
				} else {
					lp_bail(lp);
					return;
				}
				continue;
			} else if (e == 'c') {
				if (*p == '\0') {
					lp_bail(lp);
					return;
				}
				p++;
				complex = true;
				continue;
			} else if (is_digit(e)) {
				while (is_digit(*p))
					p++;
				complex = true;
				continue;
			} else if (strchr("dDwWsShHvV", e)) {
				complex = true;
				continue;
			} else {
				lp_bail(lp);
				return;
			}
		} else {
			p++;
		}
		if (c >= 0x80) {
			complex = true;
			continue;
		}
		if (*p == '-' && p[1] != ']') {
			/* A range: its end may be an escape; skip one item. */
			complex = true;
			p++;
			if (*p == '\\') {
				if (p[1] == '\0') {
					lp_bail(lp);
					return;
				}
				p += 2;
			} else if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
				/* "[a-[:digit:]]": let the loop take the posix class. */
			} else if (*p != '\0') {
				p++;
			}
			continue;
		}
		c = fold(c);
		if (!memchr(members, c, nm) && nm < sizeof(members))
			members[nm++] = (char)c;
	}
	lp->p = p;
	if (neg || complex || nm == 0 || nm > 4)
		return;
	in->exact = sset_new();
	for (size_t i = 0; i < nm; i++) {
		char s[2] = { members[i], '\0' };

		sset_push(in->exact, xstrdup(s));
	}
}

static bool
is_name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Skip a group name and its closing delimiter; false if malformed. */
static bool
skip_name(struct lp *lp, char close)
{
	const char *p = lp->p;

	if (!is_name_start(*p))
		return false;
	while (is_alnum(*p) || *p == '_')
		p++;
	if (*p != close)
		return false;
	lp->p = p + 1;
	return true;
}

/* Parse group content up to and including ')'. */
static void
parse_group_body(struct lp *lp, struct info *in)
{
	if (++lp->depth > DEPTH_MAX) {
		lp_bail(lp);
		return;
	}
	parse_alt(lp, in);
	lp->depth--;
	if (lp->bail)
		return;
	if (*lp->p != ')') {
		lp_bail(lp);
		return;
	}
	lp->p++;
}

/*
 * A lookaround: its content is parsed to find its end, then ignored for
 * the pattern's own literals (it consumes nothing). A positive one at the
 * top level is still a requirement on the subject: literal_extract_ahead().
 */
static void
parse_lookaround(struct lp *lp, struct info *in, bool positive)
{
	struct info tmp;
	bool top = lp->depth == 0;

	memset(&tmp, 0, sizeof(tmp));
	parse_group_body(lp, &tmp);
	/* a quantified one ((?=x)?) may be skipped: no requirement */
	if (positive && top && !lp->bail && !at_quant(lp->p) && tmp.req &&
	    req_better(tmp.req, lp->ahead)) {
		sset_free(lp->ahead);
		lp->ahead = tmp.req;
		tmp.req = NULL;
	}
	info_release(&tmp);
	info_empty(in);
}

/* After "(". */
static void
parse_group(struct lp *lp, struct info *in)
{
	const char *p = lp->p + 1;

	memset(in, 0, sizeof(*in));
	if (*p == '*') {
		/* Verbs and (*pla:...) forms: (*ACCEPT) can end a match early,
		 * so nothing after it would be required. */
		lp_bail(lp);
		return;
	}
	if (*p != '?') {
		lp->p = p;
		parse_group_body(lp, in);
		return;
	}
	p++;
	switch (*p) {
	case ':': case '|': case '>':
		lp->p = p + 1;
		parse_group_body(lp, in);
		return;
	case '=': case '!': case '*':
		lp->p = p + 1;
		parse_lookaround(lp, in, *p == '=');
		return;
	case '#':
		if (!(lp->p = skip_past(p, ')'))) {
			lp_bail(lp);
			return;
		}
		info_empty(in);
		in->noquant = true;
		return;
	case '<':
		if (p[1] == '=' || p[1] == '!' || p[1] == '*') {
			lp->p = p + 2;
			parse_lookaround(lp, in, p[1] == '=');
			return;
		}
		lp->p = p + 1;
		if (!skip_name(lp, '>')) {
			lp_bail(lp);
			return;
		}
		parse_group_body(lp, in);
		return;
	case '\'':
		lp->p = p + 1;
		if (!skip_name(lp, '\'')) {
			lp_bail(lp);
			return;
		}
		parse_group_body(lp, in);
		return;
	case 'P':
		lp->p = p + 2;
		if (p[1] == '<') {
			if (!skip_name(lp, '>')) {
				lp_bail(lp);
				return;
			}
			parse_group_body(lp, in);
		} else if (p[1] == '=' || p[1] == '>') {
			if (!skip_name(lp, ')'))
				lp_bail(lp);
		} else {
			lp_bail(lp);
		}
		return;
	case '&':
		lp->p = p + 1;
		if (!skip_name(lp, ')'))
			lp_bail(lp);
		return;
	case 'R': case '+': case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9': {
		/* Recursion and subroutine calls; "(?-i)" is an option setting. */
		const char *q = p + 1;

		if (*p == 'R' || is_digit(*p) || is_digit(*q)) {
			while (is_digit(*q))
				q++;
			if (*q != ')') {
				lp_bail(lp);
				return;
			}
			lp->p = q + 1;
			return;
		}
		break;
	}
	default:
		break;
	}
	/* Option setting: (?flags) or (?flags:...). Extended mode changes what
	 * whitespace and '#' mean; refuse it rather than model it. */
	{
		bool unset = false;

		for (; *p && *p != ')' && *p != ':'; p++) {
			if (*p == '-')
				unset = true;
			else if (*p == '^')
				unset = false;
			else if (*p == 'x' && !unset)
				lp_bail(lp);
			else if (!is_alnum(*p))
				lp_bail(lp);
		}
		if (lp->bail || !*p) {
			lp_bail(lp);
			return;
		}
		if (*p == ')') {
			lp->p = p + 1;
			info_empty(in);
			in->noquant = true;
			return;
		}
		lp->p = p + 1;
		parse_group_body(lp, in);
	}
}

/* One item at lp->p (not '|', ')' or end). */
static void
parse_atom(struct lp *lp, struct info *in)
{
	int c = (unsigned char)*lp->p;

	memset(in, 0, sizeof(*in));
	switch (c) {
	case '\\':
		parse_escape(lp, in);
		return;
	case '[':
		parse_class(lp, in);
		return;
	case '(':
		parse_group(lp, in);
		return;
	case '.':
		lp->p++;
		return;
	case '^': case '$':
		lp->p++;
		info_empty(in);
		in->noquant = true;
		return;
	case '?': case '*': case '+':
		lp_bail(lp);
		return;
	case '{':
		if (at_quant(lp->p)) {
			lp_bail(lp);
			return;
		}
		break;
	default:
		break;
	}
	if (c >= 0x80) {
		lp->p += utf8_len((const unsigned char *)lp->p);
		return;
	}
	lp->p++;
	info_char(in, c);
}

struct seq {
	struct sset *run;    /* exact text since the last break */
	struct sset *pre;    /* run at the first break */
	bool broken;
	struct sset *best;   /* best requirement so far */
	struct sset *solo;   /* one string: like run, but broken by any set of
			      * several strings, so that "a `?b`? c" also offers
			      * " c" instead of only the 4 spellings of the whole */
	struct lp *top;      /* the reader, for the pattern's own sequence; else NULL */
};

static void
seq_cand(struct seq *sq, const struct sset *s)
{
	/* every candidate of the top sequence is required of every match */
	if (sq->top && sq->top->ncands < CANDS_MAX && req_better(s, NULL))
		sq->top->cands[sq->top->ncands++] = sset_dup(s);
	if (req_better(s, sq->best)) {
		sset_free(sq->best);
		sq->best = sset_dup(s);
	}
}

static void
seq_break(struct seq *sq, struct sset *head)
{
	seq_cand(sq, head);
	if (!sq->broken) {
		sq->pre = head;
		sq->broken = true;
	} else {
		sset_free(head);
	}
}

/* Extend the solo run by a (NULL or not a single string: break it). */
static void
seq_solo(struct seq *sq, const struct sset *a, const struct sset *next)
{
	struct sset *t;

	if (a && a->n == 1 && (t = sset_cross(sq->solo, a))) {
		sset_free(sq->solo);
		sq->solo = t;
		if (a == next)
			return;
	}
	seq_cand(sq, sq->solo);
	sset_free(sq->solo);
	sq->solo = next && next->n == 1 ? sset_dup(next) : sset_str("");
}

/* Add one parsed item to the sequence; takes ownership of in's sets. */
static void
seq_add(struct seq *sq, struct info *in)
{
	struct sset *t;

	seq_solo(sq, info_pre(in), in->exact ? in->exact : in->suf);
	if (in->exact) {
		if ((t = sset_cross(sq->run, in->exact))) {
			sset_free(sq->run);
			sq->run = t;
		} else {
			seq_break(sq, sq->run);
			sq->run = in->exact;
			in->exact = NULL;
		}
		info_release(in);
		return;
	}
	t = in->pre ? sset_cross(sq->run, in->pre) : NULL;
	if (t) {
		seq_break(sq, t);
		sset_free(sq->run);
	} else {
		seq_break(sq, sq->run);
	}
	seq_cand(sq, in->req);
	sq->run = in->suf ? in->suf : sset_str("");
	in->suf = NULL;
	info_release(in);
}

static void
parse_seq(struct lp *lp, struct info *out)
{
	struct seq sq = { sset_str(""), NULL, false, NULL, sset_str(""), lp->depth ? NULL : lp };
	struct info in;

	memset(out, 0, sizeof(*out));
	while (!lp->bail) {
		if (lp->inq) {
			if (*lp->p == '\0')
				break;
			if (lp->p[0] == '\\' && lp->p[1] == 'E') {
				lp->p += 2;
				lp->inq = false;
				continue;
			}
			if ((unsigned char)*lp->p >= 0x80) {
				memset(&in, 0, sizeof(in));
				lp->p += utf8_len((const unsigned char *)lp->p);
			} else {
				info_char(&in, (unsigned char)*lp->p++);
			}
			/* Only "\E" can put a quantifier after a quoted char. */
			if (lp->p[0] == '\\' && lp->p[1] == 'E') {
				lp->p += 2;
				lp->inq = false;
				apply_quant(lp, &in);
			}
			seq_add(&sq, &in);
			continue;
		}
		if (*lp->p == '\0' || *lp->p == '|' || *lp->p == ')')
			break;
		if (lp->p[0] == '\\' && lp->p[1] == 'Q') {
			lp->p += 2;
			lp->inq = true;
			continue;
		}
		if (lp->p[0] == '\\' && lp->p[1] == 'E') {
			lp->p += 2;
			continue;
		}
		parse_atom(lp, &in);
		if (!lp->bail)
			apply_quant(lp, &in);
		seq_add(&sq, &in);
	}
	seq_cand(&sq, sq.run);
	seq_cand(&sq, sq.solo);
	sset_free(sq.solo);
	if (sq.broken) {
		out->pre = sq.pre;
		out->suf = sq.run;
	} else {
		out->exact = sq.run;
	}
	out->req = sq.best;
}

static void
parse_alt(struct lp *lp, struct info *out)
{
	struct info b, m;

	parse_seq(lp, out);
	while (!lp->bail && *lp->p == '|') {
		lp->top_alt |= lp->depth == 0;
		lp->p++;
		parse_seq(lp, &b);
		memset(&m, 0, sizeof(m));
		if (out->exact && b.exact) {
			m.exact = sset_union(out->exact, b.exact, CROSS_MAX);
		}
		if (!m.exact) {
			m.pre = sset_union(info_pre(out), info_pre(&b), CROSS_MAX);
			m.suf = sset_union(info_suf(out), info_suf(&b), CROSS_MAX);
		}
		m.req = sset_union(out->req, b.req, UNION_MAX);
		info_release(out);
		info_release(&b);
		*out = m;
	}
}

/* Drop strings that contain another string of the set: they add nothing. */
static void
sset_minimize(struct sset *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++) {
		bool redundant = false;

		for (size_t j = 0; j < s->n && !redundant; j++)
			if (j != i && s->v[j] && strstr(s->v[i], s->v[j])
			    && (strlen(s->v[j]) < strlen(s->v[i]) || j < i))
				redundant = true;
		if (redundant) {
			free(s->v[i]);
			s->v[i] = NULL;
		}
	}
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i])
			s->v[k++] = s->v[i];
	s->n = k;
}

/* Hand the strings of set over as a new NULL-terminated list; *n their count. */
static char **
take_list(struct sset *set, size_t *n)
{
	size_t cnt = set ? set->n : 0;
	char **list = xmalloc((cnt + 1) * sizeof(*list));

	for (size_t i = 0; i < cnt; i++)
		list[i] = set->v[i];
	list[cnt] = NULL;
	if (set)
		set->n = 0;
	*n = cnt;
	return list;
}

static void
parse_pattern(struct lp *lp, struct info *top)
{
	/* Leading option settings such as (*UTF) or (*LIMIT_MATCH=100). */
	while (lp->p[0] == '(' && lp->p[1] == '*') {
		const char *q = lp->p + 2;

		while ((*q >= 'A' && *q <= 'Z') || is_digit(*q) || *q == '_' || *q == '=')
			q++;
		if (*q != ')' || q == lp->p + 2)
			break;
		lp->p = q + 1;
	}
	parse_alt(lp, top);
	if (!lp->bail && *lp->p != '\0')
		lp->bail = true;
}

/* Do two sets share a string, or a string inside another's? */
static bool
sset_touch(const struct sset *a, const struct sset *b)
{
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++)
			if (strstr(a->v[i], b->v[j]) || strstr(b->v[j], a->v[i]))
				return true;
	return false;
}

/*
 * The best of the top sequence's requirements that has nothing in common
 * with req: a requirement of another part of the pattern. NULL if none,
 * or none of 3 bytes or more, as a shorter one is on most lines.
 */
static struct sset *
pick_also(struct lp *lp, const struct sset *req)
{
	struct sset *best = NULL;

	for (size_t i = 0; i < lp->ncands; i++)
		if (sset_minlen(lp->cands[i]) >= 3 && !sset_touch(lp->cands[i], req) &&
		    req_better(lp->cands[i], best))
			best = lp->cands[i];
	return best ? sset_dup(best) : NULL;
}

/* One reading of the pattern gives all three lists. */
void
literal_read(const char *pattern, struct literal_reading *out)
{
	struct lp lp = { pattern, 0, false, false, false, NULL, { NULL }, 0 };
	struct info top;
	struct sset *req = NULL, *also = NULL;

	parse_pattern(&lp, &top);
	if (!lp.bail && top.req) {
		sset_minimize(top.req);
		req = top.req;
	}
	if (lp.bail || lp.top_alt) {
		sset_free(lp.ahead);
		lp.ahead = NULL;
	} else if (req) {
		also = pick_also(&lp, req);
	}
	if (lp.ahead)
		sset_minimize(lp.ahead);
	if (also)
		sset_minimize(also);
	out->lits = take_list(req, &out->nlits);
	out->ahead = take_list(lp.ahead, &out->nahead);
	out->also = take_list(also, &out->nalso);
	sset_free(lp.ahead);
	sset_free(also);
	for (size_t i = 0; i < lp.ncands; i++)
		sset_free(lp.cands[i]);
	info_release(&top);
}

/* One list of a reading; the others are freed. */
static int
read_one(const char *pattern, char ***out, size_t *n, int which)
{
	struct literal_reading r;
	char **keep[3];
	size_t counts[3];

	literal_read(pattern, &r);
	keep[0] = r.lits, keep[1] = r.ahead, keep[2] = r.also;
	counts[0] = r.nlits, counts[1] = r.nahead, counts[2] = r.nalso;
	for (int i = 0; i < 3; i++)
		if (i != which)
			literal_list_free(keep[i]);
	*out = keep[which];
	if (n)
		*n = counts[which];
	return (int)counts[which];
}

int
literal_extract_ahead(const char *pattern, char ***out, size_t *n)
{
	return read_one(pattern, out, n, 1);
}

int
literal_extract(const char *pattern, char ***out, size_t *n)
{
	return read_one(pattern, out, n, 0);
}

int
literal_extract_also(const char *pattern, char ***out, size_t *n)
{
	return read_one(pattern, out, n, 2);
}

/* An inline option group that may set option letter c: for 'i', (?i), (?mi:, (?-i)... */
static bool
has_option(const char *p, char c)
{
	for (; (p = strstr(p, "(?")) != NULL; p += 2)
		for (const char *q = p + 2; (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
					    *q == '-' || *q == '^'; q++)
			if (*q == c)
				return true;
	return false;
}

/*
 * Why the one verbatim occurrence is the spelling: without an alternation
 * or a caseless option, every match holds the literal as the pattern's
 * own run of literal characters spells it. A literal built any other way
 * (a character class, an optional part, a repeat, an escape) is not found
 * verbatim, or only by chance, and a second occurrence gives up.
 */
const char *
literal_spelling(const char *pattern, const char *lit)
{
	size_t n = strlen(lit);
	const char *found = NULL;

	if (n == 0 || strchr(pattern, '|') || has_option(pattern, 'i'))
		return NULL;
	for (const char *p = pattern; *p; p++) {
		size_t k = 0;

		while (k < n && p[k] && fold((unsigned char)p[k]) == (unsigned char)lit[k])
			k++;
		if (k < n)
			continue;
		if (found)
			return NULL;
		found = p;
	}
	/* `\Bad` spells no "bad": the letter belongs to an escape */
	if (found && found > pattern && found[-1] == '\\')
		return NULL;
	return found;
}

/*
 * The ']' that closes the class opening at p, or NULL: "]" first is a
 * member, and so are an escaped one and a POSIX item, as parse_class()
 * reads them.
 */
static const char *
class_close(const char *p)
{
	p += p[1] == '^' ? 2 : 1;
	if (*p == ']')
		p++;
	for (; *p && *p != ']'; p++) {
		const char *e;

		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=') &&
		    (e = posix_end(p, p[1])) != NULL)
			p = e - 1;
		else if (*p == '\\' && !*++p)
			return NULL;
	}
	return *p ? p : NULL;
}

/* Does the group opening at p capture: (x, (?<name>, (?P<name>, (?'name'? */
static bool
group_captures(const char *p)
{
	if (p[1] != '?')
		return true;
	return (p[2] == 'P' && p[3] == '<') || p[2] == '\'' ||
	       (p[2] == '<' && p[3] != '=' && p[3] != '!');
}

/* Does the escape or group at p refer to a group: \1, \g, \k, (?1), (?R), (?&n), (?P=n)...? */
static bool
group_reference(const char *p)
{
	if (*p == '\\')
		return p[1] == 'g' || p[1] == 'k' || (p[1] >= '1' && p[1] <= '9');
	return p[1] == '?' && (p[2] == 'R' || p[2] == '&' || p[2] == '+' || p[2] == '-' ||
			       (p[2] >= '0' && p[2] <= '9') ||
			       (p[2] == 'P' && (p[3] == '=' || p[3] == '>')));
}

/* What a walk of a pattern's text from some nesting depth saw. */
struct group_walk {
	const char *end;     /* past the ')' that closed the first group, or at the NUL */
	bool captures;       /* a capturing group on the way */
	bool refers;         /* a reference to a group */
	bool top_alt;        /* a '|' at the depth the walk started at */
};

/*
 * Walk p's groups from nesting depth `depth` (1: just inside a group's
 * opening, which the walk ends after; 0: to the end of the text). False
 * when the text does not end where it should.
 */
static bool
walk_groups(const char *p, int depth, struct group_walk *w)
{
	const int from = depth;

	memset(w, 0, sizeof(*w));
	for (; *p; p++) {
		if (*p == '\\') {
			w->refers |= group_reference(p);
			if (!*++p)
				return false;
		} else if (*p == '[') {
			if (!(p = class_close(p)))
				return false;
		} else if (*p == '(') {
			w->captures |= group_captures(p);
			w->refers |= group_reference(p);
			depth++;
		} else if (*p == ')') {
			if (--depth < 0)
				return false;
			if (depth == 0 && from == 1) {
				w->end = p + 1;
				return true;
			}
		} else if (*p == '|' && depth == from) {
			w->top_alt = true;
		}
	}
	w->end = p;
	return from == 0 && depth == 0;
}

char *
literal_lookahead_tail(const char *pattern)
{
	static const char head[] = "(?i)^(?=";
	struct group_walk look, rest;
	const char *tail;
	char *out;
	size_t n;

	/* text this reading does not follow: quoting, comments, extended mode */
	if (strncmp(pattern, head, sizeof(head) - 1) != 0 || strstr(pattern, "\\Q") ||
	    strstr(pattern, "(?#") || has_option(pattern, 'x'))
		return NULL;
	if (!walk_groups(pattern + sizeof(head) - 1, 1, &look) || look.captures ||
	    strncmp(look.end, ".*?", 3) != 0)
		return NULL;
	tail = look.end + 3;
	if (!*tail || !walk_groups(tail, 0, &rest) || rest.refers || rest.top_alt)
		return NULL;
	n = strlen(tail);
	out = xmalloc(4 + n + 1);
	memcpy(out, "(?i)", 4);
	memcpy(out + 4, tail, n + 1);
	return out;
}

void
literal_list_free(char **list)
{
	if (!list)
		return;
	for (char **p = list; *p; p++)
		xfree(*p);	/* a cached pattern's literals lie in its cache (pt/xalloc.h) */
	xfree(list);
}
