/* SPDX-License-Identifier: MIT */
/*
 * Running the user's command for `pallas-triage run`: spawn it directly (no
 * shell) in a process group of its own, echo its stdout and stderr as they
 * come, hand its output to a consumer in whole lines, stop it at a timeout
 * or on Ctrl-C, and report how it ended. What the output means is not this
 * module's business: the consumer is normally a classifier (pt/classify.h).
 *
 * Memory stays bounded whatever the command prints: output is read in
 * 64 KiB pieces and at most RUNNER_LINE_HOLD bytes of one unfinished line
 * are held per stream (so that stdout and stderr lines never interleave
 * inside a line); a longer line is passed on in pieces.
 *
 * While runner_exec() runs it owns SIGINT, SIGTERM, SIGHUP, SIGCHLD and
 * SIGPIPE (handlers are installed and the previous ones restored before it
 * returns): a signal that would stop pallas-triage stops the command instead.
 */
#ifndef PT_RUNNER_H
#define PT_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/diag.h"

#define RUNNER_LINE_HOLD (64u * 1024)
/* after the command exits, how long its output may stay open */
#define RUNNER_DRAIN_SECONDS 1.0

struct runner_opts {
	char *const *argv;          /* the command; argv[0] is looked up in PATH; NULL-terminated */
	char *const *envp;          /* its environment; NULL = ours */
	double timeout;             /* seconds; <= 0: no limit */
	double grace;               /* seconds between SIGTERM (or the forwarded signal) and SIGKILL */
	bool pass_stdin;            /* the command reads our stdin; otherwise /dev/null */
	int out_fd, err_fd;         /* echo the command's stdout/stderr here; -1: no echo */
	/* Receives the output (may be NULL): whole lines with their newline, from
	 * both streams in the order they were completed, or pieces of one line
	 * longer than RUNNER_LINE_HOLD. The last line always ends in a newline. */
	void (*sink)(void *arg, const char *data, size_t len);
	void *sink_arg;
};

enum runner_end {
	RUNNER_EXITED,              /* exited by itself: `code` */
	RUNNER_SIGNALED,            /* killed by a signal that did not come from us: `sig` */
	RUNNER_TIMED_OUT,           /* still running at the timeout; we stopped it */
	RUNNER_INTERRUPTED,         /* we got `sig` (Ctrl-C, TERM, HUP) and stopped it */
};

struct runner_result {
	enum runner_end end;
	int code;                   /* RUNNER_EXITED: the exit status */
	int sig;                    /* RUNNER_SIGNALED: the signal; RUNNER_INTERRUPTED: the one we got */
	bool killed;                /* it had to be stopped with SIGKILL (the grace period ran out) */
	unsigned long long nbytes;  /* output bytes, both streams */
	double seconds;             /* wall time from start to exit (monotonic clock) */
	bool echo_failed;           /* the echo failed (closed pipe...); the sink still got it all */
	bool output_left_open;      /* it exited, but a process it started kept its output open */
};

/*
 * Run o->argv to the end. Returns 0 when the command ran (whatever its
 * outcome, described in *res), or -1 with err set when it could not be
 * started at all (PT_EXIT_SYSTEM: "cannot run 'x': No such file or
 * directory"); nothing was sent to the sink then.
 */
int runner_exec(const struct runner_opts *o, struct runner_result *res, struct pt_err *err);

/* "SIGSEGV" for 11 and so on, or NULL for a signal without a common name. */
const char *runner_signal_name(int sig);

/*
 * A copy of environ with each "NAME=value" of the NULL-terminated `assign`
 * set (replacing NAME's old value). Every string is borrowed, from environ
 * or from assign: free() only the returned array.
 */
char **runner_env_with(char *const *assign);

#endif
