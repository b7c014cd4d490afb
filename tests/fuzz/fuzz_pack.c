/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the handling of a downloaded rule pack. Arbitrary bytes are
 * the body of a download; they go through pack_add(), the entry point of
 * `rules fetch` after HTTP: validation together with a base rules directory
 * (the shipped classes and ladders), the pack's own examples, and, when all
 * of that passes, the install into a packs store in a temporary directory.
 * Invariants besides memory safety:
 *   - a refused pack always says why and leaves the store empty;
 *   - an installed pack loads again with packs_load() without a problem
 *     (validation and loading agree), and is then removed.
 * The input is also tried as a URL for pack_name_from_url().
 */
#include <ftw.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "pt/packs.h"
#include "pt/util.h"
#include "pt/xalloc.h"

static char tmp[] = "/tmp/pt-fuzz-pack.XXXXXX";
static char *base;

int LLVMFuzzerInitialize(int *argc, char ***argv);

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void
cleanup(void)
{
	nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void
copy_rule_file(const char *name)
{
	char *from = xasprintf("%s/rules/%s", PT_SRCDIR, name);
	char *to = xasprintf("%s/%s", base, name);
	struct buf b = BUF_INIT;
	struct pt_err err = PT_ERR_INIT;

	if (util_read_file(from, &b, 1u << 24, &err) < 0 ||
	    util_write_atomic(to, b.data, b.len, &err) < 0) {
		fprintf(stderr, "fuzz_pack: %s\n", err.msg);
		abort();
	}
	buf_release(&b);
	free(from);
	free(to);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *data;

	(void)argc;
	(void)argv;
	if (!mkdtemp(tmp))
		abort();
	atexit(cleanup);
	base = xasprintf("%s/base", tmp);
	data = xasprintf("%s/data", tmp);
	if (util_mkdirs(base, NULL) < 0)
		abort();
	copy_rule_file("classes.yaml");
	copy_rule_file("ladders.yaml");
	setenv("XDG_DATA_HOME", data, 1);
	setenv("HOME", tmp, 1);
	free(data);
	return 0;
}

static size_t
installed(void)
{
	struct pt_err err = PT_ERR_INIT;
	struct pack *packs = NULL;
	size_t n = 0;

	if (packs_list(&packs, &n, &err) < 0)
		FUZZ_FAIL("the packs store does not list: %s", err.msg);
	packs_free(packs, n);
	return n;
}

static void
load_again(void)
{
	struct ruleset *rs = ruleset_new();
	struct diag d = DIAG_INIT;
	struct pt_err err = PT_ERR_INIT;

	if (ruleset_load_dir(rs, base, NULL, &d, &err) < 0 || packs_load(rs, &d) < 0 ||
	    ruleset_finish(rs, &d) < 0 || d.nerrors) {
		diag_print(&d, stderr);
		FUZZ_FAIL("an installed pack does not load: %s", err.msg);
	}
	diag_release(&d);
	ruleset_free(rs);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *url = "https://example.invalid/packs/fuzz-pack.yaml";
	struct pack meta = { 0 };
	struct diag d = DIAG_INIT;
	struct pt_err err = PT_ERR_INIT;
	long long nrules = -1;
	char *s = xstrndup((const char *)data, size);

	free(pack_name_from_url(s));
	free(s);
	meta.name = (char *)"fuzz-pack";
	meta.url = (char *)url;
	meta.fetched = (char *)"2025-01-01T00:00:00Z";
	if (pack_add(base, &meta, (const char *)data, size, url, &d, fuzz_devnull(), &nrules,
		     NULL, &err) < 0) {
		if (!err.msg[0] || err.status == PT_EXIT_OK)
			FUZZ_FAIL("a refused pack without a message (status %d)", err.status);
		if (err.status == PT_EXIT_SYSTEM)
			FUZZ_FAIL("a refused pack is a system error: %s", err.msg);
		if (installed() != 0)
			FUZZ_FAIL("a refused pack changed the store");
	} else {
		if (installed() != 1 || nrules < 1)
			FUZZ_FAIL("an accepted pack is not installed (%lld rules)", nrules);
		load_again();
		if (pack_remove("fuzz-pack", &err) != 0)
			FUZZ_FAIL("pack_remove: %s", err.msg);
	}
	diag_print(&d, fuzz_devnull());
	diag_release(&d);
	return 0;
}
