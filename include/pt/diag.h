/* SPDX-License-Identifier: MIT */
/*
 * Diagnostics: the error struct every module fills, the exit statuses, and
 * the sink that collects many `file:line:col` problems from one input.
 * Only main.c and cmd_*.c may call pt_die(); modules return -1 and fill a
 * struct pt_err, and the command layer prints it once.
 */
#ifndef PT_DIAG_H
#define PT_DIAG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define PT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum pt_exit {
	PT_EXIT_OK = 0,       /* a Pallas failure class was identified / success */
	PT_EXIT_FINDING = 1,  /* ran fine, negative result (no Pallas failure, failing checks) */
	PT_EXIT_USAGE = 2,    /* bad command line */
	PT_EXIT_DATA = 3,     /* bad input data: rules, log, session */
	PT_EXIT_SYSTEM = 4,   /* I/O, network, resources */
};

struct pt_err {
	int status;     /* PT_EXIT_* to use if this error ends the run */
	char msg[512];  /* lowercase, no final full stop */
};

#define PT_ERR_INIT { 0, { 0 } }

/* Fill err (which may be NULL) and return -1, so callers can `return pt_err_set(...)`. */
int pt_err_set(struct pt_err *err, int status, const char *fmt, ...) PT_PRINTF(3, 4);
/* Like pt_err_set, appending ": strerror(errno)". */
int pt_err_errno(struct pt_err *err, int status, const char *fmt, ...) PT_PRINTF(3, 4);

/* Print "pallas-triage: error: MSG" to stderr and exit(status). Command layer only. */
_Noreturn void pt_die(int status, const char *fmt, ...) PT_PRINTF(2, 3);
void pt_warn(const char *fmt, ...) PT_PRINTF(1, 2);
/* Print an error from a struct pt_err and return its status. */
int pt_report(const struct pt_err *err);

_Noreturn void pt_bug(const char *file, int line, const char *msg);
#define PT_BUG(msg) pt_bug(__FILE__, __LINE__, (msg))

/*
 * A sink for many problems in one input (doas's parse_errors idea): each
 * entry is a complete "file:line:col: error: msg" line. The caller decides
 * at the end whether errors make the input unusable.
 */
struct diag {
	char **lines;
	size_t n, alloc;
	size_t nerrors, nwarnings;
};

#define DIAG_INIT { NULL, 0, 0, 0, 0 }

void diag_error(struct diag *d, const char *file, int line, int col, const char *fmt, ...) PT_PRINTF(5, 6);
void diag_warning(struct diag *d, const char *file, int line, int col, const char *fmt, ...) PT_PRINTF(5, 6);
void diag_print(const struct diag *d, FILE *fp);
void diag_release(struct diag *d);

#endif
