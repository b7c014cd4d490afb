/* SPDX-License-Identifier: MIT */
/*
 * Spawning and watching the user's command (pt/runner.h): posix_spawnp in a
 * new process group, two pipes and a self-pipe under poll(), a monotonic
 * deadline, and a TERM-then-KILL stop of the whole group. The command is
 * never given to a shell, so its arguments arrive exactly as typed.
 *
 * Why a process group: a Python repro often starts helpers (compilers,
 * multiprocessing workers); stopping only the direct child would leave them
 * holding the TPU and our pipes. Why a self-pipe: a signal handler can only
 * write a byte, and the byte wakes poll() without a race between checking
 * the flags and going to sleep. This is not reentrant: one command at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "pt/runner.h"
#include "pt/xalloc.h"

extern char **environ;

#define READ_CHUNK (64u * 1024)

/* Set by the signal handler only; see the file comment. */
static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t nsignals;
static volatile sig_atomic_t wake_fd = -1;

static void
on_signal(int sig)
{
	int saved = errno;

	if (sig != SIGCHLD) {
		got_signal = sig;
		nsignals = nsignals + 1;
	}
	if (wake_fd >= 0) {
		ssize_t n = write(wake_fd, "", 1);

		(void)n;   /* a full pipe already holds a wake-up */
	}
	errno = saved;
}

static const int handled[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE };

struct saved_signals {
	struct sigaction old[ARRAY_SIZE(handled)];
};

static void
signals_install(struct saved_signals *sv)
{
	struct sigaction sa;

	for (size_t i = 0; i < ARRAY_SIZE(handled); i++) {
		/* a signal ignored when we started (nohup, `cmd &` in a script) stays
		 * ignored: Ctrl-C meant for the foreground job is not meant for us */
		sigaction(handled[i], NULL, &sv->old[i]);
		if (sv->old[i].sa_handler == SIG_IGN && handled[i] != SIGCHLD)
			continue;
		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		/* a closed echo pipe must be an EPIPE we can handle, not our death */
		sa.sa_handler = handled[i] == SIGPIPE ? SIG_IGN : on_signal;
		sa.sa_flags = handled[i] == SIGCHLD ? SA_NOCLDSTOP : 0;
		sigaction(handled[i], &sa, NULL);
	}
}

static void
signals_restore(const struct saved_signals *sv)
{
	for (size_t i = 0; i < ARRAY_SIZE(handled); i++)
		sigaction(handled[i], &sv->old[i], NULL);
}

const char *
runner_signal_name(int sig)
{
	static const struct { int sig; const char *name; } names[] = {
		{ SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" }, { SIGQUIT, "SIGQUIT" },
		{ SIGILL, "SIGILL" }, { SIGTRAP, "SIGTRAP" }, { SIGABRT, "SIGABRT" },
		{ SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" }, { SIGKILL, "SIGKILL" },
		{ SIGUSR1, "SIGUSR1" }, { SIGSEGV, "SIGSEGV" }, { SIGUSR2, "SIGUSR2" },
		{ SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" }, { SIGTERM, "SIGTERM" },
		{ SIGXCPU, "SIGXCPU" }, { SIGXFSZ, "SIGXFSZ" }, { SIGSYS, "SIGSYS" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].sig == sig)
			return names[i].name;
	return NULL;
}

static bool
env_names_equal(const char *a, const char *b)
{
	size_t n = strcspn(a, "=");

	return strncmp(a, b, n) == 0 && (b[n] == '=' || b[n] == '\0');
}

char **
runner_env_with(char *const *assign)
{
	size_t n = 0, na = 0, k = 0;
	char **v;

	for (char **e = environ; *e; e++)
		n++;
	while (assign[na])
		na++;
	v = xcalloc(n + na + 1, sizeof(*v));
	for (char **e = environ; *e; e++) {
		bool replaced = false;

		for (size_t i = 0; i < na && !replaced; i++)
			replaced = env_names_equal(assign[i], *e);
		if (!replaced)
			v[k++] = *e;
	}
	for (size_t i = 0; i < na; i++)
		v[k++] = assign[i];
	v[k] = NULL;
	return v;
}

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A close-on-exec pipe whose ends are above stderr, so that the dup2 onto
 * the child's 1 and 2 always happens even when our own 0-2 were closed. */
static int
pipe_high(int p[2], bool nonblock_read, bool nonblock_write)
{
	int raw[2];

	if (pipe(raw) < 0)
		return -1;
	p[0] = fcntl(raw[0], F_DUPFD_CLOEXEC, 3);
	p[1] = fcntl(raw[1], F_DUPFD_CLOEXEC, 3);
	close(raw[0]);
	close(raw[1]);
	if (p[0] < 0 || p[1] < 0)
		return -1;
	if (nonblock_read)
		fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	if (nonblock_write)
		fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
	return 0;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static bool
executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/*
 * Is there something to execute? posix_spawnp reports a failed exec through
 * its return value only where the C library can (glibc's vfork path; not
 * under valgrind, not everywhere), and a 127 exit would look like a command
 * that ran and failed. So look first, the way execvp will.
 */
static int
check_command(const char *cmd, struct pt_err *err)
{
	const char *path = getenv("PATH"), *p;
	int why = ENOENT;

	if (!*cmd)
		return pt_err_set(err, PT_EXIT_SYSTEM, "cannot run '': the command is empty");
	if (strchr(cmd, '/')) {
		if (executable(cmd))
			return 0;
		why = access(cmd, F_OK) == 0 ? EACCES : ENOENT;
	} else {
		for (p = path ? path : "/bin:/usr/bin"; ; p++) {
			size_t n = strcspn(p, ":");
			char *full = n ? xasprintf("%.*s/%s", (int)n, p, cmd) : xasprintf("./%s", cmd);
			bool ok = executable(full);

			if (!ok && access(full, F_OK) == 0)
				why = EACCES;
			free(full);
			if (ok)
				return 0;
			p += n;
			if (!*p)
				break;
		}
	}
	errno = why;
	return pt_err_errno(err, PT_EXIT_SYSTEM, "cannot run '%s'", cmd);
}

static int
spawn(const struct runner_opts *o, int out_w, int err_w, pid_t *pid, struct pt_err *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	if (!o->pass_stdin)
		posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_w, STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, err_w, STDERR_FILENO);
	/* handlers reset at exec by themselves; of what we ignore, only SIGPIPE
	 * is ours to undo (what our parent ignored, nohup's SIGHUP, stays so) */
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
				 POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawnp(pid, o->argv[0], &fa, &at, o->argv, o->envp ? o->envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc != 0) {
		errno = rc;
		return pt_err_errno(err, PT_EXIT_SYSTEM, "cannot run '%s'", o->argv[0]);
	}
	return 0;
}

/*
 * With --stdin at a terminal the command must be the terminal's foreground
 * group, or its first read stops it with SIGTTIN. SIGCONT covers a read that
 * happened before the hand-over. Returns true when the terminal was given.
 */
static bool
terminal_give(pid_t pgid)
{
	sigset_t block, old;
	bool ok;

	if (!isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) != getpgrp())
		return false;
	sigemptyset(&block);
	sigaddset(&block, SIGTTOU);
	sigprocmask(SIG_BLOCK, &block, &old);
	ok = tcsetpgrp(STDIN_FILENO, pgid) == 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ok)
		killpg(pgid, SIGCONT);
	return ok;
}

static void
terminal_take_back(void)
{
	sigset_t block, old;

	/* we are a background group now: without blocking SIGTTOU, taking the
	 * terminal back would stop us */
	sigemptyset(&block);
	sigaddset(&block, SIGTTOU);
	sigprocmask(SIG_BLOCK, &block, &old);
	tcsetpgrp(STDIN_FILENO, getpgrp());
	sigprocmask(SIG_SETMASK, &old, NULL);
}

struct stream {
	int fd;                     /* read end, -1 once at EOF */
	int echo;                   /* echo fd, -1: none (or it failed) */
	char *hold;                 /* an unfinished line, up to RUNNER_LINE_HOLD bytes */
	size_t nhold;
};

struct run {
	const struct runner_opts *o;
	struct runner_result *res;
	struct stream s[2];
	int open;                   /* the stream in the middle of a long line at the sink, or -1 */
};

static void
to_sink(struct run *r, int idx, const char *p, size_t n, bool ends_line)
{
	if (!r->o->sink || n == 0)
		return;
	if (r->open >= 0 && r->open != idx)
		r->o->sink(r->o->sink_arg, "\n", 1);   /* end the other stream's cut line */
	r->o->sink(r->o->sink_arg, p, n);
	r->open = ends_line ? -1 : idx;
}

/* Pass whole lines on, as many as a read brought in one call; hold an
 * unfinished one, or pass it on in pieces when it outgrows the hold (bounded
 * memory beats a perfect line). */
static void
take(struct run *r, int idx, const char *p, size_t n)
{
	struct stream *st = &r->s[idx];

	while (n) {
		const char *nl;
		size_t k = n;

		if (r->open == idx) {
			nl = memchr(p, '\n', n);
			k = nl ? (size_t)(nl - p) + 1 : n;
			to_sink(r, idx, p, k, nl != NULL);
		} else if ((nl = memrchr(p, '\n', n))) {
			k = (size_t)(nl - p) + 1;
			to_sink(r, idx, st->hold, st->nhold, false);
			st->nhold = 0;
			to_sink(r, idx, p, k, true);
		} else if (st->nhold + n <= RUNNER_LINE_HOLD) {
			memcpy(st->hold + st->nhold, p, n);
			st->nhold += n;
		} else {
			to_sink(r, idx, st->hold, st->nhold, false);
			st->nhold = 0;
			to_sink(r, idx, p, n, false);
		}
		p += k;
		n -= k;
	}
}

static void
stream_end(struct run *r, int idx)
{
	struct stream *st = &r->s[idx];

	if (st->nhold) {
		to_sink(r, idx, st->hold, st->nhold, false);
		st->nhold = 0;
	}
	if (r->open == idx)
		to_sink(r, idx, "\n", 1, true);
	close_fd(&st->fd);
}

static void
echo(struct run *r, struct stream *st, const char *p, size_t n)
{
	while (st->echo >= 0 && n) {
		ssize_t w = write(st->echo, p, n);

		if (w > 0) {
			p += w;
			n -= (size_t)w;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pf = { st->echo, POLLOUT, 0 };

			poll(&pf, 1, 100);
		} else {
			r->res->echo_failed = true;
			st->echo = -1;
		}
	}
}

static void
drain_wake(int fd)
{
	char b[64];

	while (read(fd, b, sizeof(b)) > 0)
		;
}

/* What the loop knows about the command's life. */
struct life {
	pid_t pid;
	int status;
	bool reaped, stopping, timed_out;
	int interrupted;            /* the signal we got, or 0 */
	sig_atomic_t seen;          /* nsignals when we started stopping */
	double start, kill_at, drain_until;
};

static void
stop_group(struct life *l, int sig, double now, double grace)
{
	killpg(l->pid, sig);
	l->stopping = true;
	l->kill_at = now + grace;
	if (l->drain_until < l->kill_at + RUNNER_DRAIN_SECONDS)
		l->drain_until = l->kill_at + RUNNER_DRAIN_SECONDS;
}

/* Advance the state machine; returns the seconds poll() may sleep, or -1. */
static double
tick(struct life *l, const struct runner_opts *o, struct runner_result *res, double now)
{
	double wait = -1;

	if (!l->reaped && waitpid(l->pid, &l->status, WNOHANG) == l->pid) {
		l->reaped = true;
		res->seconds = now - l->start;
		if (l->drain_until < now + RUNNER_DRAIN_SECONDS)
			l->drain_until = now + RUNNER_DRAIN_SECONDS;
	}
	if (got_signal && !l->interrupted) {
		/* also right after the exit: the user asked to stop everything */
		l->interrupted = got_signal;
		l->seen = nsignals;
		if (!l->reaped)
			stop_group(l, got_signal, now, o->grace);
	} else if (l->interrupted && nsignals > l->seen && !res->killed) {
		killpg(l->pid, SIGKILL);        /* asked twice: no more patience */
		res->killed = true;
	}
	if (!l->reaped && !l->stopping && o->timeout > 0 && now >= l->start + o->timeout) {
		l->timed_out = true;
		stop_group(l, SIGTERM, now, o->grace);
	}
	/* also after the leader exited: stragglers in its group go too */
	if (l->stopping && !res->killed && now >= l->kill_at) {
		killpg(l->pid, SIGKILL);
		res->killed = true;
	}
	if (l->stopping && !res->killed)
		wait = l->kill_at - now;
	else if (!l->stopping && !l->reaped && o->timeout > 0)
		wait = l->start + o->timeout - now;
	if (l->reaped && (wait < 0 || l->drain_until - now < wait))
		wait = l->drain_until - now;
	return wait;
}

static void
read_stream(struct run *r, int idx, char *buf)
{
	struct stream *st = &r->s[idx];
	ssize_t n = read(st->fd, buf, READ_CHUNK);

	if (n > 0) {
		r->res->nbytes += (unsigned long long)n;
		echo(r, st, buf, (size_t)n);
		take(r, idx, buf, (size_t)n);
	} else if (n == 0 || (errno != EAGAIN && errno != EINTR && errno != EWOULDBLOCK)) {
		stream_end(r, idx);
	}
}

static void
fill_result(const struct life *l, bool tty, struct runner_result *res)
{
	if (l->timed_out) {
		res->end = RUNNER_TIMED_OUT;
	} else if (l->interrupted) {
		res->end = RUNNER_INTERRUPTED;
		res->sig = l->interrupted;
	} else if (WIFEXITED(l->status)) {
		res->end = RUNNER_EXITED;
		res->code = WEXITSTATUS(l->status);
	} else if (tty && WTERMSIG(l->status) == SIGINT) {
		/* the command had the terminal, so Ctrl-C went to it directly */
		res->end = RUNNER_INTERRUPTED;
		res->sig = SIGINT;
	} else {
		res->end = RUNNER_SIGNALED;
		res->sig = WTERMSIG(l->status);
	}
}

static int
watch(struct run *r, struct life *l, int wake_r, struct pt_err *err)
{
	char *buf = xmalloc(READ_CHUNK);
	int ret = 0;

	for (;;) {
		struct pollfd pf[3];
		int which[3];
		nfds_t n = 0;
		double now = now_seconds(), wait = tick(l, r->o, r->res, now);
		int ms;

		if (l->reaped && r->s[0].fd < 0 && r->s[1].fd < 0)
			break;
		if (l->reaped && now >= l->drain_until) {
			r->res->output_left_open = true;
			break;
		}
		for (int i = 0; i < 2; i++)
			if (r->s[i].fd >= 0) {
				pf[n] = (struct pollfd){ r->s[i].fd, POLLIN, 0 };
				which[n++] = i;
			}
		pf[n] = (struct pollfd){ wake_r, POLLIN, 0 };
		which[n++] = -1;
		ms = wait < 0 ? -1 : wait > 3600.0 ? 3600000 : (int)(wait * 1000.0) + 1;
		if (poll(pf, n, ms) < 0) {
			if (errno == EINTR)
				continue;
			ret = pt_err_errno(err, PT_EXIT_SYSTEM, "cannot watch the command");
			break;
		}
		for (nfds_t i = 0; i < n; i++) {
			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (which[i] < 0)
				drain_wake(wake_r);
			else
				read_stream(r, which[i], buf);
		}
	}
	free(buf);
	return ret;
}

int
runner_exec(const struct runner_opts *o, struct runner_result *res, struct pt_err *err)
{
	struct run r = { .o = o, .res = res, .open = -1 };
	struct life l = { .pid = -1 };
	struct saved_signals sv;
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, wakep[2] = { -1, -1 };
	bool tty = false, installed = false;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	if (check_command(o->argv[0], err) < 0)
		return -1;
	r.s[0] = (struct stream){ -1, o->out_fd, xmalloc(RUNNER_LINE_HOLD), 0 };
	r.s[1] = (struct stream){ -1, o->err_fd, xmalloc(RUNNER_LINE_HOLD), 0 };
	if (pipe_high(outp, true, false) < 0 || pipe_high(errp, true, false) < 0 ||
	    pipe_high(wakep, true, true) < 0) {
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot create a pipe");
		goto out;
	}
	got_signal = 0;
	nsignals = 0;
	wake_fd = wakep[1];
	signals_install(&sv);
	installed = true;
	if (spawn(o, outp[1], errp[1], &l.pid, err) < 0)
		goto out;
	l.start = now_seconds();
	close_fd(&outp[1]);
	close_fd(&errp[1]);
	r.s[0].fd = outp[0];
	r.s[1].fd = errp[0];
	outp[0] = errp[0] = -1;
	if (o->pass_stdin)
		tty = terminal_give(l.pid);
	ret = watch(&r, &l, wakep[0], err);
	if (!l.reaped) {
		/* only after an error in the loop: leave no orphan and no zombie */
		killpg(l.pid, SIGKILL);
		while (waitpid(l.pid, &l.status, 0) < 0 && errno == EINTR)
			;
		l.reaped = true;
	}
	if (tty)
		terminal_take_back();
	if (ret == 0)
		fill_result(&l, tty, res);
out:
	if (installed)
		signals_restore(&sv);
	wake_fd = -1;
	for (int i = 0; i < 2; i++) {
		close_fd(&r.s[i].fd);
		free(r.s[i].hold);
	}
	close_fd(&outp[0]);
	close_fd(&outp[1]);
	close_fd(&errp[0]);
	close_fd(&errp[1]);
	close_fd(&wakep[0]);
	close_fd(&wakep[1]);
	return ret;
}
