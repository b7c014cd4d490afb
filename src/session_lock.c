/* SPDX-License-Identifier: MIT */
/*
 * The session directory and its lock; see pt/session.h. The working
 * directory may be a cloned repository that planted links here: nothing
 * is opened through one. This is the bottom of the session store: it uses
 * no other part of it (the JSON, the archive and the transaction build on
 * it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt/session.h"
#include "pt/util.h"
#include "pt/xalloc.h"

static int
refuse_link(const char *path, struct pt_err *err)
{
	return pt_err_set(err, PT_EXIT_SYSTEM, "'%s' is a symbolic link; pallas-triage keeps its "
			  "session only in a real directory: remove the link and run again", path);
}

/* A `.pallas-triage` planted as a link would send the session, its lock
 * and its logs wherever it points. */
int
session_dir_open(const char *dir, bool create, struct pt_err *err)
{
	struct stat st;
	int fd;

	if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
		return refuse_link(dir, err);
	if (create && util_mkdirs(dir, err) < 0)
		return -1;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno == ELOOP)
			return refuse_link(dir, err);
		return pt_err_errno(err, PT_EXIT_SYSTEM, "cannot open '%s'", dir);
	}
	return fd;
}

/*
 * A link planted as .pallas-triage/logs or archive would receive every
 * piped log and archived session (and `session restore` would move a file
 * out of where it points): each level is opened from the one above it,
 * never through a link.
 */
int
session_subdir_open(int dfd, const char *dir, const char *name, bool create, struct pt_err *err)
{
	struct stat st;
	int fd, saved;

	if (create && mkdirat(dfd, name, 0755) < 0 && errno != EEXIST)
		return pt_err_errno(err, PT_EXIT_SYSTEM, "cannot create directory '%s/%s'", dir,
				    name);
	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
		return fd;
	/* Linux says ENOTDIR for a link opened O_DIRECTORY|O_NOFOLLOW */
	saved = errno;
	if (saved == ELOOP || (saved == ENOTDIR && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			       S_ISLNK(st.st_mode)))
		return pt_err_set(err, PT_EXIT_SYSTEM, "'%s/%s' is a symbolic link; pallas-triage "
				  "keeps its session only in real directories: remove the link and "
				  "run again", dir, name);
	if (saved == ENOTDIR)
		return pt_err_set(err, PT_EXIT_SYSTEM, "'%s/%s' is not a directory; remove it and "
				  "run again", dir, name);
	errno = saved;
	return pt_err_errno(err, saved == ENOENT ? PT_EXIT_FINDING : PT_EXIT_SYSTEM,
			    "cannot open '%s/%s'", dir, name);
}

/*
 * The lock file is created O_EXCL|O_NOFOLLOW like git's index.lock, so
 * nothing planted is ever truncated. Unlike index.lock it outlives its
 * holder (the lock is the flock on it): a run killed by SIGKILL must not
 * leave the session locked for good. So one left by an earlier run is
 * reused, but only when it is a regular file with no other name (not a
 * link to a file elsewhere).
 */
static int
open_lock_file(int dfd, const char *path, struct pt_err *err)
{
	struct stat st;
	int fd = openat(dfd, "lock", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);

	if (fd >= 0)
		return fd;
	if (errno == EEXIST)
		fd = openat(dfd, "lock", O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			return pt_err_set(err, PT_EXIT_SYSTEM, "'%s' is a symbolic link; refusing to "
					  "write through it: remove it and run again", path);
		return pt_err_errno(err, PT_EXIT_SYSTEM, "cannot open '%s'", path);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(fd);
		return pt_err_set(err, PT_EXIT_SYSTEM, "'%s' is not a regular file of its own (a "
				  "hard link or a special file); remove it and run again", path);
	}
	return fd;
}

int
session_lock(const char *dir, struct pt_err *err)
{
	char *path = xasprintf("%s/lock", dir), pid[32] = "";
	int fd = -1, dfd;

	if ((dfd = session_dir_open(dir, true, err)) < 0)
		goto out;
	fd = open_lock_file(dfd, path, err);
	close(dfd);
	if (fd < 0)
		goto out;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK) {
			ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);

			pid[n > 0 ? strcspn(pid, "\n") : 0] = '\0';
			pt_err_set(err, PT_EXIT_SYSTEM, "the session in '%s' is in use by another "
				   "pallas-triage%s%s%s", dir, *pid ? " (pid " : "", pid,
				   *pid ? ")" : "");
		} else {
			pt_err_errno(err, PT_EXIT_SYSTEM, "cannot lock '%s'", path);
		}
		close(fd);
		fd = -1;
		goto out;
	}
	/* the pid is only for the message above; the lock is the flock */
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, strlen(pid), 0) < 0)
		pid[0] = '\0';
out:
	free(path);
	return fd;
}

void
session_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

char *
session_report_dir(const char *dir)
{
	size_t n = strlen(dir);
	const char *slash;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	for (slash = dir + n; slash > dir && slash[-1] != '/'; slash--)
		;
	if (slash == dir)
		return xstrdup(".");
	while (slash > dir + 1 && slash[-2] == '/')
		slash--;
	return slash == dir + 1 ? xstrdup("/") : xstrndup(dir, (size_t)(slash - dir - 1));
}

bool
session_dir_writable(const char *dir)
{
	char *parent;
	bool ok;

	if (util_is_dir(dir))
		return access(dir, W_OK | X_OK) == 0;
	/* the directory is made with its parents (util_mkdirs): the nearest
	 * one that exists must let us write */
	parent = session_report_dir(dir);
	while (!util_is_dir(parent) && strcmp(parent, ".") != 0 && strcmp(parent, "/") != 0) {
		char *up = session_report_dir(parent);

		free(parent);
		parent = up;
	}
	ok = access(parent, W_OK | X_OK) == 0;
	free(parent);
	return ok;
}
