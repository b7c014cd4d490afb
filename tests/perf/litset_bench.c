/* SPDX-License-Identifier: MIT */
/*
 * Micro-benchmark for the prefilter: extract the literals of a file of PCRE2
 * patterns (one per line), index them in a litset, and time litset_find()
 * over a log held in memory, counting candidate lines the way the classifier
 * walks them (after a hit, resume at the next line). `make bench` builds it
 * as build/perf/litset_bench:
 *
 *   build/perf/litset_bench RULES LOG [--check] [--scalar] [--stride N]
 *
 * --check also counts the candidate lines with a naive search and compares;
 * --scalar and --stride N are passed to litset_tune().
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pt/literal.h"
#include "pt/litset.h"
#include "pt/xalloc.h"

static char *
slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	size_t n = 0, alloc = 1 << 20;
	char *b = xmalloc(alloc);
	ssize_t r;

	if (fd < 0) {
		perror(path);
		exit(2);
	}
	while ((r = read(fd, b + n, alloc - n)) > 0) {
		n += (size_t)r;
		if (n == alloc)
			b = xrealloc(b, alloc *= 2);
	}
	close(fd);
	*len = n;
	return b;
}

/* CPU time of this thread: on a busy shared VM it moves less than wall time. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t
scan(const struct litset *ls, const char *buf, size_t len)
{
	size_t from = 0, lines = 0, li;

	for (;;) {
		size_t q = litset_find(ls, buf, len, from, &li);
		const char *nl;

		if (q >= len)
			break;
		lines++;
		nl = memchr(buf + q, '\n', len - q);
		if (!nl)
			break;
		from = (size_t)(nl - buf) + 1;
	}
	return lines;
}

/* Lines containing any literal, by lower-casing and memmem per literal. */
static size_t
naive(const struct litset *ls, const char *buf, size_t len)
{
	char *low = xmalloc(len + 1);
	unsigned char *mark = xcalloc(len + 1, 1);
	size_t lines = 0;

	for (size_t i = 0; i < len; i++)
		low[i] = (char)(buf[i] >= 'A' && buf[i] <= 'Z' ? buf[i] + 32 : buf[i]);
	for (size_t i = 0; i < litset_count(ls); i++) {
		size_t ll;
		const char *lit = litset_literal(ls, i, &ll);
		const char *p = low, *end = low + len;

		while ((p = memmem(p, (size_t)(end - p), lit, ll))) {
			mark[p - low] = 1;
			p++;
		}
	}
	for (size_t i = 0, start = 0; i <= len; i++) {
		if (i == len || buf[i] == '\n') {
			for (size_t k = start; k < i; k++)
				if (mark[k]) {
					lines++;
					break;
				}
			start = i + 1;
		}
	}
	free(low);
	free(mark);
	return lines;
}

int
main(int argc, char **argv)
{
	size_t rlen, len, nrules = 0, nolit = 0, lines = 0;
	char *rules, *buf, *line, *save = NULL;
	struct litset *ls = litset_new();
	double best = 1e9;
	bool check = false, scalar = false;
	size_t stride = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: litset_bench RULES LOG [--check] [--scalar] [--stride N]\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--check") == 0)
			check = true;
		else if (strcmp(argv[i], "--scalar") == 0)
			scalar = true;
		else if (strcmp(argv[i], "--stride") == 0 && i + 1 < argc)
			stride = strtoul(argv[++i], NULL, 10);
	}
	rules = slurp(argv[1], &rlen);
	rules = xrealloc(rules, rlen + 1);
	rules[rlen] = '\0';
	for (line = strtok_r(rules, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char **lits;
		size_t n, usable = 0;

		literal_extract(line, &lits, &n);
		for (size_t i = 0; i < n; i++)
			if (litset_add(ls, lits[i], strlen(lits[i]), (unsigned)nrules) == 0)
				usable++;
		/* A pattern with any literal under 4 bytes has no usable set. */
		if (usable < n || n == 0) {
			nolit++;
			fprintf(stderr, "no usable literal: %s\n", line);
		}
		literal_list_free(lits);
		nrules++;
	}
	buf = slurp(argv[2], &len);
	{
		double t = now();

		litset_tune(ls, stride, scalar);
		litset_build(ls, buf, len < (4u << 20) ? len : (4u << 20));
		printf("build: %.2f ms\n", (now() - t) * 1e3);
	}
	printf("rules %zu (%zu without a usable literal), literals %zu, shortest %zu, stride %zu\n",
	       nrules, nolit, litset_count(ls), litset_shortest(ls), litset_stride(ls));
	for (int run = 0; run < 15; run++) {
		double t = now(), dt;

		lines = scan(ls, buf, len);
		dt = now() - t;
		if (dt < best)
			best = dt;
	}
	printf("%zu bytes, %zu candidate lines, best %.3f s = %.0f MB/s\n", len, lines, best,
	       (double)len / best / 1e6);
	if (check) {
		size_t want = naive(ls, buf, len);

		printf("naive: %zu candidate lines: %s\n", want, want == lines ? "same" : "DIFFERENT");
		if (want != lines)
			return 1;
	}
	litset_free(ls);
	free(rules);
	free(buf);
	return 0;
}
