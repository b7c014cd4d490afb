/* SPDX-License-Identifier: MIT */
/*
 * Reading the log a command was given, for `triage` and `session start`
 * (src/cmd/logread.c): classify it while, as it streams in, a piped log is
 * echoed to the terminal (pt/echo.h), kept for the session (a pipe cannot
 * be read twice) and hashed (so the session knows a log it has seen). Ctrl-C
 * while a pipe is still open ends the log there: what came is classified.
 */
#ifndef PT_CMD_LOGREAD_H
#define PT_CMD_LOGREAD_H

#include <stdbool.h>
#include <stdio.h>
#include "cmd.h"
#include "pt/buf.h"
#include "pt/classify.h"
#include "pt/echo.h"
#include "pt/logkeep.h"
#include "pt/session.h"
#include "pt/sha256.h"

/* A log read from standard input is kept in the session up to this size (its
 * first and last halves, pt/logkeep.h), as `run` keeps output. */
#define LOGREAD_KEEP_MAX (16u * 1024 * 1024)

struct logread {
	const char *path;           /* "-" for standard input */
	const char *name;           /* as shown: "<stdin>" for standard input */
	FILE *echo_to;              /* echo a pipe here as it comes, or NULL */
	bool keep;                  /* keep standard input and hash any log, for the session */
	bool keep_files;            /* with keep: keep a copy of a file too (an attempt's log) */
	const char *jax;            /* --jax VERSION: the JAX that ran, over the log's; or NULL */
	/* filled by logread_run(): */
	struct echo echo;
	bool echoing;
	size_t echoed;              /* lines echoed */
	struct logkeep keeper;      /* standard input as it comes */
	struct buf kept;            /* ... as kept: at most LOGREAD_KEEP_MAX and a line
				     * where the middle was cut */
	bool kept_all;              /* ... all of it */
	bool interrupted;           /* Ctrl-C ended a pipe before its end */
	char digest[SHA256_HEX_LEN + 1]; /* of the whole log as read ("" without keep) */
	struct sha256 hash;
};

/*
 * What is known before a log is read: --kernel FILE (kernel, may be NULL)
 * and, with session, the session in progress in the session directory
 * (its asserted contexts and facts), read without the lock. A session
 * that does not load is left alone: the command that opens it says why.
 */
struct known_ctx {
	struct session *s;          /* owned, or NULL */
	char *kernel_why;           /* "--kernel FILE", or NULL */
	struct session_known sk;    /* sk.k is what classify takes */
};
void known_ctx_init(struct known_ctx *k, const struct pt_ctx *ctx, const char *kernel,
		    bool session);
void known_ctx_release(struct known_ctx *k);

/* Start: the caller sets path, name, echo_to and keep after this. */
void logread_init(struct logread *lr);
/*
 * Read and classify lr->path into v, with known (may be NULL: contexts
 * asserted by --kernel or by the session in progress, and its facts);
 * returns classify_path()'s result. Colour for the echo as ctx says.
 */
int logread_run(struct logread *lr, const struct pt_ctx *ctx, const struct log_known *known,
		struct verdict *v, struct pt_err *err);
/* The log as the session store takes it (borrowing from lr). */
struct session_log logread_session_log(const struct logread *lr);
/* Say so (a warning) when the log kept is not all of it. */
void logread_warn_cut(const struct logread *lr);
void logread_release(struct logread *lr);

#endif
