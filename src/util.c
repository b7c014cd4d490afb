/* SPDX-License-Identifier: MIT */
/* File helpers: bounded reads, atomic replacement, mkdir -p; see pt/util.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pt/util.h"
#include "pt/xalloc.h"

int
util_read_file(const char *path, struct buf *out, size_t max, struct pt_err *err)
{
	char chunk[65536];
	struct stat st;
	size_t total = 0;
	int fd, ret = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return pt_err_errno(err, PT_EXIT_DATA, "cannot open '%s'", path);
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		pt_err_set(err, PT_EXIT_DATA, "'%s' is a directory", path);
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			pt_err_errno(err, PT_EXIT_DATA, "cannot read '%s'", path);
			goto out;
		}
		if (n == 0)
			break;
		total += (size_t)n;
		if (total > max) {
			pt_err_set(err, PT_EXIT_DATA, "'%s' is larger than %zu bytes", path, max);
			goto out;
		}
		buf_add(out, chunk, (size_t)n);
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

static int
write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void
fsync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	if (!slash)
		dir = xstrdup(".");
	else
		dir = xstrndup(path, slash == path ? 1 : (size_t)(slash - path));
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

int
util_write_atomic(const char *path, const void *data, size_t len, struct pt_err *err)
{
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	int fd, ret = -1;

	if ((fd = mkstemp(tmp)) < 0) {
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot create a temporary file next to '%s'", path);
		goto out;
	}
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot write '%s'", tmp);
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (fchmod(fd, 0644) < 0 || close(fd) < 0) {
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot write '%s'", tmp);
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot replace '%s'", path);
		unlink(tmp);
		goto out;
	}
	fsync_parent(path);
	ret = 0;
out:
	free(tmp);
	return ret;
}

int
util_mkdirs(const char *path, struct pt_err *err)
{
	char *p = xstrdup(path);
	int ret = -1;

	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char saved = *s;

			*s = '\0';
			if (mkdir(p, 0755) < 0 && errno != EEXIST) {
				pt_err_errno(err, PT_EXIT_SYSTEM, "cannot create directory '%s'", p);
				goto out;
			}
			*s = saved;
			if (!saved)
				break;
		}
	}
	if (!util_is_dir(path)) {
		pt_err_set(err, PT_EXIT_SYSTEM, "'%s' exists and is not a directory", path);
		goto out;
	}
	ret = 0;
out:
	free(p);
	return ret;
}

bool
util_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool
util_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int
util_parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **
util_list_dir(const char *dir, bool (*keep)(const char *name))
{
	char **names = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	DIR *dp = opendir(dir);

	if (!dp)
		return NULL;
	XGROW(names, alloc, 1);
	while ((de = readdir(dp))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (keep && !keep(de->d_name))
			continue;
		XGROW(names, alloc, n + 2);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(dp);
	names[n] = NULL;
	if (n > 1)
		qsort(names, n, sizeof(*names), name_cmp);
	return names;
}

void
util_names_free(char **names)
{
	for (char **p = names; p && *p; p++)
		free(*p);
	free(names);
}

void
util_stat_key(struct buf *key, const char *dir, char *const *names)
{
	for (; names && *names; names++) {
		char *path = xasprintf("%s/%s", dir, *names);
		struct stat st;

		if (stat(path, &st) == 0)
			buf_addf(key, "%s %lld %lld.%09ld %llu\n", *names, (long long)st.st_size,
				 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
				 (unsigned long long)st.st_ino);
		free(path);
	}
}

const char *
util_now(char *buf, size_t len)
{
	const char *fixed = getenv("PALLAS_TRIAGE_NOW");
	time_t t = time(NULL);
	struct tm tm;

	if (fixed && *fixed) {
		snprintf(buf, len, "%s", fixed);
		return buf;
	}
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

unsigned
util_threads(void)
{
	const char *v = getenv("PALLAS_TRIAGE_THREADS");
	char *end;
	long n;

	if (!v || !*v)
		return 0;
	n = strtol(v, &end, 10);
	return *end == '\0' && n >= 1 && n <= 64 ? (unsigned)n : 0;
}
