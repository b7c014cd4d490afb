/* SPDX-License-Identifier: MIT */
/*
 * File helpers: bounded whole-file reads for small inputs (rules, sessions),
 * atomic replacement of a file, and directory creation.
 */
#ifndef PT_UTIL_H
#define PT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pt/buf.h"
#include "pt/diag.h"

/* Read all of path into out (appending), refusing files over max bytes. */
int util_read_file(const char *path, struct buf *out, size_t max, struct pt_err *err);

/*
 * util_read_file() for a file in the working directory, which a cloned
 * repository may have planted: path must be a regular file itself, not a
 * symbolic link (O_NOFOLLOW) nor a FIFO or device. Fails with PT_EXIT_DATA
 * saying which.
 */
int util_read_regular(const char *path, struct buf *out, size_t max, struct pt_err *err);
/*
 * util_read_regular() of a file about to leave the machine (a report to
 * post): it must also have no other name, since a hard link planted in its
 * place could be any file of the user's (~/.aws/credentials).
 */
int util_read_own(const char *path, struct buf *out, size_t max, struct pt_err *err);
/* util_read_regular() of name in the directory dfd (AT_FDCWD: the working
 * directory); path names it in messages. */
int util_read_regular_at(int dfd, const char *name, const char *path, struct buf *out,
			 size_t max, struct pt_err *err);

/*
 * Replace path with data atomically: write a temp file in the same directory,
 * fsync it, rename it over path, fsync the directory. A crash at any moment
 * leaves either the old or the new content. On error the old file is intact.
 * The file keeps the permission bits of the one it replaces; a new one gets
 * 0666 minus the umask. Only a regular file (or nothing) is replaced: when
 * path is a symbolic link, a directory, a FIFO or a device, nothing is
 * written and err (PT_EXIT_SYSTEM) says so.
 */
int util_write_atomic(const char *path, const void *data, size_t len, struct pt_err *err);
/* util_write_atomic() of name in the directory dfd, which the caller opened
 * without following links; path names it in messages. */
int util_write_atomic_at(int dfd, const char *name, const char *path, const void *data,
			 size_t len, struct pt_err *err);

/*
 * Write data to a path the user named (`report --output FILE`), the way a
 * shell redirection or `curl -o` would: a new file, a regular file or a
 * symbolic link to one is replaced with util_write_atomic() (through the
 * link); anything else that opens for writing (/dev/null, a terminal, a
 * FIFO, /proc/self/fd/1) is written through, never replaced. A directory
 * or a dangling link is an error (PT_EXIT_SYSTEM).
 */
int util_write_output(const char *path, const void *data, size_t len, struct pt_err *err);

/* mkdir -p with mode 0755; existing directories are fine. */
int util_mkdirs(const char *path, struct pt_err *err);

bool util_is_dir(const char *path);
bool util_is_file(const char *path);
/* Does the NULL-terminated list v (may be NULL) hold s? */
bool util_strv_has(char *const *v, const char *s);
/* The value of a hex digit (either case), or -1. */
int util_hex_digit(char c);

/*
 * The names in dir that keep() accepts (all when keep is NULL), without
 * "." and "..", sorted. Returns a new NULL-terminated array (free with
 * util_names_free()), or NULL with errno set when dir cannot be read.
 */
char **util_list_dir(const char *dir, bool (*keep)(const char *name));
void util_names_free(char **names);

/*
 * Append one "name size mtime inode" line per name in dir to key: a cheap
 * fingerprint of files for a cache key. Names that cannot be stat'ed are
 * left out.
 */
void util_stat_key(struct buf *key, const char *dir, char *const *names);

/* A time as written into sessions, reports and pack metadata. */
struct util_time {
	char iso[64];               /* ISO-8601 UTC, "2026-11-29T21:00:00Z" */
};

/*
 * The current time into t, or fixed (PALLAS_TRIAGE_NOW: tests fix the
 * clock) verbatim, cut to fit, when it is not NULL. Returns t->iso.
 */
const char *util_now(struct util_time *t, const char *fixed);
/* Is s a time as util_now() writes it: "YYYY-MM-DDTHH:MM:SSZ", fields in range? */
bool util_time_valid(const char *s);

/*
 * A directory of ours under an XDG base: "$VAR/pallas-triage/LEAF" when
 * $VAR (XDG_DATA_HOME, XDG_CACHE_HOME) is an absolute path, else
 * "$HOME/HOME_SUB/pallas-triage/LEAF" when $HOME is one (leaf may be NULL).
 * A relative value is ignored, as the XDG spec says: it would name a
 * directory in the working directory, which a cloned repository controls.
 * Returns a new string (free()), or NULL when neither variable is usable.
 */
char *util_xdg_dir(const char *var, const char *home_sub, const char *leaf);

/* FNV-1a (64 bits) of p[0..n) continued from h; start from UTIL_FNV1A_INIT.
 * Not cryptographic: for hash tables, fingerprints and corruption checks. */
#define UTIL_FNV1A_INIT 0xcbf29ce484222325ull
uint64_t util_fnv1a(uint64_t h, const void *p, size_t n);
/* The same over 8-byte little-endian words, then over the bytes left:
 * another sum, for what is hashed often (the rules cache's checksum). */
uint64_t util_fnv1a_words(uint64_t h, const void *p, size_t n);

/* Parse a non-negative decimal integer; returns -1 on junk or overflow. */
int util_parse_size(const char *s, unsigned long long *out);
/*
 * argv (NULL-terminated) as a POSIX shell command line that runs it again:
 * a word with anything but [A-Za-z0-9_./=:,+@%-] is in single quotes. A
 * new string: free() it.
 */
char *util_shell_join(char *const *argv);

#endif
