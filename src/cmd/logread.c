/* SPDX-License-Identifier: MIT */
/* Reading the log a command was given; see logread.h. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logread.h"
#include "pt/xalloc.h"
#include "pt/advice.h"

/* Which signal ended a pipe; a handler may only set a flag. */
static volatile sig_atomic_t logread_signal;

static void
on_sigint(int sig)
{
	logread_signal = sig;
}

static void
tap(void *arg, const char *data, size_t len)
{
	struct logread *lr = arg;

	if (lr->echoing)
		echo_feed(&lr->echo, data, len);
	if (lr->keep && (lr->keep_files || strcmp(lr->path, "-") == 0))
		logkeep_add(&lr->keeper, data, len);
	if (lr->keep)
		sha256_update(&lr->hash, data, len);
}

static bool
stop(void *arg)
{
	(void)arg;
	return logread_signal != 0;
}

/* Standard input is a pipe (or a terminal, a socket): what a person watches stream in. */
static bool
stdin_streams(void)
{
	struct stat st;

	return fstat(STDIN_FILENO, &st) == 0 && !S_ISREG(st.st_mode);
}

void
known_ctx_init(struct known_ctx *k, const struct pt_ctx *ctx, const char *kernel, bool session)
{
	const char *dir = cmd_session_dir(ctx);

	memset(k, 0, sizeof(*k));
	if (session && session_in_progress(dir) && session_load(dir, &k->s, NULL) < 0)
		k->s = NULL;
	k->kernel_why = kernel ? xasprintf("--kernel %s", kernel) : NULL;
	session_known_init(&k->sk, k->s, ctx->rules, k->kernel_why);
}

void
known_ctx_release(struct known_ctx *k)
{
	session_known_release(&k->sk);
	session_free(k->s);
	free(k->kernel_why);
	memset(k, 0, sizeof(*k));
}

void
logread_init(struct logread *lr)
{
	memset(lr, 0, sizeof(*lr));
	lr->kept = (struct buf)BUF_INIT;
	logkeep_init(&lr->keeper, LOGREAD_KEEP_MAX);
	lr->kept_all = true;
}

int
logread_run(struct logread *lr, const struct pt_ctx *ctx, const struct log_known *known,
	    struct verdict *v, struct pt_err *err)
{
	struct log_watch w = { tap, stop, lr };
	struct sigaction sa, old;
	bool streams = strcmp(lr->path, "-") == 0 && stdin_streams();
	int rc;

	lr->echoing = streams && lr->echo_to;
	if (lr->echoing)
		echo_init(&lr->echo, lr->echo_to, cmd_use_color(ctx, lr->echo_to));
	sha256_init(&lr->hash);
	logread_signal = 0;
	if (streams) {
		/* no SA_RESTART: Ctrl-C must end a read from a program that hangs */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_sigint;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, &old);
	}
	rc = classify_path_watch(ctx->rules, lr->path, known, ctx->env.threads, &w, v, err);
	if (rc == 0 && lr->jax)
		verdict_set_jax(ctx->rules, v, lr->jax);
	if (streams)
		sigaction(SIGINT, &old, NULL);
	lr->interrupted = logread_signal != 0;
	if (lr->echoing) {
		echo_finish(&lr->echo);
		lr->echoed = lr->echo.lines;
	}
	if (lr->keep)
		sha256_final_hex(&lr->hash, lr->digest);
	lr->kept_all = !logkeep_cut(&lr->keeper);
	logkeep_finish(&lr->keeper, &lr->kept);
	return rc;
}

struct session_log
logread_session_log(const struct logread *lr)
{
	struct session_log l = { lr->name, lr->keep ? lr->digest : NULL, NULL, 0 };

	if (lr->keep && strcmp(lr->path, "-") == 0) {
		l.data = lr->kept.data;
		l.len = lr->kept.len;
	}
	return l;
}

void
logread_warn_cut(const struct logread *lr)
{
	if (!lr->kept_all)
		pt_warn("the log kept in the session is its first and last %u MiB; a line marks "
			"the cut", LOGREAD_KEEP_MAX >> 21);
}

void
logread_release(struct logread *lr)
{
	buf_release(&lr->kept);
	logkeep_release(&lr->keeper);
}
