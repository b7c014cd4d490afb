/* SPDX-License-Identifier: MIT */
/*
 * Does settling change a verdict? Classifies each LOG twice with the rules
 * of RULES-DIR: as pallas-triage does (patterns that can no longer change
 * the verdict stop running, with the scout on a big file), and
 * exhaustively (every pattern to its first hit, one thread), and compares
 * the two `--json` documents byte for byte (but for "threads"). `make
 * bench` runs it on every input; tests/settle on logs built to tempt it.
 *
 *   build/perf/verdict_same RULES-DIR LOG...
 *
 * Prints one line per log ("same: LOG" or "DIFFERENT: LOG" and both
 * documents) and exits 1 when any differs, 2 on a usage or read error.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt/advice.h"
#include "pt/buf.h"
#include "pt/classify.h"
#include "pt/diagnosis.h"
#include "pt/json.h"
#include "pt/rules.h"

static struct ruleset *
load_rules(const char *dir)
{
	struct diag d = DIAG_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct ruleset *rs = ruleset_new();

	if (ruleset_load_dir(rs, dir, NULL, &d, &err) < 0 || ruleset_finish(rs, &d) < 0) {
		diag_print(&d, stderr);
		fprintf(stderr, "verdict_same: %s: %s\n", dir, err.msg);
		exit(2);
	}
	diag_release(&d);
	return rs;
}

/* The --json document of one reading, without the thread count. */
static char *
verdict_json(const struct ruleset *rs, const char *path, bool exhaustive)
{
	struct classify_opts o = { .threads = exhaustive ? 1 : 0, .exhaustive = exhaustive };
	struct pt_err err = PT_ERR_INIT;
	struct buf b = BUF_INIT;
	struct verdict v;
	struct json *j;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || classify_fd(rs, fd, path, &o, &v, &err) < 0) {
		perror(path);
		exit(2);
	}
	close(fd);
	verdict_derive(rs, &v);
	v.threads = 0;
	j = diagnosis_json(rs, &v, path);
	json_write(j, &b);
	json_free(j);
	verdict_release(&v);
	return buf_detach(&b, NULL);
}

int
main(int argc, char **argv)
{
	struct ruleset *rs;
	int rc = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: verdict_same RULES-DIR LOG...\n");
		return 2;
	}
	rs = load_rules(argv[1]);
	for (int i = 2; i < argc; i++) {
		char *fast = verdict_json(rs, argv[i], false);
		char *full = verdict_json(rs, argv[i], true);

		if (strcmp(fast, full) == 0) {
			printf("same: %s\n", argv[i]);
		} else {
			printf("DIFFERENT: %s\nsettled:    %s\nexhaustive: %s\n", argv[i], fast, full);
			rc = 1;
		}
		free(fast);
		free(full);
	}
	ruleset_free(rs);
	return rc;
}
