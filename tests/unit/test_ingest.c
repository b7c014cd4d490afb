/* SPDX-License-Identifier: MIT */
/* Ingestion: ANSI stripping, line decorations, frames, locations, wraps. */
#include <string.h>

#include "pt/ingest.h"
#include "test.h"

static const char *
trimmed(const char *line, char *out, size_t outlen)
{
	size_t len = strlen(line);
	size_t off = ingest_trim(line, &len);

	snprintf(out, outlen, "%.*s", (int)len, line + off);
	return out;
}

static void
test_ansi(void)
{
	char buf[128] = "\033[1;31mERROR\033[0m: x\n\033]0;title\007y\033(Bz";
	char cut[32] = "trailing \033[3";
	char nl[32] = "a\033[3\nb";
	size_t n, tail;

	n = ingest_strip_ansi(buf, strlen(buf), &tail);
	buf[n] = '\0';
	CHECK_STREQ(buf, "ERROR: x\nyz");
	CHECK_INTEQ(tail, 0);
	/* cut by the end of the buffer: kept for the next piece */
	n = ingest_strip_ansi(cut, strlen(cut), &tail);
	CHECK_INTEQ(n, 12);
	CHECK_INTEQ(tail, 3);
	/* a newline ends a broken sequence: dropped, nothing pending */
	n = ingest_strip_ansi(nl, strlen(nl), &tail);
	nl[n] = '\0';
	CHECK_STREQ(nl, "a\nb");
	CHECK_INTEQ(tail, 0);
}

static void
test_trim(void)
{
	char out[256];

	CHECK_STREQ(trimmed("E   AssertionError: x\r", out, sizeof(out)), "AssertionError: x");
	CHECK_STREQ(trimmed("E       Mismatched elements: 1 / 2", out, sizeof(out)), "Mismatched elements: 1 / 2");
	CHECK_STREQ(trimmed("E", out, sizeof(out)), "E");
	CHECK_STREQ(trimmed("Every line", out, sizeof(out)), "Every line");
	CHECK_STREQ(trimmed("(EngineCore pid=123) ERROR 01-02 12:00:00 [core.py:12] boom", out, sizeof(out)), "boom");
	CHECK_STREQ(trimmed("[rank0]: RuntimeError: x", out, sizeof(out)), "RuntimeError: x");
	CHECK_STREQ(trimmed("Step #4 - \"run_e2e_tests\": E0000 00:00:1.2 3 x.cc:1] boom", out, sizeof(out)), "boom");
	CHECK_STREQ(trimmed("2022-03-07 18:41:42.980600: E external/x/y.cc:2124] Execution failed", out, sizeof(out)),
		    "Execution failed");
	CHECK_STREQ(trimmed("2024-05-01T12:00:00.123Z RACE DETECTED", out, sizeof(out)), "RACE DETECTED");
	CHECK_STREQ(trimmed("ERROR:root:kernel failed", out, sizeof(out)), "kernel failed");
	CHECK_STREQ(trimmed("  File \"/a.py\", line 3, in f", out, sizeof(out)), "  File \"/a.py\", line 3, in f");
}

static void
test_frames(void)
{
	struct frame f;
	const char *py = "  File \"/home/u/k.py\", line 42, in my_kernel";
	const char *loc = "at location: loc(\"/dot\"(callsite(\"inner\"(\"/usr/lib/python3/site-packages/jax/_src/x.py\":1:2) "
			  "at callsite(\"kern\"(\"/home/u/k.py\":19:4) at \"<module>\"(\"/home/u/run.py\":7:0)))))";

	CHECK(ingest_parse_py_frame(py, strlen(py), &f));
	CHECK_INTEQ(f.line, 42);
	CHECK(f.file_len == 12 && memcmp(f.file, "/home/u/k.py", 12) == 0);
	CHECK(f.func_len == 9 && memcmp(f.func, "my_kernel", 9) == 0);
	CHECK(!ingest_parse_py_frame("File without quote", 18, &f));
	CHECK(ingest_parse_loc(loc, strlen(loc), &f));
	CHECK(f.file_len == 12 && memcmp(f.file, "/home/u/k.py", 12) == 0);
	CHECK_INTEQ(f.line, 19);
	CHECK_INTEQ(f.col, 4);
	CHECK(f.func && f.func_len == 4 && memcmp(f.func, "kern", 4) == 0);
	CHECK(ingest_is_library_path("/usr/lib/python3.11/site-packages/jax/x.py", 41));
	CHECK(!ingest_is_library_path("/home/u/k.py", 12));
}

/* Every marker, at the start, in the middle and at the end of a path. */
static void
test_library_paths(void)
{
	static const char *const lib[] = {
		"/x/site-packages/a.py", "dist-packages/a.py", "/w/jax/_src/core.py", "/o/jaxlib/x.py",
		"<frozen importlib._bootstrap>", "a/<frozen runpy>", "/usr/lib/python3.11/runpy.py",
		"/p/torch_xla/x.py", "/p/absl/app.py", "/p/_pytest/python.py", "/p/pluggy/_hooks.py",
		"/usr/lib/unittest/case.py", "bazel-out/k8/bin/t.runfiles/x/y.py", "x.runfiles/a.py",
		"<string>", "",
	};
	static const char *const user[] = {
		"/home/u/k.py", "/home/u/site-packages", "/home/u/jax/_src", "/home/u/my_absl/app.py",
		"/srv/unittests/t.py", "frozen.py", "/home/u/lib/py/k.py", "k<frozn",
	};

	for (size_t i = 0; i < sizeof(lib) / sizeof(lib[0]); i++)
		CHECK(ingest_is_library_path(lib[i], strlen(lib[i])));
	for (size_t i = 0; i < sizeof(user) / sizeof(user[0]); i++)
		CHECK(!ingest_is_library_path(user[i], strlen(user[i])));
	/* the length bounds the search: the marker past it does not count */
	CHECK(!ingest_is_library_path("/home/u/k.py/site-packages/", 12));
}

/* What ingest_is_library_path() promises, spelled as a search per marker. */
static bool
library_by_search(const char *path, size_t len)
{
	static const char *const markers[] = {
		"<frozen", "site-packages/", "dist-packages/", "runfiles/", "/jax/_src/", "/jaxlib/",
		"/lib/python", "/torch_xla/", "/absl/", "/_pytest/", "/pluggy/", "/unittest/",
	};

	if (len == 0 || path[0] == '<')
		return true;
	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (memmem(path, len, markers[i], strlen(markers[i])))
			return true;
	return false;
}

/* Paths glued from marker fragments, so that markers fall across the
 * scan's 16-byte steps at every offset, and near-misses abound. */
static void
test_library_random(void)
{
	static const char *const parts[] = {
		"/", "s", "site-", "dist-", "packages", "runfiles", "jax", "_src", "jaxlib", "lib",
		"python", "<frozen", "<", "torch_xla", "absl", "_pytest", "pluggy", "unittest",
		"x", "home", ".py", "-",
	};
	unsigned seed = 22;
	size_t bad = 0, lib = 0;

	for (int round = 0; round < 20000; round++) {
		char path[256];
		size_t len = 0, nparts = 1 + (size_t)(round % 24);

		for (size_t k = 0; k < nparts; k++) {
			const char *q;

			seed = seed * 1103515245u + 12345u;
			q = parts[(seed >> 16) % (sizeof(parts) / sizeof(parts[0]))];
			if (len + strlen(q) >= sizeof(path))
				break;
			memcpy(path + len, q, strlen(q));
			len += strlen(q);
		}
		lib += library_by_search(path, len);
		bad += ingest_is_library_path(path, len) != library_by_search(path, len);
	}
	CHECK_INTEQ(bad, 0);
	/* both answers occur, or the comparison proves little */
	CHECK(lib > 1000 && lib < 19000);
}

static void
test_continuation(void)
{
	const char *a = "CompileTimeScopedVmemOom: Ran out of memory in memory space vmem ... Scoped allocation with size";

	CHECK(!ingest_is_join_boundary(a, strlen(a)));
	CHECK(!ingest_is_join_boundary("37.22M and limit 32.00M", 23));
	CHECK(ingest_is_join_boundary("  File \"x\"", 10));
	CHECK(ingest_is_join_boundary("   ", 3));
	CHECK(ingest_is_join_boundary("Traceback (most recent call last):", 34));
	CHECK(ingest_is_join_boundary("The above exception was the direct cause", 40));
}

int
main(void)
{
	test_ansi();
	test_trim();
	test_frames();
	test_continuation();
	test_library_paths();
	test_library_random();
	return TEST_DONE();
}
