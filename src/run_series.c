/* SPDX-License-Identifier: MIT */
/* The runs of `pallas-triage run`, one after another; see pt/run_series.h. */
#include <stdlib.h>
#include <string.h>

#include "pt/advice.h"
#include "pt/logkeep.h"
#include "pt/run_series.h"
#include "pt/runner.h"
#include "pt/term.h"
#include "pt/xalloc.h"

/*
 * Both classifiers see every line: the one of this run, and the one of all
 * runs; keep (NULL when nothing is kept) collects the output to save.
 */
struct feed {
	struct classifier *all, *one;
	struct logkeep *keep;
};

static void
feed(void *arg, const char *data, size_t len)
{
	struct feed *f = arg;

	classifier_feed(f->all, data, len);
	if (f->one)
		classifier_feed(f->one, data, len);
	if (f->keep)
		logkeep_add(f->keep, data, len);
}

static void
say_run(FILE *progress, size_t i, size_t n, const char *level, char *const *cmd)
{
	if (!progress)
		return;
	fprintf(progress, "pallas-triage: run %zu of %zu", i + 1, n);
	if (level)
		fprintf(progress, " (%s=%s)", RUN_PRECISION_ENV, level);
	fputs(":", progress);
	for (; *cmd; cmd++) {
		fputc(' ', progress);
		term_puts_untrusted(progress, *cmd);
	}
	fputc('\n', progress);
}

/* One run: i of the series. Returns 0 or -1 with err (not started). */
static int
run_one(const struct run_series_opts *o, const struct ruleset *rs, struct classifier *all,
	struct run_series *rn, size_t i, struct pt_err *err)
{
	const char *level = o->sweep ? run_precision_levels[i] : NULL;
	struct logkeep keep;
	struct feed f = { all, rn->n > 1 ? classifier_new(rs) : NULL, o->keep ? &keep : NULL };
	char *assign = level ? xasprintf("%s=%s", RUN_PRECISION_ENV, level) : NULL;
	char *set[3] = { NULL, NULL, NULL };
	size_t nset = 0;
	struct runner_opts ro = {
		.argv = o->cmd, .timeout = o->timeout, .grace = o->grace,
		.pass_stdin = o->pass_stdin, .out_fd = o->out_fd, .err_fd = o->err_fd,
		.sink = feed, .sink_arg = &f,
	};
	struct runner_result res;
	struct buf lines = BUF_INIT;
	struct verdict v;
	char **env;
	int ret;

	/* Python buffers a pipe in blocks: without this its output would come
	 * at exit, and be lost entirely when a hang is stopped */
	if (o->unbuffered)
		set[nset++] = (char *)"PYTHONUNBUFFERED=1";
	if (assign)
		set[nset++] = assign;
	ro.envp = env = runner_env_with(set);
	logkeep_init(&keep, RUN_KEEP_MAX);
	if (rn->n > 1)
		say_run(o->progress, i, rn->n, level, o->cmd);
	fflush(stdout);
	fflush(stderr);
	if ((ret = runner_exec(&ro, &res, err)) == 0) {
		rn->echo_failed |= res.echo_failed;
		rn->output_left_open |= res.output_left_open;
		run_end_lines(&res, o->timeout, o->timeout_default, &lines);
		feed(&f, lines.data, lines.len);
		if (f.one) {
			classifier_finish(f.one, &v);
			verdict_derive(rs, &v);
			run_record_fill(&rn->rec[i], &res, &v, level, rs);
			verdict_release(&v);
		} else {
			rn->rec[i].res = res;   /* filled from the final verdict */
		}
		rn->done = i + 1;
		if (res.end == RUNNER_INTERRUPTED)
			rn->interrupted = res.sig;
	}
	/* the last run's output, its middle cut past RUN_KEEP_MAX */
	rn->out_cut = logkeep_cut(&keep);
	buf_release(&rn->out);
	logkeep_finish(&keep, &rn->out);
	buf_release(&lines);
	classifier_free(f.one);
	free(env);
	free(assign);
	return ret;
}

int
run_series_exec(const struct run_series_opts *o, const struct ruleset *rs,
		struct classifier *all, struct run_series *rn, struct pt_err *err)
{
	memset(rn, 0, sizeof(*rn));
	rn->n = o->sweep ? RUN_NLEVELS : o->repeat;
	rn->rec = xcalloc(rn->n, sizeof(*rn->rec));
	rn->out = (struct buf)BUF_INIT;
	for (size_t i = 0; i < rn->n && !rn->interrupted; i++)
		if (run_one(o, rs, all, rn, i, err) < 0)
			return -1;
	return 0;
}

void
run_series_release(struct run_series *rn)
{
	for (size_t i = 0; i < rn->n; i++)
		run_record_release(&rn->rec[i]);
	free(rn->rec);
	buf_release(&rn->out);
	memset(rn, 0, sizeof(*rn));
}
