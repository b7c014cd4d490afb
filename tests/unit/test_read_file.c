/* SPDX-License-Identifier: MIT */
/*
 * util_read_file() and util_read_regular(): a regular file is read into
 * room sized from fstat(), anything else 64 KiB at a time. Both must give
 * the file's bytes whole and NUL-ended, after what the buffer held; a file
 * of exactly max bytes is read and one of max + 1 refused; a pipe longer
 * than any first guess is read to its end.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pt/buf.h"
#include "pt/util.h"
#include "test.h"

static char *
pattern_bytes(size_t n)
{
	char *p = malloc(n + 1);
	uint32_t x = 2463534242u;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (char)(x % 251 + 1);
	}
	p[n] = 0;
	return p;
}

static void
write_file(const char *path, const char *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_INTEQ(write(fd, data, n), (long long)n);
	close(fd);
}

static void
test_sizes(const char *dir)
{
	static const size_t sizes[] = { 0, 1, 4095, 4096, 65535, 65536, 65537, 300001 };
	char *path = NULL;
	char *data = pattern_bytes(300001);

	if (asprintf(&path, "%s/f", dir) < 0)
		return;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];
		struct buf b = BUF_INIT, r = BUF_INIT;
		struct pt_err err = PT_ERR_INIT;

		write_file(path, data, n);
		buf_adds(&b, "held:");
		CHECK_INTEQ(util_read_file(path, &b, n, &err), 0);
		CHECK_INTEQ(b.len, n + 5);
		CHECK(memcmp(b.data, "held:", 5) == 0 && memcmp(b.data + 5, data, n) == 0);
		CHECK(b.data[b.len] == '\0');
		CHECK_INTEQ(util_read_regular(path, &r, n + 1, &err), 0);
		CHECK(r.len == n && memcmp(r.data, data, n) == 0 && r.data[n] == '\0');
		buf_release(&b);
		buf_release(&r);
		if (n > 0) {
			CHECK_INTEQ(util_read_file(path, &b, n - 1, &err), -1);
			CHECK(strstr(err.msg, "larger than") != NULL);
			CHECK(b.len <= n);
			buf_release(&b);
			err = (struct pt_err)PT_ERR_INIT;
		}
	}
	unlink(path);
	free(path);
	free(data);
}

/* A pipe: no size to go by, and more than one 64 KiB step. */
static void
test_pipe(void)
{
	size_t n = 200000;
	char *data = pattern_bytes(n), path[64];
	struct buf b = BUF_INIT;
	struct pt_err err = PT_ERR_INIT;
	int fds[2];
	pid_t pid;

	CHECK_INTEQ(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		_exit(write(fds[1], data, n) == (ssize_t)n ? 0 : 1);
	}
	close(fds[1]);
	snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
	CHECK_INTEQ(util_read_file(path, &b, n, &err), 0);
	CHECK(b.len == n && memcmp(b.data, data, n) == 0);
	close(fds[0]);
	waitpid(pid, NULL, 0);
	buf_release(&b);
	free(data);
}

int
main(void)
{
	char dir[] = "/tmp/pt-read-XXXXXX";

	CHECK(mkdtemp(dir) != NULL);
	test_sizes(dir);
	test_pipe();
	rmdir(dir);
	return TEST_DONE();
}
