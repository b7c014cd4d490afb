/* SPDX-License-Identifier: MIT */
/*
 * The memo of line kinds; see struct scout_memo in pt/scout.h.
 *
 * Why lines whose number alone differs have one kind: a line's kind is
 * whether a literal starts after the skip literal, and quiet(). A literal
 * occurrence that does not overlap the number lies in the bytes before it
 * or after it, which are the same; quiet() reads the number only as zero
 * or not, which the key keeps. An occurrence overlapping the number needs
 * a literal with a run of digits whose bytes before fit the end of the
 * number_after text and whose bytes after fit the start of number_before
 * (as `512, in ` would): memo_numbers() looks for one in the set once, and
 * where there is one, numbers count like any bytes. Lines that do not hold
 * the texts around a number are kept by their whole bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "pt/scout.h"
#include "pt/xalloc.h"

/* Lines up to MEMO_LINE bytes, in MEMO_SLOTS slots chosen by their hash. */
#define MEMO_SLOTS 4096
#define MEMO_LINE 192

struct scout_memo_slot {
	uint8_t form;            /* 0: a whole line; '0', '1': a number, zero or not, after pre */
	uint8_t kind;
	uint16_t npre, nsuf;     /* both 0: empty */
	char text[MEMO_LINE];    /* pre, then suf */
};

void
scout_memo_release(struct scout_memo *m)
{
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

static bool
digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* Is a[0..an) a suffix of t[0..tl), or t one of a? */
static bool
suffix_fits(const char *a, size_t an, const char *t, size_t tl)
{
	return an <= tl ? memcmp(a, t + tl - an, an) == 0 : memcmp(a + an - tl, t, tl) == 0;
}

/* Is c[0..cn) a prefix of t[0..tl), or t one of c? */
static bool
prefix_fits(const char *c, size_t cn, const char *t, size_t tl)
{
	return memcmp(c, t, cn < tl ? cn : tl) == 0;
}

/* Could literal l[0..n) (folded) overlap a number between texts t1 and t2? */
static bool
overlaps_number(const char *l, size_t n, const char *t1, const char *t2)
{
	for (size_t i = 0, j; i < n; i = j) {
		if (!digit((unsigned char)l[i])) {
			j = i + 1;
			continue;
		}
		for (j = i; j < n && digit((unsigned char)l[j]); j++)
			;
		if (suffix_fits(l, i, t1, strlen(t1)) && prefix_fits(l + j, n - j, t2, strlen(t2)))
			return true;
	}
	return false;
}

/* May lines be kept with their numbers left out, for this set? */
static bool
memo_numbers(const struct litset *ls, const struct scout_skip *sk)
{
	/* with a '\n' in a literal, a line's kind depends on the next line */
	if (!sk->number_after || !sk->number_before || litset_has_byte(ls, '\n'))
		return false;
	for (size_t i = 0; i < litset_count(ls); i++) {
		size_t n;
		const char *l = litset_literal(ls, i, &n);

		if (overlaps_number(l, n, sk->number_after, sk->number_before))
			return false;
	}
	return true;
}

/* Empty the memo for a new set or skip. */
static void
memo_reset(struct scout_memo *m, const struct litset *ls, const struct scout_skip *sk)
{
	/* calloc: pages that no line reaches are never touched */
	if (!m->slot)
		m->slot = xcalloc(MEMO_SLOTS, sizeof(*m->slot));
	else
		for (size_t i = 0; i < MEMO_SLOTS; i++) {
			m->slot[i].form = 0;
			m->slot[i].npre = m->slot[i].nsuf = 0;
		}
	m->set = litset_id(ls);
	m->skip = *sk;
	m->numbers = memo_numbers(ls, sk);
	m->after_len = m->numbers ? strlen(sk->number_after) : 0;
	m->before_len = m->numbers ? strlen(sk->number_before) : 0;
}

/* The first occurrence of t in [p, end), or NULL. */
static const char *
find_text(const char *p, const char *end, const char *t, size_t tl)
{
	for (; (p = memchr(p, t[0], (size_t)(end - p))) != NULL; p++)
		if ((size_t)(end - p) >= tl && memcmp(p, t, tl) == 0)
			return p;
	return NULL;
}

/*
 * Split line[0..n) around the number between the skip's texts (the first
 * number_after from `from` on), when there is one and the memo may leave
 * it out; otherwise the key is the whole line.
 */
static void
memo_key(struct scout_memo *m, const char *line, size_t n, size_t from)
{
	const char *end = line + n, *p, *d;

	m->key.pre = line;
	m->key.npre = n;
	m->key.suf = end;
	m->key.nsuf = 0;
	m->key.form = 0;
	if (!m->numbers)
		return;
	if (!(p = find_text(line + from, end, m->skip.number_after, m->after_len)))
		return;
	d = p + m->after_len;
	for (p = d; p < end && digit((unsigned char)*p); p++)
		;
	if (p == d || (size_t)(end - p) < m->before_len ||
	    memcmp(p, m->skip.number_before, m->before_len) != 0)
		return;
	m->key.npre = (size_t)(d - line);
	m->key.suf = p;
	m->key.nsuf = (size_t)(end - p);
	m->key.form = '0';
	for (; d < p; d++)
		if (*d != '0')
			m->key.form = '1';
}

/*
 * A hash of a few bytes of p[0..n), for the slot's choice only (the bytes
 * are compared): its first, middle and last 8, which tell frames apart by
 * path, file name and function.
 */
static uint64_t
sample(const char *p, size_t n)
{
	uint64_t a = 0, b = 0, c = 0;

	if (n >= 8) {
		memcpy(&a, p, 8);
		memcpy(&b, p + n / 2 - 4, 8);
		memcpy(&c, p + n - 8, 8);
	} else {
		for (size_t i = 0; i < n; i++)
			a = a << 8 | (unsigned char)p[i];
	}
	return (a * 0x9E3779B97F4A7C15u ^ b * 0xFF51AFD7ED558CCDu ^ c * 0xC4CEB9FE1A85EC53u) + n;
}

/* The slot of the key: the bytes before number_after, the number's form, the bytes after. */
static size_t
memo_index(const struct scout_memo *m)
{
	uint64_t h = sample(m->key.pre, m->key.npre - (m->key.form ? m->after_len : 0));

	h ^= (sample(m->key.suf, m->key.nsuf) + m->key.form) * 0xD6E8FEB86659FD93u;
	return (size_t)((h ^ h >> 29) * 0x9E3779B97F4A7C15u >> 52) % MEMO_SLOTS;
}

bool
scout_memo_get(struct scout_memo *m, const struct litset *ls, const struct scout_skip *sk,
	       const char *line, size_t n, size_t hit, enum scout_line *kind)
{
	const struct scout_memo_slot *sl;
	size_t litlen;

	m->key.kept = false;
	if (m->asked < SCOUT_MEMO_AFTER) {
		m->asked++;
		return false;
	}
	if (m->set != litset_id(ls) || m->skip.lit != sk->lit || m->skip.quiet != sk->quiet ||
	    m->skip.number_after != sk->number_after || m->skip.number_before != sk->number_before)
		memo_reset(m, ls, sk);
	litset_literal(ls, sk->lit, &litlen);
	memo_key(m, line, n, hit + litlen < n ? hit + litlen : n);
	if (m->key.npre + m->key.nsuf == 0 || m->key.npre + m->key.nsuf > MEMO_LINE)
		return false;
	m->key.index = memo_index(m);
	m->key.kept = true;
	sl = &m->slot[m->key.index];
	if (sl->form != m->key.form || sl->npre != m->key.npre || sl->nsuf != m->key.nsuf ||
	    memcmp(sl->text, m->key.pre, m->key.npre) != 0 ||
	    memcmp(sl->text + m->key.npre, m->key.suf, m->key.nsuf) != 0)
		return false;
	*kind = (enum scout_line)sl->kind;
	return true;
}

void
scout_memo_put(struct scout_memo *m, enum scout_line kind)
{
	struct scout_memo_slot *sl;

	if (!m->key.kept)
		return;
	sl = &m->slot[m->key.index];
	sl->form = m->key.form;
	sl->kind = (uint8_t)kind;
	sl->npre = (uint16_t)m->key.npre;
	sl->nsuf = (uint16_t)m->key.nsuf;
	memcpy(sl->text, m->key.pre, m->key.npre);
	memcpy(sl->text + m->key.npre, m->key.suf, m->key.nsuf);
	m->key.kept = false;
}
