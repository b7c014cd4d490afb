/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the binary ruleset cache reader (rules_cache_load). A random
 * file would almost never get past the magic, the key and the trailing hash,
 * so the harness wraps the input as a real cache file does: magic, key,
 * body = the input, then rules_cache_checksum() of it all. The reader must treat any body as a hit or a miss, never
 * crash or leak; a ruleset it accepts is used to classify a short log.
 * Seeds are bodies of real cache files (tests/fuzz/seeds.sh).
 */
#include <dirent.h>
#include <ftw.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "pt/buf.h"
#include "pt/classify.h"
#include "pt/rules_cache.h"
#include "pt/util.h"
#include "pt/xalloc.h"

#define KEY "pallas-triage fuzz 0000000000000000\ndir /fuzz\n"

static char tmp[] = "/tmp/pt-fuzz-cache.XXXXXX";
static char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv);

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void
cleanup(void)
{
	nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Where rules_cache_load() looks for KEY: write one entry to find out. */
static void
find_path(void)
{
	struct ruleset *rs = ruleset_new();
	char *dir = xasprintf("%s/pallas-triage", tmp);
	struct dirent *e;
	DIR *dp;

	if (rules_cache_save(rs, KEY) < 0 || !(dp = opendir(dir)))
		abort();
	while ((e = readdir(dp)))
		if (strncmp(e->d_name, "rules-", 6) == 0)
			path = xasprintf("%s/%s", dir, e->d_name);
	closedir(dp);
	if (!path)
		abort();
	ruleset_free(rs);
	free(dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!mkdtemp(tmp))
		abort();
	atexit(cleanup);
	setenv("XDG_CACHE_HOME", tmp, 1);
	unsetenv("PALLAS_TRIAGE_NO_CACHE");
	find_path();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char log[] = "Traceback (most recent call last):\n"
				  "  File \"k.py\", line 3, in <module>\n"
				  "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory "
				  "in memory space vmem while allocating on stack for %kernel. "
				  "Scoped allocation with size 20.00M and limit 16.00M exceeded\n";
	struct buf b = BUF_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct ruleset *rs;
	uint32_t klen = (uint32_t)strlen(KEY);
	uint64_t h;

	buf_add(&b, RULES_CACHE_MAGIC, 8);
	buf_add(&b, &klen, sizeof(klen));
	buf_add(&b, KEY, klen);
	buf_add(&b, data, size);
	h = rules_cache_checksum(b.data + 8, b.len - 8);
	buf_add(&b, &h, sizeof(h));
	if (util_write_atomic(path, b.data, b.len, &err) < 0)
		FUZZ_FAIL("%s", err.msg);
	buf_release(&b);
	if ((rs = rules_cache_load(KEY))) {
		struct verdict v;

		memset(&v, 0, sizeof(v));
		classify_text(rs, log, sizeof(log) - 1, &v);
		verdict_release(&v);
		ruleset_free(rs);
	}
	return 0;
}
