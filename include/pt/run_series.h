/* SPDX-License-Identifier: MIT */
/*
 * Running the user's command for `pallas-triage run`: once, N times
 * (--repeat) or once per matmul precision (--sweep-precision), with every
 * line fed to the classifier of all runs and, for a series, to one of each
 * run, and the last run's output kept for the session. Spawning is
 * runner.c's, judging run_eval.c's; this module only sequences the runs.
 * It prints nothing but the progress lines it is given a FILE * for.
 */
#ifndef PT_RUN_SERIES_H
#define PT_RUN_SERIES_H

#include <stdbool.h>
#include <stdio.h>
#include "pt/buf.h"
#include "pt/classify.h"
#include "pt/run_eval.h"

/* A recorded attempt keeps the output of its (last) run, up to this much:
 * its first and last halves past it (pt/logkeep.h). */
#define RUN_KEEP_MAX ((size_t)16 << 20)

struct run_series_opts {
	char *const *cmd;           /* the command, NULL-terminated */
	double timeout, grace;      /* seconds; timeout <= 0: none (pt/runner.h) */
	bool timeout_default;       /* timeout was not given: run's default */
	bool pass_stdin;            /* the command reads our stdin */
	int out_fd, err_fd;         /* echo its stdout/stderr here; -1: no echo */
	bool sweep;                 /* one run per run_precision_levels[] */
	size_t repeat;              /* runs when not a sweep (>= 1) */
	bool keep;                  /* keep the last run's output in out */
	bool unbuffered;            /* set PYTHONUNBUFFERED=1 (the user had not set it) */
	FILE *progress;             /* "run k of n" before each run of a series, or NULL */
};

struct run_series {
	struct run_record *rec;     /* n records; rec[0..done) are filled */
	size_t n, done;
	int interrupted;            /* the signal that stopped a run, or 0 */
	struct buf out;             /* the last run's output, when opts.keep */
	bool out_cut;               /* ... its middle cut, past RUN_KEEP_MAX */
	bool echo_failed;           /* some output could not be echoed (all was classified) */
	bool output_left_open;      /* a run's child kept the output open past its exit */
};

/*
 * Run o->cmd as o asks, feeding all (which outlives the series) every line
 * and the lines run_end_lines() adds for each run. A single run's record
 * holds only its ending: fill it from all's verdict. Stops after an
 * interrupted run. Returns 0, or -1 with err when the command cannot be
 * started (the runs before it are in rn). Release rn with
 * run_series_release(), also after a failure.
 */
int run_series_exec(const struct run_series_opts *o, const struct ruleset *rs,
		    struct classifier *all, struct run_series *rn, struct pt_err *err);
void run_series_release(struct run_series *rn);

#endif
