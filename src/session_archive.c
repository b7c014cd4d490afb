/* SPDX-License-Identifier: MIT */
/*
 * The session archive: a session that is set aside (session reset, a new
 * session begun over a closed one) moves to DIR/archive/session-N.json,
 * and `session restore` brings one back. Nothing is ever deleted here.
 * See pt/session.h.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt/buf.h"
#include "pt/session.h"
#include "pt/util.h"
#include "pt/xalloc.h"

int
session_archive(const char *dir, char **archived, struct pt_err *err)
{
	char *from = xasprintf("%s/%s", dir, SESSION_FILE), *adir = xasprintf("%s/archive", dir);
	char *to = NULL;
	int ret = -1;

	if (archived)
		*archived = NULL;
	if (!util_is_file(from)) {
		ret = 0;
		goto out;
	}
	if (util_mkdirs(adir, err) < 0)
		goto out;
	for (int n = 1; ; n++) {
		free(to);
		to = xasprintf("%s/session-%d.json", adir, n);
		if (access(to, F_OK) != 0)
			break;
	}
	if (rename(from, to) < 0) {
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot move '%s' to '%s'", from, to);
		goto out;
	}
	if (archived) {
		*archived = to;
		to = NULL;
	}
	ret = 0;
out:
	free(from);
	free(adir);
	free(to);
	return ret;
}

/* The number of an archive entry's name ("session-12.json"), or 0. */
static long
entry_number(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "session-", 8) != 0 || name[8] < '1' || name[8] > '9')
		return 0;
	n = strtol(name + 8, &end, 10);
	return strcmp(end, ".json") == 0 && n > 0 ? n : 0;
}

long
session_archive_latest(const char *dir)
{
	char *adir = xasprintf("%s/archive", dir);
	DIR *d = opendir(adir);
	struct dirent *e;
	long best = 0;

	free(adir);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (entry_number(e->d_name) > best)
			best = entry_number(e->d_name);
	closedir(d);
	return best;
}

int
session_restore(const char *dir, long n, char **restored, char **archived, struct pt_err *err)
{
	char *from, *to = xasprintf("%s/%s", dir, SESSION_FILE);
	struct session *s = NULL;
	struct buf b = BUF_INIT;
	int ret = -1;

	*restored = *archived = NULL;
	if (n <= 0 && (n = session_archive_latest(dir)) <= 0) {
		free(to);
		return pt_err_set(err, PT_EXIT_FINDING, "no archived session in '%s/archive'", dir);
	}
	from = xasprintf("%s/archive/session-%ld.json", dir, n);
	if (!util_is_file(from)) {
		pt_err_set(err, PT_EXIT_FINDING, "no archived session '%s'", from);
		goto out;
	}
	/* a file that does not load would only be refused by the next command */
	if (util_read_regular(from, &b, SESSION_MAX_BYTES, err) < 0 ||
	    session_parse(b.data, b.len, from, &s, err) < 0)
		goto out;
	if (session_archive(dir, archived, err) < 0)
		goto out;
	if (rename(from, to) < 0) {
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot move '%s' to '%s'", from, to);
		goto out;
	}
	*restored = from;
	from = NULL;
	ret = 0;
out:
	session_free(s);
	buf_release(&b);
	free(from);
	free(to);
	return ret;
}
