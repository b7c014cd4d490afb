/* SPDX-License-Identifier: MIT */
/*
 * The classifier's entry for a log the user named, shared by `triage`,
 * `session start`, `attempt --log` and the walk; see pt/classify.h.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt/advice.h"
#include "pt/classify.h"
#include "pt/rules.h"
#include "pt/sha256.h"

/* Returns an fd (STDIN_FILENO for "-"), or -1 with err set. */
static int
open_log(const char *path, struct pt_err *err)
{
	struct stat st;
	int fd;

	if (strcmp(path, "-") == 0)
		return STDIN_FILENO;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return pt_err_errno(err, PT_EXIT_DATA, "cannot open '%s'", path);
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return pt_err_set(err, PT_EXIT_DATA, "'%s' is a directory, not a log", path);
	}
	return fd;
}

int
classify_path(const struct ruleset *rs, const char *path, const struct log_known *known,
	      unsigned threads, struct verdict *v, struct pt_err *err)
{
	return classify_path_watch(rs, path, known, threads, NULL, v, err);
}

void
verdict_assume_facts(const struct ruleset *rs, struct verdict *v, const struct log_known *known)
{
	const struct vars *f = known ? known->facts : NULL;

	for (size_t i = 0; f && i < f->n; i++) {
		/* the device kind decides the chip (advice.c): an earlier log's
		 * chip must not outvote the device this log names */
		if (strcmp(f->v[i].name, "chip") == 0 && vars_get(&v->vars, "device_kind"))
			continue;
		if (ruleset_is_env_field(rs, f->v[i].name))
			vars_set(&v->vars, f->v[i].name, f->v[i].value, false);
	}
}

static void
hash_tap(void *arg, const char *data, size_t len)
{
	sha256_update(arg, data, len);
}

int
classify_path_digest(const struct ruleset *rs, const char *path, const struct log_known *known,
		     unsigned threads, char digest[65], struct verdict *v, struct pt_err *err)
{
	struct sha256 h;
	struct log_watch w = { .tap = hash_tap, .arg = &h };

	sha256_init(&h);
	if (classify_path_watch(rs, path, known, threads, &w, v, err) < 0)
		return -1;
	sha256_final_hex(&h, digest);
	return 0;
}

int
classify_path_watch(const struct ruleset *rs, const char *path, const struct log_known *known,
		    unsigned threads, const struct log_watch *w, struct verdict *v,
		    struct pt_err *err)
{
	bool in = strcmp(path, "-") == 0;
	struct classify_opts opts = {
		.threads = threads,
		.asserted = known ? known->asserted : NULL,
		.nasserted = known ? known->nasserted : 0,
		.tap = w ? w->tap : NULL,
		.stop = w ? w->stop : NULL,
		.tap_arg = w ? w->arg : NULL,
	};
	int fd = open_log(path, err), rc = -1;

	if (fd >= 0) {
		rc = classify_fd(rs, fd, in ? "<stdin>" : path, &opts, v, err);
		if (rc == 0) {
			verdict_assume_facts(rs, v, known);
			verdict_derive(rs, v);
		}
		if (!in)
			close(fd);
	}
	return rc;
}
