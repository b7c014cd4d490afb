/* SPDX-License-Identifier: MIT */
/*
 * The session archive: a session that is set aside (session reset, a new
 * session begun over a closed one) moves to DIR/archive/session-N.json,
 * and `session restore` brings one back. Nothing is ever deleted here, and
 * nothing is reached through a link planted inside the session directory.
 * See pt/session.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt/buf.h"
#include "pt/session.h"
#include "pt/util.h"
#include "pt/xalloc.h"

/* The first N with no archive/session-N.json in adfd (a link counts as taken). */
static int
free_number(int adfd, char *name, size_t size)
{
	struct stat st;

	for (int n = 1; ; n++) {
		snprintf(name, size, "session-%d.json", n);
		if (fstatat(adfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
			return n;
	}
}

int
session_archive(const char *dir, char **archived, struct pt_err *err)
{
	char name[48];
	int dfd = -1, adfd = -1, ret = -1;

	if (archived)
		*archived = NULL;
	if (!session_exists(dir))
		return 0;
	if ((dfd = session_dir_open(dir, false, err)) < 0 ||
	    (adfd = session_subdir_open(dfd, dir, "archive", true, err)) < 0)
		goto out;
	free_number(adfd, name, sizeof(name));
	if (renameat(dfd, SESSION_FILE, adfd, name) < 0) {
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot move '%s/%s' to '%s/archive/%s'", dir,
			     SESSION_FILE, dir, name);
		goto out;
	}
	if (archived)
		*archived = xasprintf("%s/archive/%s", dir, name);
	ret = 0;
out:
	if (adfd >= 0)
		close(adfd);
	if (dfd >= 0)
		close(dfd);
	return ret;
}

/* Add to err's message what became of the session that was in dir. */
static void
say_kept(struct pt_err *err, const char *dir)
{
	size_t n;

	if (!err)
		return;
	n = strlen(err->msg);
	snprintf(err->msg + n, sizeof(err->msg) - n, "; nothing was started or archived: the "
		 "session in '%s' is as it was", dir);
}

/*
 * A copy, not a rename: the old session stays in place until the new one
 * is saved over it, so at every moment (a crash, a full disk) one of them
 * is dir/session.json, and the worst case is the old one in two places.
 */
int
session_save_over(const struct session *s, const char *dir, char **archived,
		  struct pt_err *err)
{
	struct buf old = BUF_INIT;
	struct stat st;
	char name[48], *shown = NULL;
	int dfd = -1, adfd = -1, ret = -1;

	*archived = NULL;
	if ((dfd = session_dir_open(dir, false, err)) < 0)
		return -1;
	if (fstatat(dfd, SESSION_FILE, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		ret = session_save(s, dir, err);
		goto out;
	}
	if (util_read_regular_at(dfd, SESSION_FILE, SESSION_FILE, &old, SESSION_MAX_BYTES, err) < 0 ||
	    (adfd = session_subdir_open(dfd, dir, "archive", true, err)) < 0)
		goto kept;
	free_number(adfd, name, sizeof(name));
	shown = xasprintf("%s/archive/%s", dir, name);
	if (util_write_atomic_at(adfd, name, shown, old.data, old.len, err) < 0)
		goto kept;
	fchmodat(adfd, name, st.st_mode & 0777, 0);
	if (session_save(s, dir, err) < 0) {
		unlinkat(adfd, name, 0);
		goto kept;
	}
	*archived = shown;
	shown = NULL;
	ret = 0;
	goto out;
kept:
	say_kept(err, dir);
out:
	free(shown);
	buf_release(&old);
	if (adfd >= 0)
		close(adfd);
	close(dfd);
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

/* The highest N in the archive directory adfd (which stays open), or 0. */
static long
latest_in(int adfd)
{
	int fd = dup(adfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	long best = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((e = readdir(d)))
		if (entry_number(e->d_name) > best)
			best = entry_number(e->d_name);
	closedir(d);
	return best;
}

long
session_archive_latest(const char *dir)
{
	int dfd = session_dir_open(dir, false, NULL), adfd = -1;
	long best = 0;

	if (dfd >= 0 && (adfd = session_subdir_open(dfd, dir, "archive", false, NULL)) >= 0) {
		best = latest_in(adfd);
		close(adfd);
	}
	if (dfd >= 0)
		close(dfd);
	return best;
}

/* Read and check archive entry name of adfd; from names it in messages. */
static int
check_entry(int adfd, const char *name, const char *from, struct pt_err *err)
{
	struct session *s = NULL;
	struct buf b = BUF_INIT;
	struct stat st;
	int ret = -1;

	if (fstatat(adfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return pt_err_set(err, PT_EXIT_FINDING, "no archived session '%s'", from);
	/* a file that does not load would only be refused by the next command */
	if (util_read_regular_at(adfd, name, from, &b, SESSION_MAX_BYTES, err) == 0 &&
	    session_parse(b.data, b.len, from, &s, err) == 0)
		ret = 0;
	session_free(s);
	buf_release(&b);
	return ret;
}

int
session_restore(const char *dir, long n, char **restored, char **archived, struct pt_err *err)
{
	char name[48], *from = NULL;
	int dfd = -1, adfd = -1, ret = -1;

	*restored = *archived = NULL;
	if ((dfd = session_dir_open(dir, false, err)) < 0)
		return -1;
	if ((adfd = session_subdir_open(dfd, dir, "archive", false, err)) < 0) {
		if (err && err->status == PT_EXIT_FINDING)
			pt_err_set(err, PT_EXIT_FINDING, "no archived session in '%s/archive'", dir);
		goto out;
	}
	if (n <= 0 && (n = latest_in(adfd)) <= 0) {
		pt_err_set(err, PT_EXIT_FINDING, "no archived session in '%s/archive'", dir);
		goto out;
	}
	snprintf(name, sizeof(name), "session-%ld.json", n);
	from = xasprintf("%s/archive/%s", dir, name);
	if (check_entry(adfd, name, from, err) < 0 || session_archive(dir, archived, err) < 0)
		goto out;
	if (renameat(adfd, name, dfd, SESSION_FILE) < 0) {
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot move '%s' to '%s/%s'", from, dir,
			     SESSION_FILE);
		goto out;
	}
	*restored = from;
	from = NULL;
	ret = 0;
out:
	free(from);
	if (adfd >= 0)
		close(adfd);
	close(dfd);
	return ret;
}
