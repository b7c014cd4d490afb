/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the scout (pt/scout.h): on a file of several 1 MiB blocks,
 * the classifier's walk driven by scout_ask() (searching itself where told
 * to) must visit exactly the candidate lines that litset_find() over the
 * whole file visits. Occurrences are planted across block boundaries and
 * lines run across them; the walk is repeated with pauses so that both
 * owners (scout and caller) take blocks. Also litset_find_range() against
 * litset_find(), and a file that shrinks under the scout's mapped blocks.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pt/litset.h"
#include "pt/scout.h"
#include "litset_fixture.h"
#include "test.h"

static const char *const lits[] = { "RESOURCE_EXHAUSTED", "vmem", "Traceback (most", "kernel" };
#define NLITS (sizeof(lits) / sizeof(lits[0]))

static struct litset *
make_set(size_t n, const char *sample, size_t len)
{
	return fixture_litset(lits, n, sample, len);
}

static uint64_t rng = 88172645463325252ull;

static size_t
rnd_below(size_t n)
{
	return fixture_rnd_below(&rng, n);
}

/* A log of about size bytes: ordinary lines, literals here and there, and
 * each literal once more across every block boundary. */
static char *
make_log(size_t size, size_t *len)
{
	char *b = malloc(size + 4096);
	size_t n = 0;

	while (n < size) {
		size_t k = rnd_below(100);

		if (k < 3)
			n += (size_t)sprintf(b + n, "E %s: Ran out of memory in memory space vmem\n", lits[0]);
		else if (k < 5)
			n += (size_t)sprintf(b + n, "  %s recent call last):\n", lits[2]);
		else if (k < 8)
			n += (size_t)sprintf(b + n, "I0101 the %s is fine\n", lits[3]);
		else if (k < 9) /* a long line */
			for (size_t i = 0; i < 3000; i++)
				b[n++] = (char)('a' + rnd_below(26));
		else
			n += (size_t)sprintf(b + n, "step %zu loss 0.%03zu\n", rnd_below(100000), rnd_below(1000));
		if (k < 9)
			b[n++] = '\n';
	}
	for (size_t blk = SCOUT_BLOCK; blk + 64 < n; blk += SCOUT_BLOCK) {
		size_t at = blk - rnd_below(strlen(lits[0]) + 1);

		memcpy(b + at, lits[0], strlen(lits[0]));
	}
	*len = n;
	return b;
}

static size_t answered[3];   /* by enum scout_answer */

/* The candidate positions of the classifier's walk with the scout. */
static size_t
walk_with_scout(struct scout *s, const struct litset *ls, const char *b, size_t len, size_t *out,
		size_t max, bool pause)
{
	size_t pos = 0, n = 0;

	while (pos < len && n < max) {
		uint64_t f = pos, at, covered;
		size_t h = len;
		bool alone;

		while (f < len) {
			enum scout_answer a = scout_ask(s, f, len, &at, &covered, &alone);

			answered[a]++;
			if (a == SCOUT_FOUND) {
				h = (size_t)at;
				break;
			}
			if (a == SCOUT_YOURS) {
				size_t w = litset_find_range(ls, b, len, (size_t)f, (size_t)covered, NULL);

				if (w < len) {
					h = w;
					break;
				}
			}
			f = covered;
		}
		if (h >= len)
			break;
		out[n++] = h;
		if (pause && n % 500 == 0) {
			struct timespec ts = { 0, 2000000 };

			nanosleep(&ts, NULL);
		}
		{
			const char *nl = memchr(b + h, '\n', len - h);

			pos = nl ? (size_t)(nl - b) + 1 : len;
		}
	}
	return n;
}

static size_t
walk_plain(const struct litset *ls, const char *b, size_t len, size_t *out, size_t max)
{
	size_t pos = 0, n = 0;

	while (pos < len && n < max) {
		size_t h = litset_find(ls, b, len, pos, NULL);
		const char *nl;

		if (h >= len)
			break;
		out[n++] = h;
		nl = memchr(b + h, '\n', len - h);
		pos = nl ? (size_t)(nl - b) + 1 : len;
	}
	return n;
}

static void
test_walk(void)
{
	size_t len, max = 1u << 20, nwant, ngot;
	char *b = make_log(6u << 20, &len);
	char path[] = "/tmp/pt-scout-XXXXXX";
	int fd = mkstemp(path);
	size_t *want = malloc(max * sizeof(*want)), *got = malloc(max * sizeof(*got));
	struct litset *ls = make_set(NLITS, b, 1u << 20);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	unlink(path);
	/* A prefix the scout must not see: base is where the log starts. */
	CHECK_INTEQ(write(fd, "junk kernel\n", 12), 12);
	CHECK_INTEQ(write(fd, b, len), (long long)len);
	nwant = walk_plain(ls, b, len, want, max);
	CHECK(nwant > 1000);
	for (int pause = 0; pause <= 1; pause++) {
		struct scout *s = scout_start(fd, 12, len, make_set(NLITS, b, 1u << 20), NULL);

		CHECK(s != NULL);
		if (!s)
			continue;
		ngot = walk_with_scout(s, ls, b, len, got, max, pause);
		CHECK_INTEQ(ngot, nwant);
		CHECK(ngot == nwant && memcmp(got, want, ngot * sizeof(*got)) == 0);
		scout_stop(s);
	}
	/* The file is longer than the scout was told (it grew): the rest is the
	 * caller's, and a literal across the old end is still found. */
	{
		size_t cut = len / 2 + 12345;
		struct scout *s;

		memcpy(b + cut - 5, lits[0], strlen(lits[0]));
		CHECK(pwrite(fd, b + cut - 5, strlen(lits[0]), 12 + (off_t)cut - 5) ==
		      (ssize_t)strlen(lits[0]));
		nwant = walk_plain(ls, b, len, want, max);
		s = scout_start(fd, 12, cut, make_set(NLITS, b, 1u << 20), NULL);
		ngot = walk_with_scout(s, ls, b, len, got, max, true);
		CHECK_INTEQ(ngot, nwant);
		CHECK(ngot == nwant && memcmp(got, want, ngot * sizeof(*got)) == 0);
		scout_stop(s);
	}
	/* Without pauses the caller catches the scout in a block and takes the
	 * rest of it: still the plain walk. (Retried: on a busy host the
	 * scout may run ahead of a caller that is not running.) */
	{
		size_t cuts = 0;

		nwant = walk_plain(ls, b, len, want, max);
		for (int run = 0; run < 8 && cuts == 0; run++) {
			struct scout *s = scout_start(fd, 12, len, make_set(NLITS, b, 1u << 20), NULL);

			ngot = walk_with_scout(s, ls, b, len, got, max, false);
			CHECK(ngot == nwant && memcmp(got, want, ngot * sizeof(*got)) == 0);
			cuts = scout_cuts(s);
			scout_stop(s);
		}
		CHECK(cuts > 0);
	}
	/* With pauses the scout runs ahead: both owners answered. */
	CHECK(answered[SCOUT_FOUND] > 0);
	CHECK(answered[SCOUT_YOURS] > 0);
	/* With a smaller set handed over midway, every candidate is still a
	 * candidate of the full set, and none of the small set is skipped. */
	{
		struct litset *small = make_set(2, b, 1u << 20);
		struct scout *s = scout_start(fd, 12, len, make_set(NLITS, b, 1u << 20), NULL);
		size_t nsmall = walk_plain(small, b, len, want, max), j = 0, bad = 0;

		scout_update(s, make_set(2, b, 1u << 20), NULL);
		ngot = walk_with_scout(s, small, b, len, got, max, false);
		for (size_t i = 0; i < ngot; i++) {
			const char *nl = memchr(b + got[i], '\n', len - got[i]);
			size_t le = nl ? (size_t)(nl - b) : len;
			size_t ls_ = got[i];

			while (ls_ > 0 && b[ls_ - 1] != '\n')
				ls_--;
			/* every small-set candidate line is visited, in order */
			while (j < nsmall && want[j] < le) {
				if (want[j] < ls_)
					bad++;
				j++;
			}
		}
		CHECK_INTEQ(j, nsmall);
		CHECK_INTEQ(bad, 0);
		scout_stop(s);
		litset_free(small);
	}
	/* A file shorter than the scout expects: it says "yours", no guess. */
	{
		struct scout *s = scout_start(fd, 12, len + (8u << 20), make_set(NLITS, b, 1u << 20), NULL);
		uint64_t at, covered;
		bool alone;

		CHECK(scout_ask(s, len + (7u << 20), len + (8u << 20), &at, &covered, &alone) ==
		      SCOUT_YOURS);
		scout_stop(s);
	}
	scout_stop(NULL);
	litset_free(ls);
	close(fd);
	free(want);
	free(got);
	free(b);
}

/*
 * The file shrinks after the scout was given its size: the scout maps
 * blocks whose pages are gone. Its thread must live through the SIGBUS and
 * leave those blocks to the caller, so the walk is the plain one; and a
 * SIGBUS of any other thread must still be what it was (here, death).
 */
static void
test_shrunk(void)
{
	size_t len, max = 1u << 20, nwant, ngot;
	char *b = make_log(6u << 20, &len);
	char path[] = "/tmp/pt-scout-XXXXXX";
	int fd = mkstemp(path), status = 0;
	size_t *want = malloc(max * sizeof(*want)), *got = malloc(max * sizeof(*got));
	struct litset *ls = make_set(NLITS, b, 1u << 20);
	struct scout *s;
	pid_t pid;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	unlink(path);
	CHECK_INTEQ(write(fd, b, len), (long long)len);
	CHECK_INTEQ(ftruncate(fd, (off_t)(3u << 19)), 0);
	nwant = walk_plain(ls, b, len, want, max);
	s = scout_start(fd, 0, len, make_set(NLITS, b, 1u << 20), NULL);
	CHECK(s != NULL);
	if (s) {
		ngot = walk_with_scout(s, ls, b, len, got, max, true);
		CHECK_INTEQ(ngot, nwant);
		CHECK(ngot == nwant && memcmp(got, want, ngot * sizeof(*got)) == 0);
		scout_stop(s);
	}
	/* The child reads a lost page of its own mapping: it must die of it
	 * (under a sanitizer, its report's exit or abort), not come back to
	 * say what it read, nor fault forever until the alarm. */
	pid = fork();
	if (pid == 0) {
		char *m = mmap(NULL, 4u << 20, PROT_READ, MAP_PRIVATE, fd, 0);

		alarm(10);
		if (m == MAP_FAILED)
			_exit(42);
		_exit(m[(3u << 20) + 1] == 'x' ? 43 : 44);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (WIFSIGNALED(status))
		CHECK(WTERMSIG(status) == SIGBUS || WTERMSIG(status) == SIGABRT);
	else
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
		      (WEXITSTATUS(status) < 42 || WEXITSTATUS(status) > 44));
	litset_free(ls);
	close(fd);
	free(want);
	free(got);
	free(b);
}

static void
test_find_range(void)
{
	size_t len;
	char *b = make_log(300000, &len);
	struct litset *ls = make_set(NLITS, b, len);
	int bad = 0;

	for (int r = 0; r < 2000; r++) {
		size_t from = rnd_below(len), stop = from + rnd_below(len - from + 1);
		size_t all = litset_find(ls, b, len, from, NULL);
		size_t part = litset_find_range(ls, b, len, from, stop, NULL);

		if (part != (all < stop ? all : len) && bad++ < 5)
			fprintf(stderr, "find_range(%zu, %zu) = %zu; find = %zu\n", from, stop, part, all);
	}
	CHECK_INTEQ(bad, 0);
	litset_free(ls);
	free(b);
}

int
main(void)
{
	test_find_range();
	test_walk();
	test_shrunk();
	return TEST_DONE();
}
