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

/*
 * Read fd (named path in messages) to its end into out, at most max bytes.
 * st: what the caller's fstat() said of fd, or NULL when it failed.
 */
static int
read_fd(int fd, const struct stat *st, const char *path, struct buf *out, size_t max,
	struct pt_err *err)
{
	const size_t start = out->len;

	/* A regular file is read straight into room for all of it (and one
	 * byte more, to see its end): the rules cache is read on every run. */
	if (st && S_ISREG(st->st_mode) && st->st_size > 0 && (uint64_t)st->st_size <= max)
		buf_grow(out, (size_t)st->st_size + 1);
	for (;;) {
		size_t room, got = out->len - start;
		ssize_t n;

		if (out->alloc < out->len + 2 && buf_grow(out, 65536) < 0)
			return pt_err_set(err, PT_EXIT_DATA, "'%s' is larger than %zu bytes", path,
					  out->cap);
		room = out->alloc - out->len - 1;
		/* one byte past max is enough to know it is too large */
		n = read(fd, out->data + out->len, room < max - got + 1 ? room : max - got + 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return pt_err_errno(err, PT_EXIT_DATA, "cannot read '%s'", path);
		}
		if (n == 0)
			return 0;
		if (got + (size_t)n > max)
			return pt_err_set(err, PT_EXIT_DATA, "'%s' is larger than %zu bytes", path, max);
		out->len += (size_t)n;
		out->data[out->len] = '\0';
	}
}

int
util_read_file(const char *path, struct buf *out, size_t max, struct pt_err *err)
{
	struct stat st;
	int fd, ret;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return pt_err_errno(err, PT_EXIT_DATA, "cannot open '%s'", path);
	if (fstat(fd, &st) < 0)
		ret = read_fd(fd, NULL, path, out, max, err);
	else if (S_ISDIR(st.st_mode))
		ret = pt_err_set(err, PT_EXIT_DATA, "'%s' is a directory", path);
	else
		ret = read_fd(fd, &st, path, out, max, err);
	close(fd);
	return ret;
}

static int read_checked(int dfd, const char *name, const char *path, bool own, struct buf *out,
			size_t max, struct pt_err *err);

int
util_read_regular(const char *path, struct buf *out, size_t max, struct pt_err *err)
{
	return read_checked(AT_FDCWD, path, path, false, out, max, err);
}

int
util_read_regular_at(int dfd, const char *name, const char *path, struct buf *out, size_t max,
		     struct pt_err *err)
{
	return read_checked(dfd, name, path, false, out, max, err);
}

int
util_read_own(const char *path, struct buf *out, size_t max, struct pt_err *err)
{
	return read_checked(AT_FDCWD, path, path, true, out, max, err);
}

static int
read_checked(int dfd, const char *name, const char *path, bool own, struct buf *out, size_t max,
	     struct pt_err *err)
{
	struct stat st;
	int fd, ret;

	/* O_NONBLOCK: opening a planted FIFO must not wait for a writer */
	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0) {
		if (errno == ELOOP)
			return pt_err_set(err, PT_EXIT_DATA, "'%s' is a symbolic link; refusing to "
					  "follow it", path);
		return pt_err_errno(err, PT_EXIT_DATA, "cannot open '%s'", path);
	}
	if (fstat(fd, &st) < 0)
		ret = pt_err_errno(err, PT_EXIT_DATA, "cannot read '%s'", path);
	else if (!S_ISREG(st.st_mode))
		ret = pt_err_set(err, PT_EXIT_DATA, "'%s' is not a regular file", path);
	else if (own && st.st_nlink != 1)
		ret = pt_err_set(err, PT_EXIT_DATA, "'%s' is a hard link (a file with %lu names); "
				 "refusing to read it: remove it and run again", path,
				 (unsigned long)st.st_nlink);
	else
		ret = read_fd(fd, &st, path, out, max, err);
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

/*
 * Create a new temp file next to path, like mkstemp() but with `mode` given
 * to open(), so that the umask applies (mkstemp always makes 0600).
 * Returns the fd and the name in *tmp (free()), or -1 with errno.
 */
static int
create_temp(int dfd, const char *path, mode_t mode, char **tmp)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned long counter;

	for (int tries = 0; tries < 100; tries++) {
		struct timespec ts;
		unsigned long long v;
		char suffix[7];
		int fd, saved;

		clock_gettime(CLOCK_REALTIME, &ts);
		v = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 30) ^
		    (++counter * 0x9e3779b97f4a7c15ull);
		for (size_t i = 0; i < 6; i++, v /= 62)
			suffix[i] = digits[v % 62];
		suffix[6] = '\0';
		*tmp = xasprintf("%s.tmp.%s", path, suffix);
		fd = openat(dfd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0)
			return fd;
		saved = errno;
		free(*tmp);
		*tmp = NULL;
		if ((errno = saved) != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

int
util_write_atomic(const char *path, const void *data, size_t len, struct pt_err *err)
{
	return util_write_atomic_at(AT_FDCWD, path, path, data, len, err);
}

int
util_write_atomic_at(int dfd, const char *name, const char *path, const void *data, size_t len,
		     struct pt_err *err)
{
	char *tmp = NULL;
	struct stat st;
	bool exists;
	int fd;

	/* rename() would replace a planted symlink or FIFO with a file that the
	 * user then believes went where the link pointed: refuse instead */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISREG(st.st_mode))
			return pt_err_set(err, PT_EXIT_SYSTEM, "refusing to replace '%s': it is %s, "
					  "not a regular file", path, S_ISLNK(st.st_mode) ?
					  "a symbolic link" : S_ISDIR(st.st_mode) ? "a directory" :
					  "a special file");
		exists = true;
	} else if (errno == ENOENT) {
		exists = false;
	} else {
		return pt_err_errno(err, PT_EXIT_SYSTEM, "cannot write '%s'", path);
	}
	if ((fd = create_temp(dfd, name, exists ? (st.st_mode & 0777) : 0666, &tmp)) < 0)
		return pt_err_errno(err, PT_EXIT_SYSTEM, "cannot create a temporary file next to '%s'",
				    path);
	/* keep the mode of the file replaced exactly: open() applied the umask to it */
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0 ||
	    (exists && fchmod(fd, st.st_mode & 0777) < 0)) {
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot write '%s%s'", path, tmp + strlen(name));
		close(fd);
		goto fail;
	}
	if (close(fd) < 0) {
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot write '%s%s'", path, tmp + strlen(name));
		goto fail;
	}
	if (renameat(dfd, tmp, dfd, name) < 0) {
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot replace '%s'", path);
		goto fail;
	}
	if (dfd == AT_FDCWD)
		fsync_parent(name);
	else
		fsync(dfd);
	free(tmp);
	return 0;
fail:
	unlinkat(dfd, tmp, 0);
	free(tmp);
	return -1;
}

/* Write into what path names (a device, a FIFO, a terminal): no temp file, no rename. */
static int
write_through(const char *path, const void *data, size_t len, struct pt_err *err)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return pt_err_errno(err, PT_EXIT_SYSTEM, "cannot open '%s'", path);
	if (write_all(fd, data, len) < 0) {
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot write '%s'", path);
		close(fd);
		return -1;
	}
	if (close(fd) < 0)
		return pt_err_errno(err, PT_EXIT_SYSTEM, "cannot write '%s'", path);
	return 0;
}

int
util_write_output(const char *path, const void *data, size_t len, struct pt_err *err)
{
	struct stat st, lst;
	char *real;
	int ret;

	if (stat(path, &st) < 0) {
		if (errno != ENOENT)
			return pt_err_errno(err, PT_EXIT_SYSTEM, "cannot write '%s'", path);
		if (lstat(path, &lst) == 0)
			return pt_err_set(err, PT_EXIT_SYSTEM, "cannot write '%s': it is a symbolic "
					  "link to nothing", path);
		return util_write_atomic(path, data, len, err);
	}
	if (S_ISDIR(st.st_mode))
		return pt_err_set(err, PT_EXIT_SYSTEM, "cannot write '%s': it is a directory", path);
	if (!S_ISREG(st.st_mode))
		return write_through(path, data, len, err);
	/* a link to a regular file: replace the file it names, keep the link */
	if (lstat(path, &lst) == 0 && !S_ISLNK(lst.st_mode))
		return util_write_atomic(path, data, len, err);
	if (!(real = realpath(path, NULL)))
		return pt_err_errno(err, PT_EXIT_SYSTEM, "cannot resolve '%s'", path);
	ret = util_write_atomic(real, data, len, err);
	free(real);
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
util_strv_has(char *const *v, const char *s)
{
	for (; v && *v; v++)
		if (strcmp(*v, s) == 0)
			return true;
	return false;
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
util_now(struct util_time *t, const char *fixed)
{
	time_t now = time(NULL);
	struct tm tm;

	if (fixed) {
		snprintf(t->iso, sizeof(t->iso), "%s", fixed);
		return t->iso;
	}
	gmtime_r(&now, &tm);
	strftime(t->iso, sizeof(t->iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return t->iso;
}

bool
util_time_valid(const char *s)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
	int mon, day, hour, min, sec;

	if (!s || strlen(s) != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? s[i] < '0' || s[i] > '9' : s[i] != shape[i])
			return false;
	mon = (s[5] - '0') * 10 + s[6] - '0';
	day = (s[8] - '0') * 10 + s[9] - '0';
	hour = (s[11] - '0') * 10 + s[12] - '0';
	min = (s[14] - '0') * 10 + s[15] - '0';
	sec = (s[17] - '0') * 10 + s[18] - '0';
	/* 60: a leap second */
	return mon >= 1 && mon <= 12 && day >= 1 && day <= 31 && hour <= 23 && min <= 59 &&
	       sec <= 60;
}

char *
util_xdg_dir(const char *var, const char *home_sub, const char *leaf)
{
	const char *base = getenv(var), *home = getenv("HOME");
	const char *slash = leaf ? "/" : "", *name = leaf ? leaf : "";

	if (base && *base == '/')
		return xasprintf("%s/pallas-triage%s%s", base, slash, name);
	if (home && *home == '/')
		return xasprintf("%s/%s/pallas-triage%s%s", home, home_sub, slash, name);
	return NULL;
}

uint64_t
util_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}

/*
 * A change to any one word always changes the sum (each step is a
 * bijection of it), and a word a step reads about eight times faster
 * than a byte a step.
 */
uint64_t
util_fnv1a_words(uint64_t h, const void *p, size_t n)
{
	const char *s = p;
	uint64_t w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	return util_fnv1a(h, s + i, n - i);
}

char *
util_shell_join(char *const *argv)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
				    "_./=:,+@%-";
	struct buf b = BUF_INIT;

	for (size_t i = 0; argv[i]; i++) {
		const char *w = argv[i];

		if (i)
			buf_addch(&b, ' ');
		if (*w && strspn(w, plain) == strlen(w) && *w != '=') {
			buf_adds(&b, w);
			continue;
		}
		buf_addch(&b, '\'');
		for (; *w; w++)
			if (*w == '\'')
				buf_adds(&b, "'\\''");
			else
				buf_addch(&b, *w);
		buf_addch(&b, '\'');
	}
	return buf_detach(&b, NULL);
}

int
util_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
