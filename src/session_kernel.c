/* SPDX-License-Identifier: MIT */
/* The session's kernel, re-read and re-checked after every attempt (pt/session_kernel.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt/buf.h"
#include "pt/check.h"
#include "pt/pyast.h"
#include "pt/session_kernel.h"
#include "pt/util.h"
#include "pt/xalloc.h"

#define SHOWN_MAX 80                /* bytes of a changed piece of a line shown */

struct lines {
	const char **at;
	size_t *len;
	size_t n;
};

static void
lines_split(const char *s, size_t n, struct lines *l)
{
	size_t cap = 16;

	l->at = xcalloc(cap, sizeof(*l->at));
	l->len = xcalloc(cap, sizeof(*l->len));
	l->n = 0;
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t end = nl ? (size_t)(nl - s) : n;

		if (l->n == cap) {
			cap *= 2;
			l->at = xrealloc(l->at, cap * sizeof(*l->at));
			l->len = xrealloc(l->len, cap * sizeof(*l->len));
		}
		l->at[l->n] = s + i;
		l->len[l->n++] = end - i;
		i = end + 1;
	}
}

static void
lines_release(struct lines *l)
{
	free(l->at);
	free(l->len);
}

static bool
same_line(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->len[i] == b->len[j] && memcmp(a->at[i], b->at[j], a->len[i]) == 0;
}

static bool
boundary(char c)
{
	return c == ' ' || c == '\t' || c == ',' || c == '(' || c == ')' || c == '[' ||
	       c == ']' || c == ':' || c == '\r';
}

/*
 * A piece of a user's line, as text that is safe anywhere: printable ASCII
 * only (a cut could split a UTF-8 sequence, and the file may hold any
 * bytes), capped.
 */
static void
add_piece(struct buf *out, const char *s, size_t n)
{
	buf_addch(out, '`');
	for (size_t i = 0; i < n && i < SHOWN_MAX; i++) {
		unsigned char c = (unsigned char)s[i];

		buf_addch(out, c < 0x20 || c >= 0x7f || c == '`' ? '?' : c);
	}
	if (n > SHOWN_MAX)
		buf_adds(out, "...");
	buf_addch(out, '`');
}

/* One line changed: the differing words only ("bk=1000" -> "bk=1024"). */
static void
one_line(const char *a, size_t na, const char *b, size_t nb, size_t lineno, struct buf *out)
{
	size_t p = 0, q = 0, ea, eb;

	while (p < na && p < nb && a[p] == b[p])
		p++;
	while (q < na - p && q < nb - p && a[na - 1 - q] == b[nb - 1 - q])
		q++;
	while (p > 0 && !boundary(a[p - 1]))
		p--;
	ea = na - q;
	eb = nb - q;
	while (ea < na && eb < nb && !boundary(a[ea])) {
		ea++;
		eb++;
	}
	buf_addf(out, "line %zu: ", lineno);
	add_piece(out, a + p, ea - p);
	buf_adds(out, " -> ");
	add_piece(out, b + p, eb - p);
}

bool
session_kernel_line_diff(const char *before, size_t nb, const char *after, size_t na,
			 struct buf *out)
{
	struct lines a, b;
	size_t p = 0, q = 0, ra, rb;

	if (nb == na && memcmp(before, after, na) == 0)
		return false;
	lines_split(before, nb, &a);
	lines_split(after, na, &b);
	while (p < a.n && p < b.n && same_line(&a, p, &b, p))
		p++;
	while (q < a.n - p && q < b.n - p && same_line(&a, a.n - 1 - q, &b, b.n - 1 - q))
		q++;
	ra = a.n - p - q;
	rb = b.n - p - q;
	if (ra == 1 && rb == 1)
		one_line(a.at[p], a.len[p], b.at[p], b.len[p], p + 1, out);
	else if (ra == 0)
		buf_addf(out, "%zu line%s added after line %zu", rb, rb == 1 ? "" : "s", p);
	else if (rb == 0)
		buf_addf(out, "line%s %zu-%zu removed", ra == 1 ? "" : "s", p + 1, p + ra);
	else
		buf_addf(out, "lines %zu-%zu changed (%zu line%s -> %zu)", p + 1, p + ra, ra,
			 ra == 1 ? "" : "s", rb);
	lines_release(&a);
	lines_release(&b);
	return true;
}

/* A copy kept in the session's logs/, read without following a planted link. */
static int
read_kept(const struct session_txn *t, const char *name, struct buf *out, struct pt_err *err)
{
	char *path = xasprintf("%s/logs/%s", t->dir, name);
	int dfd, ldfd = -1, rc = -1;

	if ((dfd = session_dir_open(t->dir, false, err)) >= 0 &&
	    (ldfd = session_subdir_open(dfd, t->dir, "logs", false, err)) >= 0)
		rc = util_read_regular_at(ldfd, name, path, out, PY_MAX_SOURCE + 1, err);
	if (ldfd >= 0)
		close(ldfd);
	if (dfd >= 0)
		close(dfd);
	free(path);
	return rc;
}

/*
 * The text the kernel had before this attempt: the copy kept at the last
 * attempt that kept one, else FILE.pre-debug. *what says which.
 */
static int
read_earlier(const struct session_txn *t, struct buf *out, const char **what)
{
	const struct session *s = t->s;
	struct pt_err err = PT_ERR_INIT;

	for (size_t i = s->nattempts - 1; i-- > 0;)
		if (s->attempts[i].kernel_copy) {
			*what = "the last attempt's";
			return read_kept(t, s->attempts[i].kernel_copy, out, &err);
		}
	*what = "the original (pre-debug)";
	return s->pre_debug ? util_read_regular(s->pre_debug, out, PY_MAX_SOURCE + 1, &err) : -1;
}

static void
findings_clause(const struct check_result *r, struct buf *out)
{
	size_t e, w, n;

	check_counts(r, &e, &w, &n);
	if (!e && !w)
		buf_adds(out, "; the check finds no error or warning");
	else
		buf_addf(out, "; the check finds %zu error%s and %zu warning%s", e, e == 1 ? "" : "s",
			 w, w == 1 ? "" : "s");
}

/* check_compare()'s lines as clauses of one sentence. */
static void
compare_clauses(const struct check_result *before, const struct check_result *after,
		struct buf *out)
{
	struct buf lines = BUF_INIT;

	if (!check_compare(before, after, &lines)) {
		buf_adds(out, "; no finding changed");
		buf_release(&lines);
		return;
	}
	for (char *l = lines.data, *nl; l && *l; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = '\0';
		buf_adds(out, "; ");
		buf_adds(out, l);
	}
	buf_release(&lines);
}

static void
check_text(const struct ruleset *rs, const char *name, const struct buf *src,
	   struct check_result *r)
{
	struct check_opts o;
	struct pt_err err = PT_ERR_INIT;

	memset(&o, 0, sizeof(o));
	o.rs = rs;
	(void)check_source(&o, name, src->data ? src->data : "", src->len, r, &err);
}

static char *
compare(const struct session_txn *t, const struct ruleset *rs, const struct buf *now)
{
	const struct session *s = t->s;
	struct buf out = BUF_INIT, old = BUF_INIT;
	struct check_result rb = CHECK_RESULT_INIT, ra = CHECK_RESULT_INIT;
	const char *what;

	check_text(rs, s->kernel, now, &ra);
	if (read_earlier(t, &old, &what) < 0) {
		buf_addf(&out, "no earlier copy of %s to compare with", s->kernel);
		findings_clause(&ra, &out);
	} else if (!session_kernel_line_diff(old.data ? old.data : "", old.len,
					     now->data ? now->data : "", now->len, &out)) {
		buf_addf(&out, "%s is unchanged since %s copy", s->kernel, what);
		findings_clause(&ra, &out);
	} else {
		check_text(rs, s->kernel, &old, &rb);
		compare_clauses(&rb, &ra, &out);
		findings_clause(&ra, &out);
	}
	check_result_release(&ra);
	check_result_release(&rb);
	buf_release(&old);
	return buf_detach(&out, NULL);
}

void
session_kernel_recheck(struct session_txn *t, const struct ruleset *rs)
{
	struct session *s = t->s;
	struct attempt *a;
	struct buf now = BUF_INIT;
	struct pt_err err = PT_ERR_INIT;
	char stem[64], *kept = NULL;

	if (!s->kernel || !s->nattempts || !rs->checks)
		return;
	a = &s->attempts[s->nattempts - 1];
	if (a->kernel_diff)
		return;
	if (util_read_regular(s->kernel, &now, PY_MAX_SOURCE + 1, &err) < 0) {
		a->kernel_diff = xasprintf("the kernel could not be read again: %s", err.msg);
		return;
	}
	a->kernel_diff = compare(t, rs, &now);
	snprintf(stem, sizeof(stem), "kernel-attempt-%d", a->n);
	if (session_txn_save_log(t, stem, now.data ? now.data : "", now.len, &kept, NULL, &err) == 0) {
		const char *slash = strrchr(kept, '/');

		a->kernel_copy = xstrdup(slash ? slash + 1 : kept);
		free(kept);
	}
	buf_release(&now);
}
