/* SPDX-License-Identifier: MIT */
/*
 * The PALLAS_TRIAGE_* environment variables, read once when the program
 * starts (main.c) into struct pt_ctx. This file is the one place that reads
 * them: modules take the values they need as arguments, so a module's
 * behaviour follows from its call, and a unit test sets a value without
 * touching the environment. Every variable is documented where its effect
 * is (docs/); the list is here.
 *
 * The strings point into the environment, which outlives every command; an
 * empty value counts as unset.
 */
#ifndef PT_SETTINGS_H
#define PT_SETTINGS_H

#include <stdbool.h>
#include "pt/http.h"

struct settings {
	const char *rules_dir;      /* PALLAS_TRIAGE_RULES: the rules directory, or NULL */
	const char *now;            /* PALLAS_TRIAGE_NOW: the time to write instead of the
				     * clock (tests fix it), or NULL */
	unsigned threads;           /* PALLAS_TRIAGE_THREADS for one log, 1..64; 0: the
				     * machine decides (also for a value out of range) */
	bool no_cache;              /* PALLAS_TRIAGE_NO_CACHE set and not "0": no rules cache */
	const char *token;          /* PALLAS_TRIAGE_TOKEN: bearer token of report --post */
	const char *session_dir;    /* PALLAS_TRIAGE_SESSION_DIR: where the session is kept
				     * instead of ./.pallas-triage (like GIT_DIR), or NULL */
	const char *test_crash;     /* PALLAS_TRIAGE_TEST_CRASH: step at which a pack
				     * install kills itself (tests), or NULL */
	struct http_env http;       /* PALLAS_TRIAGE_HTTP_* and _CA_BUNDLE, checked by
				     * http_opts_init() when a command uses HTTP */
};

/* Fill s from the environment. Nothing is checked here that only matters to
 * some commands: a bad HTTP timeout fails the command that uses HTTP. */
void settings_read(struct settings *s);

#endif
