/* SPDX-License-Identifier: MIT */
/*
 * The classifier; see pt/classify.h and docs/architecture.md. This file
 * only wires the stages together: the window (window.c) reads the log and
 * finds candidate lines, the line matcher (linematch.c) runs the patterns
 * on them, and at the end the scorer (score.c) decides and the verdict
 * builder (verdict.c) fills in the verdict.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pt/classify.h"
#include "pt/decode.h"
#include "pt/engine.h"
#include "pt/linematch.h"
#include "pt/window.h"
#include "pt/xalloc.h"

struct classifier {
	const struct ruleset *rs;
	struct window w;
	struct linematch lm;
	const struct context_assertion *asserted;   /* borrowed until finish */
	size_t nasserted;
	bool *ctx_held;             /* after finish: per ruleset context */
	double *ctx_score;
	size_t *ctx_done;
};

/* The scout gets its own copy of the prefilter (sets are not shared), with
 * the skip that goes with it. */
static struct litset *
prefilter_twin(struct classifier *c)
{
	struct litset *twin = linematch_prefilter(c->rs, &c->lm);

	litset_build(twin, c->w.buf, c->w.len);
	c->w.skip = linematch_skip(&c->lm, twin);
	return twin;
}

/* The window walks the prefilter in use, lines that change nothing aside. */
static void
use_prefilter(struct classifier *c)
{
	c->w.pf = c->lm.pf;
	c->w.skip = linematch_skip(&c->lm, c->lm.pf);
}

static void
on_line(void *arg, struct window *w, size_t start, size_t end, size_t limit, size_t lineno,
	size_t first, bool alone)
{
	struct classifier *c = arg;

	if (!linematch_line(&c->lm, w, start, end, limit, lineno, first, alone) ||
	    !linematch_rebuild(&c->lm, w->buf, w->len))
		return;
	if (w->scout)
		window_update_scout(w, prefilter_twin(c));
	use_prefilter(c);
}

static struct classifier *
classifier_create(const struct ruleset *rs, const struct litset *shared, struct matcher *mt)
{
	struct classifier *c = xcalloc(1, sizeof(*c));

	c->rs = rs;
	linematch_init(&c->lm, rs, shared, mt);
	window_init(&c->w, on_line, c);
	use_prefilter(c);
	c->w.every_line = rs->nalways > 0;
	c->ctx_held = xcalloc(rs->ncontexts + 1, sizeof(*c->ctx_held));
	c->ctx_score = xcalloc(rs->ncontexts + 1, sizeof(*c->ctx_score));
	c->ctx_done = xcalloc(rs->ncontexts + 1, sizeof(*c->ctx_done));
	return c;
}

struct classifier *
classifier_new(const struct ruleset *rs)
{
	return classifier_create(rs, NULL, NULL);
}

struct litset *
classify_prefilter_new(const struct ruleset *rs)
{
	struct litset *ls = linematch_prefilter(rs, NULL);

	litset_build(ls, NULL, 0);
	return ls;
}

void
classifier_free(struct classifier *c)
{
	if (!c)
		return;
	window_release(&c->w);
	linematch_release(&c->lm);
	free(c->ctx_held);
	free(c->ctx_score);
	free(c->ctx_done);
	free(c);
}

/* The first block picks the prefilter's rare windows and starts the scout. */
static void
commit(struct classifier *c, size_t n)
{
	window_add(&c->w, n);
	if (!c->lm.built) {
		linematch_build(&c->lm, c->w.buf, c->w.len);
		if (c->w.scout_fd >= 0 && !c->w.every_line)
			window_start_scout(&c->w, prefilter_twin(c));
		use_prefilter(c);
	}
	window_advance(&c->w, false);
}

void
classifier_feed(struct classifier *c, const char *data, size_t len)
{
	while (len) {
		size_t space, n;
		char *dst = window_space(&c->w, &space);

		n = len < space ? len : space;
		memcpy(dst, data, n);
		commit(c, n);
		data += n;
		len -= n;
	}
}

int
classify_fd(const struct ruleset *rs, int fd, const char *name, const struct classify_opts *o,
	    struct verdict *v, struct pt_err *err)
{
	struct classifier *c = classifier_create(rs, o ? o->prefilter : NULL, o ? o->matcher : NULL);
	struct decode_reader dr = DECODE_READER_INIT;
	struct stat st;

	if (o && o->nasserted)
		classifier_assert_contexts(c, o->asserted, o->nasserted);
	if (o && o->exhaustive)
		classifier_exhaustive(c);
	window_want_scout(&c->w, fd, o ? o->threads : 0);
	dr.stream = fstat(fd, &st) == 0 && !S_ISREG(st.st_mode);
	for (;;) {
		ssize_t n = window_read(&c->w, &dr, fd);

		if (n < 0) {
			if (errno == EINTR && o && o->stop && o->stop(o->tap_arg))
				break;
			if (errno == EINTR)
				continue;
			pt_err_errno(err, PT_EXIT_DATA, "cannot read '%s'", name);
			classifier_free(c);
			decode_reader_release(&dr);
			return -1;
		}
		if (n == 0)
			break;
		if (o && o->tap)
			o->tap(o->tap_arg, c->w.buf + c->w.len, (size_t)n);
		commit(c, (size_t)n);
	}
	classifier_finish(c, v);
	classifier_free(c);
	decode_reader_release(&dr);
	return 0;
}

void
classify_text(const struct ruleset *rs, const char *buf, size_t len, struct verdict *v)
{
	struct classifier *c = classifier_new(rs);

	classifier_feed(c, buf, len);
	classifier_finish(c, v);
	classifier_free(c);
}

void
classifier_finish(struct classifier *c, struct verdict *v)
{
	struct engine_result e = {
		.rs = c->rs, .ps = c->lm.ps, .rcaps = c->lm.rcaps, .env = &c->lm.env,
		.loc_frame = &c->lm.loc_frame, .last_frame = &c->lm.last_frame,
		.asserted = c->asserted, .nasserted = c->nasserted,
		.ctx_held = c->ctx_held, .ctx_score = c->ctx_score, .ctx_done = c->ctx_done,
	};

	memset(v, 0, sizeof(*v));
	linematch_build(&c->lm, NULL, 0);
	use_prefilter(c);
	window_advance(&c->w, true);
	linematch_finish(&c->lm);
	v->nlines = c->w.lineno;
	v->nbytes = c->w.nbytes;
	v->long_lines = c->w.long_lines;
	v->threads = c->w.scout ? 2 : 1;
	v->match_errors = c->lm.match_errors;
	v->runner_up = CLASS_COUNT;
	e.last_error = c->lm.last_error.len ? c->lm.last_error.data : NULL;
	e.last_error_line = c->lm.last_error_line;
	score_contexts(&e);
	score_verdict(&e, v);
	verdict_build(&e, v);
}

bool
classifier_fired(const struct classifier *c, const struct rule *r)
{
	struct engine_result e = {
		.rs = c->rs, .ps = c->lm.ps, .ctx_held = c->ctx_held, .ctx_score = c->ctx_score,
		.ctx_done = c->ctx_done,
	};

	return score_rule_fired(&e, r);
}

bool
classifier_context_held(const struct classifier *c, const char *id)
{
	int k = ruleset_find_context(c->rs, id);

	return k >= 0 && c->ctx_held[k];
}

void
classifier_assert_contexts(struct classifier *c, const struct context_assertion *a, size_t n)
{
	c->asserted = a;
	c->nasserted = n;
	c->lm.asserted = a;
	c->lm.nasserted = n;
}

void
classifier_exhaustive(struct classifier *c)
{
	linematch_exhaustive(&c->lm);
}

size_t
classifier_work(const struct classifier *c)
{
	return c->lm.work;
}

const struct vars *
classifier_captures(const struct classifier *c, const struct rule *r)
{
	return &c->lm.rcaps[r->index];
}

const struct vars *
classifier_env(const struct classifier *c)
{
	return &c->lm.env;
}
