/* SPDX-License-Identifier: MIT */
/*
 * A tool call's command, in a child of the MCP server (mcp_child.h). The
 * child runs cmd_dispatch() on the command line, as main() would, and
 * exits with its status: the server forks for each call, so no state of
 * one call (the rules loaded, a session's lock, memory) outlives it, and a
 * command that dies takes only the child with it. The parent feeds the
 * input and reads both outputs under poll() until they close, or until the
 * deadline, when it kills the child's process group.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "mcp_child.h"
#include "pt/rules.h"
#include "pt/runner.h"

#define CHUNK (64u * 1024)

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
move_fd(int from, int to)
{
	if (from != to) {
		dup2(from, to);
		close(from);
	}
}

/* In the child: become the command. Never returns. */
static _Noreturn void
child_main(const struct pt_ctx *parent, const struct mcp_call *c, int in, int out, int err)
{
	struct pt_ctx ctx = *parent;
	int rc;

#ifdef __linux__
	{
		pid_t server = getppid();

		/* a server that is killed takes its call with it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != server)
			_exit(PT_EXIT_SYSTEM);
	}
#endif
	/* its own session: no controlling terminal to ask on, and a group to kill */
	setsid();
	signal(SIGPIPE, SIG_DFL);
	move_fd(in, STDIN_FILENO);
	move_fd(out, STDOUT_FILENO);
	move_fd(err, STDERR_FILENO);
	ctx.rules = NULL;
	ctx.rules_origin = NULL;
	ctx.no_input = true;
	ctx.color = COLOR_NEVER;   /* the output is for a program, whatever the server was told */
	rc = cmd_dispatch(cmd_table, c->argc, c->argv, &ctx, NULL);
	ruleset_free(ctx.rules);
	free(ctx.rules_origin);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fputs("pallas-triage: error: cannot write to standard output\n", stderr);
		rc = PT_EXIT_SYSTEM;
	}
	exit(rc);
}

struct pump {
	int in, out, err;           /* our ends; -1 once closed */
	const char *input;
	size_t input_len, sent;
	double timeout;             /* seconds */
};

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Read what fd has into b (past cap: read and dropped). Returns 0, or -1 at its end. */
static int
drain(int *fd, struct buf *b, size_t cap, bool *over)
{
	char chunk[CHUNK];
	ssize_t n = read(*fd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		close_fd(fd);
		return -1;
	}
	if (b->len + (size_t)n <= cap)
		buf_add(b, chunk, (size_t)n);
	else if (over)
		*over = true;
	else if (b->len < cap)
		buf_add(b, chunk, cap - b->len);
	return 0;
}

static void
feed(struct pump *p)
{
	ssize_t n = write(p->in, p->input + p->sent, p->input_len - p->sent);

	if (n > 0)
		p->sent += (size_t)n;
	/* EPIPE: the command stopped reading, which is its business */
	if ((n < 0 && errno != EINTR && errno != EAGAIN) || p->sent == p->input_len)
		close_fd(&p->in);
}

/* Until both outputs close: 0, or -1 with why set (timed out, too much output). */
static int
pump(struct pump *p, struct mcp_ran *r)
{
	double deadline = now_seconds() + p->timeout;
	bool over = false;

	while (p->out >= 0 || p->err >= 0) {
		struct pollfd fds[3] = {
			{ p->out, POLLIN, 0 }, { p->err, POLLIN, 0 }, { p->in, POLLOUT, 0 },
		};
		double left = deadline - now_seconds();
		int n;

		if (left <= 0) {
			snprintf(r->why, sizeof(r->why), "it was stopped after %g s (mcp --timeout)",
				 p->timeout);
			return -1;
		}
		n = poll(fds, 3, left > 60 ? 60000 : (int)(left * 1000) + 1);
		if (n < 0 && errno != EINTR)
			return snprintf(r->why, sizeof(r->why), "poll: %s", strerror(errno)), -1;
		if (n <= 0)
			continue;
		if (fds[0].revents)
			drain(&p->out, &r->out, MCP_CHILD_OUT_MAX, &over);
		if (fds[1].revents)
			drain(&p->err, &r->err, MCP_RAN_ERR_MAX, NULL);
		if (fds[2].revents)
			feed(p);
		if (over) {
			snprintf(r->why, sizeof(r->why), "it printed more than %u MiB and was stopped",
				 MCP_CHILD_OUT_MAX >> 20);
			return -1;
		}
	}
	return 0;
}

static void
describe_end(int st, struct mcp_ran *r)
{
	const char *name;

	if (WIFEXITED(st)) {
		r->status = WEXITSTATUS(st);
		return;
	}
	r->status = -1;
	if (!WIFSIGNALED(st))
		return;
	name = runner_signal_name(WTERMSIG(st));
	if (name)
		snprintf(r->why, sizeof(r->why), "it was killed by %s", name);
	else
		snprintf(r->why, sizeof(r->why), "it was killed by signal %d", WTERMSIG(st));
}

/* Pipes for the child: in (or /dev/null), out, err; ours are non-blocking. */
static int
make_pipes(const struct mcp_call *c, int in[2], int out[2], int err[2])
{
	in[0] = in[1] = out[0] = out[1] = err[0] = err[1] = -1;
	if (pipe(out) < 0 || pipe(err) < 0)
		return -1;
	if (c->input ? pipe(in) < 0 : (in[0] = open("/dev/null", O_RDONLY)) < 0)
		return -1;
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	if (in[1] >= 0)
		fcntl(in[1], F_SETFL, O_NONBLOCK);
	return 0;
}

int
mcp_child_run(const struct pt_ctx *ctx, double timeout, const struct mcp_call *c,
	      struct mcp_ran *r)
{
	int in[2], out[2], err[2], st = 0, ret = -1;
	struct pump p = { -1, -1, -1, c->input, c->input_len, 0, timeout };
	pid_t pid = -1;

	r->status = -1;
	if (make_pipes(c, in, out, err) < 0) {
		snprintf(r->why, sizeof(r->why), "pipe: %s", strerror(errno));
		goto out;
	}
	/* the child must not write out what our stdio still holds */
	fflush(NULL);
	if ((pid = fork()) < 0) {
		snprintf(r->why, sizeof(r->why), "fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		close(out[0]);
		close(err[0]);
		if (in[1] >= 0)
			close(in[1]);
		child_main(ctx, c, in[0], out[1], err[1]);
	}
	p.in = in[1];
	p.out = out[0];
	p.err = err[0];
	in[1] = out[0] = err[0] = -1;
	close_fd(&in[0]);
	close_fd(&out[1]);
	close_fd(&err[1]);
	if (!c->input_len)
		close_fd(&p.in);
	if (pump(&p, r) < 0) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);   /* in case it had not made its group yet */
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!*r->why)
		describe_end(st, r);
	ret = 0;
out:
	close_fd(&p.in);
	close_fd(&p.out);
	close_fd(&p.err);
	for (int i = 0; i < 2; i++) {
		close_fd(&in[i]);
		close_fd(&out[i]);
		close_fd(&err[i]);
	}
	return ret;
}
